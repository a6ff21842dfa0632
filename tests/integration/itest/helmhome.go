//go:build integration

package itest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/fixture"
)

// helmHome runs the helm CLI with its own config, cache and registry files, so
// a test's repositories and logins never touch the user's.
type helmHome struct{ Env []string }

func NewHelmHome(t *testing.T) helmHome {
	home := t.TempDir()
	return helmHome{Env: append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
		"HELM_REGISTRY_CONFIG="+filepath.Join(home, "registry.json"),
		"HELM_REPOSITORY_CONFIG="+filepath.Join(home, "repositories.yaml"),
		"HELM_REPOSITORY_CACHE="+filepath.Join(home, "repository"),
	)}
}

func (h helmHome) Run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(fixture.Path("bin", "helm"), args...)
	cmd.Dir, cmd.Env = dir, h.Env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "helm %s:\n%s", strings.Join(args, " "), out)
	return string(out)
}
