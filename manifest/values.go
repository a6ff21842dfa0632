package manifest

import (
	"encoding/json"
	"fmt"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/cluster"
)

// ProxyVariables are the names every container needs, upper case first.
var ProxyVariables = []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"}

// ClusterFromValues reads the cluster.* keys of a chart's values the way the
// proxykit library reads them (it renders the library's proxykit.cluster.facts),
// with the library's checks: a bad CIDR is an error naming the key.
func ClusterFromValues(values map[string]any) (cluster.Facts, error) {
	const helper = "proxykit.cluster.facts"
	answers, err := proxykit.Ask(values, "", "", proxykit.Call{Helper: helper})
	if err != nil {
		return cluster.Facts{}, err
	}
	out := answers[helper]
	var facts cluster.Facts
	if err := json.Unmarshal([]byte(out), &facts); err != nil {
		return cluster.Facts{}, fmt.Errorf("manifest: the library's cluster facts are not JSON: %w: %s", err, out)
	}
	return facts, nil
}

// VariablesFromValues lists the proxy variables the library renders for these
// values, in the order of ProxyVariables, as Manifests.Variables holds them for a
// render; nil when the proxy is off. Pass it to Check as ExpectVariables for
// manifests from Parse or FromObjects, so that Check expects what the library
// emits (no HTTPS_PROXY when no https proxy is set).
func VariablesFromValues(values map[string]any) ([]string, error) {
	const helper = "proxykit.proxy.env"
	answers, err := proxykit.Ask(values, "", "", proxykit.Call{Helper: helper})
	if err != nil {
		return nil, err
	}
	return VariablesOf(answers[helper])
}

// VariablesOf lists the proxy variables of an env list the library rendered
// (proxykit.proxy.env's YAML), in the order of ProxyVariables; nil when empty.
func VariablesOf(envYAML string) ([]string, error) {
	var env []struct{ Name string }
	if err := yaml.Unmarshal([]byte(envYAML), &env); err != nil {
		return nil, fmt.Errorf("manifest: the library's proxy env is not YAML: %w", err)
	}
	var names []string
	for _, e := range env {
		names = append(names, e.Name)
	}
	return OrderVariables(names), nil
}

// OrderVariables orders the variables the library renders as ProxyVariables
// does, leaving out any other name; nil when it renders none (the proxy is off),
// so that Check then expects all six.
func OrderVariables(rendered []string) []string {
	var out []string
	for _, name := range ProxyVariables {
		if slices.Contains(rendered, name) {
			out = append(out, name)
		}
	}
	return out
}
