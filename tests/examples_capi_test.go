package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// kubeadmConfigSpec is the part of Cluster API's KubeadmConfigSpec the example sets.
type kubeadmConfigSpec struct {
	Files []struct {
		Path        string `json:"path"`
		Owner       string `json:"owner"`
		Permissions string `json:"permissions"`
		ContentFrom struct {
			Secret struct{ Name, Key string } `json:"secret"`
		} `json:"contentFrom"`
	} `json:"files"`
	PreKubeadmCommands []string `json:"preKubeadmCommands"`
}

// capiSpecs renders examples/capi and returns the KubeadmConfigSpec of the
// workers' KubeadmConfigTemplate and of the KubeadmControlPlane, by kind.
func capiSpecs(t *testing.T) map[string]kubeadmConfigSpec {
	t.Helper()
	r, err := renderCLI(t, repoPath("examples", "capi"), "clusterName: wc1\n")
	require.NoError(t, err)
	var tmpl struct {
		Spec struct {
			Template struct{ Spec kubeadmConfigSpec } `json:"template"`
		} `json:"spec"`
	}
	require.NoError(t, yamlUnmarshal(string(find(t, r, "KubeadmConfigTemplate", "wc1-md-0").Raw), &tmpl))
	var kcp struct {
		Spec struct {
			KubeadmConfigSpec kubeadmConfigSpec `json:"kubeadmConfigSpec"`
		} `json:"spec"`
	}
	require.NoError(t, yamlUnmarshal(string(find(t, r, "KubeadmControlPlane", "wc1-control-plane").Raw), &kcp))
	return map[string]kubeadmConfigSpec{"KubeadmConfigTemplate": tmpl.Spec.Template.Spec, "KubeadmControlPlane": kcp.Spec.KubeadmConfigSpec}
}

// TestCAPIExampleReadsTheClusterProxySecret renders the KubeadmConfigTemplate, the
// KubeadmControlPlane and the cluster-proxy chart for the same cluster, and
// follows every file to its Secret key.
func TestCAPIExampleReadsTheClusterProxySecret(t *testing.T) {
	proxy := mustRenderSDK(t, clusterProxyChart, clusterProxyPlain)
	for kind, spec := range capiSpecs(t) {
		t.Run(kind, func(t *testing.T) {
			paths := map[string]string{}
			for _, f := range spec.Files {
				assert.Equal(t, "0600", f.Permissions, "drop-ins and the env file may carry credentials")
				assert.Equal(t, "root:root", f.Owner)
				secret := proxytest.Get[corev1.Secret](t, proxy, f.ContentFrom.Secret.Name)
				content, ok := secret.Data[f.ContentFrom.Secret.Key]
				require.True(t, ok, "%s reads missing key %s", f.Path, f.ContentFrom.Secret.Key)
				if strings.HasSuffix(f.Path, ".conf") {
					names, _ := parseDropIn(t, string(content))
					assert.Len(t, names, 6)
				} else {
					assert.Equal(t, 6, strings.Count(string(content), "\nexport "), "six exports:\n%s", content)
				}
				paths[f.Path] = f.ContentFrom.Secret.Key
			}
			assert.Equal(t, map[string]string{
				"/etc/systemd/system/containerd.service.d/http-proxy.conf": "containerdProxy",
				"/etc/systemd/system/kubelet.service.d/http-proxy.conf":    "kubeletProxy",
				"/etc/proxykit/proxy.env":                                  "proxyEnv",
			}, paths)
			assert.Equal(t, []string{"systemctl daemon-reload", "systemctl restart containerd", "if [ -f /etc/proxykit/proxy.env ]; then . /etc/proxykit/proxy.env; fi"}, spec.PreKubeadmCommands)
		})
	}
}

// TestKubeadmGetsTheProxyFromTheSecret: the preKubeadmCommands, run by real
// shells (dash as sh, and bash) on the env file from the rendered Secret, export
// exactly the six variables with byte-exact values, and nothing of the URL is
// in the KubeadmConfigs.
func TestKubeadmGetsTheProxyFromTheSecret(t *testing.T) {
	password := `p%40ss&'"+@:/\w$x` + "`id`"
	httpURL := "http://svc-proxy:" + password + "@proxy.corp.example:3128"
	values := valuesYAML(t, map[string]any{
		"clusterName": "wc1",
		"proxy":       map[string]any{"http": httpURL, "https": httpURL},
		"cluster":     map[string]any{"podCIDRs": "10.244.0.0/16", "serviceCIDRs": "10.96.0.0/12", "apiServer": "10.96.0.1"},
	})
	proxy := mustRenderSDK(t, clusterProxyChart, values)
	noProxy := helpers(t, mustRenderSDK(t, fixtureChart, values))["noProxy"]
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
	err := renderError(t, repoPath("examples", "capi"), "clusterName: \"\"\n")
	assert.Contains(t, err, "clusterName is required")
}
