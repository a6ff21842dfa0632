package proxykit

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The house as ARCHITECTURE.md draws it: each package imports only the layers
// below it, and nothing the product ships imports proxytest or Go's testing
// (proxytest is a test helper beside the product, as httptest is beside http).
func TestLayers(t *testing.T) {
	const module = "github.com/proxykit/proxykit"
	// package -> the module's packages it may import, directly or not
	allowed := map[string][]string{
		".":            {},
		"cluster":      {},
		"noproxy":      {"."},
		"manifest":     {".", "cluster"},
		"rules":        {".", "cluster", "manifest", "noproxy"},
		"inject":       {".", "cluster", "manifest", "noproxy", "rules"},
		"audit":        {".", "cluster", "manifest", "noproxy", "rules"},
		"discover":     {".", "cluster", "manifest", "noproxy", "rules"},
		"cmd/proxykit": {".", "cluster", "manifest", "noproxy", "rules", "inject", "audit", "discover"},
		// the relay stands alone: its image holds nothing of the chart tooling
		"relay":              {},
		"cmd/proxykit-relay": {"relay"},
	}
	readGoFiles(t)
	for pkg, may := range allowed {
		out, err := exec.Command("go", "list", "-deps", "./"+pkg).CombinedOutput()
		require.NoError(t, err, "%s", out)
		for _, dep := range strings.Fields(string(out)) {
			if dep == "testing" {
				t.Errorf("%s imports testing: the product must not link Go's test package", pkg)
			}
			rel, ok := strings.CutPrefix(dep, module)
			if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
				continue
			}
			rel = strings.TrimPrefix(rel, "/")
			if rel == "" {
				rel = "."
			}
			if rel != pkg && !slices.Contains(may, rel) && !strings.HasPrefix(rel, "internal/") {
				t.Errorf("%s imports %s, a package of its own layer or above", pkg, rel)
			}
		}
	}
}

// readGoFiles reads the product's Go files, whose imports go list reads for
// TestLayers, so that go test's cache, which sees the files a test opens but not
// those go list reads for it, reruns TestLayers when an import changes anywhere:
// make test keeps a package's result while nothing it read changed.
func readGoFiles(t *testing.T) {
	t.Helper()
	for _, path := range productGoFiles(t) {
		_, err := os.ReadFile(path)
		require.NoError(t, err)
	}
}
