package tests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// componentKeys are the values keys each component's chart documents for its
// proxy; the mappings must write exactly these.
var componentKeys = map[string][]string{
	// TKG's kapp-controller package values (kapp-controller's config: httpProxy, httpsProxy, noProxy)
	"kapp-controller": {"kappController.config.httpProxy", "kappController.config.httpsProxy", "kappController.config.noProxy"},
	// TKG's vsphere-cpi and vsphere-csi packages
	"vsphere-cpi": {"vsphereCPI.http_proxy", "vsphereCPI.https_proxy", "vsphereCPI.no_proxy"},
	"vsphere-csi": {"vsphereCSI.http_proxy", "vsphereCSI.https_proxy", "vsphereCSI.no_proxy"},
}

func TestClusterProxyComponentValues(t *testing.T) {
	values := fixture.ClusterProxyPlain + "components: {kappController: true, vsphereCPI: true, vsphereCSI: true}\n"
	r, err := fixture.TryRender(t, fixture.ClusterProxy, values)
	require.NoError(t, err)
	noProxy := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, fixture.ClusterProxyPlain))["noProxy"]
	for component, keys := range componentKeys {
		t.Run(component, func(t *testing.T) {
			secret := proxytest.Get[corev1.Secret](t, r, "wc1-"+component+"-proxy-values")
			var v map[string]any
			require.NoError(t, fixture.YAMLUnmarshal(string(secret.Data["values"]), &v))
			got := map[string]string{}
			fixture.Leaves("", v, got)
			want := map[string]string{keys[0]: "http://proxy.corp.example:3128", keys[1]: "http://proxy.corp.example:3129", keys[2]: noProxy}
			assert.Equal(t, want, got)
		})
	}
	assert.Equal(t, map[string][]string{"templates/component-values-secrets.yaml": {
		"Secret/wc1-kapp-controller-proxy-values@proxykit-test", "Secret/wc1-vsphere-cpi-proxy-values@proxykit-test", "Secret/wc1-vsphere-csi-proxy-values@proxykit-test",
	}}, map[string][]string{"templates/component-values-secrets.yaml": objectsBySource(r)["templates/component-values-secrets.yaml"]})

	t.Run("off by default", func(t *testing.T) {
		r := fixture.Render(t, fixture.ClusterProxy, fixture.ClusterProxyPlain)
		assert.False(t, fixture.Has(r, "Secret", "wc1-kapp-controller-proxy-values"))
	})
	t.Run("with credentials the values stay in Secrets", func(t *testing.T) {
		r := fixture.Render(t, fixture.ClusterProxy, fixture.CredentialValues(t, map[string]any{"clusterName": "mgmt",
			"components": map[string]any{"kappController": true, "vsphereCPI": true}, "flux": map[string]any{"enabled": true}}))
		fixture.AssertNoCredentialsOutsideSecrets(t, r)
		assert.Contains(t, string(proxytest.Get[corev1.Secret](t, r, "mgmt-kapp-controller-proxy-values").Data["values"]), "httpProxy: "+fixture.CredHTTP)
	})
}
