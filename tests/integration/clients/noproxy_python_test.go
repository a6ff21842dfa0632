//go:build integration

package clients

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// debianPython is Debian's python3; `make test` installs it when it is missing.
const debianPython = "/usr/bin/python3"

// pythonBypass asks Python's urllib itself whether it sends each URL around the
// proxy under NO_PROXY, with the function urlopen consults.
func pythonBypass(t *testing.T, noProxy string, urls []string) map[string]bool {
	t.Helper()
	cmd := exec.Command(debianPython, append([]string{"-c", `
import os, sys, urllib.parse, urllib.request
for url in sys.argv[1:]:
    host = urllib.parse.urlsplit(url).netloc
    print("direct" if urllib.request.proxy_bypass_environment(host, {"no": os.environ["NO_PROXY_UNDER_TEST"]}) else "proxy")
`}, urls...)...)
	cmd.Env = []string{"NO_PROXY_UNDER_TEST=" + noProxy}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Fields(string(out))
	require.Len(t, lines, len(urls), "%s", out)
	got := map[string]bool{}
	for i, url := range urls {
		got[url] = lines[i] == "direct"
	}
	return got
}

// pythonFetch fetches url with urllib.request.urlopen under the proxy env, and
// returns the body: the target answers "direct", the stand-in proxy "proxy".
func pythonFetch(t *testing.T, url, proxyURL, noProxy string) string {
	t.Helper()
	cmd := exec.Command(debianPython, "-c", `
import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())
`, url)
	cmd.Env = []string{"http_proxy=" + proxyURL, "no_proxy=" + noProxy}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return strings.TrimSpace(string(out))
}

// TestIPv6LiteralsReachPythonDirect renders an IPv6 cluster's NO_PROXY and runs
// Debian's Python against it: urllib compares the URL's host text, brackets
// included, so only the bracketed forms the library adds keep IPv6 traffic direct.
func TestIPv6LiteralsReachPythonDirect(t *testing.T) {
	harness.Parallel(t)
	noProxy := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(`
proxy: {http: "http://proxy.corp:3128", noProxy: ["fd00:1::53", "[fd00:1::54]", "[fd00:1::55]:5000"]}
cluster:
  podCIDRs: ["fd00:10:244::/56"]
  serviceCIDRs: ["fd00:10:96::/112"]
  apiServer: "fd00:10:96::1"
`)))["noProxy"]
	for _, entry := range []string{"::1", "[::1]", "fd00:10:96::1", "[fd00:10:96::1]", "fd00:1::53", "[fd00:1::53]", "fd00:1::54", "[fd00:1::54]", "[fd00:1::55]:5000"} {
		assert.Contains(t, strings.Split(noProxy, ","), entry)
	}

	t.Run("urllib's own bypass decision", func(t *testing.T) {
		direct := []string{
			"http://[::1]:8080/", "http://[fd00:10:96::1]:443/", "http://[fd00:1::53]/", "http://[fd00:1::54]:80/",
			"http://[fd00:1::55]:5000/", "http://localhost:80/",
		}
		// urllib matches no CIDR: pod and service IPs other than the listed ones still go to
		// the proxy in Python, which the README's client table says
		proxied := []string{"http://[fd00:10:244::5]/", "http://[fd00:1::56]/", "http://[2001:db8::1]/"}
		got := pythonBypass(t, noProxy, append(direct, proxied...))
		for _, u := range direct {
			assert.True(t, got[u], "python urllib sends %s through the proxy with NO_PROXY=%s", u, noProxy)
		}
		for _, u := range proxied {
			assert.False(t, got[u], "python urllib bypasses the proxy for %s", u)
		}
		// the bare form alone is not enough: this is why both forms are listed
		bare := pythonBypass(t, "::1,fd00:10:96::1", []string{"http://[::1]:8080/", "http://[fd00:10:96::1]:443/"})
		assert.False(t, bare["http://[::1]:8080/"], "urllib matched a bare ::1; the brackets would not be needed")
		assert.False(t, bare["http://[fd00:10:96::1]:443/"])
	})

	t.Run("a real request on loopback", func(t *testing.T) {
		target := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "direct") }))
		listener, err := net.Listen("tcp6", "[::1]:0")
		require.NoError(t, err)
		target.Listener = listener
		target.Start()
		defer target.Close()
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "proxy") }))
		defer proxy.Close()

		assert.Equal(t, "direct", pythonFetch(t, target.URL, proxy.URL, noProxy), "with the rendered NO_PROXY")
		assert.Equal(t, "proxy", pythonFetch(t, target.URL, proxy.URL, "localhost,127.0.0.1,::1"), "with the bare ::1 only")
	})
}
