//go:build integration

package clients

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// credentialPasswords are passwords as written in a proxy URL: each character a
// URL carries as is, and escapes of the ones it cannot.
var credentialPasswords = []string{
	"S3cr%40t&pass",                     // an escaped @
	"p%2Fss%23%3F%22%5C%25%20x",         // / # ? " \ % and a space, escaped
	"a-b.c_d~e!f$g&h'i(j)k*l+m,n;o=p",   // every unreserved and sub-delim character as is
	"%7E%21%24%26%27%28%29%2A%2B%2C%3B", // the same, escaped where they need not be
}

// TestClientsReadTheProxyCredentials: the URL the library keeps in its Secret is
// read by Go, curl, Python requests and urllib, Deno, Bun, Guzzle and BusyBox's
// wget to the same user and password (BusyBox reads a literal + as a space).
// mitmproxy (Debian's), asking for exactly those with Basic auth, lets each client
// through to an echo server inside a private network namespace.
func TestClientsReadTheProxyCredentials(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	self, err := os.Executable()
	require.NoError(t, err)
	deno, bun, fetchClient := fetchRuntimes(t)
	phpClient, err := filepath.Abs(itest.Testdata("php", "guzzle_client.php"))
	require.NoError(t, err)
	home := t.TempDir()
	clients := map[string]string{
		"curl":            "curl -q -s --max-time 10 http://target.example:8080/",
		"python-requests": "/usr/bin/python3 -c 'import requests; print(requests.get(\"http://target.example:8080/\", timeout=10).text)'",
		"python-urllib":   "/usr/bin/python3 -c 'import urllib.request; print(urllib.request.urlopen(\"http://target.example:8080/\", timeout=10).read().decode())'",
		"go":              fmt.Sprintf("%s=go-client %q -- http://target.example:8080/", harness.RoleVar, self),
		"deno":            fmt.Sprintf("HOME=%[1]q DENO_DIR=%[2]q DENO_NO_UPDATE_CHECK=1 %[3]q run --allow-net --allow-env --no-config --quiet %[4]q http://target.example:8080/", home, filepath.Join(home, "deno"), deno, fetchClient),
		"bun":             fmt.Sprintf("HOME=%q %q %q http://target.example:8080/", home, bun, fetchClient),
		"php-guzzle":      fmt.Sprintf("php %q http://target.example:8080/", phpClient),
		"busybox-wget":    "busybox wget -q -O - http://target.example:8080/",
	}
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	var script strings.Builder
	// the last proxy asks for another password: proof that it checks what clients send
	for i, password := range append(credentialPasswords[:len(credentialPasswords):len(credentialPasswords)], "wrong") {
		port := 8100 + i
		values := fixture.ValuesYAML(t, map[string]any{
			"proxy":   map[string]any{"http": fmt.Sprintf("http://svc-user:%s@127.0.0.1:%d", password, port)},
			"cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12"},
		})
		secret := proxytest.Get[corev1.Secret](t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)), fixture.Release+"-proxy-credentials")
		proxyURL := string(secret.Data["HTTP_PROXY"])
		decoded, err := url.PathUnescape(password)
		require.NoError(t, err)
		if password == "wrong" {
			decoded = "right"
		}
		// a Via header on what it forwards: the echo server then answers "proxy"
		fmt.Fprintf(&script, "mitmdump -q --listen-host 127.0.0.1 --listen-port %d --set proxyauth=%s --set modify_headers=/~q/Via/mitmproxy >/dev/null 2>&1 &\n", port, quote("svc-user:"+decoded))
		script.WriteString(harness.WaitForPort("127.0.0.1", port))
		for name, cmd := range clients {
			fmt.Fprintf(&script, "out=$(env -i PATH=/usr/bin:/bin HTTP_PROXY=%[1]s http_proxy=%[1]s %[2]s 2>&1)\n", quote(proxyURL), cmd)
			fmt.Fprintf(&script, "echo \"CASE %d %s $(echo \"$out\" | grep -qxE 'proxy|direct' && echo \"$out\" | grep -xE 'proxy|direct' || echo refused)\"\n", i, name)
		}
	}
	out := harness.Netns{
		Addrs:     []string{"10.96.0.40"},
		Hosts:     "127.0.0.1 localhost\n10.96.0.40 target.example\n",
		EchoPorts: []string{"8080"},
	}.Run(t, script.String())

	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^CASE (\d+) (\S+) (\S+)$`).FindAllStringSubmatch(out, -1) {
		got[m[1]+" "+m[2]] = m[3]
	}
	for i, password := range credentialPasswords {
		for name := range clients {
			want := "proxy"
			if name == "busybox-wget" && strings.Contains(password, "+") {
				// BusyBox 1.35 decodes user-info as a form: a literal + becomes a space
				// (write it %2B, which the next password proves it reads)
				want = "refused"
			}
			assert.Equal(t, want, got[fmt.Sprintf("%d %s", i, name)], "%s with password %q:\n%s", name, password, out)
		}
	}
	for name := range clients {
		assert.Equal(t, "refused", got[fmt.Sprintf("%d %s", len(credentialPasswords), name)], "%s with a wrong password:\n%s", name, out)
	}
	assert.Len(t, got, (len(credentialPasswords)+1)*len(clients), "every client ran:\n%s", out)
}
