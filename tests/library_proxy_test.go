package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chartutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

func TestCredentialsStayInSecrets(t *testing.T) {
	values := fixture.CredentialValues(t, map[string]any{"secretCopy": map[string]any{"namespace": "apps", "name": "proxy-copy"}})
	// the helm CLI renders the same objects: integration's TestCLIAndSDKRenderTheSame
	renderers := map[string]func() (*proxytest.Manifests, error){
		"sdk": func() (*proxytest.Manifests, error) {
			return fixture.RenderE(fixture.Fixture, proxytest.Values(values))
		},
	}
	for name, render := range renderers {
		t.Run(name, func(t *testing.T) {
			r, err := render()
			require.NoError(t, err)
			secretName := fixture.Release + "-proxy-credentials"
			h := fixture.Helpers(t, r)
			assert.Equal(t, "true", h["hasCredentials"])
			assert.Equal(t, secretName, h["secretName"])

			secret := proxytest.Get[corev1.Secret](t, r, secretName)
			assert.Equal(t, fixture.Namespace, secret.Namespace)
			assert.Equal(t, corev1.SecretTypeOpaque, secret.Type)
			assert.Equal(t, fixture.CredHTTP, string(secret.Data["HTTP_PROXY"]), "byte-exact")
			assert.Equal(t, fixture.CredHTTPS, string(secret.Data["HTTPS_PROXY"]), "byte-exact")
			assert.Equal(t, h["noProxy"], string(secret.Data["NO_PROXY"]))

			copyOf := proxytest.Get[corev1.Secret](t, r, "proxy-copy")
			assert.Equal(t, "apps", copyOf.Namespace)
			assert.Equal(t, secret.Data, copyOf.Data)

			spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-app").Spec.Template.Spec
			want := append(fixture.SecretEnv(secretName, true), fixture.Val("TZ", "UTC"))
			assert.Equal(t, want, fixture.SpecContainer(t, spec, "app").Env)
			assert.Equal(t, want, fixture.SpecContainer(t, spec, "init").Env)
			assert.Equal(t, []corev1.EnvVar{fixture.Val("TZ", "UTC")}, fixture.SpecContainer(t, spec, "sidecar").Env)

			fixture.AssertNoCredentialsOutsideSecrets(t, r)
		})
	}
}

func TestCredentialsInOneURLMoveBothToTheSecret(t *testing.T) {
	r := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.ValuesYAML(t, map[string]any{
		"proxy":   map[string]any{"http": "http://proxy.corp:3128", "https": fixture.CredHTTPS, "lowercase": false},
		"cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12"},
	})))

	secretName := fixture.Release + "-proxy-credentials"
	assert.Equal(t, fixture.SecretEnv(secretName, false), r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env)
	assert.Equal(t, "http://proxy.corp:3128", string(proxytest.Get[corev1.Secret](t, r, secretName).Data["HTTP_PROXY"]))
	fixture.AssertNoCredentialsOutsideSecrets(t, r)
}

func TestExistingSecret(t *testing.T) {
	cases := map[string]string{
		"alone":                  `proxy: {existingSecret: corp-proxy}`,
		"beside credential URLs": fixture.CredentialValues(t, map[string]any{"proxy": map[string]any{"http": fixture.CredHTTP, "existingSecret": "corp-proxy"}}),
	}
	for name, values := range cases {
		t.Run(name, func(t *testing.T) {
			r := fixture.Render(t, fixture.Fixture, proxytest.Values(values))
			h := fixture.Helpers(t, r)
			assert.Equal(t, "corp-proxy", h["secretName"])
			assert.Equal(t, "true", h["enabled"])
			assert.Nil(t, r.Find("Secret", fixture.Release+"-proxy-credentials"), "the user owns the existing Secret")
			env := r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env
			assert.Equal(t, fixture.SecretEnv("corp-proxy", true), env[:6])
			fixture.AssertNoCredentialsOutsideSecrets(t, r)
		})
	}
}

func TestPlainProxyRendersNoSecret(t *testing.T) {
	r := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy))
	assert.Nil(t, r.Find("Secret", fixture.Release+"-proxy-credentials"))
	assert.Equal(t, "", fixture.Helpers(t, r)["hasCredentials"])
	assert.Empty(t, strings.TrimSpace(fixture.SourceText(r, "templates/proxy-secret.yaml")))
}

// proxykit.proxy.envValues: each variable's value as a container sees it, the
// library's Secret read; a value in proxy.existingSecret, which the values do
// not know, is left out.
func TestEnvValues(t *testing.T) {
	const cluster = `cluster: {serviceCIDRs: [10.96.0.0/12], metadataEndpoints: false}` + "\n"
	const noProxy = "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.96.0.0/12,[::1]"
	for _, c := range []struct {
		name, values string
		want         map[string]string
	}{
		{"proxy off", cluster, map[string]string{}},
		{"plain", cluster + `proxy: {http: "http://proxy:3128", lowercase: false}`, map[string]string{"HTTP_PROXY": "http://proxy:3128", "NO_PROXY": noProxy}},
		{"credentials: the Secret's URL", cluster + `proxy: {http: "http://u:p%40ss@proxy:3128", https: "http://u:p%40ss@proxy:3128", lowercase: false}`,
			map[string]string{"HTTP_PROXY": "http://u:p%40ss@proxy:3128", "HTTPS_PROXY": "http://u:p%40ss@proxy:3128", "NO_PROXY": noProxy}},
		{"existingSecret: only what the values know", cluster + `proxy: {existingSecret: corp-proxy, lowercase: false}`, map[string]string{"NO_PROXY": noProxy}},
	} {
		t.Run(c.name, func(t *testing.T) {
			values, err := chartutil.ReadValues([]byte(c.values))
			require.NoError(t, err)
			out := fixture.Include(t, values, proxykit.Call{Helper: "proxykit.proxy.envValues"})
			var got map[string]string
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			assert.Equal(t, c.want, got)
		})
	}
}
