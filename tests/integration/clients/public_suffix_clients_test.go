//go:build integration

package clients

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestPublicSuffixesStayBehindTheProxy runs the real Go client, curl and the
// JVM with the environment inject gives a container whose stream names public
// suffixes as Services, namespaces and calls: every public host under them
// still goes through tinyproxy, and the Service by its .svc name goes direct.
func TestPublicSuffixesStayBehindTheProxy(t *testing.T) {
	harness.Parallel(t)
	var values map[string]any
	require.NoError(t, yaml.Unmarshal([]byte("proxy: {http: \"http://127.0.0.1:3128\", https: \"http://127.0.0.1:3128\", runtimes: [java]}\n"+
		"cluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12], metadataEndpoints: false}\n"), &values))
	stream, err := os.ReadFile(fixture.Path("inject", "testdata", "public-names.yaml"))
	require.NoError(t, err)
	out, _, err := inject.Stream(stream, inject.Options{Values: values, Namespace: "shop"})
	require.NoError(t, err)
	m, err := proxytest.Parse(string(out))
	require.NoError(t, err)
	env := m.Environment(m.Container(t, "Deployment/web", "web"))

	public := []string{"http://myproject.web.app:8080/", "http://example.vercel.app:8080/", "http://ghcr.io:8080/", "http://quay.io:8080/",
		"http://octo.github.io:8080/", "http://vault.security:8080/", "http://github.com:8080/"}
	inCluster := []string{"http://app.shop.svc:8080/", "http://github.io.svc:8080/"}
	targets := append(append([]string{}, public...), inCluster...)
	hosts := "127.0.0.1 localhost\n192.0.2.10 myproject.web.app example.vercel.app ghcr.io quay.io octo.github.io vault.security github.com\n" +
		"192.0.2.11 app.shop.svc github.io.svc\n"

	self, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	conf := filepath.Join(dir, "tinyproxy.conf")
	require.NoError(t, os.WriteFile(conf, []byte(fmt.Sprintf("Port 3128\nListen 127.0.0.1\nTimeout 10\nLogFile %q\nMaxClients 20\nAllow 127.0.0.1\n", filepath.Join(dir, "tinyproxy.log"))), 0o644))
	javaClasses := itest.CompileJavaClient(t)
	var vars []string
	for _, name := range []string{"HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "JAVA_TOOL_OPTIONS"} {
		require.NotEmpty(t, env[name], name)
		vars = append(vars, fmt.Sprintf("%s=%q", name, env[name]))
	}
	run := "env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin " + strings.Join(vars, " ")
	urls := strings.Join(targets, " ")
	var script strings.Builder
	fmt.Fprintf(&script, "tinyproxy -d -c %q &\n%s", conf, harness.WaitForPort("127.0.0.1", 3128))
	fmt.Fprintf(&script, "echo '=== 0'\n%s %s=go-client %q -- %s\n", run, harness.RoleVar, self, urls)
	fmt.Fprintf(&script, "echo '=== 1'\nfor u in %s; do %s curl -q -s -m 5 \"$u\" || echo error; done\n", urls, run)
	fmt.Fprintf(&script, "echo '=== 2'\n%s java -cp %q ProxyClient urlconnection %s\n", run, javaClasses, urls)
	got := batchResults(harness.Netns{Addrs: []string{"192.0.2.10", "192.0.2.11"}, Hosts: hosts, EchoPorts: []string{"8080"}}.Run(t, script.String()))
	for i, client := range []string{"go", "curl", "java"} {
		require.Len(t, got[i], len(targets), client)
		for j, target := range targets {
			want := "proxy"
			if j >= len(public) {
				want = "direct"
			}
			assert.Equal(t, want, got[i][j], "%s %s with NO_PROXY=%s", client, target, env["NO_PROXY"])
		}
	}
}
