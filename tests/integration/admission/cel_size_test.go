//go:build integration

package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// celSizeValues are proxy-policies values with n noProxy entries, native engine on.
func celSizeValues(n int) string {
	return fixture.PolicyValuesPlain + "proxy: {http: http://proxy.corp.example:3128, https: http://proxy.corp.example:3129, noProxy: '" + fixture.NoProxyEntries(n) + "'}\n"
}

// TestNativePolicyAtTheCELSizeLimit: the API server parses at most 100,000 code
// points of CEL per expression, and the policies carry NO_PROXY in theirs. The
// chart renders the largest NO_PROXY it can and the live API server takes that
// policy (strict dry run); one entry more fails the render, naming proxy.noProxy,
// instead of an API server error at install. The boundary is found from the
// expression's growth per entry (every entry from h1000 on is 17 characters
// with its comma), then proven on both sides, in four renders.
func TestNativePolicyAtTheCELSizeLimit(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	renders := func(n int) bool {
		_, err := fixture.RenderE(fixture.ProxyPolicies, proxytest.Values(celSizeValues(n)))
		return err == nil
	}
	// the longest CEL expression of the native policy and Kyverno's MutatingPolicy (the
	// native one's, guarded by the Pod's own scope) for n entries
	longest := func(n int) int {
		m := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(celSizeValues(n)))
		policy := proxytest.Get[admissionregistrationv1.MutatingAdmissionPolicy](t, m, "inject-proxy-env")
		var kyverno struct {
			Spec struct {
				Mutations []admissionregistrationv1.Mutation
			} `json:"spec"`
		}
		require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, m, "MutatingPolicy", "inject-proxy-env").Raw), &kyverno))
		most := 0
		for _, mutation := range append(policy.Spec.Mutations, kyverno.Spec.Mutations...) {
			if a := mutation.ApplyConfiguration; a != nil && len(a.Expression) > most {
				most = len(a.Expression)
			}
			if p := mutation.JSONPatch; p != nil && len(p.Expression) > most {
				most = len(p.Expression)
			}
		}
		require.Positive(t, most)
		return most
	}
	at1000, at2000 := longest(1000), longest(2000)
	perEntry := (at2000 - at1000) / 1000
	require.Equal(t, len("h1000.corp.example,"), perEntry, "NO_PROXY is in the expression once")
	low := 2000 + (100000-at2000)/perEntry
	high := low + 1
	require.True(t, renders(low), "%d entries fit", low)
	require.False(t, renders(high), "%d entries do not", high)
	t.Logf("the CEL policies take up to %d noProxy entries of about 17 characters", low)
	err := fixture.RenderError(t, fixture.ProxyPolicies, proxytest.Values(celSizeValues(high)))
	assert.Contains(t, err, "proxy.noProxy")
	assert.Contains(t, err, "100,000")

	cp := harness.StartControlPlane(t)
	objects := itest.NewObjectClient(t, cp)
	m := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(celSizeValues(low)))
	for _, kind := range []string{"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"} { // Kyverno's parses the same CEL
		objects.DryRunStrict(t, fixture.Find(t, m, kind, "inject-proxy-env"), fixture.Namespace)
	}
}
