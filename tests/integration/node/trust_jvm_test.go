//go:build integration

package node

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// assertJVMTrustsTheProxy runs Debian's OpenJDK (java.net.http.HttpClient and
// HttpURLConnection) through mitmproxy, which signs with ca, with the
// JAVA_TOOL_OPTIONS the library renders for a container with proxy.runtimes
// java and proxy.trustedCA, the trust store being p12 (what trust-manager wrote
// into the bundle ConfigMap): with the rendered flags each client fetches the
// HTTPS page; with the proxy flags alone (the JVM's own cacerts) each fails on
// the certificate.
func assertJVMTrustsTheProxy(t *testing.T, ca, key string, p12 []byte) {
	t.Helper()
	classes := itest.CompileJavaClient(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "ca-certificates.p12")
	require.NoError(t, os.WriteFile(store, p12, 0o644))

	values := fixture.ValuesYAML(t, map[string]any{
		"proxy":   map[string]any{"http": "http://127.0.0.1:8081", "https": "http://127.0.0.1:8081", "trustedCA": ca, "runtimes": []string{"java"}},
		"cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12", "metadataEndpoints": false},
	})
	app := fixture.SpecContainer(t, proxytest.Get[appsv1.Deployment](t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)), fixture.Release+"-app").Spec.Template.Spec, "app")
	var rendered string
	for _, e := range app.Env {
		if e.Name == "JAVA_TOOL_OPTIONS" {
			rendered = e.Value
		}
	}
	const storeFlag = "-Djavax.net.ssl.trustStore=/etc/proxykit/ca/ca-certificates.p12"
	require.Contains(t, rendered, storeFlag)
	with := strings.Replace(rendered, storeFlag, "-Djavax.net.ssl.trustStore="+store, 1) // the mount, where the test keeps the file
	without := regexp.MustCompile(` -Djavax\.net\.ssl\.trustStore\S*`).ReplaceAllString(rendered, "")
	require.NotContains(t, without, "trustStore")

	var script strings.Builder
	script.WriteString(itest.InterceptingProxy(t, dir, ca, key))
	for _, jdk := range []string{"httpclient", "urlconnection"} {
		for variant, opts := range map[string]string{"with": with, "without": without} {
			fmt.Fprintf(&script, "out=$(env -i PATH=/usr/bin:/bin JAVA_TOOL_OPTIONS=%q java -cp %q ProxyClient %s https://secure.example:8443/ 2>&1)\n", opts, classes, jdk)
			script.WriteString("echo \"$out\" | sed 's/^/  | /'\n") // shown when an assertion fails
			fmt.Fprintf(&script, "echo \"CASE %s %s $(echo \"$out\" | grep -qx secure && echo fetched || echo refused) $(echo \"$out\" | grep -qiE 'PKIX|certificat' && echo on-the-certificate || echo other)\"\n", jdk, variant)
		}
	}
	out := itest.InterceptNetns.Run(t, script.String())
	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^CASE (\S+) (\S+) (\S+) (\S+)$`).FindAllStringSubmatch(out, -1) {
		got[m[1]+" "+m[2]] = m[3] + " " + m[4]
	}
	for _, jdk := range []string{"httpclient", "urlconnection"} {
		assert.True(t, strings.HasPrefix(got[jdk+" with"], "fetched "), "%s with the rendered trust store:\n%s", jdk, out)
		assert.Equal(t, "refused on-the-certificate", got[jdk+" without"], "%s with the JVM's own cacerts fails on the certificate:\n%s", jdk, out)
	}
}
