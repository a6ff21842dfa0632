//go:build integration

package admission

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// TestKyvernoNeverEvaluatesValues: Kyverno substitutes {{ ... }} and $( ... ) in
// policy text. Values holding them fail the render of the chart that feeds
// Kyverno, naming the key; the characters values may hold reach the Pods
// literally through the real engine.
func TestKyvernoNeverEvaluatesValues(t *testing.T) {
	harness.Parallel(t)
	for _, tc := range []struct{ values, key string }{
		{`proxy: {http: "http://p:3128", noProxy: ["{{request.object.metadata.name}}"]}`, "proxy.noProxy"},
		{`proxy: {http: "http://{{request.namespace}}.proxy:3128"}`, "proxy.http"},
		{`proxy: {https: "http://p:3128", noProxy: "$(./../metadata/name)"}`, "proxy.noProxy"},
		{`cluster: {proxy: {https: "http://$(request.namespace).proxy:3128"}}`, "cluster.proxy.https"},
		{`proxy: {existingSecret: "{{request.namespace}}"}`, "existingSecret"}, // the schema names it first
	} {
		fixture.AssertFailsNaming(t, fixture.ProxyPolicies, fixture.WithNetworks(tc.values), tc.key)
	}

	values := `
proxy:
  http: http://proxy_1.corp.example:3128
  https: "http://[fd00::3128]:3129"
  noProxy: ["*.corp.example", "[fd00::53]:5000", "fd00::54", "my_host.corp.", "registry.local:5000"]
cluster: {serviceCIDRs: [10.96.0.0/12, "fd00:10:96::/112"], apiServer: "fd00:10:96::1"}
`
	h := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)))
	noProxy := h["noProxy"]
	for _, literal := range []string{"[::1]", "[fd00::53]:5000", "[fd00::54]", ".corp.example", "my_host.corp.", "[fd00:10:96::1]"} {
		assert.Contains(t, strings.Split(noProxy, ","), literal)
	}
	pods := kyvernoApply(t, values, []corev1.Pod{fixture.Pod("app", "apps", nil, fixture.Ctr("app"))})
	env := fixture.EnvMap(pods["app"].Spec.Containers[0].Env)
	assert.Equal(t, "http://proxy_1.corp.example:3128", env["HTTP_PROXY"].Value)
	assert.Equal(t, "http://[fd00::3128]:3129", env["HTTPS_PROXY"].Value)
	assert.Equal(t, noProxy, env["NO_PROXY"].Value, "the engine wrote NO_PROXY byte for byte")
	assert.Equal(t, noProxy, env["no_proxy"].Value)
}
