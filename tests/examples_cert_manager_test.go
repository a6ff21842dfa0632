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

// helmRelease is the part of a Flux HelmRelease the example sets.
type helmRelease struct {
	Spec struct {
		TargetNamespace string `json:"targetNamespace"`
		Chart           struct {
			Spec struct{ Chart, Version string } `json:"spec"`
		} `json:"chart"`
		ValuesFrom []struct{ Kind, Name, ValuesKey string } `json:"valuesFrom"`
	} `json:"spec"`
}

// TestCertManagerExampleReadsClusterValues follows the HelmRelease's valuesFrom
// into the cluster-proxy render and checks what cert-manager would receive.
func TestCertManagerExampleReadsClusterValues(t *testing.T) {
	r, err := fixture.RenderE(fixture.Path("examples", "cert-manager"), proxytest.Values("clusterName: wc1\n"))
	require.NoError(t, err)
	var hr helmRelease
	require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, r, "HelmRelease", "wc1-cert-manager").Raw), &hr))
	assert.Equal(t, "cert-manager", hr.Spec.Chart.Spec.Chart)
	require.Len(t, hr.Spec.ValuesFrom, 1)
	from := hr.Spec.ValuesFrom[0]
	assert.Equal(t, "Secret", from.Kind)

	for name, values := range map[string]string{
		"plain":       fixture.ClusterProxyPlain,
		"credentials": fixture.CredentialValues(t, map[string]any{"clusterName": "wc1"}),
	} {
		t.Run(name, func(t *testing.T) {
			secret := proxytest.Get[corev1.Secret](t, fixture.Render(t, fixture.ClusterProxy, proxytest.Values(values)), from.Name)
			raw, ok := secret.Data[from.ValuesKey]
			require.True(t, ok, "valuesFrom reads missing key %q", from.ValuesKey)
			var got map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(raw), &got))
			for key := range got {
				assert.Contains(t, []string{"http_proxy", "https_proxy", "no_proxy", "extraEnv", "volumes", "volumeMounts"}, key, "cert-manager's schema rejects unknown top-level keys")
			}
			if name == "plain" {
				assertCoversCluster(t, got["no_proxy"].(string))
			} else {
				assert.NotContains(t, string(raw), fixture.LeakMarker, "cert-manager would copy a URL into a plain env value")
				assert.Contains(t, got, "extraEnv")
			}
		})
	}
}
