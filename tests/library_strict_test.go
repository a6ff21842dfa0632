package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// withNetworks adds the service network every proxy-on render needs: into a
// flow-style `cluster: {` line when the values have one, else as its own line.
func withNetworks(values string) string {
	const network = "serviceCIDRs: [10.96.0.0/12]"
	if strings.HasPrefix(values, "cluster: {") || strings.Contains(values, "\ncluster: {") {
		return strings.Replace(values, "cluster: {", "cluster: {"+network+", ", 1)
	}
	return values + "\ncluster: {" + network + "}\n"
}

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
			err := renderError(t, fixtureChart, tc.values)
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
		mustRenderSDK(t, fixtureChart, `global: {imageRegistry: registry.corp.example, proxy: {http: ""}}`)
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
	err := renderError(t, fixtureChart, values)
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
	for _, chart := range []string{chartOperatorChart, clusterProxyChart, proxyPoliciesChart, httpProxyChart} {
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

func TestSchemasNameATypoBeforeTheTemplates(t *testing.T) {
	for _, chart := range []string{chartOperatorChart, clusterProxyChart, proxyPoliciesChart} {
		for _, set := range []string{"cluster.podCIDR=10.0.0.0/8", "proxy.no_proxy=a", "global.proxy.htps=x", "cluster.proxy.trustedCa=x"} {
			t.Run(chart[strings.LastIndex(chart, "/")+1:]+"/"+set, func(t *testing.T) {
				key := set[strings.LastIndex(set[:strings.Index(set, "=")], ".")+1 : strings.Index(set, "=")]
				for _, cmd := range [][]string{{"lint", "--strict"}, {"template", "test"}} {
					args := append(cmd[1:], chart, "--set", "clusterName=wc1", "--set", set)
					out, err := helmCommand(t, cmd[0], args...)
					require.Error(t, err, "helm %s accepted %s", cmd[0], set)
					assert.Contains(t, out, fmt.Sprintf("additional properties '%s' not allowed", key), "helm %s", cmd[0])
				}
			})
		}
	}
}

func TestValuesNestedUnderProxykitFail(t *testing.T) {
	for _, values := range []string{
		`proxykit: {proxy: {http: "http://proxy:3128"}}`,
		`proxykit: {cluster: {podCIDRs: [10.244.0.0/16]}}`,
		`proxykit: {defaults: {env: [{name: A, value: b}]}}`,
	} {
		err := renderError(t, fixtureChart, values)
		assert.Contains(t, err, "values under proxykit:")
		assert.Contains(t, err, "move proxykit.")
		assert.Contains(t, err, "top level")
	}
	t.Run("global, which Helm copies there itself, is fine", func(t *testing.T) {
		mustRenderSDK(t, fixtureChart, "global: {proxy: {http: \"http://g:1\"}}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\nproxykit: {global: {x: 1}}")
	})
}

// TestHelpersNeedTheRootContext calls every public helper with `.` inside
// `with` and `range`, the mistake that used to drop the proxy silently.
func TestHelpersNeedTheRootContext(t *testing.T) {
	helpers := []string{
		"proxykit.generateEnv", "proxykit.proxy.env", "proxykit.proxy.noProxy", "proxykit.proxy.config",
		"proxykit.proxy.secret", "proxykit.proxy.secretName", "proxykit.proxy.enabled", "proxykit.proxy.hasCredentials",
		"proxykit.systemd.dropIn", "proxykit.systemd.envFile", "proxykit.certManager.values", "proxykit.cluster.facts",
		"proxykit.trust.env", "proxykit.trust.volumes", "proxykit.trust.volumeMounts",
	}
	for _, helper := range helpers {
		for _, mode := range []string{"with", "range"} {
			t.Run(helper+"/"+mode, func(t *testing.T) {
				values := withNetworks(fmt.Sprintf("proxy: {http: \"http://proxy:3128\"}\ncontextCheck: {helper: %s, mode: %s}", helper, mode))
				err := renderError(t, fixtureChart, values)
				assert.Contains(t, err, helper+":")
				assert.Contains(t, err, "pass `$`")
				assertNoTemplateCrash(t, err)
			})
		}
		t.Run(helper+"/root", func(t *testing.T) {
			values := withNetworks(fmt.Sprintf("proxy: {http: \"http://proxy:3128\"}\ncontextCheck: {helper: %s, mode: root}", helper))
			out := proxytest.Get[corev1.Secret](t, mustRenderSDK(t, fixtureChart, values), releaseName+"-context-check").StringData["output"]
			if helper != "proxykit.proxy.secret" && helper != "proxykit.proxy.hasCredentials" && !strings.HasPrefix(helper, "proxykit.trust.") {
				assert.NotEmpty(t, out, "with $ the helper renders its output")
			}
		})
	}
}

func TestProxyNeedsAPodOrServiceNetwork(t *testing.T) {
	const on = `proxy: {http: "http://proxy:3128"}` + "\n"
	cases := []struct {
		name, values string
		ok           bool
	}{
		{"proxy off", `cluster: {}`, true},
		{"no network known", on, false},
		{"only the node network known", on + `cluster: {nodeCIDRs: [192.168.0.0/24]}`, false},
		{"only the API server known", on + `cluster: {apiServer: 10.96.0.1}`, false},
		{"pod CIDRs", on + `cluster: {podCIDRs: [10.244.0.0/16]}`, true},
		{"service CIDRs", on + `cluster: {serviceCIDRs: "10.96.0.0/12"}`, true},
		{"a CIDR among noProxy entries", `proxy: {http: "http://proxy:3128", noProxy: "a.example,10.0.0.0/8"}`, true},
		{"a CIDR in cluster.proxy.noProxy, as a cluster-values Secret carries it", `cluster: {proxy: {https: "http://p:1", noProxy: "10.0.0.0/8"}}`, true},
		{"the explicit opt-out", on + `cluster: {requireNetworks: false}`, true},
		{"existingSecret alone: NO_PROXY comes from that Secret", `proxy: {existingSecret: corp-proxy}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ok {
				mustRenderSDK(t, fixtureChart, tc.values)
				return
			}
			assertFailsNaming(t, fixtureChart, tc.values, "cluster.podCIDRs", "cluster.serviceCIDRs", "cluster.requireNetworks: false", "proxy.http")
		})
	}
}

func TestStrictValuesFailNamingTheKey(t *testing.T) {
	cases := []struct {
		name   string
		values string
		wants  []string
	}{
		{"wildcard inside a noProxy entry", `proxy: {http: "http://p:1", noProxy: ["corp.*.example"]}`, []string{"proxy.noProxy", `"corp.*.example"`, "only a leading"}},
		{"trailing wildcard", `proxy: {http: "http://p:1", noProxy: "10.0.*"}`, []string{"proxy.noProxy", `"10.0.*"`}},
		{"two wildcards", `cluster: {proxy: {http: "http://p:1", noProxy: "*.*.example"}}`, []string{"cluster.proxy.noProxy", `"*.*.example"`}},
		{"a bare star bypasses everything", `proxy: {http: "http://p:1", noProxy: "a.example,*"}`, []string{"proxy.noProxy", "every host"}},
		{"Kyverno variable as a noProxy entry", `proxy: {http: "http://p:1", noProxy: ["{{request.object.metadata.name}}"]}`, []string{"proxy.noProxy", "is not a host name"}},
		{"Kyverno reference as a noProxy entry", `proxy: {http: "http://p:1", noProxy: ["$(./../metadata/name)"]}`, []string{"proxy.noProxy", `"$(./../metadata/name)"`}},
		{"Kyverno variable in the proxy host", `proxy: {http: "http://{{request.namespace}}.proxy:3128"}`, []string{"proxy.http", "is not a proxy URL"}},
		{"Kyverno reference in the proxy host", `global: {proxy: {https: "http://$(x).proxy:3128"}}`, []string{"global.proxy.https", "is not a proxy URL"}},
		{"quote in the proxy host", `proxy: {http: "http://proxy\":3128"}`, []string{"proxy.http", "is not a proxy URL"}},
		{"bracketed IPv6 with a bad address", `proxy: {http: "http://[fd00::g]:3128"}`, []string{"proxy.http", "is not a proxy URL"}},
		{"IPv6 proxy host without brackets", `proxy: {http: "http://fd00::1:3128"}`, []string{"proxy.http"}},
		{"noProxy entry with a bad port", `proxy: {http: "http://p:1", noProxy: "registry.local:99999"}`, []string{"proxy.noProxy", `port "99999"`}},
		{"noProxy entry with a bracketed bad address", `proxy: {http: "http://p:1", noProxy: "[fd00::x]"}`, []string{"proxy.noProxy", `"[fd00::x]"`}},
		{"existingSecret with upper case", `proxy: {existingSecret: Corp-Proxy}`, []string{"proxy.existingSecret", "not a valid Secret name"}},
		{"existingSecret with a quote", `proxy: {existingSecret: "corp\"proxy"}`, []string{"proxy.existingSecret", "not a valid Secret name"}},
		{"existingSecret with a Kyverno variable", `proxy: {existingSecret: "{{request.namespace}}"}`, []string{"proxy.existingSecret", "not a valid Secret name"}},
		{"requireNetworks is a string", `cluster: {requireNetworks: "no"}`, []string{"cluster.requireNetworks must be true or false"}},
		{"bad node CIDR", `cluster: {nodeCIDRs: [192.168.0.0/33]}`, []string{"cluster.nodeCIDRs", `"192.168.0.0/33"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assertFailsNaming(t, fixtureChart, withNetworks(tc.values), tc.wants...)
		})
	}
}

