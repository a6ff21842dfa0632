package tests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubeadmConfigTemplate is the part of Cluster API's KubeadmConfigTemplate the example sets.
type kubeadmConfigTemplate struct {
	Spec struct {
		Template struct {
			Spec struct {
				Files []struct {
					Path        string `json:"path"`
					Owner       string `json:"owner"`
					Permissions string `json:"permissions"`
					ContentFrom struct {
						Secret struct{ Name, Key string } `json:"secret"`
					} `json:"contentFrom"`
				} `json:"files"`
				PreKubeadmCommands []string `json:"preKubeadmCommands"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// TestCAPIExampleReadsTheClusterProxySecret renders the KubeadmConfigTemplate and
// the cluster-proxy chart for the same cluster, and follows every file to its Secret key.
func TestCAPIExampleReadsTheClusterProxySecret(t *testing.T) {
	r, err := renderCLI(t, repoPath("examples", "capi"), "clusterName: wc1\n")
	require.NoError(t, err)
	doc := r.Find(t, "KubeadmConfigTemplate", "wc1-md-0")
	var tmpl kubeadmConfigTemplate
	require.NoError(t, yamlUnmarshal(string(doc.Raw), &tmpl))
	spec := tmpl.Spec.Template.Spec

	proxy := mustRenderSDK(t, clusterProxyChart, clusterProxyPlain)
	paths := map[string]string{}
	for _, f := range spec.Files {
		assert.Equal(t, "0600", f.Permissions, "drop-ins may carry credentials")
		assert.Equal(t, "root:root", f.Owner)
		secret := proxy.Secret(t, f.ContentFrom.Secret.Name)
		content, ok := secret.Data[f.ContentFrom.Secret.Key]
		require.True(t, ok, "%s reads missing key %s", f.Path, f.ContentFrom.Secret.Key)
		names, _ := parseDropIn(t, string(content))
		assert.Len(t, names, 6)
		paths[f.Path] = f.ContentFrom.Secret.Key
	}
	assert.Equal(t, map[string]string{
		"/etc/systemd/system/containerd.service.d/http-proxy.conf": "containerdProxy",
		"/etc/systemd/system/kubelet.service.d/http-proxy.conf":    "kubeletProxy",
	}, paths)
	assert.Equal(t, []string{"systemctl daemon-reload", "systemctl restart containerd"}, spec.PreKubeadmCommands)
}

func TestKubeadmSecretNameNeedsAClusterName(t *testing.T) {
	err := renderError(t, repoPath("examples", "capi"), "clusterName: \"\"\n")
	assert.Contains(t, err, "clusterName is required")
}
