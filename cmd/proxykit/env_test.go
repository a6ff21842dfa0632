package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
)

// TestEnvIsTheLibrarysEnvFile: every format of `proxykit env` is the library's own
// output (proxykit.systemd.envFile, proxykit.systemd.dropIn), never rebuilt in Go,
// and a password with a quote survives each byte-exact.
func TestEnvIsTheLibrarysEnvFile(t *testing.T) {
	url := `http://u:it's%40export%20'x'@proxy.corp:3128`
	values := filepath.Join(t.TempDir(), "v.yaml")
	require.NoError(t, os.WriteFile(values, []byte("proxy: {http: \""+url+"\"}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\n"), 0o600))
	answers, err := proxykit.Ask(map[string]any{
		"proxy": map[string]any{"http": url}, "cluster": map[string]any{"serviceCIDRs": []any{"10.96.0.0/12"}}}, "", "",
		proxykit.Call{Helper: "proxykit.systemd.envFile"}, proxykit.Call{Helper: "proxykit.systemd.environmentFile"})
	require.NoError(t, err)
	envFile := answers["proxykit.systemd.envFile"]

	code, shell, stderr := runCLI(t, "", "env", "-f", values, "--format", "shell")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, strings.TrimLeft(envFile, "\n"), shell)

	// dotenv is the file systemd's EnvironmentFile= reads (no export, which systemd
	// refuses; double quotes, which it and every shell read alike)
	_, dotenv, _ := runCLI(t, "", "env", "-f", values)
	assert.Equal(t, strings.TrimLeft(answers["proxykit.systemd.environmentFile"], "\n"), dotenv)
	assert.Contains(t, dotenv, "HTTP_PROXY=\"http://u:it's%40export%20'x'@proxy.corp:3128\"\n")

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
	assert.Contains(t, out, "\nJAVA_TOOL_OPTIONS=\"-Dhttp.proxyHost=p -Dhttp.proxyPort=3128 -Dhttp.nonProxyHosts=localhost|127.*|*.localhost|127.0.0.1|cluster.local|")
	assert.Contains(t, out, "\nNODE_USE_ENV_PROXY=\"1\"\n")
	assert.Contains(t, out, ",10.96.0.0/12,10.96.0.0-10.111.255.255,", "Node's http module reads the Service network as a range")

	code, out, stderr = runCLI(t, "", "explain", "--no-proxy", "10.96.0.0/12,fd00:10:96::/112", "--client", "java", "--client", "node-http", "--client", "node-fetch@22", "http://10.100.0.1", "http://[fd00:10:96::1]")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `http://10\.100\.0\.1\s+java\s+direct\s+10\.100\.\*`, out)
	assert.Regexp(t, `http://10\.100\.0\.1\s+node-http\s+proxy`, out)
	assert.Regexp(t, `http://10\.100\.0\.1\s+node-fetch@22\s+proxy`, out)
	assert.Regexp(t, `http://\[fd00:10:96::1\]\s+java\s+proxy`, out)
	assert.Contains(t, out, "java: fd00:10:96::/112 is not in http.nonProxyHosts: an IPv6 CIDR")
}
