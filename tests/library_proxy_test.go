package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

func TestCredentialsStayInSecrets(t *testing.T) {
	values := fixture.CredentialValues(t, map[string]any{"secretCopy": map[string]any{"namespace": "apps", "name": "proxy-copy"}})
	// the helm CLI renders the same objects: integration's TestCLIAndSDKRenderTheSame
	renderers := map[string]func() (*proxytest.Manifests, error){
		"sdk": func() (*proxytest.Manifests, error) { return fixture.TryRender(t, fixture.Fixture, values) },
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
	r := fixture.Render(t, fixture.Fixture, fixture.ValuesYAML(t, map[string]any{
		"proxy":   map[string]any{"http": "http://proxy.corp:3128", "https": fixture.CredHTTPS, "lowercase": false},
		"cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12"},
	}))
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
			r := fixture.Render(t, fixture.Fixture, values)
			h := fixture.Helpers(t, r)
			assert.Equal(t, "corp-proxy", h["secretName"])
			assert.Equal(t, "true", h["enabled"])
			assert.False(t, fixture.Has(r, "Secret", fixture.Release+"-proxy-credentials"), "the user owns the existing Secret")
			env := r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env
			assert.Equal(t, fixture.SecretEnv("corp-proxy", true), env[:6])
			fixture.AssertNoCredentialsOutsideSecrets(t, r)
		})
	}
}

func TestPlainProxyRendersNoSecret(t *testing.T) {
	r := fixture.Render(t, fixture.Fixture, fixture.PlainProxy)
	assert.False(t, fixture.Has(r, "Secret", fixture.Release+"-proxy-credentials"))
	assert.Equal(t, "", fixture.Helpers(t, r)["hasCredentials"])
	assert.Empty(t, strings.TrimSpace(fixture.SourceText(r, "templates/proxy-secret.yaml")))
}
