//go:build integration

package distribution

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/internal/testfs"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// TestConsumerOutsideTheRepository: a chart author's chart and test module in a
// directory of its own, with one import of proxytest, passes `go test` and
// fails it when a container loses its proxy.
func TestConsumerOutsideTheRepository(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	dir := filepath.Join(t.TempDir(), "my-chart")
	testfs.CopyTree(t, fixture.ConsumerApp, dir, "charts")
	// the test reads ../providers/*.yaml: give it a providers folder beside the chart
	testfs.CopyTree(t, fixture.Path("examples", "providers"), filepath.Join(filepath.Dir(dir), "providers"))
	goMod := filepath.Join(dir, "go.mod")
	b, err := os.ReadFile(goMod)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(goMod, []byte(strings.Replace(string(b), "=> ../..", "=> "+fixture.Root, 1)), 0o644))

	goTest := func() (string, error) {
		cmd := exec.Command("go", "test", "-count=1", "./...")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := goTest()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, out, "ok  \tgithub.com/proxykit/proxykit/examples/consumer-app")

	// the agent forgets its proxy: the author's test names the container and the rule
	agent := filepath.Join(dir, "templates", "agent-daemonset.yaml")
	b, err = os.ReadFile(agent)
	require.NoError(t, err)
	broken := strings.Replace(string(b), `(dict "context" $ "env"`, `(dict "context" $ "proxy" false "env"`, 1)
	require.NotEqual(t, string(b), broken, "the agent template changed; update this test")
	require.NoError(t, os.WriteFile(agent, []byte(broken), 0o644))
	out, err = goTest()
	require.Error(t, err)
	assert.Contains(t, out, "DaemonSet/release-name-agent container agent: missing-proxy-env: HTTP_PROXY, HTTPS_PROXY, NO_PROXY, http_proxy, https_proxy, no_proxy are not set; call proxykit.generateEnv for it")
	assert.Equal(t, 1+2+1+6, strings.Count(out, "container agent: missing-proxy-env"),
		"one finding per render: the chart's own values, its two ci/ files, the independent facts and each provider's:\n%s", out)
}
