//go:build integration

package inject

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/manifest"
	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestInjectCoversWhatChartsCall runs tests/testdata/callers, a chart that keeps
// its calls where published charts keep theirs (Jenkins' JCasC ConfigMap with the
// API server as https://kubernetes.default, Temporal's mounted server config with
// another release's Elasticsearch and PostgreSQL by short name, Harbor's envFrom
// ConfigMap with its own proxy settings and its scanner's empty placeholders, a
// pre-install Job that calls a schema registry by short name), through both
// Helms' post-renderers. Every call into the cluster goes around the proxy for
// every client model, the real JVM reads the flags that say so, `proxykit check`
// is green on Helm 4's render and names only the hook under Helm 3, and a NO_PROXY
// written by hand without the calls is caught with the file they are in.
func TestInjectCoversWhatChartsCall(t *testing.T) {
	harness.Parallel(t)
	bin := itest.ProxykitCLI(t)
	env4, env3 := helm4Plugin(t, bin), itest.NewHelmHome(t).Env
	values := filepath.Join(t.TempDir(), "proxy-values.yaml")
	require.NoError(t, os.WriteFile(values, []byte(strings.Replace(itest.InjectValuesPlain, "proxy: {", "proxy: {runtimes: [java], ", 1)), 0o600))
	chart := fixture.Path("tests", "testdata", "callers")
	render := func(env []string, binary string, post ...string) (string, *proxytest.Manifests) {
		out := itest.RunHelm(t, env, binary, append([]string{"template", "ci", chart, "-n", "ci"}, post...)...)
		m, err := proxytest.Parse(out)
		require.NoError(t, err)
		m.Namespace = "ci"
		return out, m
	}
	out4, m4 := render(env4, "helm4", "--post-renderer", "proxykit", "--post-renderer-args", "-f", "--post-renderer-args", values,
		"--post-renderer-args", "-n", "--post-renderer-args", "ci")
	out3, m3 := render(env3, "helm", "--post-renderer", bin, "--post-renderer-args", "inject", "--post-renderer-args", "-f", "--post-renderer-args", values,
		"--post-renderer-args", "-n", "--post-renderer-args", "ci")

	// the same with policy.mergeNoProxy switched off: the chart's own NO_PROXY is kept as it is
	kept := filepath.Join(t.TempDir(), "kept-values.yaml")
	raw, err := os.ReadFile(values)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(kept, append(raw, []byte("policy: {mergeNoProxy: false}\n")...), 0o600))
	outKept, mKept := render(env4, "helm4", "--post-renderer", "proxykit", "--post-renderer-args", "-f", "--post-renderer-args", kept,
		"--post-renderer-args", "-n", "--post-renderer-args", "ci")

	// every call into the cluster, wherever the chart keeps it, goes around the proxy for every client
	judged := 0
	places := m4.Places(cluster.Facts{Domain: "cluster.local", Namespaces: []string{"ci"}})
	for _, c := range m4.Containers() {
		env := m4.Environment(c)
		for _, call := range m4.Calls(c) {
			if places.Of(call) != manifest.PlaceInCluster {
				continue
			}
			judged++
			clients := noproxy.Clients // BusyBox's wget reads no NO_PROXY at all: no injector can help it
			if call.Host == "kubernetes.default" {
				clients = append(slices.Clone(clients), noproxy.Fabric8) // the Kubernetes client, which calls the API server alone
			}
			for _, client := range clients {
				d, err := noproxy.Decide(client, call.Target(), noproxy.Env(env))
				require.NoError(t, err)
				assert.True(t, d.Direct, "%s calls %s (%s); %s sends it through the proxy%s", c.Object, call.HostPort(), call.Where, client, d.Refused)
			}
		}
	}
	assert.GreaterOrEqual(t, judged, 8, "the calls of the fixture are read")

	// the real JVM reads the controller's flags: the API server as JCasC names it goes direct
	controller := m4.Environment(m4.Container(t, "StatefulSet/ci-controller", "controller"))
	props := itest.JVMProperties(t, controller["JAVA_TOOL_OPTIONS"])
	assert.Contains(t, strings.Split(props["http.nonProxyHosts"], "|"), "kubernetes.default")

	// Harbor's pattern: the chart's own NO_PROXY from envFrom keeps its entries after the
	// cluster's (policy.mergeNoProxy, on by default), and both cases read it
	core := m4.Environment(m4.Container(t, "Deployment/ci-core", "core"))
	assert.True(t, strings.HasSuffix(core["NO_PROXY"], ",.internal,.local,sso.corp.internal"), core["NO_PROXY"])
	assert.Equal(t, core["NO_PROXY"], core["no_proxy"])
	trivy := m4.Environment(m4.Container(t, "Deployment/ci-core", "trivy"))
	assert.Equal(t, "http://proxy.corp.example:3128", trivy["HTTP_PROXY"], "an empty placeholder is filled")
	assert.Equal(t, trivy["NO_PROXY"], trivy["no_proxy"])

	// check: green on Helm 4's render, hooks included
	code, stdout, stderr := itest.CLI(t, bin, "check", "-f", values, "-n", "ci", itest.WriteTemp(t, out4))
	assert.Equal(t, 0, code, "%s%s", stdout, stderr)

	// switched off, the chart's own NO_PROXY is kept as it is, and misses the cluster's entries
	core = mKept.Environment(mKept.Container(t, "Deployment/ci-core", "core"))
	assert.Equal(t, ".internal,.local,sso.corp.internal", core["NO_PROXY"])
	assert.Equal(t, core["NO_PROXY"], core["no_proxy"])
	code, stdout, stderr = itest.CLI(t, bin, "check", "-f", kept, "-n", "ci", itest.WriteTemp(t, outKept))
	assert.Equal(t, 1, code, "the chart's own NO_PROXY, kept, misses the cluster's entries:\n%s%s", stdout, stderr)
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if strings.Contains(line, "containers checked") {
			continue
		}
		assert.True(t, strings.HasPrefix(line, "Deployment/ci-core container core: "), "only the chart's own NO_PROXY: %s", line)
	}

	// Helm 3: the hook alone goes without, reported once as such
	_, stdout, _ = itest.CLI(t, bin, "check", "-f", values, "-n", "ci", "-o", "json", itest.WriteTemp(t, out3))
	var findings []proxytest.Finding
	require.NoError(t, yaml.Unmarshal([]byte(stdout), &findings))
	var rules []string
	for _, f := range findings {
		if f.Object != "Deployment/ci-core" {
			rules = append(rules, f.Object+" "+f.Rule)
		}
	}
	assert.Equal(t, []string{"Job/ci-register " + proxytest.RuleHookWithoutProxy}, rules)
	require.NotNil(t, m3.Find("Job", "ci-register"), "Helm 3 renders the hook, untouched")

	// a NO_PROXY written by hand without the calls: caught, with where each call is
	handWritten := strings.NewReplacer(",elasticsearch-master", "", ",schema-registry", "", ",postgres-postgresql", "").Replace(out4)
	require.NotEqual(t, out4, handWritten)
	code, stdout, _ = itest.CLI(t, bin, "check", "-f", values, "-n", "ci", itest.WriteTemp(t, handWritten))
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "Deployment/ci-history container history: in-cluster-call-proxied: NO_PROXY sends calls that must go around the proxy through it, which cannot reach them: elasticsearch-master:9200 (ConfigMap/ci-server-config key config_template.yaml, mounted at /etc/temporal/config/config_template.yaml)")
	assert.Contains(t, stdout, "Job/ci-register container register: in-cluster-call-proxied: NO_PROXY sends calls that must go around the proxy through it, which cannot reach them: schema-registry:8081 (command)")
	assert.NotContains(t, stdout, "postgres-postgresql", "PostgreSQL's client reads no proxy variable")
}
