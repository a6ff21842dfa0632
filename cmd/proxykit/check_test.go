package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
)

// check judges the whole stream kubectl would apply, or refuses it naming the
// document: a CRLF file and a JSON stream (as `jq -c` prints) hold two
// Deployments, and both are judged (issue 37).
func TestCheckReadsTheWholeStream(t *testing.T) {
	deployment := func(name string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + "}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: x}]\n"
	}
	jsonDeployment := func(name string) string {
		return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"` + name + `"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"x"}]}}}}`
	}
	values := []string{"--set", "cluster.serviceCIDRs={10.96.0.0/12}", "-o", "json", "-"}
	for name, input := range map[string]string{
		"CRLF":       strings.ReplaceAll(deployment("a")+"---\n"+deployment("b"), "\n", "\r\n"),
		"JSON lines": jsonDeployment("a") + "\n" + jsonDeployment("b") + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, input, append([]string{"check"}, values...)...)
			require.Equal(t, 1, code, stderr)
			var findings []struct{ Object, Rule string }
			require.NoError(t, json.Unmarshal([]byte(stdout), &findings))
			var objects []string
			for _, f := range findings {
				objects = append(objects, f.Object)
			}
			assert.ElementsMatch(t, []string{"Deployment/a", "Deployment/b"}, objects)
		})
	}
	t.Run("two flow maps in one document: refused, naming it", func(t *testing.T) {
		code, _, stderr := runCLI(t, "# one document\n"+jsonDeployment("a")+"\n"+jsonDeployment("b")+"\n", append([]string{"check"}, values...)...)
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "document 1")
	})
}

// helmTemplate renders the example consumer chart as `helm template shop -f
// values` prints it, in-process with proxytest (no helm binary: the unit tests run
// on a fresh clone; tests/integration runs check on the helm CLIs' output).
func helmTemplate(t *testing.T, values string) string {
	t.Helper()
	m, err := proxytest.RenderE("../../examples/consumer-app", proxytest.ValuesFile(values), proxytest.Release("shop", "default"), proxytest.EmbeddedLibrary())
	require.NoError(t, err)
	var b strings.Builder
	for _, o := range m.Objects {
		b.WriteString("---\n# Source: consumer-app/" + o.Source + "\n" + strings.TrimSpace(o.Raw) + "\n")
	}
	return b.String()
}

func TestCheckReadsHelmTemplateOutput(t *testing.T) {
	manifests := helmTemplate(t, eks)
	code, stdout, stderr := runCLI(t, manifests, "check", "-f", eks, "-")
	assert.Equal(t, 0, code, "the metrics sidecar opts out with proxykit.io/skip-containers: %s%s", stdout, stderr)
	assert.Equal(t, "5 containers checked, 0 findings\n", stdout)

	code, stdout, _ = runCLI(t, manifests, "check", "-f", eks, "-o", "json")
	assert.Equal(t, 0, code)
	assert.JSONEq(t, "[]", stdout)

	optedIn := strings.Replace(manifests, "proxykit.io/skip-containers: metrics", "proxykit.io/skip-containers: envoy", 1)
	require.NotEqual(t, manifests, optedIn)
	code, stdout, _ = runCLI(t, optedIn, "check", "-f", eks, "-o", "json")
	assert.Equal(t, 1, code)
	var findings []map[string]string
	require.NoError(t, json.Unmarshal([]byte(stdout), &findings))
	assert.Equal(t, []map[string]string{{"object": "Deployment/shop-api", "container": "metrics", "rule": "missing-proxy-env",
		"message": "HTTP_PROXY, HTTPS_PROXY, NO_PROXY, http_proxy, https_proxy, no_proxy are not set; call proxykit.generateEnv for it, or, if it must not use the proxy, name it in the pod template's proxykit.io/skip-containers annotation"}},
		findings, "one finding per container and rule")

	t.Run("a cluster the values do not describe: gaps", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "manifests.yaml")
		require.NoError(t, os.WriteFile(file, []byte(manifests), 0o644))
		code, stdout, _ := runCLI(t, "", "check", "-f", eks, "--set", "cluster.nodeCIDRs={192.168.0.0/16}", file)
		assert.Equal(t, 1, code)
		assert.Contains(t, stdout, "no-proxy-gap: NO_PROXY sends http://192.168.0.0:8080, http://192.168.128.0:8080, http://192.168.255.255:8080 through the proxy")
		assert.Contains(t, stdout, "5 containers checked, 4 findings", "one per container that gets the proxy")
	})
	t.Run("no network in the values is exit 2, not a silent pass", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, manifests, "check")
		assert.Equal(t, 2, code, stdout)
		assert.Contains(t, stderr, "cluster.podCIDRs")
		assert.Contains(t, stderr, "cluster.requireNetworks=false")
		code, stdout, _ = runCLI(t, manifests, "check", "--set", "cluster.requireNetworks=false")
		assert.Equal(t, 0, code, "the explicit opt-out judges what it can: %s", stdout)
	})
	t.Run("bad values are exit 2", func(t *testing.T) {
		code, _, stderr := runCLI(t, manifests, "check", "--set", "cluster.serviceCIDRs={10.0.0.0/33}")
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "cluster.serviceCIDRs")
	})
}

