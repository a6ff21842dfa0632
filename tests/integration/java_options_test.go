//go:build integration

package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/fixture"
)

// jvmProperties starts the real JVM with JAVA_TOOL_OPTIONS and returns the system
// properties it read: how the JVM itself splits the value, quotes and all.
func jvmProperties(t *testing.T, javaToolOptions string) map[string]string {
	t.Helper()
	cmd := exec.Command("java", "-XshowSettings:properties", "-version")
	cmd.Env = append(os.Environ(), "JAVA_TOOL_OPTIONS="+javaToolOptions)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	props := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if name, value, ok := strings.Cut(strings.TrimSpace(line), " = "); ok {
			props[name] = value
		}
	}
	return props
}

// The JAVA_TOOL_OPTIONS the library renders, with an own value that holds spaces,
// quotes and "|", read by the real JVM: the proxy flags arrive whole (every
// nonProxyHosts pattern, "|" and "*" included), the own -D flags after them win,
// and an own quoted value keeps its space.
func TestJavaToolOptionsThroughTheRealJVM(t *testing.T) {
	_, err := exec.LookPath("java")
	require.NoError(t, err, "java is missing: `make debian-packages` installs default-jdk-headless")
	own := `-Dapp.title="a b|c" -Dhttp.proxyPort=9999 -Xmx64m`
	m := fixture.Render(t, fixture.Fixture, `
proxy: {http: "http://proxy.corp.example:3128", https: "http://proxy.corp.example:3129", noProxy: ".corp.example,registry.local", runtimes: [java]}
cluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12], apiServer: 10.96.0.1}
app:
  env: [{name: JAVA_TOOL_OPTIONS, value: '`+own+`'}]
`)
	env := m.Environment(m.Container(t, "Deployment/"+fixture.Release+"-app", "app"))
	options := env["JAVA_TOOL_OPTIONS"]
	require.True(t, strings.HasSuffix(options, " "+own), "the own value after the flags: %s", options)

	props := jvmProperties(t, options)
	assert.Equal(t, "proxy.corp.example", props["http.proxyHost"])
	assert.Equal(t, "9999", props["http.proxyPort"], "the own flag, last, wins")
	assert.Equal(t, "proxy.corp.example", props["https.proxyHost"])
	assert.Equal(t, "3129", props["https.proxyPort"])
	assert.Equal(t, javaNonProxyHosts(t, env["NO_PROXY"]), props["http.nonProxyHosts"], "every pattern arrives whole")
	assert.Contains(t, props["http.nonProxyHosts"], "|*.corp.example|")
	assert.Equal(t, "a b|c", props["app.title"], "the JVM honours the own value's quotes")
}
