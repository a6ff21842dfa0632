package tests

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

var environmentLine = regexp.MustCompile(`^Environment="(.*)"$`)

// parseDropIn reads a [Service] drop-in the way systemd reads Environment= lines:
// inside the quotes \\ and \" are escapes, and %% is a literal % (specifier).
func parseDropIn(t *testing.T, text string) (names []string, env map[string]string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	require.Equal(t, "[Service]", lines[0])
	env = map[string]string{}
	for _, line := range lines[1:] {
		m := environmentLine.FindStringSubmatch(line)
		require.NotNil(t, m, "not an Environment line: %q", line)
		var b strings.Builder
		quoted := m[1]
		for i := 0; i < len(quoted); i++ {
			switch c := quoted[i]; {
			case c == '\\':
				i++
				require.Less(t, i, len(quoted), "dangling backslash in %q", line)
				require.Contains(t, `\"`, string(quoted[i]), "unknown escape in %q", line)
				b.WriteByte(quoted[i])
			case c == '"':
				require.Failf(t, "unescaped quote", "%q", line)
			case c == '%':
				i++
				require.True(t, i < len(quoted) && quoted[i] == '%', "a lone %% would be a systemd specifier in %q", line)
				b.WriteByte('%')
			default:
				b.WriteByte(c)
			}
		}
		name, value, ok := strings.Cut(b.String(), "=")
		require.True(t, ok, line)
		names = append(names, name)
		env[name] = value
	}
	return names, env
}

func TestSystemdDropIn(t *testing.T) {
	t.Run("plain proxy: the exact text", func(t *testing.T) {
		got := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(`
proxy: {http: "http://proxy.corp:3128", https: "http://proxy.corp:3128"}
cluster: {metadataEndpoints: false, requireNetworks: false}
`)))["dropIn"]
		np := "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,[::1]"
		want := fmt.Sprintf(`[Service]
Environment="HTTP_PROXY=http://proxy.corp:3128"
Environment="HTTPS_PROXY=http://proxy.corp:3128"
Environment="NO_PROXY=%[1]s"
Environment="http_proxy=http://proxy.corp:3128"
Environment="https_proxy=http://proxy.corp:3128"
Environment="no_proxy=%[1]s"
`, np)
		assert.Equal(t, want, got)
	})
	t.Run("credentials survive systemd's unquoting byte-exact", func(t *testing.T) {
		dropIn := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.CredentialValues(t, nil))))["dropIn"]
		assert.Contains(t, dropIn, `Zq%%40w%%25&'+!*$(;=,)~:9`, "escaped for systemd")
		names, env := parseDropIn(t, dropIn)
		assert.Equal(t, []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"}, names)
		assert.Equal(t, fixture.CredHTTP, env["HTTP_PROXY"])
		assert.Equal(t, fixture.CredHTTP, env["http_proxy"])
		assert.Equal(t, fixture.CredHTTPS, env["HTTPS_PROXY"])
		assert.Equal(t, env["NO_PROXY"], env["no_proxy"])
	})
	t.Run("nodes get both cases even with lowercase off; an empty URL is left out", func(t *testing.T) {
		names, env := parseDropIn(t, fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values("proxy: {https: \"http://p:3128\", lowercase: false}\ncluster: {requireNetworks: false}")))["dropIn"])
		assert.Equal(t, []string{"HTTPS_PROXY", "NO_PROXY", "https_proxy", "no_proxy"}, names)
		assert.Equal(t, "http://p:3128", env["https_proxy"])
	})
	t.Run("existingSecret alone cannot reach a node: no drop-in", func(t *testing.T) {
		assert.Equal(t, "", fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(`proxy: {existingSecret: corp}`)))["dropIn"])
	})
}

func TestSystemdEnvFile(t *testing.T) {
	t.Run("https only: the http pair is left out", func(t *testing.T) {
		got := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values("proxy: {https: \"http://p:3128\"}\ncluster: {serviceCIDRs: [10.96.0.0/12], metadataEndpoints: false}")))["envFile"]
		np := "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.96.0.0/12,[::1]"
		assert.Equal(t, "\nexport HTTPS_PROXY='http://p:3128'\nexport NO_PROXY='"+np+"'\nexport https_proxy='http://p:3128'\nexport no_proxy='"+np+"'\n", got)
	})
	t.Run("a single quote in the password", func(t *testing.T) {
		got := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values("proxy: {http: \"http://u:it's@p:3128\"}\ncluster: {requireNetworks: false}")))["envFile"]
		assert.Contains(t, got, `export HTTP_PROXY='http://u:it'\''s@p:3128'`)
	})
	t.Run("proxy off or existingSecret alone: nothing", func(t *testing.T) {
		assert.Equal(t, "", fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values("")))["envFile"])
		assert.Equal(t, "", fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values("proxy: {existingSecret: corp}")))["envFile"])
	})
}

