package tests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// TestAppPlatformExampleReadsClusterValues follows the App CR's spec.config.secret
// into the cluster-proxy render of the same namespace, and reads its `values` key
// the way Giant Swarm's app-operator does.
func TestAppPlatformExampleReadsClusterValues(t *testing.T) {
	r, err := fixture.RenderE(fixture.Path("examples", "app-platform"), proxytest.Values("clusterName: wc1\n"))
	require.NoError(t, err)
	var app struct {
		Metadata struct{ Namespace string } `json:"metadata"`
		Spec     struct {
			Name   string `json:"name"`
			Config struct {
				Secret struct{ Name, Namespace string } `json:"secret"`
			} `json:"config"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, r, "App", "wc1-cert-manager-app").Raw), &app))
	ref := app.Spec.Config.Secret
	assert.Equal(t, fixture.Namespace, ref.Namespace, "the Secret lives beside the App")

	for name, values := range map[string]string{
		"plain":       fixture.ClusterProxyPlain,
		"credentials": fixture.CredentialValues(t, map[string]any{"clusterName": "wc1"}),
	} {
		t.Run(name, func(t *testing.T) {
			proxy := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values))
			secret := proxytest.Get[corev1.Secret](t, proxy, ref.Name)
			assert.Equal(t, ref.Namespace, secret.Namespace)
			var got struct {
				Cluster struct {
					Proxy struct{ HTTP, HTTPS, NoProxy string } `json:"proxy"`
				} `json:"cluster"`
			}
			require.NoError(t, yaml.Unmarshal([]byte(secret.Data["values"]), &got))
			assert.NotEmpty(t, got.Cluster.Proxy.HTTPS)
			assert.Equal(t, fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)))["noProxy"], got.Cluster.Proxy.NoProxy, "the library's NO_PROXY for these values")
			if name == "plain" {
				assertCoversCluster(t, got.Cluster.Proxy.NoProxy)
			}
		})
	}
}
