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

func TestCertManagerValues(t *testing.T) {
	t.Run("plain: the upstream chart's own keys", func(t *testing.T) {
		var got map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy)))["certManager"]), &got))
		assert.Equal(t, map[string]any{"http_proxy": "http://proxy.corp:3128", "https_proxy": "http://proxy.corp:3129", "no_proxy": fixture.NoProxyPlain}, got)
	})
	t.Run("https only: no empty http_proxy", func(t *testing.T) {
		var got map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values("proxy: {https: \"http://p:1\"}\ncluster: {serviceCIDRs: [10.96.0.0/12]}")))["certManager"]), &got))
		assert.Equal(t, []string{"https_proxy", "no_proxy"}, sortedKeys(got))
	})
	t.Run("credentials: extraEnv with secretKeyRefs, no URL", func(t *testing.T) {
		certManager := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.CredentialValues(t, nil))))["certManager"]
		assert.NotContains(t, certManager, fixture.LeakMarker)
		var got struct {
			ExtraEnv []corev1.EnvVar `json:"extraEnv"`
		}
		require.NoError(t, yamlUnmarshalStrict(certManager, &got))
		assert.Equal(t, fixture.SecretEnv(fixture.Release+"-proxy-credentials", true), got.ExtraEnv)
	})
}
