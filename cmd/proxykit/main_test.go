package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/proxytest"
)

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

const (
	eks        = "../../examples/providers/eks.yaml"
	mgmt       = "../../examples/providers/mgmt-credentials.yaml"
	eksNoProxy = "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,10.0.0.0/8,172.20.0.0/16,172.20.0.1,169.254.169.254,metadata.google.internal,168.63.129.16,169.254.170.23,fd00:ec2::254,[fd00:ec2::254],fd00:ec2::23,[fd00:ec2::23],.internal,.eks.amazonaws.com,registry.corp.example"
)

func TestCommands(t *testing.T) {
	cases := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout []string // each must appear
		stderr []string
	}{
		{"noproxy from a values file", "", []string{"noproxy", "-f", eks}, 0, []string{eksNoProxy + "\n"}, nil},
		{"noproxy with --set over the file", "", []string{"noproxy", "-f", eks, "--set", "cluster.metadataEndpoints=false"}, 0,
			[]string{"172.20.0.1,.internal"}, nil},
		{"noproxy: a typo names the key", "", []string{"noproxy", "-f", eks, "--set", "cluster.podCIDR=10.0.0.0/8"}, 2, nil,
			[]string{"unknown key cluster.podCIDR (did you mean cluster.podCIDRs?)"}},
		{"noproxy: the proxy off", "", []string{"noproxy"}, 2, nil, []string{"the proxy is off"}},
		{"noproxy: a missing file", "", []string{"noproxy", "-f", "nope.yaml"}, 2, nil, []string{"nope.yaml"}},
		{"noproxy: an unknown flag", "", []string{"noproxy", "--value", "x"}, 2, nil, []string{"unknown flag: --value"}},
		{"env as dotenv, credentials kept for the machine", "", []string{"env", "-f", mgmt}, 0,
			[]string{"HTTP_PROXY='http://capi-mgmt:S3cr%40t&pass@proxy.corp.example:3128'\n", "no_proxy='localhost,"}, nil},
		{"env as yaml", "", []string{"env", "-f", eks, "--format", "yaml"}, 0, []string{"HTTPS_PROXY: http://proxy.corp.example:3128\n", "no_proxy: localhost,"}, nil},
		{"env as a systemd drop-in", "", []string{"env", "-f", mgmt, "--format", "systemd"}, 0,
			[]string{"[Service]\n", `Environment="HTTP_PROXY=http://capi-mgmt:S3cr%%40t&pass@proxy.corp.example:3128"`}, nil},
		{"env: a bad format names the flag", "", []string{"env", "-f", eks, "--format", "ini"}, 2, nil, []string{`--format: "ini"`}},
		{"explain: a missing --no-proxy", "", []string{"explain", "x"}, 2, nil, []string{"--no-proxy is required"}},
		{"explain: no target", "", []string{"explain", "--no-proxy", "a"}, 2, nil, []string{"TARGET"}},
		{"explain: a table", "", []string{"explain", "--no-proxy", "*.corp.example,.corp.example", "--client", "go", "--client", "curl", "https://git.corp.example"}, 0,
			[]string{"https://git.corp.example  go      direct  *.corp.example", "https://git.corp.example  curl    direct  .corp.example"}, nil},
		{"unknown command", "", []string{"frobnicate"}, 2, nil, []string{`unknown command "frobnicate"`, "Usage:"}},
		{"no command", "", nil, 2, nil, []string{"Usage:", "proxykit check"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.stdin, tc.args...)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			for _, want := range tc.stdout {
				assert.Contains(t, stdout, want)
			}
			for _, want := range tc.stderr {
				assert.Contains(t, stderr, want)
			}
		})
	}
}

func TestExplainJSON(t *testing.T) {
	code, stdout, _ := runCLI(t, "", "explain", "--no-proxy", "10.0.0.0/8,[::1]", "-o", "json", "--client", "wget", "--client", "python-urllib", "http://10.1.2.3", "http://[::1]:8080")
	require.Equal(t, 0, code)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, []map[string]any{
		{"target": "http://10.1.2.3", "client": "wget", "direct": false, "entry": ""},
		{"target": "http://10.1.2.3", "client": "python-urllib", "direct": false, "entry": ""},
		{"target": "http://[::1]:8080", "client": "wget", "direct": false, "entry": ""},
		{"target": "http://[::1]:8080", "client": "python-urllib", "direct": true, "entry": "[::1]"},
	}, got)
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

func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"noproxy", "--help"}, {"env", "-h"}, {"check", "--help"}, {"explain", "--help"}} {
		code, stdout, stderr := runCLI(t, "", args...)
		assert.Equal(t, 0, code, "%v: %s", args, stderr)
		assert.Contains(t, stdout, "proxykit", "%v prints its usage to stdout", args)
		assert.Empty(t, stderr, "%v", args)
	}
	_, stdout, _ := runCLI(t, "", "check", "--help")
	assert.Contains(t, stdout, "--values")
}

