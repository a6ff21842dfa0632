package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/fixture"
)

// TestMakeTestRunsEveryPackage: `make test` names every package of the module; a
// new package must join its list.
func TestMakeTestRunsEveryPackage(t *testing.T) {
	makefile, err := os.ReadFile(fixture.Path("Makefile"))
	require.NoError(t, err)
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = fixture.Root
	out, err := cmd.Output()
	require.NoError(t, err)
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, "github.com/proxykit/proxykit"), "/")
		switch {
		case rel == "":
			assert.Contains(t, string(makefile), "$(GO) test -count=1 -race . ", "the root package")
		case rel == "tests/fixture": // no tests of its own: the two suites below use it
		case strings.HasPrefix(rel, "tests"):
			assert.Contains(t, string(makefile), " ./"+rel+"/\n", "make test runs %s", pkg)
		default:
			top := strings.SplitN(rel, "/", 2)[0]
			assert.Contains(t, string(makefile), " ./"+top+"/...", "make test runs %s", pkg)
		}
	}
}
