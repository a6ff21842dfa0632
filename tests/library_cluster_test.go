package tests

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// TestClusterFacts: proxykit.cluster.facts (_cluster.tpl) is the cluster.* keys as
// the library reads them, which proxytest and the CLI take instead of parsing them.
func TestClusterFacts(t *testing.T) {
	cases := []struct {
		name, values string
		want         map[string]any
	}{
		{"defaults", `{}`, map[string]any{"domain": "cluster.local", "podCIDRs": []any{}, "serviceCIDRs": []any{}, "nodeCIDRs": []any{}, "apiServer": "", "metadataEndpoints": true}},
		{"dual stack as comma lists, a trailing dot, a bracketed API server, metadata off",
			`cluster: {domain: k8s.internal., podCIDRs: "10.244.0.0/16, fd00:10:244::/56", serviceCIDRs: [fd00:10:96::/112], nodeCIDRs: [192.168.0.0/24], apiServer: "[fd00:10:96::1]", metadataEndpoints: false}`,
			map[string]any{"domain": "k8s.internal", "podCIDRs": []any{"10.244.0.0/16", "fd00:10:244::/56"}, "serviceCIDRs": []any{"fd00:10:96::/112"},
				"nodeCIDRs": []any{"192.168.0.0/24"}, "apiServer": "fd00:10:96::1", "metadataEndpoints": false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(tc.values)))["clusterFacts"]), &got))
			assert.Equal(t, tc.want, got)
		})
	}
	assert.Contains(t, fixture.RenderError(t, fixture.Fixture, proxytest.Values(`cluster: {serviceCIDRs: [10.96.0.0/33]}`)), "cluster.serviceCIDRs", "the facts are read with the library's checks")
}
