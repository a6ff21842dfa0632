//go:build integration

package clients

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// TestHTTPProxyRunsTheRenderedConfig runs tinyproxy from Debian with the rendered
// tinyproxy.conf in a private network namespace: clients from the pod and node
// networks get through (plain HTTP and CONNECT), a client from elsewhere and a
// CONNECT to a port not listed are refused, and with an upstream the traffic
// goes through a second tinyproxy that requires the credentials.
func TestHTTPProxyRunsTheRenderedConfig(t *testing.T) {
	harness.Parallel(t) // slow and independent: overlaps the other slow tests
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	render := func(port int, extra string) string {
		values := strings.Replace(fixture.HTTPProxyValues, "tinyproxy: {connectPorts: [8443],", fmt.Sprintf("tinyproxy: {port: %d, connectPorts: [8443],", port), 1) + extra
		return write(fmt.Sprintf("tinyproxy-%d.conf", port), fixture.TinyproxyConf(t, fixture.Render(t, fixture.HTTPProxy, proxytest.Values(values))))
	}
	direct := render(8888, "")
	// every form of site the chart accepts, which tinyproxy must read (issue 37)
	upstream := render(8889, `upstream: {url: "http://egress:S3cret-pass@127.0.0.1:3129", noUpstream: [.corp.example, "*.corp2.example", git.example, 10.0.0.0/8, 192.0.2.1, "fd00:99::/64"]}`+"\n")
	// what the chart used to write for noUpstream: ["*"]; tinyproxy stops at it
	refused := write("refused.conf", strings.Replace(itest.ReadFile(t, upstream), "Port 8889", "Port 8891", 1)+"Upstream none \"\"\n")
	wrongPassword := render(8890, `upstream: {url: "http://egress:wrong@127.0.0.1:3129"}`+"\n")
	upstreamLog := filepath.Join(dir, "upstream.log")
	// the corporate proxy the cluster's proxy chains to: it requires the credentials
	corporate := write("corporate.conf", fmt.Sprintf("Port 3129\nListen 127.0.0.1\nAllow 127.0.0.1\nBasicAuth egress S3cret-pass\nLogFile %q\nLogLevel Info\n", upstreamLog))

	// curl from a source address through a proxy; prints the CONNECT response code,
	// the HTTP code, and what the echo server answered (proxy, direct) or "-"
	via := func(name, source, proxy, url string, tunnel bool) string {
		p := ""
		if tunnel {
			p = "-p "
		}
		return fmt.Sprintf("codes=$(curl -q -s %s--max-time 5 --interface %s -x %s -o body -w '%%{http_connect} %%{http_code}' %q 2>/dev/null)\n"+
			"echo \"CASE %s $codes $(grep -xE 'proxy|direct' body || echo -)\"; rm -f body\n", p, source, proxy, url, name)
	}
	var script strings.Builder
	for _, conf := range []string{direct, upstream, wrongPassword, corporate} {
		fmt.Fprintf(&script, "tinyproxy -d -c %q >/dev/null 2>&1 &\n", conf)
	}
	for _, port := range []int{8888, 8889, 8890, 3129} {
		script.WriteString(harness.WaitForPort("127.0.0.1", port))
	}
	fmt.Fprintf(&script, "timeout 5 tinyproxy -d -c %q >/dev/null 2>&1; echo \"REFUSED-EXIT $?\"\n", refused)
	script.WriteString(via("pod-http", "10.244.0.5", "http://10.96.0.1:8888", "http://target.example:8080/", false))
	script.WriteString(via("pod6-http", "fd00:10:244::5", "http://[fd00:10:96::1]:8888", "http://target.example:8080/", false))
	script.WriteString(via("node-http", "192.168.10.7", "http://10.96.0.1:8888", "http://target.example:8080/", false))
	script.WriteString(via("allowed-extra", "198.51.100.7", "http://10.96.0.1:8888", "http://target.example:8080/", false))
	script.WriteString(via("outsider-http", "192.0.2.10", "http://10.96.0.1:8888", "http://target.example:8080/", false))
	script.WriteString(via("pod-connect", "10.244.0.5", "http://10.96.0.1:8888", "http://target.example:8443/", true))
	script.WriteString(via("pod-connect-other-port", "10.244.0.5", "http://10.96.0.1:8888", "http://target.example:8080/", true))
	script.WriteString(via("outsider-connect", "192.0.2.10", "http://10.96.0.1:8888", "http://target.example:8443/", true))
	script.WriteString(via("upstream-http", "10.244.0.5", "http://10.96.0.1:8889", "http://target.example:8080/", false))
	script.WriteString(via("upstream-connect", "10.244.0.5", "http://10.96.0.1:8889", "http://target.example:8443/", true))
	script.WriteString(via("no-upstream-for-cluster-names", "10.244.0.5", "http://10.96.0.1:8889", "http://web.shop.svc.cluster.local:8080/", false))
	script.WriteString(via("no-upstream-for-corp", "10.244.0.5", "http://10.96.0.1:8889", "http://git.corp.example:8080/", false))
	script.WriteString(via("upstream-wrong-password", "10.244.0.5", "http://10.96.0.1:8890", "http://target.example:8080/", false))
	fmt.Fprintf(&script, "echo \"UPSTREAM-REQUESTS $(grep -c 'Request (file descriptor' %q)\"\n", upstreamLog)

	out := harness.Netns{
		Addrs:     []string{"10.96.0.1", "10.96.0.11", "10.244.0.5", "192.168.10.7", "198.51.100.7", "192.0.2.10", "fd00:10:96::1", "fd00:10:244::5"},
		Hosts:     "127.0.0.1 localhost\n10.96.0.11 target.example web.shop.svc.cluster.local git.corp.example\n",
		EchoPorts: []string{"8080", "8443"},
	}.Run(t, script.String())

	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^CASE (\S+) (.*)$`).FindAllStringSubmatch(out, -1) {
		got[m[1]] = strings.Join(strings.Fields(m[2]), " ")
	}
	// CONNECT code, HTTP code, answer; "proxy" means tinyproxy's Via header reached the server
	want := map[string]string{
		"pod-http":                      "000 200 proxy",
		"pod6-http":                     "000 200 proxy",
		"node-http":                     "000 200 proxy",
		"allowed-extra":                 "000 200 proxy",
		"outsider-http":                 "000 403 -",
		"pod-connect":                   "200 200 direct",
		"pod-connect-other-port":        "403 000 -",
		"outsider-connect":              "403 000 -",
		"upstream-http":                 "000 200 proxy",
		"upstream-connect":              "200 200 direct",
		"no-upstream-for-cluster-names": "000 200 proxy",
		"no-upstream-for-corp":          "000 200 proxy",
		"upstream-wrong-password":       "000 401 -", // tinyproxy's BasicAuth answers 401, and the chained proxy passes it on
	}
	for name, w := range want {
		assert.Equal(t, w, got[name], "%s:\n%s", name, out)
	}
	// the corporate proxy saw the chained requests only: plain HTTP, the tunnel, the wrong password
	assert.Contains(t, out, "UPSTREAM-REQUESTS 3", out)
	assert.Regexp(t, `REFUSED-EXIT [1-9]`, out, "tinyproxy stops at an empty site, which the chart refuses to write")
	assert.NotContains(t, out, "REFUSED-EXIT 124", "tinyproxy ran with an empty site")
}
