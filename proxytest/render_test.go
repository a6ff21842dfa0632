package proxytest

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/internal/testfs"
)

// A platform chart sets its cluster in its own values.yaml; a test passes only
// the proxy. The facts Check judges with are the render's own.
func TestRenderTakesTheFactsFromTheRender(t *testing.T) {
	m := Render(t, "testdata/platform", Values(`proxy: {http: http://proxy.corp.example:3128}`))

	assert.Equal(t, Cluster{Domain: "k8s.internal", PodCIDRs: []string{"100.96.0.0/11"}, ServiceCIDRs: []string{"100.64.0.0/13"},
		NodeCIDRs: []string{}, APIServer: "100.64.0.1", Metadata: false}, m.Cluster)
	assert.Equal(t, []string{"HTTP_PROXY", "NO_PROXY", "http_proxy", "no_proxy"}, m.Variables,
		"no https proxy is set, so HTTPS_PROXY is not expected")
	cluster, _ := m.Values["cluster"].(map[string]any)
	assert.Equal(t, "k8s.internal", cluster["domain"], "Values holds the chart's values.yaml, merged as Helm merges it")
	proxy, _ := m.Values["proxy"].(map[string]any)
	assert.Equal(t, "http://proxy.corp.example:3128", proxy["http"])
	assert.Equal(t, []any{".corp.example"}, proxy["noProxy"], "the chart's default stays beside the option")

	assert.Empty(t, Check(m), "the chart is proxy ready: init container covered, sidecar opted out")
	fromValues, err := ClusterFromValues(m.Values)
	require.NoError(t, err, "the merged values read as the library reads them")
	assert.Equal(t, m.Cluster, fromValues)

	t.Run("options override the chart's values in order", func(t *testing.T) {
		m := Render(t, "testdata/platform", Values(`proxy: {http: http://a:1}`), Values(`{proxy: {https: http://b:2}, cluster: {metadataEndpoints: true}}`))
		assert.True(t, m.Cluster.Metadata)
		assert.Equal(t, ProxyVariables, m.Variables)
		assert.Empty(t, Check(m))
	})
	t.Run("the proxy off: every variable is expected and the message says why", func(t *testing.T) {
		m := Render(t, "testdata/platform")
		assert.Nil(t, m.Variables)
		findings := Check(m)
		require.Len(t, findings, 4, "%v", findings) // migrate, api, db, report; envoy opts out
		for _, f := range findings {
			assert.Equal(t, RuleMissingProxyEnv, f.Rule)
			assert.Contains(t, f.Message, "the proxy is off in the values this chart was rendered with")
		}
	})
}

func TestRenderChecksEverySubchart(t *testing.T) {
	m := Render(t, "testdata/umbrella")
	assert.Equal(t, []string{"Deployment/web", "Deployment/worker"}, m.IDs())
	assert.Equal(t, "charts/web/templates/deployment.yaml", m.Objects[0].Source)
	assert.Equal(t, []string{"10.244.0.0/16", "fd00:10:244::/56"}, m.Cluster.PodCIDRs, "every subchart's networks")
	assert.Equal(t, []string{"10.96.0.0/12"}, m.Cluster.ServiceCIDRs, "one network named twice is listed once")

	findings := Check(m)
	require.Len(t, findings, 2, "%v", findings)
	assert.Equal(t, Finding{Object: "Deployment/web", Container: "web", Rule: RuleNoProxyGap}, Finding{Object: findings[0].Object, Container: findings[0].Container, Rule: findings[0].Rule},
		"web's NO_PROXY lacks the IPv6 pod network that worker's values name")
	assert.Contains(t, findings[0].Message, "http://[fd00:10:244::]:8080")
	assert.Equal(t, "Deployment/worker", findings[1].Object)
	assert.Equal(t, RuleMissingProxyEnv, findings[1].Rule)
}

