package tests

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMakeTestRunsEveryPackage: `make test` names the packages it runs before
// tests/ (which must come last); a new package must join that list.
func TestMakeTestRunsEveryPackage(t *testing.T) {
	makefile, err := os.ReadFile(repoPath("Makefile"))
	require.NoError(t, err)
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	require.NoError(t, err)
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, "github.com/proxykit/proxykit"), "/")
		switch {
		case rel == "":
			assert.Contains(t, string(makefile), "$(GO) test -count=1 . ", "the root package")
		case rel == "tests":
		default:
			top := strings.SplitN(rel, "/", 2)[0]
			assert.Contains(t, string(makefile), " ./"+top+"/...", "make test runs %s", pkg)
		}
	}
}
