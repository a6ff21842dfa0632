//go:build integration

package integration

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/fixture"
)

// celSizeValues are proxy-policies values with n noProxy entries, native engine on.
func celSizeValues(n int) string {
	return fixture.PolicyValuesPlain + "proxy: {http: http://proxy.corp.example:3128, https: http://proxy.corp.example:3129, noProxy: '" + fixture.NoProxyEntries(n) + "'}\n"
}

// TestNativePolicyAtTheCELSizeLimit: the API server parses at most 100,000 code
// points of CEL per expression, and the policies carry NO_PROXY in theirs. The
// chart renders the largest NO_PROXY it can and the live API server takes that
// policy (strict dry run); one entry more fails the render, naming proxy.noProxy,
// instead of an API server error at install.
func TestNativePolicyAtTheCELSizeLimit(t *testing.T) {
	t.Parallel() // slow and independent: overlaps the other slow tests
	renders := func(n int) bool {
		_, err := fixture.TryRender(t, fixture.ProxyPolicies, celSizeValues(n))
		return err == nil
	}
	require.True(t, renders(10))
	require.False(t, renders(20000), "20,000 entries are over the limit")
	low, high := 10, 20000 // renders(low), !renders(high)
	for high-low > 1 {
		if mid := (low + high) / 2; renders(mid) {
			low = mid
		} else {
			high = mid
		}
	}
	t.Logf("the native policy takes up to %d noProxy entries of about 17 characters", low)
	err := fixture.RenderError(t, fixture.ProxyPolicies, celSizeValues(high))
	assert.Contains(t, err, "proxy.noProxy")
	assert.Contains(t, err, "100,000")

	cp := startControlPlane(t)
	objects := newObjectClient(t, cp)
	m := fixture.Render(t, fixture.ProxyPolicies, celSizeValues(low))
	for _, kind := range []string{"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"} {
		objects.dryRunStrict(t, fixture.Find(t, m, kind, "inject-proxy-env"), fixture.Namespace)
	}
}
