package cluster

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSamplePrefix(t *testing.T) {
	assert.Equal(t, []string{"10.96.0.0", "10.104.0.0", "10.111.255.255"}, SamplePrefix("10.96.0.0/12"))
	assert.Equal(t, []string{"fd00:10:244::", "fd00:10:244:80::", "fd00:10:244:ff:ffff:ffff:ffff:ffff"}, SamplePrefix("fd00:10:244::/56"))
	assert.Equal(t, []string{"10.0.0.1"}, SamplePrefix("10.0.0.1/32"))
}

// The JSON keys are the values keys: a values file's cluster: map decodes as Facts.
func TestFactsAreTheValuesKeys(t *testing.T) {
	var f Facts
	require.NoError(t, json.Unmarshal([]byte(`{"domain":"k8s.internal","podCIDRs":["10.244.0.0/16"],"serviceCIDRs":["10.96.0.0/12"],"nodeCIDRs":[],"apiServer":"10.96.0.1","metadataEndpoints":true}`), &f))
	assert.Equal(t, Facts{Domain: "k8s.internal", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, NodeCIDRs: []string{}, APIServer: "10.96.0.1", Metadata: true}, f)
}

func TestMerge(t *testing.T) {
	a := Facts{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, APIServer: "10.96.0.1"}
	b := Facts{Domain: "other", PodCIDRs: []string{"10.244.0.1/16", "10.245.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.0.0.1", Metadata: true}
	assert.Equal(t, Facts{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16", "10.245.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, NodeCIDRs: []string{}, APIServer: "10.96.0.1", Metadata: true}, a.Merge(b),
		"networks united as prefixes; the first domain and API server win")
}