func TestControlCharactersFailNamingTheKey(t *testing.T) {
	// YAML escapes: \0 NUL, \x7f DEL, \N (U+0085) next line, a C1 control
	for _, c := range []struct{ name, escape, shown string }{{"NUL", `\0`, `\x00`}, {"DEL", `\x7f`, `\x7f`}, {"C1", `\N`, `\u0085`}} {
		cases := []struct{ where, values, key string }{
			{"proxy.http", `proxy: {http: "http://proxy:3128` + c.escape + `"}`, "proxy.http"},
			{"a password", `proxy: {https: "http://u:pa` + c.escape + `ss@proxy:3128"}`, "proxy.https"},
			{"a noProxy entry", `proxy: {http: "http://p:1", noProxy: ["a.example` + c.escape + `"]}`, "proxy.noProxy[0]"},
			{"cluster.proxy.noProxy", `cluster: {proxy: {http: "http://p:1", noProxy: "a` + c.escape + `.example"}}`, "cluster.proxy.noProxy"},
			{"cluster.apiServer", `cluster: {apiServer: "api` + c.escape + `.example"}`, "cluster.apiServer"},
			{"cluster.domain", `cluster: {domain: "cluster` + c.escape + `.local"}`, "cluster.domain"},
			{"a defaults.env value", `defaults: {env: [{name: A, value: ok}, {name: B, value: "x` + c.escape + `"}]}`, "defaults.env[1].value"},
			{"an env source value", `app: {extraEnv: [{name: B, value: "x` + c.escape + `y"}]}`, "env source 2[0].value"},
			{"an env name", `init: {env: [{name: "B` + c.escape + `", value: x}]}`, "env source 1[0].name"},
		}
		for _, tc := range cases {
			t.Run(c.name+"/"+tc.where, func(t *testing.T) {
				err := renderError(t, fixtureChart, withNetworks(tc.values))
				assert.Contains(t, err, tc.key)
				assert.NotContains(t, err, "pa"+c.shown, "the password is not shown")
				assertNoTemplateCrash(t, err)
			})
		}
	}
	t.Run("tab, newline and carriage return stay allowed in env values", func(t *testing.T) {
		r := mustRenderSDK(t, fixtureChart, `app: {env: [{name: SCRIPT, value: "a\tb\r\nc"}]}`)
		env := container(t, proxytest.Get[appsv1.Deployment](t, r, releaseName+"-app").Spec.Template.Spec, "app").Env
		assert.Equal(t, "a\tb\r\nc", envMap(env)["SCRIPT"].Value)
	})
}

