//go:build integration

package distribution

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"

	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// TestGoInstallTheCLI proves the documented install, `go install
// github.com/proxykit/proxykit/cmd/proxykit@VERSION`, into a fresh GOPATH. The module is served from a file GOPROXY holding this working
// tree as a version, zipped the way the Go module proxy zips a tagged commit;
// its dependencies come from the local module cache, so nothing is fetched.
// It installs what is committed (HEAD), as a clean clone in CI has it.
func TestGoInstallTheCLI(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	const modulePath = "github.com/proxykit/proxykit"
	version := "v0.19.0-local." + time.Now().UTC().Format("20060102150405")
	proxy := t.TempDir()
	at := filepath.Join(proxy, modulePath, "@v")
	require.NoError(t, os.MkdirAll(at, 0o755))
	f, err := os.Create(filepath.Join(at, version+".zip"))
	require.NoError(t, err)
	// the committed tree, as the proxy zips a tag: bin/ and other ignored files stay out
	require.NoError(t, zip.CreateFromVCS(f, module.Version{Path: modulePath, Version: version}, fixture.Root, "HEAD", ""))
	require.NoError(t, f.Close())
	goMod, err := exec.Command("git", "-C", fixture.Root, "show", "HEAD:go.mod").Output()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(at, version+".mod"), goMod, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, version+".info"), []byte(fmt.Sprintf(`{"Version":%q,"Time":%q}`, version, time.Now().UTC().Format(time.RFC3339))), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, "list"), []byte(version+"\n"), 0o644))

	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	modCache := strings.TrimSpace(string(out))
	// the dependencies are the module cache's own; this module's entries, which the
	// install adds, are removed again so the cache holds no local version
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(modCache, modulePath+"@"+version)) })
	for _, dir := range []string{filepath.Join(modCache, "github.com", "proxykit"), filepath.Join(modCache, "cache", "download", "github.com", "proxykit")} {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			t.Cleanup(func() { _ = os.RemoveAll(dir) })
		}
	}
	fresh := t.TempDir()
	cmd := exec.Command("go", "install", modulePath+"/cmd/proxykit@"+version)
	cmd.Dir = fresh
	cmd.Env = append(os.Environ(),
		"GOPATH="+filepath.Join(fresh, "gopath"), "GOMODCACHE="+modCache,
		"GOPROXY=file://"+proxy+",file://"+filepath.Join(modCache, "cache", "download"),
		"GOSUMDB=off", "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local",
	)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "go install:\n%s", out)
	bin := filepath.Join(fresh, "gopath", "bin", "proxykit")
	require.FileExists(t, bin)

	run := exec.Command(bin, "noproxy", "-f", fixture.Path("examples", "providers", "gke.yaml"))
	got, err := run.CombinedOutput()
	require.NoError(t, err, "%s", got)
	assert.Equal(t, "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.0.0.0/14,10.4.0.0/19,10.4.0.1,169.254.169.254,metadata.google.internal,168.63.129.16,169.254.170.23,fd00:ec2::254,fd00:ec2::23,googleapis.com,.googleapis.com,[::1],[fd00:ec2::254],[fd00:ec2::23]\n", string(got))
}