// TestEnvIsTheLibrarysEnvFile: every format of `proxykit env` is the library's own
// output (proxykit.systemd.envFile, proxykit.systemd.dropIn), never rebuilt in Go,
// and a password with a quote survives each byte-exact.
func TestEnvIsTheLibrarysEnvFile(t *testing.T) {
	url := `http://u:it's%40export%20'x'@proxy.corp:3128`
	values := filepath.Join(t.TempDir(), "v.yaml")
	require.NoError(t, os.WriteFile(values, []byte("proxy: {http: \""+url+"\"}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\n"), 0o600))
	envFile, err := proxykit.Include("proxykit.systemd.envFile", map[string]any{
		"proxy": map[string]any{"http": url}, "cluster": map[string]any{"serviceCIDRs": []any{"10.96.0.0/12"}}})
	require.NoError(t, err)

	code, shell, stderr := runCLI(t, "", "env", "-f", values, "--format", "shell")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, strings.TrimLeft(envFile, "\n"), shell)

	_, dotenv, _ := runCLI(t, "", "env", "-f", values)
	assert.Equal(t, strings.ReplaceAll(shell, "\nexport ", "\n")[len("export "):], dotenv, "the same lines without export")

	_, yamlOut, _ := runCLI(t, "", "env", "-f", values, "--format", "yaml")
	var vars map[string]string
	require.NoError(t, yaml.Unmarshal([]byte(yamlOut), &vars))
	assert.Equal(t, url, vars["HTTP_PROXY"])
	assert.Equal(t, url, vars["http_proxy"])
	assert.NotContains(t, vars, "HTTPS_PROXY", "no https proxy set")

	// bash reads the shell format back byte-exact
	out, err := exec.Command("bash", "-c", shell+"\nprintf %s \"$HTTP_PROXY\"").Output()
	require.NoError(t, err)
	assert.Equal(t, url, string(out))
}

// TestEnvAndExplainRuntimes: `proxykit env` gives a VM the runtimes' variables;
// `explain --client java` says which entries the JVM cannot be given.
func TestEnvAndExplainRuntimes(t *testing.T) {
	code, out, stderr := runCLI(t, "", "env", "--set", "proxy.http=http://p:3128", "--set", "proxy.runtimes={java,node}", "--set", "cluster.serviceCIDRs={10.96.0.0/12}")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "\nJAVA_TOOL_OPTIONS='-Dhttp.proxyHost=p -Dhttp.proxyPort=3128 -Dhttp.nonProxyHosts=localhost|127.*|[::1]|")
	assert.Contains(t, out, "\nNODE_USE_ENV_PROXY='1'\n")
	assert.Contains(t, out, ",10.96.0.0/12,10.96.0.0-10.111.255.255,", "Node's http module reads the Service network as a range")

	code, out, stderr = runCLI(t, "", "explain", "--no-proxy", "10.96.0.0/12,fd00:10:96::/112", "--client", "java", "--client", "node-http", "--client", "node-fetch@22", "http://10.100.0.1", "http://[fd00:10:96::1]")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `http://10\.100\.0\.1\s+java\s+direct\s+10\.100\.\*`, out)
	assert.Regexp(t, `http://10\.100\.0\.1\s+node-http\s+proxy`, out)
	assert.Regexp(t, `http://10\.100\.0\.1\s+node-fetch@22\s+proxy`, out)
	assert.Regexp(t, `http://\[fd00:10:96::1\]\s+java\s+proxy`, out)
	assert.Contains(t, out, "java: fd00:10:96::/112 is not in http.nonProxyHosts: an IPv6 CIDR")
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

func TestExplainNeverEchoesUserInfo(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		code, stdout, stderr := runCLI(t, "", "explain", "--no-proxy", "localhost", "-o", format, "http://svc:S3cretPW@proxy.corp.example:3128/x")
		assert.Equal(t, 0, code, stderr)
		assert.NotContains(t, stdout+stderr, "S3cretPW")
		assert.Contains(t, stdout, "http://***@proxy.corp.example:3128/x")
	}
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
	assert.Contains(t, stdout, "Pod/web container web: release-service-proxied: NO_PROXY sends Service api (api: go, curl, wget, python-requests, python-urllib, python-httpx)")

	// the release namespace, from -n or HELM_NAMESPACE as a post-renderer gets it, adds name.namespace
	code, stdout, _ = runCLI(t, manifests, "check", "-f", eks, "-n", "shop", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "Service api (api, api.shop: go, curl, wget, python-requests, python-urllib, python-httpx)")
	t.Setenv("HELM_NAMESPACE", "shop")
	_, fromEnv, _ := runCLI(t, manifests, "check", "-f", eks, "-")
	assert.Equal(t, stdout, fromEnv)

	fixed := strings.ReplaceAll(manifests, eksNoProxy, eksNoProxy+",api,api.shop,api.shop.svc")
	code, stdout, _ = runCLI(t, fixed, "check", "-f", eks, "-")
	assert.Equal(t, 0, code, stdout)
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

// Every command checks its word flags the same way, naming the flag and its choices.
func TestChoiceFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "-o", "yaml", "-"}, `-o: "yaml" is not one of text, json`},
		{[]string{"explain", "--no-proxy", "a", "-o", "yaml", "x"}, `-o: "yaml" is not one of text, json`},
		{[]string{"env", "--format", "ini"}, `--format: "ini" is not one of dotenv, shell, systemd, yaml`},
		{[]string{"discover", "-o", "text"}, `-o: "text" is not one of yaml, json`},
		{[]string{"audit", "-o", "yaml"}, `-o: "yaml" is not one of text, json, policyreport, openreports`},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, stderr, c.want, c.args)
	}
	var out bytes.Buffer
	require.NoError(t, printJSON(&out, []proxytest.Finding(nil)))
	assert.Equal(t, "[]\n", out.String(), "an empty list, never null")
}
