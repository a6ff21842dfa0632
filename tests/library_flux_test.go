package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

func TestFluxProxySecret(t *testing.T) {
	// the password holds an escaped "@", an escaped "%", and a "%2541" that must decode once
	url := "http://flux-user:p%40ss%25w%2541rd&+@proxy.corp.example:3128"
	values := fixture.ValuesYAML(t, map[string]any{
		"clusterName": "wc1",
		"proxy":       map[string]any{"http": "http://plain.corp.example:3128", "https": url},
		"cluster":     map[string]any{"serviceCIDRs": "10.96.0.0/12"},
		"flux":        map[string]any{"enabled": true, "secretName": "corp-proxy", "namespace": "flux-system"},
	})
	r, err := fixture.RenderE(fixture.ClusterProxy, proxytest.Values(values))
	require.NoError(t, err)
	s := proxytest.Get[corev1.Secret](t, r, "corp-proxy")
	assert.Equal(t, "flux-system", s.Namespace)
	assert.Equal(t, map[string]string{
		"address":  "http://proxy.corp.example:3128",
		"username": "flux-user",
		"password": "p@ss%w%41rd&+",
	}, map[string]string{"address": string(s.Data["address"]), "username": string(s.Data["username"]), "password": string(s.Data["password"])})
	assert.Equal(t, []string{"Secret/corp-proxy@flux-system"}, objectsBySource(r)["templates/flux-proxy-secret.yaml"])

	t.Run("without credentials: the address alone", func(t *testing.T) {
		r := fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.ClusterProxyPlain+"flux: {enabled: true}\n"))
		s := proxytest.Get[corev1.Secret](t, r, "proxy")
		assert.Equal(t, "http://proxy.corp.example:3129", string(s.Data["address"]), "the https URL by default")
		assert.NotContains(t, s.Data, "username")
	})
	t.Run("an escape of a non-ASCII byte fails naming the key, not the password", func(t *testing.T) {
		// the proxy URL's own check stops it before the Flux Secret decodes it
		err := fixture.RenderError(t, fixture.ClusterProxy, proxytest.Values(strings.Replace(values, "p%40ss", "p%C3%A9ss", 1)))
		assert.Contains(t, err, "proxykit: proxy.https:")
		assert.Contains(t, err, "non-ASCII")
		assert.NotContains(t, err, "C3%A9")
	})
}
