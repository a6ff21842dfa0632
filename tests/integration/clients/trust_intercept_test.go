//go:build integration

package clients

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestClientsTrustTheInterceptingProxy runs mitmproxy (Debian's) as a
// TLS-intercepting proxy that signs with a CA of the test's, and real clients
// (Go, curl, Python's requests and urllib, Node.js 22, 24 and 26 with http and fetch) with the env the library renders for a
// container: with the trust variables and the bundle (Debian's public roots plus
// the CA, what trust-manager's Bundle with useDefaultCAs holds) each fetches an
// HTTPS page through the proxy; without them each fails on the certificate.
func TestClientsTrustTheInterceptingProxy(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	for _, tool := range []string{"curl", "/usr/bin/python3"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "%s is missing: `make debian-packages` installs it", tool)
	}
	ca, key := fixture.NewCA(t, "corp intercepting proxy")
	dir := t.TempDir()

	// the bundle a Pod mounts: public roots plus the proxy's CA
	roots, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	require.NoError(t, err, "Debian's ca-certificates bundle")
	bundle := filepath.Join(dir, "ca-certificates.crt")
	require.NoError(t, os.WriteFile(bundle, append(roots, ca...), 0o644))

	values := fixture.ValuesYAML(t, map[string]any{
		"proxy":   map[string]any{"http": "http://127.0.0.1:8081", "https": "http://127.0.0.1:8081", "trustedCA": ca, "runtimes": []string{"node"}},
		"cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12", "metadataEndpoints": false},
	})
	app := fixture.SpecContainer(t, proxytest.Get[appsv1.Deployment](t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)), fixture.Release+"-app").Spec.Template.Spec, "app")
	var with, without []string
	for _, e := range app.Env {
		require.Nil(t, e.ValueFrom)
		v := strings.ReplaceAll(e.Value, fixture.BundleFile, bundle) // the mount, where the test keeps the file
		with = append(with, fmt.Sprintf("%s=%q", e.Name, v))
		if e.Value != fixture.BundleFile {
			without = append(without, fmt.Sprintf("%s=%q", e.Name, v))
		}
	}
	require.Len(t, with, len(without)+4, "four trust variables")
	require.Contains(t, with, `NODE_USE_ENV_PROXY="1"`)

	self, err := os.Executable()
	require.NoError(t, err)
	clients := map[string]string{ // each prints the page, or fails
		"go":              fmt.Sprintf("%s=go-client %q -- https://secure.example:8443/", harness.RoleVar, self),
		"curl":            "curl -q -sS --max-time 10 https://secure.example:8443/",
		"python-requests": "/usr/bin/python3 -c 'import requests; print(requests.get(\"https://secure.example:8443/\", timeout=10).text, end=\"\")'",
		"python-urllib":   "/usr/bin/python3 -c 'import urllib.request; print(urllib.request.urlopen(\"https://secure.example:8443/\", timeout=10).read().decode(), end=\"\")'",
	}
	// Node.js of each LTS line, http.request and fetch, with NODE_USE_ENV_PROXY=1 and
	// NODE_EXTRA_CA_CERTS as rendered
	nodeBinaries, _ := itest.NodeRuntimes(t)
	for client, bin := range nodeBinaries {
		request := `fetch(u).then((r) => r.text())`
		if strings.HasPrefix(string(client), "node-http") {
			request = `new Promise((ok, fail) => require("node:https").get(u, (r) => { let b = ""; r.on("data", (c) => { b += c }); r.on("end", () => ok(b)) }).on("error", fail))`
		}
		script := `const u = "https://secure.example:8443/"; ` + request + `.then((b) => process.stdout.write(b), (e) => { console.log(String(e.cause || e)); process.exit(1) })`
		clients[string(client)] = fmt.Sprintf("%q -e %q", bin, script)
	}
	// a node: the files Cluster API writes from cluster-proxy's Secret, then the
	// rendered preKubeadmCommands, with update-ca-certificates working in a
	// throwaway trust store instead of /etc/ssl/certs
	nodeRoot := filepath.Join(dir, "node")
	proxySecret := proxytest.Get[corev1.Secret](t, fixture.Render(t, fixture.ClusterProxy, proxytest.Values(fixture.ValuesYAML(t, map[string]any{
		"clusterName": "wc1",
		"proxy":       map[string]any{"https": "http://127.0.0.1:8081", "trustedCA": ca},
		"cluster":     map[string]any{"serviceCIDRs": "10.96.0.0/12"},
	}))),

		"wc1-systemd-proxy")
	capi, err := fixture.RenderCLI(t, fixture.Path("examples", "capi"), "clusterName: wc1\nproxy: {trustedCA: "+fixture.YAMLQuote(ca)+"}\n")
	require.NoError(t, err)
	var kct struct {
		Spec struct {
			Template struct{ Spec fixture.KubeadmConfigSpec } `json:"template"`
		} `json:"spec"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, capi, "KubeadmConfigTemplate", "wc1-md-0").Raw), &kct))
	for _, f := range kct.Spec.Template.Spec.Files {
		data, ok := proxySecret.Data[f.ContentFrom.Secret.Key]
		require.True(t, ok, "the Secret has no key %s", f.ContentFrom.Secret.Key)
		require.NoError(t, os.MkdirAll(filepath.Join(nodeRoot, filepath.Dir(f.Path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(nodeRoot, f.Path), data, 0o600))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(nodeRoot, "etc/ssl/certs"), 0o755))
	commands := strings.ReplaceAll(strings.Join(kct.Spec.Template.Spec.PreKubeadmCommands, "\n"), "/etc/proxykit/", nodeRoot+"/etc/proxykit/")
	nodeScript := filepath.Join(dir, "node.sh")
	require.NoError(t, os.WriteFile(nodeScript, []byte("systemctl() { :; }\n"+
		fmt.Sprintf("update-ca-certificates() { command update-ca-certificates --localcertsdir %s/usr/local/share/ca-certificates --etccertsdir %s/etc/ssl/certs --hooksdir %s/hooks >/dev/null; }\n", nodeRoot, nodeRoot, nodeRoot)+
		commands+"\ncurl -q -sS --max-time 10 --cacert "+nodeRoot+"/etc/ssl/certs/ca-certificates.crt https://secure.example:8443/\n"), 0o644))
	clients["node"] = "bash " + nodeScript // bash: dash allows no "-" in a function name

	var script strings.Builder
	script.WriteString(itest.InterceptingProxy(t, dir, ca, key))
	for name, cmd := range clients {
		variants := map[string][]string{"with": with, "without": without}
		if name == "node" {
			variants = map[string][]string{"with": {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}} // the node's own proxy env comes from the sourced file
		}
		for variant, env := range variants {
			fmt.Fprintf(&script, "out=$(env -i PATH=/usr/bin:/bin %s %s 2>&1)\n", strings.Join(env, " "), cmd)
			script.WriteString("echo \"$out\" | sed 's/^/  | /'\n") // shown when an assertion fails
			fmt.Fprintf(&script, "echo \"CASE %s %s $(echo \"$out\" | grep -qx secure && echo fetched || echo refused) $(echo \"$out\" | grep -qiE 'certificate|ssl' && echo on-the-certificate || echo other)\"\n", name, variant)
		}
	}
	out := itest.InterceptNetns.Run(t, script.String())

	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^CASE (\S+) (\S+) (\S+)(.*)$`).FindAllStringSubmatch(out, -1) {
		got[m[1]+" "+m[2]] = m[3]
		if m[2] == "without" {
			assert.Equal(t, " on-the-certificate", m[4], "%s fails on the certificate, not on something else:\n%s", m[1], out)
		}
	}
	for name := range clients {
		assert.Equal(t, "fetched", got[name+" with"], "%s with the rendered trust:\n%s", name, out)
		if name != "node" {
			assert.Equal(t, "refused", got[name+" without"], "%s without the trust variables:\n%s", name, out)
		}
	}
	// the node's trust store holds the public roots and the proxy's CA
	store, err := os.ReadFile(filepath.Join(nodeRoot, "etc/ssl/certs/ca-certificates.crt"))
	require.NoError(t, err)
	assert.Contains(t, string(store), strings.TrimSpace(ca))
	assert.Greater(t, strings.Count(string(store), "BEGIN CERTIFICATE"), 100, "and Debian's public roots")
	log, _ := os.ReadFile(filepath.Join(dir, "mitmdump.log"))
	t.Logf("mitmdump: %s", log)
}
