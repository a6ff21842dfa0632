package tests

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEChartAuthorsTestIsCompiled: the test the README shows chart authors is
// the one examples/consumer-app's module compiles and `make test` runs.
func TestREADMEChartAuthorsTestIsCompiled(t *testing.T) {
	readme, err := os.ReadFile(repoPath("README.md"))
	require.NoError(t, err)
	section := string(readme)[strings.Index(string(readme), "## Test your own chart"):]
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	require.NotNil(t, block, "the section shows a Go block")
	file, err := os.ReadFile(repoPath("examples", "consumer-app", "consumer_test.go"))
	require.NoError(t, err)
	assert.Contains(t, string(file), block[1], "README's test is not the one in examples/consumer-app/consumer_test.go")

	// every example function the README names exists
	examples, err := os.ReadFile(repoPath("proxytest", "example_test.go"))
	require.NoError(t, err)
	for _, name := range regexp.MustCompile("`(Example[A-Za-z_]+)`").FindAllStringSubmatch(section, -1) {
		assert.Contains(t, string(examples), "func "+name[1]+"()", "README names %s", name[1])
	}
}
