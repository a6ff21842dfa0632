package tests

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
)

// proxykit.proxy.record: one value per configuration a container can be given,
// changed by whatever reaches a container (a rotated password included), never
// by what does not (the release), and never a credential.
func TestRecord(t *testing.T) {
	const cluster = "cluster: {serviceCIDRs: [10.96.0.0/12], podCIDRs: [10.244.0.0/16]}\n"
	const base = cluster + `proxy: {http: "http://u:s3cret@proxy.corp:3128", https: "http://u:s3cret@proxy.corp:3128"}`
	record := func(t *testing.T, values, release string) string {
		t.Helper()
		v, err := chartutil.ReadValues([]byte(values))
		require.NoError(t, err)
		out, err := proxykit.Ask(v, release, release, proxykit.Call{Helper: "proxykit.proxy.record"})
		require.NoError(t, err)
		return out["proxykit.proxy.record"]
	}
	first := record(t, base, "one")
	assert.Regexp(t, regexp.MustCompile(`^v1-[0-9a-f]{32}$`), first)
	assert.Equal(t, first, record(t, base, "one"), "the same values, the same record: renders are reproducible")
	assert.Equal(t, first, record(t, base, "other"), "the release and namespace give a container nothing of their own")
	assert.Empty(t, record(t, cluster, "one"), "no proxy, no record")

	for name, values := range map[string]string{
		"a rotated password":  cluster + `proxy: {http: "http://u:n3w@proxy.corp:3128", https: "http://u:s3cret@proxy.corp:3128"}`,
		"another user":        cluster + `proxy: {http: "http://v:s3cret@proxy.corp:3128", https: "http://u:s3cret@proxy.corp:3128"}`,
		"no credentials":      cluster + `proxy: {http: "http://proxy.corp:3128", https: "http://proxy.corp:3128"}`,
		"another proxy":       cluster + `proxy: {http: "http://u:s3cret@proxy2.corp:3128", https: "http://u:s3cret@proxy.corp:3128"}`,
		"a NO_PROXY entry":    mergeYAML(t, base, `proxy: {noProxy: [.internal]}`),
		"a new pod network":   "cluster: {serviceCIDRs: [10.96.0.0/12], podCIDRs: [10.245.0.0/16]}\n" + `proxy: {http: "http://u:s3cret@proxy.corp:3128", https: "http://u:s3cret@proxy.corp:3128"}`,
		"no lower-case twins": mergeYAML(t, base, `proxy: {lowercase: false}`),
		"the JVM's flags":     mergeYAML(t, base, `proxy: {runtimes: [java]}`),
	} {
		assert.NotEqual(t, first, record(t, values, "one"), name)
	}

	// the Secret the library renders carries the same record, beside the annotations asked for
	v, err := chartutil.ReadValues([]byte(base))
	require.NoError(t, err)
	answers, err := proxykit.Ask(v, "one", "one", proxykit.Call{Helper: "proxykit.proxy.secret", Args: map[string]any{"annotations": map[string]any{"helm.sh/resource-policy": "keep"}}},
		proxykit.Call{Helper: "proxykit.proxy.annotations"})
	require.NoError(t, err)
	var secret struct {
		Metadata struct{ Annotations map[string]string } `json:"metadata"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(answers["proxykit.proxy.secret"]), &secret))
	assert.Equal(t, map[string]string{"proxykit.io/proxy-config": first, "helm.sh/resource-policy": "keep"}, secret.Metadata.Annotations)
	var annotations map[string]string
	require.NoError(t, yaml.Unmarshal([]byte(answers["proxykit.proxy.annotations"]), &annotations))
	assert.Equal(t, map[string]string{"proxykit.io/proxy-config": first}, annotations)
	assert.NotContains(t, answers["proxykit.proxy.annotations"], "s3cret")
}

// mergeYAML merges overlay onto base as Helm merges -f files.
func mergeYAML(t *testing.T, base, overlay string) string {
	t.Helper()
	b, err := chartutil.ReadValues([]byte(base))
	require.NoError(t, err)
	o, err := chartutil.ReadValues([]byte(overlay))
	require.NoError(t, err)
	out, err := yaml.Marshal(chartutil.CoalesceTables(o, b))
	require.NoError(t, err)
	return string(out)
}
