package proxytest

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/cluster"
)

// Cluster is what NO_PROXY must cover: the cluster.* values, as the library reads
// them. It is package cluster's Facts (Targets, Merge, HasIPv6), the one shape the
// library's keys, discover and Check share.
type Cluster = cluster.Facts

// ClusterFromValues reads the cluster.* keys of a chart's values the way the
// proxykit library reads them (it renders the library's proxykit.cluster.facts),
// with the library's checks: a bad CIDR is an error naming the key.
func ClusterFromValues(values map[string]any) (Cluster, error) {
	out, err := proxykit.Include("proxykit.cluster.facts", values)
	if err != nil {
		return Cluster{}, err
	}
	var facts Cluster
	if err := json.Unmarshal([]byte(out), &facts); err != nil {
		return Cluster{}, fmt.Errorf("proxytest: the library's cluster facts are not JSON: %w: %s", err, out)
	}
	return facts, nil
}

// VariablesFromValues lists the proxy variables the library renders for these
// values, in the order of ProxyVariables, as Manifests.Variables holds them for a
// render; nil when the proxy is off. Pass it to Check as ExpectVariables for
// manifests from Parse or FromObjects, so that Check expects what the library
// emits (no HTTPS_PROXY when no https proxy is set).
func VariablesFromValues(values map[string]any) ([]string, error) {
	out, err := proxykit.Include("proxykit.proxy.env", values)
	if err != nil {
		return nil, err
	}
	var env []struct{ Name string }
	if err := yaml.Unmarshal([]byte(out), &env); err != nil {
		return nil, fmt.Errorf("proxytest: the library's proxy env is not YAML: %w", err)
	}
	var names []string
	for _, e := range env {
		names = append(names, e.Name)
	}
	return expected(names), nil
}
