package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientsTrustTheInterceptingProxy runs mitmproxy (Debian's) as a
// TLS-intercepting proxy that signs with a CA of the test's, and real clients
// (Go, curl, Python's requests and urllib) with the env the library renders for a
// container: with the trust variables and the bundle (Debian's public roots plus
// the CA, what trust-manager's Bundle with useDefaultCAs holds) each fetches an
// HTTPS page through the proxy; without them each fails on the certificate.
func TestClientsTrustTheInterceptingProxy(t *testing.T) {
	t.Parallel() // slow and independent: overlaps the other slow tests
	for _, tool := range []string{"mitmdump", "curl", "/usr/bin/python3"} {
		require.FileExists(t, lookPath(t, tool), "%s is missing: `make debian-packages` installs it", tool)
	}
	ca, key := testCA(t, "corp intercepting proxy")
	dir := t.TempDir()
	confdir := filepath.Join(dir, "mitmproxy")
	require.NoError(t, os.MkdirAll(confdir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(confdir, "mitmproxy-ca.pem"), []byte(key+ca), 0o600))

	// the bundle a Pod mounts: public roots plus the proxy's CA
	roots, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	require.NoError(t, err, "Debian's ca-certificates bundle")
	bundle := filepath.Join(dir, "ca-certificates.crt")
	require.NoError(t, os.WriteFile(bundle, append(roots, ca...), 0o644))

	values := valuesYAML(t, map[string]any{
		"proxy":   map[string]any{"http": "http://127.0.0.1:8081", "https": "http://127.0.0.1:8081", "trustedCA": ca},
		"cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12", "metadataEndpoints": false},
	})
	app := container(t, mustRenderSDK(t, fixtureChart, values).Deployment(t, releaseName+"-app").Spec.Template.Spec, "app")
	var with, without []string
	for _, e := range app.Env {
		require.Nil(t, e.ValueFrom)
		v := strings.ReplaceAll(e.Value, bundleFile, bundle) // the mount, where the test keeps the file
		with = append(with, fmt.Sprintf("%s=%q", e.Name, v))
		if e.Value != bundleFile {
			without = append(without, fmt.Sprintf("%s=%q", e.Name, v))
		}
	}
	require.Len(t, with, len(without)+4, "four trust variables")

	self, err := os.Executable()
	require.NoError(t, err)
	clients := map[string]string{
		"go":              fmt.Sprintf("%s=go-client %q -- https://secure.example:8443/", testRoleVar, self),
		"curl":            "curl -q -sS --max-time 10 https://secure.example:8443/",
		"python-requests": "/usr/bin/python3 -c 'import requests; print(requests.get(\"https://secure.example:8443/\", timeout=10).text, end=\"\")'",
		"python-urllib":   "/usr/bin/python3 -c 'import urllib.request; print(urllib.request.urlopen(\"https://secure.example:8443/\", timeout=10).read().decode(), end=\"\")'",
	}
	var script strings.Builder
	fmt.Fprintf(&script, "%s=tls-echo-server %q &\n", testRoleVar, self)
	fmt.Fprintf(&script, "mitmdump -q --listen-host 127.0.0.1 --listen-port 8081 --set confdir=%q --set ssl_insecure=true >%q 2>&1 &\n", confdir, filepath.Join(dir, "mitmdump.log"))
	script.WriteString(waitForPort("127.0.0.1", 8081) + waitForPort("10.96.0.30", 8443))
	for name, cmd := range clients {
		for variant, env := range map[string][]string{"with": with, "without": without} {
			fmt.Fprintf(&script, "out=$(env -i PATH=/usr/bin:/bin %s %s 2>&1)\n", strings.Join(env, " "), cmd)
			fmt.Fprintf(&script, "echo \"CASE %s %s $(echo \"$out\" | grep -qx secure && echo fetched || echo refused) $(echo \"$out\" | grep -qiE 'certificate|ssl' && echo on-the-certificate || echo other)\"\n", name, variant)
		}
	}
	out := netns{
		Addrs:     []string{"10.96.0.30"},
		Hosts:     "127.0.0.1 localhost\n10.96.0.30 secure.example\n",
		EchoPorts: []string{"8080"},
	}.run(t, script.String())

	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^CASE (\S+) (\S+) (\S+)(.*)$`).FindAllStringSubmatch(out, -1) {
		got[m[1]+" "+m[2]] = m[3]
		if m[2] == "without" {
			assert.Equal(t, " on-the-certificate", m[4], "%s fails on the certificate, not on something else:\n%s", m[1], out)
		}
	}
	for name := range clients {
		assert.Equal(t, "fetched", got[name+" with"], "%s with the rendered trust:\n%s", name, out)
		assert.Equal(t, "refused", got[name+" without"], "%s without the trust variables:\n%s", name, out)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "mitmdump.log"))
	t.Logf("mitmdump: %s", log)
}

// lookPath finds a program on PATH, or returns the name when it is a path.
func lookPath(t *testing.T, name string) string {
	t.Helper()
	if strings.HasPrefix(name, "/") {
		return name
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return name
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
