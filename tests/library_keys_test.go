package tests

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// readJSON decodes a JSON file.
func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(b, &v), path)
	return v
}

func TestUnknownKeysFailWithTheNearestKnownKey(t *testing.T) {
	cases := []struct {
		name, values, unknown, suggestion string
	}{
		{"singular podCIDR", `cluster: {podCIDR: [10.244.0.0/16]}`, "cluster.podCIDR", "cluster.podCIDRs"},
		{"serviceCidrs in the wrong case", `cluster: {serviceCidrs: [10.96.0.0/12]}`, "cluster.serviceCidrs", "cluster.serviceCIDRs"},
		{"apiserver in lower case", `cluster: {apiserver: 10.96.0.1}`, "cluster.apiserver", "cluster.apiServer"},
		{"no_proxy as in the variable name", `proxy: {no_proxy: a.example}`, "proxy.no_proxy", "proxy.noProxy"},
		{"a key cut short", `cluster: {metadata: false}`, "cluster.metadata", "cluster.metadataEndpoints"},
		{"typo under cluster.proxy", `cluster: {proxy: {htps: "http://p:1"}}`, "cluster.proxy.htps", "cluster.proxy.https"},
		{"typo under global.proxy", `global: {proxy: {noproxy: a.example}}`, "global.proxy.noproxy", "global.proxy.noProxy"},
		{"HTTP_PROXY as a key", `proxy: {HTTP_PROXY: "http://p:1"}`, "proxy.HTTP_PROXY", "proxy.http"},
		{"nothing near", `cluster: {vpc: vpc-1}`, "cluster.vpc", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(tc.values))
			assert.Contains(t, err, "unknown key "+tc.unknown)
			if tc.suggestion != "" {
				assert.Contains(t, err, "did you mean "+tc.suggestion+"?")
			} else {
				assert.NotContains(t, err, "did you mean")
			}
			assertNoTemplateCrash(t, err)
		})
	}
	t.Run("other keys under global are not the library's", func(t *testing.T) {
		fixture.Render(t, fixture.Fixture, proxytest.Values(`global: {imageRegistry: registry.corp.example, proxy: {http: ""}}`))
	})
}

// libraryKnownKeys reads the keys the library accepts under a section from its
// own message, so the schema test compares against the templates, not a copy.
func libraryKnownKeys(t *testing.T, section string) []string {
	t.Helper()
	values := map[string]string{
		"proxy":         `proxy: {zz: 1}`,
		"cluster":       `cluster: {zz: 1}`,
		"cluster.proxy": `cluster: {proxy: {zz: 1}}`,
		"global.proxy":  `global: {proxy: {zz: 1}}`,
	}[section]
	err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(values))
	m := regexp.MustCompile(`the keys under ` + regexp.QuoteMeta(section) + ` are: ([A-Za-z, ]+)`).FindStringSubmatch(err)
	require.NotNil(t, m, "no list of known keys in: %s", err)
	keys := strings.Split(m[1], ", ")
	sort.Strings(keys)
	return keys
}

// TestChartSchemasDescribeTheLibraryValues: every chart's values.schema.json
// closes proxy, cluster, cluster.proxy and global.proxy over exactly the keys the
// library reads, so helm lint and helm install name a typo before any template runs.
func TestChartSchemasDescribeTheLibraryValues(t *testing.T) {
	for _, chart := range []string{fixture.ChartOperator, fixture.ClusterProxy, fixture.ProxyPolicies, fixture.HTTPProxy, fixture.ProxyRelay} {
		schema := readJSON(t, chart+"/values.schema.json")
		defs := schema["definitions"].(map[string]any)
		for section, def := range map[string]string{"proxy": "proxy", "cluster": "cluster", "cluster.proxy": "proxyURLs", "global.proxy": "proxyURLs"} {
			d := defs[def].(map[string]any)
			assert.Equal(t, false, d["additionalProperties"], "%s: %s is not closed", chart, section)
			var keys []string
			for k := range d["properties"].(map[string]any) {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			assert.Equal(t, libraryKnownKeys(t, section), keys, "%s: schema of %s", chart, section)
		}
	}
}

func TestValuesNestedUnderProxykitFail(t *testing.T) {
	for _, values := range []string{
		`proxykit: {proxy: {http: "http://proxy:3128"}}`,
		`proxykit: {cluster: {podCIDRs: [10.244.0.0/16]}}`,
		`proxykit: {defaults: {env: [{name: A, value: b}]}}`,
	} {
		err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(values))
		assert.Contains(t, err, "values under proxykit:")
		assert.Contains(t, err, "move proxykit.")
		assert.Contains(t, err, "top level")
	}
	t.Run("global, which Helm copies there itself, is fine", func(t *testing.T) {
		fixture.Render(t, fixture.Fixture, proxytest.Values("global: {proxy: {http: \"http://g:1\"}}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\nproxykit: {global: {x: 1}}"))
	})
}

// A very long unknown key fails at once, cut short in the message, with no
// suggestion measured against it (a 20,000-character key took 13 s).
func TestAVeryLongUnknownKeyFailsAtOnce(t *testing.T) {
	key := strings.Repeat("x", 20000)
	err := fixture.RenderError(t, fixture.Fixture, proxytest.Values("cluster:\n  ? "+key+"\n  : 1\n"))
	assert.Contains(t, err, "unknown key cluster."+strings.Repeat("x", 64)+"... (20000 characters)")
	assert.Less(t, len(err), 400)
}
