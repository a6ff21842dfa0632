package tests

import (
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
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

// leaves flattens a values map into dotted paths.
func leaves(prefix string, m map[string]any, out map[string]string) {
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			leaves(prefix+k+".", sub, out)
		} else {
			out[prefix+k] = v.(string)
		}
	}
}

func TestClusterProxyComponentValues(t *testing.T) {
	values := clusterProxyPlain + "components: {kappController: true, vsphereCPI: true, vsphereCSI: true}\n"
	r, err := renderCLI(t, clusterProxyChart, values)
	require.NoError(t, err)
	noProxy := helpers(t, mustRenderSDK(t, fixtureChart, clusterProxyPlain))["noProxy"]
	for component, keys := range componentKeys {
		t.Run(component, func(t *testing.T) {
			secret := proxytest.Get[corev1.Secret](t, r, "wc1-"+component+"-proxy-values")
			var v map[string]any
			require.NoError(t, yamlUnmarshal(string(secret.Data["values"]), &v))
			got := map[string]string{}
			leaves("", v, got)
			want := map[string]string{keys[0]: "http://proxy.corp.example:3128", keys[1]: "http://proxy.corp.example:3129", keys[2]: noProxy}
			assert.Equal(t, want, got)
		})
	}
	assert.Equal(t, map[string][]string{"templates/component-values-secrets.yaml": {
		"Secret/wc1-kapp-controller-proxy-values@proxykit-test", "Secret/wc1-vsphere-cpi-proxy-values@proxykit-test", "Secret/wc1-vsphere-csi-proxy-values@proxykit-test",
	}}, map[string][]string{"templates/component-values-secrets.yaml": objectsBySource(r)["templates/component-values-secrets.yaml"]})

	t.Run("off by default", func(t *testing.T) {
		r := mustRenderSDK(t, clusterProxyChart, clusterProxyPlain)
		assert.False(t, has(r, "Secret", "wc1-kapp-controller-proxy-values"))
	})
	t.Run("with credentials the values stay in Secrets", func(t *testing.T) {
		r := mustRenderSDK(t, clusterProxyChart, credentialValues(t, map[string]any{"clusterName": "mgmt",
			"components": map[string]any{"kappController": true, "vsphereCPI": true}, "flux": map[string]any{"enabled": true}}))
		assertNoCredentialsOutsideSecrets(t, r)
		assert.Contains(t, string(proxytest.Get[corev1.Secret](t, r, "mgmt-kapp-controller-proxy-values").Data["values"]), "httpProxy: "+credHTTP)
	})
}

func TestComponentsValuesHelper(t *testing.T) {
	t.Run("an unknown component names the known ones", func(t *testing.T) {
		err := renderError(t, fixtureChart, plainProxy+"contextCheck: {helper: proxykit.components.values, mode: root}\n")
		assert.Contains(t, err, "proxykit.components.values: pass \"component\" NAME or \"keys\"")
	})
}

func TestFluxProxySecret(t *testing.T) {
	// the password holds an escaped "@", an escaped "%", and a "%2541" that must decode once
	url := "http://flux-user:p%40ss%25w%2541rd&+@proxy.corp.example:3128"
	values := valuesYAML(t, map[string]any{
		"clusterName": "wc1",
		"proxy":       map[string]any{"http": "http://plain.corp.example:3128", "https": url},
		"cluster":     map[string]any{"serviceCIDRs": "10.96.0.0/12"},
		"flux":        map[string]any{"enabled": true, "secretName": "corp-proxy", "namespace": "flux-system"},
	})
	r, err := renderCLI(t, clusterProxyChart, values)
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
		r := mustRenderSDK(t, clusterProxyChart, clusterProxyPlain+"flux: {enabled: true}\n")
		s := proxytest.Get[corev1.Secret](t, r, "proxy")
		assert.Equal(t, "http://proxy.corp.example:3129", string(s.Data["address"]), "the https URL by default")
		assert.NotContains(t, s.Data, "username")
	})
	t.Run("an escape of a non-ASCII byte fails naming the key, not the password", func(t *testing.T) {
		err := renderError(t, clusterProxyChart, strings.Replace(values, "p%40ss", "p%C3%A9ss", 1))
		assert.Contains(t, err, "proxy.https (password)")
		assert.NotContains(t, err, "C3%A9")
	})
}
