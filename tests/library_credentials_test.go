package tests

import (
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// A password with every character that tends to get mangled on its way to a node:
// % (also as the escape %40), & ' " + @ : / and a backslash. "Zq" marks it for leak checks.
const (
	password   = `Zq%40w%&'"+@:/\9`
	credHTTP   = "http://svc-user:" + password + "@proxy.corp:3128"
	credHTTPS  = "https://svc-user:" + password + "@proxy.corp:3129"
	leakMarker = "Zq"
)

func credentialValues(t testing.TB, extra map[string]any) string {
	v := map[string]any{
		"proxy":    map[string]any{"http": credHTTP, "https": credHTTPS},
		"cluster":  map[string]any{"podCIDRs": []string{"10.244.0.0/16"}, "serviceCIDRs": "10.96.0.0/12", "apiServer": "10.96.0.1"},
		"defaults": map[string]any{"env": []any{map[string]any{"name": "TZ", "value": "UTC"}}},
	}
	for k, x := range extra {
		v[k] = x
	}
	return valuesYAML(t, v)
}

// secretEnv is the proxy tier when every variable comes from the Secret.
func secretEnv(secret string, lowercase bool) []corev1.EnvVar {
	env := []corev1.EnvVar{}
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"} {
		env = append(env, secretRef(name, secret, name))
	}
	if lowercase {
		for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"} {
			env = append(env, secretRef(strings.ToLower(name), secret, name))
		}
	}
	return env
}

// assertNoCredentialsOutsideSecrets fails when any non-Secret document carries the password.
func assertNoCredentialsOutsideSecrets(t *testing.T, r *proxytest.Manifests) {
	t.Helper()
	for _, d := range r.Objects {
		if d.Kind != "Secret" {
			assert.NotContains(t, string(d.Raw), leakMarker, "%s %s from %s carries the proxy password", d.Kind, d.Name, d.Source)
			assert.NotContains(t, string(d.Raw), "svc-user", "%s %s from %s carries the proxy user", d.Kind, d.Name, d.Source)
		}
	}
}

func TestCredentialsStayInSecrets(t *testing.T) {
	values := credentialValues(t, map[string]any{"secretCopy": map[string]any{"namespace": "apps", "name": "proxy-copy"}})
	renderers := map[string]func() (*proxytest.Manifests, error){
		"sdk": func() (*proxytest.Manifests, error) { return renderSDK(t, fixtureChart, values) },
		"cli": func() (*proxytest.Manifests, error) { return renderCLI(t, fixtureChart, values) },
	}
	for name, render := range renderers {
		t.Run(name, func(t *testing.T) {
			r, err := render()
			require.NoError(t, err)
			secretName := releaseName + "-proxy-credentials"
			h := helpers(t, r)
			assert.Equal(t, "true", h["hasCredentials"])
			assert.Equal(t, secretName, h["secretName"])

			secret := proxytest.Get[corev1.Secret](t, r, secretName)
			assert.Equal(t, namespace, secret.Namespace)
			assert.Equal(t, corev1.SecretTypeOpaque, secret.Type)
			assert.Equal(t, credHTTP, string(secret.Data["HTTP_PROXY"]), "byte-exact")
			assert.Equal(t, credHTTPS, string(secret.Data["HTTPS_PROXY"]), "byte-exact")
			assert.Equal(t, h["noProxy"], string(secret.Data["NO_PROXY"]))

			copyOf := proxytest.Get[corev1.Secret](t, r, "proxy-copy")
			assert.Equal(t, "apps", copyOf.Namespace)
			assert.Equal(t, secret.Data, copyOf.Data)

			spec := proxytest.Get[appsv1.Deployment](t, r, releaseName+"-app").Spec.Template.Spec
			want := append(secretEnv(secretName, true), val("TZ", "UTC"))
			assert.Equal(t, want, container(t, spec, "app").Env)
			assert.Equal(t, want, container(t, spec, "init").Env)
			assert.Equal(t, []corev1.EnvVar{val("TZ", "UTC")}, container(t, spec, "sidecar").Env)

			assertNoCredentialsOutsideSecrets(t, r)
		})
	}
}