// Inputs on which check used to pass having judged nothing end in exit 2.
func TestCheckNeverPassesOnNothing(t *testing.T) {
	values := []string{"--set", "cluster.serviceCIDRs={10.96.0.0/12}"}
	for name, input := range map[string]string{
		"empty input":                    "",
		"comments only":                  "# Source: x/templates/a.yaml\n---\n# nothing\n",
		"a Deployment that won't decode": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: c, env: {A: b}}]}}}\n",
		"not YAML":                       "{{ .Values }}: [",
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, input, append([]string{"check"}, values...)...)
			assert.Equal(t, 2, code, "stdout: %s", stdout)
			assert.NotEmpty(t, stderr)
		})
	}
	t.Run("an endless input stops with an error", func(t *testing.T) {
		f, err := os.Open("/dev/zero")
		require.NoError(t, err)
		defer f.Close()
		var out, errOut bytes.Buffer
		code := run(append([]string{"check"}, append(values, "-")...), f, &out, &errOut)
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut.String(), "larger than 64 MiB")
	})
}

func TestCheckJudgesTheReleaseServices(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - name: web\n      image: x\n      env:\n"
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		pod += "        - {name: " + name + ", value: \"http://proxy.corp.example:3128\"}\n"
	}
	for _, name := range []string{"NO_PROXY", "no_proxy"} {
		pod += "        - {name: " + name + ", value: \"" + eksNoProxy + "\"}\n"
	}
	manifests := pod + "---\napiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec: {ports: [{port: 8080}]}\n"

	code, stdout, _ := runCLI(t, manifests, "check", "-f", eks, "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "Pod/web container web: release-service-proxied: NO_PROXY sends Service api (api: go, curl, wget, python-requests, python-urllib, python-httpx, deno, bun, php-guzzle, dotnet, grpc-core, grpc-go)")

	// the release namespace, from -n or HELM_NAMESPACE as a post-renderer gets it, adds name.namespace
	code, stdout, _ = runCLI(t, manifests, "check", "-f", eks, "-n", "shop", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "Service api (api, api.shop: go, curl, wget, python-requests, python-urllib, python-httpx, deno, bun, php-guzzle, dotnet, grpc-core, grpc-go)")
	t.Setenv("HELM_NAMESPACE", "shop")
	_, fromEnv, _ := runCLI(t, manifests, "check", "-f", eks, "-")
	assert.Equal(t, stdout, fromEnv)

	fixed := strings.ReplaceAll(manifests, eksNoProxy, eksNoProxy+",api,api.shop,api.shop.svc")
	code, stdout, _ = runCLI(t, fixed, "check", "-f", eks, "-")
	assert.Equal(t, 0, code, stdout)

	// --no-proxy-budget: a NO_PROXY for consumers that take less than one environment string
	code, stdout, _ = runCLI(t, fixed, "check", "-f", eks, "--no-proxy-budget", "100", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "Pod/web container web: no-proxy-too-long: NO_PROXY is ")
	assert.Contains(t, stdout, " characters, over 100: the budget asked for")
	code, _, stderr := runCLI(t, fixed, "check", "-f", eks, "--no-proxy-budget", "-1", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--no-proxy-budget: -1 is not a length")
}

// check --chart reads the chart's own values under the flags, as helm template
// does: a chart that names its cluster in values.yaml needs only the proxy.
func TestCheckReadsTheChartsValues(t *testing.T) {
	chart := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(chart, "Chart.yaml"), []byte("apiVersion: v2\nname: platform\nversion: 0.1.0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(chart, "values.yaml"), []byte("cluster:\n  podCIDRs: [10.0.0.0/8]\n  serviceCIDRs: [172.20.0.0/16]\n  apiServer: 172.20.0.1\n"), 0o644))
	manifests := helmTemplate(t, eks)
	code, stdout, stderr := runCLI(t, manifests, "check", "--set", "proxy.http=http://proxy.corp.example:3128", "-")
	assert.Equal(t, 2, code, "without the chart's values there is no network to judge: %s", stdout)
	assert.Contains(t, stderr, "cluster.podCIDRs")
	code, stdout, stderr = runCLI(t, manifests, "check", "--chart", chart, "--set", "proxy.http=http://proxy.corp.example:3128", "-")
	assert.Equal(t, 0, code, stdout+stderr)
	assert.Equal(t, "5 containers checked, 0 findings\n", stdout)
	// the flags still win over the chart's values
	code, stdout, _ = runCLI(t, manifests, "check", "--chart", chart, "--set", "proxy.http=http://proxy.corp.example:3128", "--set", "cluster.nodeCIDRs={192.168.0.0/16}", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "no-proxy-gap: NO_PROXY sends http://192.168.0.0:8080")
	code, _, stderr = runCLI(t, manifests, "check", "--chart", filepath.Join(chart, "nope"), "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--chart")
}
