package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

const relayURL = "http://relay.proxy-relay.svc.cluster.local:3128"

// relayOver are the credential values (a password in proxy.http and
// proxy.https) with a relay laid over them at the tier given.
func relayOver(t *testing.T, tier string, extra map[string]any) string {
	v := map[string]any{}
	for k, x := range extra {
		v[k] = x
	}
	switch tier {
	case "proxy":
		v["proxy"] = map[string]any{"http": fixture.CredHTTP, "https": fixture.CredHTTPS, "relay": relayURL}
	case "cluster.proxy":
		v["cluster"] = map[string]any{"podCIDRs": []string{"10.244.0.0/16"}, "serviceCIDRs": "10.96.0.0/12", "apiServer": "10.96.0.1",
			"proxy": map[string]any{"http": fixture.CredHTTP, "relay": relayURL}}
	case "global.proxy":
		v["global"] = map[string]any{"proxy": map[string]any{"relay": relayURL}}
	}
	return fixture.CredentialValues(t, v)
}

// plainEnv is the proxy tier of a container that uses the relay.
func relayEnv(noProxy string) []corev1.EnvVar {
	var env []corev1.EnvVar
	for _, n := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		v := relayURL
		if strings.EqualFold(n, "NO_PROXY") {
			v = noProxy
		}
		env = append(env, fixture.Val(n, v))
	}
	return env
}

// proxy.relay at any tier makes every container use the relay with no
// credentials, even where a tier carries the corporate proxy's password: no
// secretKeyRef, no Secret, no password in any object.
func TestRelayLeavesOutEverySecretKeyRef(t *testing.T) {
	for _, tier := range []string{"proxy", "cluster.proxy", "global.proxy"} {
		t.Run(tier, func(t *testing.T) {
			r := fixture.Render(t, fixture.Fixture, proxytest.Values(relayOver(t, tier, nil)))
			h := fixture.Helpers(t, r)
			assert.Empty(t, h["hasCredentials"], "proxykit.proxy.hasCredentials: no credentials")
			assert.Nil(t, r.Find("Secret", fixture.Release+"-proxy-credentials"), "no Secret: nothing to keep in one")
			spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release+"-app").Spec.Template.Spec
			want := append(relayEnv(h["noProxy"]), fixture.Val("TZ", "UTC"))
			assert.Equal(t, want, fixture.SpecContainer(t, spec, "app").Env)
			fixture.AssertNoCredentialsOutsideSecrets(t, r)
			for _, d := range r.Objects {
				assert.NotContains(t, d.Raw, fixture.LeakMarker, "%s/%s", d.Kind, d.Name)
			}
		})
	}
}

// The charts built on the library point at the relay too: the policies inject
// it with no Secret to clone, cluster-proxy's drop-ins and cluster values name
// it, chart-operator's Deployment uses it.
func TestRelayInEveryChart(t *testing.T) {
	cases := map[string]struct {
		chart string
		extra map[string]any
	}{
		"proxy-policies": {fixture.ProxyPolicies, map[string]any{"defaults": nil}},
		"cluster-proxy":  {fixture.ClusterProxy, map[string]any{"clusterName": "wc1"}},
		"chart-operator": {fixture.ChartOperator, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := fixture.Render(t, tc.chart, proxytest.Values(relayOver(t, "proxy", tc.extra)))
			var all strings.Builder
			for _, d := range r.Objects {
				all.WriteString(d.Raw)
				assert.NotContains(t, d.Raw, fixture.LeakMarker, "%s/%s holds the password", d.Kind, d.Name)
				assert.NotContains(t, d.Raw, "svc-user", "%s/%s holds the user", d.Kind, d.Name)
				assert.NotContains(t, d.Raw, "proxy-credentials", "%s/%s names the credentials Secret", d.Kind, d.Name)
				assert.NotEqual(t, "GeneratingPolicy", d.Kind, "no Secret to clone into namespaces")
			}
			assert.Contains(t, all.String(), relayURL)
		})
	}
}

// A relay URL with credentials, or beside proxy.existingSecret, fails naming
// the key and never showing the password.
func TestRelayRefusesCredentials(t *testing.T) {
	for name, values := range map[string]string{
		"user-info": "proxy: {relay: \"http://svc:" + fixture.LeakMarker + "@relay:3128\"}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\n",
		"global":    "global: {proxy: {relay: \"http://svc:" + fixture.LeakMarker + "@relay:3128\"}}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\n",
		"secret":    "proxy: {relay: \"http://relay:3128\", existingSecret: corp-proxy}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\n",
		"not a URL": "proxy: {relay: \"relay:3128\"}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\n",
	} {
		t.Run(name, func(t *testing.T) {
			err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(values))
			require.NotEmpty(t, err)
			assert.Regexp(t, `(proxy|global\.proxy)\.relay`, err)
			assert.NotContains(t, err, fixture.LeakMarker)
		})
	}
}

// proxykit inject with the relay: the stream's Pods get the relay and no
// credentials Secret joins the stream.
func TestRelayThroughInject(t *testing.T) {
	var values map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(relayOver(t, "proxy", nil)), &values))
	in := []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
`)
	out, _, err := inject.Stream(in, inject.Options{Values: values, Namespace: "apps", Release: "web"})
	require.NoError(t, err)
	assert.NotContains(t, string(out), "kind: Secret")
	assert.NotContains(t, string(out), fixture.LeakMarker)
	assert.NotContains(t, string(out), "secretKeyRef")
	assert.Equal(t, 4, strings.Count(string(out), "value: "+relayURL))
}
