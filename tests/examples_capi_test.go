package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// capiSpecs renders examples/capi and returns the KubeadmConfigSpec of the
// workers' KubeadmConfigTemplate and of the KubeadmControlPlane, by kind.
func capiSpecs(t *testing.T) map[string]fixture.KubeadmConfigSpec {
	t.Helper()
	r, err := fixture.RenderE(fixture.Path("examples", "capi"), proxytest.Values("clusterName: wc1\n"))
	require.NoError(t, err)
	var tmpl struct {
		Spec struct {
			Template struct{ Spec fixture.KubeadmConfigSpec } `json:"template"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, r, "KubeadmConfigTemplate", "wc1-md-0").Raw), &tmpl))
	var kcp struct {
		Spec struct {
			KubeadmConfigSpec fixture.KubeadmConfigSpec `json:"kubeadmConfigSpec"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, r, "KubeadmControlPlane", "wc1-control-plane").Raw), &kcp))
	return map[string]fixture.KubeadmConfigSpec{"KubeadmConfigTemplate": tmpl.Spec.Template.Spec, "KubeadmControlPlane": kcp.Spec.KubeadmConfigSpec}
}

// TestCAPIExampleReadsTheClusterProxySecret renders the KubeadmConfigTemplate, the
// KubeadmControlPlane and the cluster-proxy chart for the same cluster, and
// follows every file to its Secret key.
func TestCAPIExampleReadsTheClusterProxySecret(t *testing.T) {
	proxy := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.ClusterProxyPlain))
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