func TestOneFindingPerContainerAndRule(t *testing.T) {
	m, err := Parse(`apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      initContainers:
        - name: init
          image: x
          env:
            - {name: HTTP_PROXY, valueFrom: {secretKeyRef: {name: gone, key: HTTP_PROXY}}}
            - {name: HTTPS_PROXY, valueFrom: {secretKeyRef: {name: gone, key: HTTPS_PROXY}}}
            - {name: NO_PROXY, valueFrom: {secretKeyRef: {name: gone, key: NO_PROXY}}}
            - {name: http_proxy, valueFrom: {secretKeyRef: {name: gone, key: HTTP_PROXY}}}
            - {name: https_proxy, valueFrom: {secretKeyRef: {name: gone, key: HTTPS_PROXY}}}
            - {name: no_proxy, valueFrom: {secretKeyRef: {name: gone, key: NO_PROXY}}}
      containers:
        - {name: main, image: x}
`)
	require.NoError(t, err)
	findings := Check(m, WithCluster(testCluster))
	require.Len(t, findings, 2, "%v", findings)
	assert.Equal(t, RuleMissingSecret, findings[0].Rule)
	assert.Equal(t, "init", findings[0].Container)
	assert.Equal(t, "HTTP_PROXY reads Secret/gone; HTTPS_PROXY reads Secret/gone; NO_PROXY reads Secret/gone; http_proxy reads Secret/gone; https_proxy reads Secret/gone; no_proxy reads Secret/gone, which the manifests do not contain (an init container, in initContainers); render proxykit.proxy.secret in this chart, or create it in the Pod's namespace", findings[0].Message)
	assert.Equal(t, RuleMissingProxyEnv, findings[1].Rule)
	assert.Equal(t, "HTTP_PROXY, HTTPS_PROXY, NO_PROXY, http_proxy, https_proxy, no_proxy are not set; call proxykit.generateEnv for it, or, if it must not use the proxy, name it in the pod template's proxykit.io/skip-containers annotation", findings[1].Message)
	assert.Equal(t, "Job/j container main: missing-proxy-env: "+findings[1].Message, findings[1].String())
}

func TestFindIsSafeForConcurrentUse(t *testing.T) {
	m := Render(t, "testdata/platform")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NotNil(t, m.Find("StatefulSet", "release-name-db"))
			assert.NotEmpty(t, Check(m))
		}()
	}
	wg.Wait()
}

func TestParseKeepsSubchartSources(t *testing.T) {
	m, err := Parse("---\n# Source: umbrella/charts/web/templates/deployment.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
	require.NoError(t, err)
	require.Len(t, m.Objects, 1)
	assert.Equal(t, "charts/web/templates/deployment.yaml", m.Objects[0].Source)
	assert.True(t, strings.HasPrefix(m.Objects[0].ID(), "ConfigMap/"))
}

// A charts/ folder may hold a stale copy of the library; EmbeddedLibrary tests
// the chart against the library of the module the test imports instead.
func TestEmbeddedLibraryReplacesAVendoredCopy(t *testing.T) {
	chart := copyChart(t, "testdata/platform")
	stale := filepath.Join(chart, "charts", "proxykit")
	require.NoError(t, os.MkdirAll(filepath.Join(stale, "templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(stale, "Chart.yaml"), []byte("apiVersion: v2\nname: proxykit\ntype: library\nversion: 0.19.0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(stale, "templates", "_stale.tpl"), []byte(`
{{- define "proxykit.generateEnv" }}env: [{name: STALE, value: "1"}]{{ end -}}
{{- define "proxykit.proxy.env" }}[]{{ end -}}
{{- define "proxykit.cluster.facts" }}{}{{ end -}}
`), 0o644))
	values := Values(`proxy: {http: http://proxy.corp.example:3128}`)

	m := Render(t, chart, values)
	assert.Equal(t, "STALE", m.Container(t, "Deployment/release-name-api", "api").Env[0].Name, "the chart's charts/ folder wins by default, as in helm")

	m = Render(t, chart, values, EmbeddedLibrary())
	assert.Equal(t, "HTTP_PROXY", m.Container(t, "Deployment/release-name-api", "api").Env[0].Name)
	assert.Empty(t, Check(m))
}

func TestKubeVersion(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte("apiVersion: v2\nname: modern\nversion: 0.1.0\nkubeVersion: \">=1.25.0-0\"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates", "cm.yaml"),
		[]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: v}\ndata: {version: {{ .Capabilities.KubeVersion.Version | quote }}}\n"), 0o644))

	// the default is the Kubernetes version of the client-go this module pins, not Helm 3's v1.20.0
	m := Render(t, dir)
	var cm corev1.ConfigMap
	require.NoError(t, m.Decode("ConfigMap", "v", &cm))
	assert.Equal(t, proxykit.DefaultKubeVersion(), cm.Data["version"])
	assert.Regexp(t, `^v1\.(2[5-9]|[3-9][0-9])\.0$`, cm.Data["version"])

	m = Render(t, dir, KubeVersion("1.30.2"))
	require.NoError(t, m.Decode("ConfigMap", "v", &cm))
	assert.Equal(t, "v1.30.2", cm.Data["version"])

	_, err := RenderE(dir, KubeVersion("1.24.0"))
	assert.ErrorContains(t, err, "chart requires kubeVersion: >=1.25.0-0 which is incompatible with Kubernetes v1.24.0", "as helm template says it")
	_, err = RenderE(dir, KubeVersion("one"))
	assert.ErrorContains(t, err, `the Kubernetes version "one"`)
}

// copyChart copies a chart directory without its charts/ folder.
func copyChart(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), filepath.Base(from))
	testfs.CopyTree(t, from, to, "charts")
	return to
}

