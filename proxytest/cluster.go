package proxytest

import (
	"encoding/json"
	"fmt"

	"github.com/proxykit/proxykit"
)

// Cluster is what NO_PROXY must cover: the cluster.* values, as the library reads them.
type Cluster struct {
	Domain                            string
	PodCIDRs, ServiceCIDRs, NodeCIDRs []string
	APIServer                         string
	Metadata                          bool // the cloud metadata endpoints must be bypassed too
}

// ClusterFromValues reads the cluster.* keys of a chart's values the way the
// proxykit library reads them (it renders the library's proxykit.cluster.facts),
// with the library's checks: a bad CIDR is an error naming the key.
func ClusterFromValues(values map[string]any) (Cluster, error) {
	out, err := proxykit.Include("proxykit.cluster.facts", values)
	if err != nil {
		return Cluster{}, err
	}
	var facts struct {
		Domain                            string
		PodCIDRs, ServiceCIDRs, NodeCIDRs []string
		APIServer                         string
		Metadata                          bool
	}
	if err := json.Unmarshal([]byte(out), &facts); err != nil {
		return Cluster{}, fmt.Errorf("proxytest: the library's cluster facts are not JSON: %w: %s", err, out)
	}
	return Cluster(facts), nil
}