func TestErrorMessagesNeverShowThePassword(t *testing.T) {
	const secret = "SECRETpw"
	for _, url := range []string{
		"http://u:" + secret + "@proxy corp:3128",     // a space in the host
		"http://u:" + secret + "@proxy:31:28",         // a stray colon
		"http://u:" + secret + "@proxy:99999",         // port out of range
		"http://u:" + secret + "@proxy:3128/path",     // a path
		"http://u:" + secret + "@:3128",               // no host
		"http://u:" + secret + "@[fd00::1:3128",       // unclosed bracket
		"ftp://u:" + secret + "@proxy:3128",           // scheme
		"http://u:" + secret + "@pro{{x}}y:3128",      // template text in the host
		"http://u:" + secret,                          // the "@host" forgotten
		"http://u:" + secret + " @proxy:3128",         // a space in the password
		"http://u:" + secret + "\x7f@proxy:3128",      // DEL in the password
		"http://u:p@ss:" + secret + "@proxy.corp:abc", // "@" in the password and a bad port
	} {
		for key, format := range map[string]string{"proxy.http": "proxy: {http: %q}", "cluster.proxy.https": "cluster: {proxy: {https: %q}}", "global.proxy.http": "global: {proxy: {http: %q}}"} {
			err := renderError(t, fixtureChart, withNetworks(fmt.Sprintf(format, url)))
			assert.NotContains(t, err, secret, "the password leaked for %q", url)
			assert.Contains(t, err, key, "the message names the key")
			assertNoTemplateCrash(t, err)
		}
	}
}

// assertNoTemplateCrash: bad input surfaces as a message, never a Go template runtime error.
func assertNoTemplateCrash(t *testing.T, err string) {
	t.Helper()
	for _, marker := range crashMarkers {
		assert.NotContains(t, err, marker, "a template crash instead of a message")
	}
}