func TestRenderUsesTheEmbeddedLibrary(t *testing.T) {
	chart := copyChart(t, "../examples/consumer-app")
	m := Render(t, chart, ValuesFile("../examples/providers/gke.yaml"))
	c, err := ClusterFromValues(m.Values)
	require.NoError(t, err)
	assert.Equal(t, []string{"10.0.0.0/14"}, c.PodCIDRs)
	var findings []Finding
	for _, f := range Check(m, WithCluster(c)) {
		if f.Container != "metrics" { // opts out of the proxy on purpose
			findings = append(findings, f)
		}
	}
	assert.Empty(t, findings)

	t.Run("a constraint the embedded library does not meet names both versions", func(t *testing.T) {
		chartYAML := filepath.Join(chart, "Chart.yaml")
		b, err := os.ReadFile(chartYAML)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(chartYAML, []byte(strings.Replace(string(b), "version: 0.19.0\n    repository", "version: ~0.1.0\n    repository", 1)), 0o644))
		_, err = RenderE(chart)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "~0.1.0")
		assert.Contains(t, err.Error(), "the embedded library is 0.19.0")
	})
}

// The library's message, where `helm template` says it: the chart's own template and line.
func TestRenderFailsWithTheLibraryMessage(t *testing.T) {
	_, err := RenderE(copyChart(t, "../examples/consumer-app"), Values(`cluster: {podCIDRs: [10.0.0.0/33]}`))
	require.Error(t, err)
	assert.Regexp(t, `^execution error at \(consumer-app/templates/[a-z-]+\.yaml:\d+:\d+\): proxykit: cluster\.podCIDRs: "10\.0\.0\.0/33" is not a valid CIDR`, err.Error())
}

// A dependency in Chart.yaml that charts/ lacks fails as `helm template` fails
// (proxykit alone is supplied by the embedded library).
func TestRenderFailsOnAMissingDependency(t *testing.T) {
	chart := copyChart(t, "../examples/consumer-app")
	chartYAML := filepath.Join(chart, "Chart.yaml")
	b, err := os.ReadFile(chartYAML)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(chartYAML, append(b, []byte("  - name: redis\n    version: 20.0.0\n    repository: oci://registry.example/charts\n    condition: redis.enabled\n")...), 0o644))
	_, err = RenderE(chart)
	assert.EqualError(t, err, "proxytest: consumer-app: found in Chart.yaml, but missing in charts/ directory: redis; run `helm dependency build`")
}