// TestSystemdRuntimes: with proxy.runtimes a machine (a VM, a CI runner) gets the
// runtimes' variables too, after the six, escaped the same way.
func TestSystemdRuntimes(t *testing.T) {
	helpers := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(plainWith("runtimes: [java, node]"))))
	names, env := parseDropIn(t, helpers["dropIn"])
	assert.Equal(t, []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "JAVA_TOOL_OPTIONS", "NODE_USE_ENV_PROXY"}, names)
	assert.True(t, strings.HasPrefix(env["JAVA_TOOL_OPTIONS"], "-Dhttp.proxyHost=proxy.corp -Dhttp.proxyPort=3128 "), env["JAVA_TOOL_OPTIONS"])
	assert.Equal(t, "1", env["NODE_USE_ENV_PROXY"])
	assert.Contains(t, env["NO_PROXY"], ",.svc,", "NO_PROXY with the forms Node.js needs")
	assert.Contains(t, helpers["envFile"], "\nexport JAVA_TOOL_OPTIONS='"+env["JAVA_TOOL_OPTIONS"]+"'\nexport NODE_USE_ENV_PROXY='1'\n")
}

// TestSystemdEnvironmentFile: NAME="value" lines as systemd's EnvironmentFile=
// reads them (no export, which systemd refuses; every character that is special
// inside double quotes escaped); with a prefix, only the upper-case three. A
// bad prefix fails naming it. tests/distros has systemd's own parser read it.
func TestSystemdEnvironmentFile(t *testing.T) {
	// quotes, backquotes and backslashes never reach a URL (the library refuses them raw): $ does
	helpers := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values("proxy: {http: \"http://u:it's$w%40@p:3128\"}\ncluster: {serviceCIDRs: [10.96.0.0/12], metadataEndpoints: false}")))
	got := helpers["environmentFile"]
	assert.Contains(t, got, "\nHTTP_PROXY=\"http://u:it's\\$w%40@p:3128\"\n")
	assert.Contains(t, got, "\nno_proxy=\"localhost,127.0.0.1,")
	assert.NotContains(t, got, "export ")
	containerd := helpers["containerdEnvironmentFile"]
	assert.Equal(t, []string{"CONTAINERD_HTTP_PROXY", "CONTAINERD_NO_PROXY"}, envFileNames(containerd), "http only: no HTTPS pair")
	assert.Equal(t, "", fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values("proxy: {existingSecret: corp}")))["environmentFile"])
}

// envFileNames lists the names an environment file sets, in order.
func envFileNames(text string) []string {
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		name, _, _ := strings.Cut(line, "=")
		names = append(names, name)
	}
	return names
}

// TestSystemdVariables: the variables a machine gets as a map, unescaped: exactly
// what the drop-in gives systemd once systemd has read it (a password's quote,
// percent sign and dollar included), and nothing when no URL reaches a node.
func TestSystemdVariables(t *testing.T) {
	for name, values := range map[string]string{
		"credentials":          fixture.CredentialValues(t, nil),
		"runtimes":             plainWith("runtimes: [java, node]"),
		"a quote and a dollar": "proxy: {http: \"http://u:it's$w%40@p:3128\"}\ncluster: {requireNetworks: false}",
	} {
		t.Run(name, func(t *testing.T) {
			var parsed map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(values), &parsed))
			var vars map[string]string
			require.NoError(t, json.Unmarshal([]byte(fixture.Include(t, parsed, proxykit.Call{Helper: "proxykit.systemd.variables"})), &vars))
			_, env := parseDropIn(t, fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)))["dropIn"])
			assert.Equal(t, env, vars)
		})
	}
	for _, off := range []map[string]any{nil, {"proxy": map[string]any{"existingSecret": "corp"}}} {
		assert.Equal(t, "{}", fixture.Include(t, off, proxykit.Call{Helper: "proxykit.systemd.variables"}), "%v", off)
	}
}
