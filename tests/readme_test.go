package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/fixture"
)

// TestREADMEChartAuthorsTestIsCompiled: the test the README shows chart authors is
// the one examples/consumer-app's module compiles and `make test` runs.
func TestREADMEChartAuthorsTestIsCompiled(t *testing.T) {
	readme, err := os.ReadFile(fixture.Path("README.md"))
	require.NoError(t, err)
	section := string(readme)[strings.Index(string(readme), "## Test your own chart"):]
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	require.NotNil(t, block, "the section shows a Go block")
	file, err := os.ReadFile(fixture.Path("examples", "consumer-app", "consumer_test.go"))
	require.NoError(t, err)
	assert.Contains(t, string(file), block[1], "README's test is not the one in examples/consumer-app/consumer_test.go")

	// every example function the README names exists
	examples, err := os.ReadFile(fixture.Path("proxytest", "example_test.go"))
	require.NoError(t, err)
	for _, name := range regexp.MustCompile("`(Example[A-Za-z_]+)`").FindAllStringSubmatch(section, -1) {
		assert.Contains(t, string(examples), "func "+name[1]+"()", "README names %s", name[1])
	}
}

// TestREADMEHelperTable: every public helper of the library has a row in the
// README's helper reference, and the row names the file that defines it, so a
// newcomer finds any helper in one step.
func TestREADMEHelperTable(t *testing.T) {
	readme, err := os.ReadFile(fixture.Path("README.md"))
	require.NoError(t, err)
	rows := map[string]string{} // helper -> file
	for _, m := range regexp.MustCompile("(?m)^\\| `(proxykit\\.[A-Za-z.]+)`(?:, `proxykit\\.[A-Za-z.]+`)* \\| `(_[A-Za-z]+\\.tpl)` \\|").FindAllStringSubmatch(string(readme), -1) {
		rows[m[1]] = m[2]
	}
	// internal families: the README names them below the table; their names may change
	internal := regexp.MustCompile(`^proxykit\.(resolve|noProxy|validate|keys|context|env)\.`)
	files, err := filepath.Glob(fixture.Path("library", "proxykit", "templates", "_*.tpl"))
	require.NoError(t, err)
	defined := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`define "(proxykit\.[A-Za-z.]+)"`).FindAllStringSubmatch(string(text), -1) {
			if internal.MatchString(m[1]) {
				continue
			}
			defined++
			assert.Equal(t, filepath.Base(f), rows[m[1]], "README's helper reference: %s is defined in %s", m[1], filepath.Base(f))
		}
	}
	assert.Greater(t, defined, 20)
}
