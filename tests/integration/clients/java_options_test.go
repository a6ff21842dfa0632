//go:build integration

package clients

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// The JAVA_TOOL_OPTIONS the library renders, with an own value that holds spaces,
// quotes and "|", read by the real JVM: the proxy flags arrive whole (every
// nonProxyHosts pattern, "|" and "*" included), the own -D flags after them win,
// and an own quoted value keeps its space.
func TestJavaToolOptionsThroughTheRealJVM(t *testing.T) {
	harness.Parallel(t)
	_, err := exec.LookPath("java")
	require.NoError(t, err, "java is missing: `make debian-packages` installs default-jdk-headless")
	own := `-Dapp.title="a b|c" -Dhttp.proxyPort=9999 -Xmx64m`
	m := fixture.Render(t, fixture.Fixture, proxytest.Values(`
proxy: {http: "http://proxy.corp.example:3128", https: "http://proxy.corp.example:3129", noProxy: ".corp.example,registry.local", runtimes: [java]}
cluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12], apiServer: 10.96.0.1}
app:
  env: [{name: JAVA_TOOL_OPTIONS, value: '`+own+`'}]
`))

	env := m.Environment(m.Container(t, "Deployment/"+fixture.Release+"-app", "app"))
	options := env["JAVA_TOOL_OPTIONS"]
	require.True(t, strings.HasSuffix(options, " "+own), "the own value after the flags: %s", options)

	props := itest.JVMProperties(t, options)
	assert.Equal(t, "proxy.corp.example", props["http.proxyHost"])
	assert.Equal(t, "9999", props["http.proxyPort"], "the own flag, last, wins")
	assert.Equal(t, "proxy.corp.example", props["https.proxyHost"])
	assert.Equal(t, "3129", props["https.proxyPort"])
	assert.Equal(t, javaNonProxyHosts(t, env["NO_PROXY"]), props["http.nonProxyHosts"], "every pattern arrives whole")
	assert.Contains(t, props["http.nonProxyHosts"], "|*.corp.example|")
	assert.Equal(t, "a b|c", props["app.title"], "the JVM honours the own value's quotes")
}

// policy.overrideExisting means the proxy's settings win over a container's own:
// for the JVM, which keeps the last of two -D flags, the proxy's flags go after
// an own JAVA_TOOL_OPTIONS that still carries an older proxy. Injected as every
// engine injects (inject and the engines are held equal by the admission matrix),
// read by the real JVM (issue 37).
func TestOverrideExistingWinsInTheRealJVM(t *testing.T) {
	harness.Parallel(t)
	_, err := exec.LookPath("java")
	require.NoError(t, err, "java is missing: `make debian-packages` installs default-jdk-headless")
	stream := `apiVersion: v1
kind: Pod
metadata: {name: legacy, namespace: apps}
spec:
  containers:
    - name: app
      image: x
      env: [{name: JAVA_TOOL_OPTIONS, value: "-Dhttp.proxyHost=old-proxy.corp.example -Dhttp.proxyPort=8080 -Xmx64m"}]
`
	for _, c := range []struct {
		override  bool
		host, why string
	}{
		{false, "old-proxy.corp.example", "without override the container's own flags win"},
		{true, "proxy.corp.example", "with override the proxy's flags win"},
	} {
		values := fmt.Sprintf("proxy: {http: http://proxy.corp.example:3128, runtimes: [java]}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\npolicy: {overrideExisting: %t}\n", c.override)
		var parsed map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(values), &parsed))
		out, _, err := inject.Stream([]byte(stream), inject.Options{Values: parsed})
		require.NoError(t, err)
		m, err := proxytest.Parse(string(out))
		require.NoError(t, err)
		options := m.Environment(m.Container(t, "Pod/legacy", "app"))["JAVA_TOOL_OPTIONS"]
		props := itest.JVMProperties(t, options)
		assert.Equal(t, c.host, props["http.proxyHost"], "%s: %s", c.why, options)
		again, _, err := inject.Stream(out, inject.Options{Values: parsed})
		require.NoError(t, err)
		assert.Equal(t, string(out), string(again), "injected once")
	}
}
