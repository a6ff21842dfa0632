package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// TestKubeadmGetsTheProxyFromTheSecret: the preKubeadmCommands, run by real
// shells (dash as sh, and bash) on the env file from the rendered Secret, export
// exactly the six variables with byte-exact values, and nothing of the URL is
// in the KubeadmConfigs.
func TestKubeadmGetsTheProxyFromTheSecret(t *testing.T) {
	password := `p%40ss%2F&'+$x;=,()*!~:` // every character a URL carries as is, and escapes
	httpURL := "http://svc-proxy:" + password + "@proxy.corp.example:3128"
	values := fixture.ValuesYAML(t, map[string]any{
		"clusterName": "wc1",
		"proxy":       map[string]any{"http": httpURL, "https": httpURL},
		"cluster":     map[string]any{"podCIDRs": "10.244.0.0/16", "serviceCIDRs": "10.96.0.0/12", "apiServer": "10.96.0.1"},
	})
	proxy := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values))
	noProxy := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)))["noProxy"]
	envFile := filepath.Join(t.TempDir(), "proxy.env")
	require.NoError(t, os.WriteFile(envFile, proxytest.Get[corev1.Secret](t, proxy, "wc1-systemd-proxy").Data["proxyEnv"], 0o600))

	for kind, spec := range capiSpecs(t) {
		for _, shell := range []string{"sh", "bash"} {
			t.Run(kind+"/"+shell, func(t *testing.T) {
				// systemctl is a no-op here; everything else runs as the node runs it, in one script
				script := "systemctl() { :; }\n" + strings.ReplaceAll(strings.Join(spec.PreKubeadmCommands, "\n"), "/etc/proxykit/proxy.env", envFile) +
					"\nenv -0 | grep -z -i '^[a-z]*_proxy='\n"
				cmd := exec.Command(shell, "-c", script)
				cmd.Env = []string{"PATH=/usr/bin:/bin"}
				out, err := cmd.Output()
				require.NoError(t, err)
				got := map[string]string{}
				for _, kv := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
					k, v, _ := strings.Cut(kv, "=")
					got[k] = v
				}
				assert.Equal(t, map[string]string{
					"HTTP_PROXY": httpURL, "HTTPS_PROXY": httpURL, "NO_PROXY": noProxy,
					"http_proxy": httpURL, "https_proxy": httpURL, "no_proxy": noProxy,
				}, got)
			})
		}
		for _, cmd := range spec.PreKubeadmCommands {
			assert.NotContains(t, cmd, "svc-proxy", "%s: the KubeadmConfig holds no URL", kind)
		}
	}
}

func TestKubeadmSecretNameNeedsAClusterName(t *testing.T) {
	err := fixture.RenderError(t, fixture.Path("examples", "capi"), proxytest.Values("clusterName: \"\"\n"))
	assert.Contains(t, err, "clusterName is required")
}
