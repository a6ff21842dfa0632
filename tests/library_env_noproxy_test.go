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

// The fixture's caller Deployment: container generate-env calls generateEnv and
// proxy-env calls proxykit.proxy.env, both with "noProxy" (the Services' forms from
// proxykit.proxy.serviceHosts unless caller.noProxy says otherwise); plain calls
// generateEnv without it.
const callerServices = "caller:\n  services: [api, db]\n"

// servicesNoProxy is what proxykit.proxy.serviceHosts gives for api and db in the test namespace.
var servicesNoProxy = "api,api." + fixture.Namespace + ",api." + fixture.Namespace + ".svc,db,db." + fixture.Namespace + ",db." + fixture.Namespace + ".svc"

func callerEnv(t *testing.T, m *proxytest.Manifests, container string) []corev1.EnvVar {
	t.Helper()
	return m.Container(t, "Deployment/"+fixture.Release+"-caller", container).Env
}

func TestGenerateEnvNoProxyPerCall(t *testing.T) {
	m := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+callerServices))
	withServices := fixture.WithNoProxy(fixture.NoProxyPlain, servicesNoProxy)
	want := []corev1.EnvVar{
		fixture.Val("HTTP_PROXY", "http://proxy.corp:3128"),
		fixture.Val("HTTPS_PROXY", "http://proxy.corp:3129"),
		fixture.Val("NO_PROXY", withServices),
		fixture.Val("http_proxy", "http://proxy.corp:3128"),
		fixture.Val("https_proxy", "http://proxy.corp:3129"),
		fixture.Val("no_proxy", withServices),
	}
	assert.Equal(t, want, callerEnv(t, m, "generate-env"))
	assert.Equal(t, want, callerEnv(t, m, "proxy-env"))
	assert.Equal(t, fixture.ProxyEnvPlain, callerEnv(t, m, "plain"), "a call without noProxy keeps the render's NO_PROXY")
	assert.Equal(t, fixture.ProxyEnvPlain, m.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env, "the per-call entries stay in their call")
	assertServicesProxiedOnlyIn(t, m)
}

// assertServicesProxiedOnlyIn checks that Check finds the render's Services
// proxied in exactly the containers that got no per-call entries, and nothing else.
func assertServicesProxiedOnlyIn(t *testing.T, m *proxytest.Manifests) {
	t.Helper()
	var got []string
	for _, f := range proxytest.Check(m) {
		require.Equal(t, proxytest.RuleReleaseServiceProxied, f.Rule, "%s", f)
		got = append(got, f.Object+"/"+f.Container)
		assert.Contains(t, f.Message, "Service api (api, api."+fixture.Namespace+": go, curl, wget, python-requests, python-urllib, python-httpx, deno, bun, php-guzzle, dotnet", "%s", f) // grpc-core too, unless the https proxy is https://, which it cannot use
		assert.Contains(t, f.Message, "proxykit.proxy.serviceHosts", "the message says how to fix it")
	}
	app := "Deployment/" + fixture.Release + "-app/"
	assert.ElementsMatch(t, []string{"Deployment/" + fixture.Release + "-caller/plain", app + "init", app + "app"}, got)
}

func TestGenerateEnvNoProxyPerCallPrecedence(t *testing.T) {
	// defaults.env and the call's own sources still win over the proxy tier
	m := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+callerServices+`
defaults:
  env: [{name: no_proxy, value: own.example}]
app:
  env: [{name: NO_PROXY, value: mine.example}]
`))

	env := fixture.EnvMap(callerEnv(t, m, "generate-env"))
	assert.Equal(t, "mine.example", env["NO_PROXY"].Value)
	assert.Equal(t, "own.example", env["no_proxy"].Value)
	// a comma-separated string is read like proxy.noProxy, and entries are written as there
	m = fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+"caller: {services: [api], noProxy: \"api, *.api.example ,10.1.2.3/16\"}\n"))
	assert.Equal(t, fixture.WithNoProxy(fixture.NoProxyPlain, "api,api.example,.api.example,10.1.0.0/16"), fixture.EnvMap(callerEnv(t, m, "generate-env"))["NO_PROXY"].Value)
}