func TestCredentialsInOneURLMoveBothToTheSecret(t *testing.T) {
	r := mustRenderSDK(t, fixtureChart, valuesYAML(t, map[string]any{
		"proxy":   map[string]any{"http": "http://proxy.corp:3128", "https": credHTTPS, "lowercase": false},
		"cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12"},
	}))
	secretName := releaseName + "-proxy-credentials"
	assert.Equal(t, secretEnv(secretName, false), container(t, proxytest.Get[appsv1.Deployment](t, r, releaseName+"-app").Spec.Template.Spec, "app").Env)
	assert.Equal(t, "http://proxy.corp:3128", string(proxytest.Get[corev1.Secret](t, r, secretName).Data["HTTP_PROXY"]))
	assertNoCredentialsOutsideSecrets(t, r)
}

func TestExistingSecret(t *testing.T) {
	cases := map[string]string{
		"alone":                  `proxy: {existingSecret: corp-proxy}`,
		"beside credential URLs": credentialValues(t, map[string]any{"proxy": map[string]any{"http": credHTTP, "existingSecret": "corp-proxy"}}),
	}
	for name, values := range cases {
		t.Run(name, func(t *testing.T) {
			r := mustRenderSDK(t, fixtureChart, values)
			h := helpers(t, r)
			assert.Equal(t, "corp-proxy", h["secretName"])
			assert.Equal(t, "true", h["enabled"])
			assert.False(t, has(r, "Secret", releaseName+"-proxy-credentials"), "the user owns the existing Secret")
			env := container(t, proxytest.Get[appsv1.Deployment](t, r, releaseName+"-app").Spec.Template.Spec, "app").Env
			assert.Equal(t, secretEnv("corp-proxy", true), env[:6])
			assertNoCredentialsOutsideSecrets(t, r)
		})
	}
}

func TestPlainProxyRendersNoSecret(t *testing.T) {
	r := mustRenderSDK(t, fixtureChart, plainProxy)
	assert.False(t, has(r, "Secret", releaseName+"-proxy-credentials"))
	assert.Equal(t, "", helpers(t, r)["hasCredentials"])
	assert.Empty(t, strings.TrimSpace(sourceText(r, "templates/proxy-secret.yaml")))
}

func TestCertManagerValues(t *testing.T) {
	t.Run("plain: the upstream chart's own keys", func(t *testing.T) {
		var got map[string]any
		require.NoError(t, yamlUnmarshal(helpers(t, mustRenderSDK(t, fixtureChart, plainProxy))["certManager"], &got))
		assert.Equal(t, map[string]any{"http_proxy": "http://proxy.corp:3128", "https_proxy": "http://proxy.corp:3129", "no_proxy": noProxyPlain}, got)
	})
	t.Run("https only: no empty http_proxy", func(t *testing.T) {
		var got map[string]any
		require.NoError(t, yamlUnmarshal(helpers(t, mustRenderSDK(t, fixtureChart, "proxy: {https: \"http://p:1\"}\ncluster: {serviceCIDRs: [10.96.0.0/12]}"))["certManager"], &got))
		assert.Equal(t, []string{"https_proxy", "no_proxy"}, sortedKeys(got))
	})
	t.Run("credentials: extraEnv with secretKeyRefs, no URL", func(t *testing.T) {
		certManager := helpers(t, mustRenderSDK(t, fixtureChart, credentialValues(t, nil)))["certManager"]
		assert.NotContains(t, certManager, leakMarker)
		var got struct {
			ExtraEnv []corev1.EnvVar `json:"extraEnv"`
		}
		require.NoError(t, yamlUnmarshalStrict(certManager, &got))
		assert.Equal(t, secretEnv(releaseName+"-proxy-credentials", true), got.ExtraEnv)
	})
}