func TestGenerateEnvNoProxyPerCallWithCredentials(t *testing.T) {
	m := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.CredentialValues(t, map[string]any{"caller": map[string]any{"services": []string{"api", "db"}}})))
	secret := fixture.Release + "-proxy-credentials"
	for _, container := range []string{"generate-env", "proxy-env"} {
		env := fixture.EnvMap(callerEnv(t, m, container))
		for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
			assert.Equal(t, fixture.SecretRef(name, secret, strings.ToUpper(name)), env[name], "%s: the URLs stay in the Secret", container)
		}
		for _, name := range []string{"NO_PROXY", "no_proxy"} {
			assert.Nil(t, env[name].ValueFrom, container)
			assert.Equal(t, fixture.WithNoProxy(fixture.NoProxyPlain, servicesNoProxy), env[name].Value,
				"%s: NO_PROXY carries no credential, so the per-call entries go in a plain value", container)
		}
	}
	fixture.AssertNoCredentialsOutsideSecrets(t, m)
	assertServicesProxiedOnlyIn(t, m)
}

func TestGenerateEnvNoProxyPerCallWithExistingSecret(t *testing.T) {
	fixture.AssertFailsNaming(t, fixture.Fixture, "proxy: {existingSecret: corp-proxy}\ncluster: {requireNetworks: true}\n"+callerServices,
		`proxykit.generateEnv "noProxy"`, "proxy.existingSecret", "cluster.podCIDRs")
	m := fixture.Render(t, fixture.Fixture, proxytest.Values("proxy: {existingSecret: corp-proxy}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12]}\n"+callerServices))
	env := fixture.EnvMap(callerEnv(t, m, "generate-env"))
	assert.Equal(t, fixture.SecretRef("HTTP_PROXY", "corp-proxy", "HTTP_PROXY"), env["HTTP_PROXY"])
	assert.Contains(t, env["NO_PROXY"].Value, "10.244.0.0/16,10.96.0.0/12,")
	assert.Contains(t, env["NO_PROXY"].Value, ","+servicesNoProxy+",[::1]", "the call's entries before the bracketed ones")
	// without the call's entries every variable still reads the Secret
	assert.Equal(t, fixture.SecretRef("NO_PROXY", "corp-proxy", "NO_PROXY"), fixture.EnvMap(callerEnv(t, m, "plain"))["NO_PROXY"])
}

func TestGenerateEnvNoProxyPerCallRuntimes(t *testing.T) {
	m := fixture.Render(t, fixture.Fixture, proxytest.Values(strings.Replace(fixture.PlainProxy, "  https: http://proxy.corp:3129\n", "  https: http://proxy.corp:3129\n  runtimes: [java, node]\n", 1)+callerServices))
	for _, container := range []string{"generate-env", "proxy-env"} {
		env := fixture.EnvMap(callerEnv(t, m, container))
		assert.Contains(t, env["NO_PROXY"].Value, ",api,.api,api."+fixture.Namespace+",.api."+fixture.Namespace+",", "%s: node matches a bare entry only exactly", container)
		assert.Contains(t, env["JAVA_TOOL_OPTIONS"].Value, "|api|*.api|api."+fixture.Namespace+"|*.api."+fixture.Namespace+"|", "%s: the JVM's nonProxyHosts carry the entries too", container)
	}
	plain := fixture.EnvMap(callerEnv(t, m, "plain"))
	assert.NotContains(t, plain["NO_PROXY"].Value, "api")
	assert.NotContains(t, plain["JAVA_TOOL_OPTIONS"].Value, "api")
}

func TestGenerateEnvNoProxyPerCallRejects(t *testing.T) {
	for _, c := range []struct{ values, want string }{
		{"caller: {services: [api], noProxy: \"*\"}\n", `proxykit.generateEnv "noProxy"`},
		{"caller: {services: [api], noProxy: \"a b\"}\n", "whitespace"},
		{"caller: {services: [api], noProxy: {a: b}}\n", "must be a list or a comma-separated string"},
		{"caller: {services: [Api]}\n", `proxykit.proxy.serviceHosts "services": "Api" is not a Service name`},
		{"caller: {services: [api.other]}\n", "is not a Service name"},
		{"caller: {services: [1api]}\n", "is not a Service name"},
	} {
		t.Run(c.values, func(t *testing.T) { fixture.AssertFailsNaming(t, fixture.Fixture, fixture.PlainProxy+c.values, c.want) })
	}
}

func TestNoProxyServicesNamespace(t *testing.T) {
	m, err := fixture.RenderE(fixture.Fixture, proxytest.Values(fixture.PlainProxy+"caller: {services: [argocd-repo-server]}\n"), proxytest.Release("rel", "argocd"))
	require.NoError(t, err)
	noProxy := fixture.EnvMap(m.Container(t, "Deployment/rel-caller", "generate-env").Env)["NO_PROXY"].Value
	assert.Contains(t, noProxy, ",argocd-repo-server,argocd-repo-server.argocd,argocd-repo-server.argocd.svc,[::1]", noProxy)
}
