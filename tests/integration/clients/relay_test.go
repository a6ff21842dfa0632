//go:build integration

package clients

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// The relay test's namespace: the corporate proxies (three squids) on
// 10.70.0.1, the realm's KDC on .2, a host outside on .3, and the relays
// (proxykit-relay, one per upstream scheme) on .4.
const (
	relayCorpAddr    = "10.70.0.1"
	relayKDCAddr     = "10.70.0.2"
	relayOutsideAddr = "10.70.0.3"
	relayAddr        = "10.70.0.4"
	relayTicketLife  = 6 // seconds: shorter than the test, so tickets are renewed
)

// relayCase is one relay and the squid it authenticates to.
type relayCase struct {
	name     string // also the relay's credentials folder
	scheme   string // the squid's scheme and the relay's --scheme
	port     int    // the relay's proxy port (admin: port+6000)
	username string
	user     string // the user the squid's access log names
}

var relayCases = []relayCase{
	{"basic", "basic", 3201, itest.RelayUser, itest.RelayUser},
	{"ntlm", "ntlm", 3202, itest.RelayNTLMUser, `CORP\\svc-relay`},
	{"negotiate-keytab", "negotiate", 3203, itest.RelayPrincipal, itest.RelayPrincipal},
	{"negotiate-password", "negotiate", 3204, itest.RelayPrincipal, itest.RelayPrincipal},
}

// relayClients request URL through $HTTP_PROXY, each the way its family does,
// with no credentials of their own; each prints the body or "error".
var relayClients = map[string]string{
	"curl":         `curl -s -m 5 "$URL" || echo error`,
	"curl-tunnel":  `curl -s -m 5 -p "$URL" || echo error`,
	"busybox-wget": `timeout 5 busybox wget -q -O - "$URL" || echo error`, // its own -T crashes behind a proxy
	"python":       `python3 -c 'import requests,sys; print(requests.get(sys.argv[1], timeout=5).text, end="")' "$URL" 2>/dev/null || echo error`,
	"go":           `PROXYKIT_TEST_ROLE=go-client "$SELF" -- "$URL"`,
	"node":         `NODE_USE_ENV_PROXY=1 "$NODE" -e 'require("http").get(process.argv[1], r => r.pipe(process.stdout)).on("error", () => console.log("error"))' "$URL"`,
	// the JVM reads no variable: its flags, as proxykit.java.options writes them
	"jvm": `JAVA_TOOL_OPTIONS="-Dhttp.proxyHost=$RELAY_HOST -Dhttp.proxyPort=$RELAY_PORT" java -cp "$JAVA" ProxyClient httpclient "$URL" 2>/dev/null`,
}

// Pods' clients with no credentials reach a host outside through the relay and
// each of three real upstream proxies: squid demanding Basic, NTLM, and
// Negotiate against a KDC of the test's own (the relay holding a keytab, or a
// password). The upstream's access log names the relay's user; a password
// rotated at the upstream shows as the relay's metric and log line, never the
// password, and the next request after the Secret's file changes uses the new
// one; Kerberos tickets shorter than the test are renewed.
func TestRelayAuthenticatesToUpstreams(t *testing.T) {
	harness.Parallel(t)
	relayBin := itest.FilepathBin("proxykit-relay")
	_, err := os.Stat(relayBin)
	require.NoError(t, err, "`make tools` builds bin/proxykit-relay")
	nodeBin := itest.NewestNode(t)
	self, err := os.Executable()
	require.NoError(t, err)
	u := itest.NewRelayUpstreams(t, relayCorpAddr, relayKDCAddr, 3128, relayTicketLife)
	squidPort := map[string]int{"basic": u.Ports["basic"], "ntlm": u.Ports["ntlm"], "negotiate": u.Ports["negotiate"]}

	const rotated = "Relay-pw:2-rotated"
	dir := u.Dir
	for _, c := range relayCases {
		creds := filepath.Join(dir, c.name)
		require.NoError(t, os.MkdirAll(creds, 0o700))
		pw := u.Password
		if c.scheme == "negotiate" {
			pw = u.KDCPassword
		}
		require.NoError(t, os.WriteFile(filepath.Join(creds, "username"), []byte(c.username+"\n"), 0o600))
		if c.name != "negotiate-keytab" {
			require.NoError(t, os.WriteFile(filepath.Join(creds, "password"), []byte(pw), 0o600))
		}
	}

	var s strings.Builder
	fmt.Fprintf(&s, "D=%q SELF=%q NODE=%q JAVA=%q\n", dir, self, nodeBin, itest.CompileJavaClient(t))
	s.WriteString(u.Start())
	fmt.Fprintf(&s, "cd \"$D\"\ncp %q negotiate-keytab/keytab\n", u.Keytab)
	for _, c := range relayCases {
		fmt.Fprintf(&s, "%q --listen %s:%d --admin-listen 127.0.0.1:%d --upstream http://corp-proxy.proxykit.test:%d --scheme %s --credentials-dir \"$D/%s\" --krb5-config %q --spn %s --allow 10.70.0.0/24 >relay-%s.log 2>&1 &\n",
			relayBin, relayAddr, c.port, c.port+6000, squidPort[c.scheme], c.scheme, c.name, u.Krb5Conf, itest.RelaySPN, c.name)
	}
	for _, c := range relayCases {
		s.WriteString(harness.WaitForPort(relayAddr, c.port))
	}
	s.WriteString("URL=http://outside.proxykit.test:8080/\nexport NO_PROXY=localhost,127.0.0.1 no_proxy=localhost,127.0.0.1\n")
	round := func(label string) {
		for _, c := range relayCases {
			for _, name := range slices.Sorted(maps.Keys(relayClients)) {
				fmt.Fprintf(&s, "echo \"=== %s %s %s $(HTTP_PROXY=http://%s:%d http_proxy=http://%s:%d RELAY_HOST=%s RELAY_PORT=%d; export HTTP_PROXY http_proxy; %s)\"\n",
					label, c.name, name, relayAddr, c.port, relayAddr, c.port, relayAddr, c.port, relayClients[name])
			}
		}
	}
	round("first")

	// rotation: the upstream's password changes first, then the Secret's file
	// (written as the kubelet does, by a rename)
	s.WriteString(u.Rotate(rotated) + "sleep 1.5\n")
	for _, c := range relayCases[:2] {
		// a tunnel: a connection of its own (NTLM authenticates a connection, so
		// one kept from before the rotation would still pass)
		fmt.Fprintf(&s, "echo \"=== stale %s $(curl -s -o /dev/null -w '%%{http_connect}' -m 5 -p -x http://%s:%d \"$URL\")\"\n", c.name, relayAddr, c.port)
		fmt.Fprintf(&s, "curl -s http://127.0.0.1:%d/metrics | grep '^proxykit_relay_upstream_auth_failures_total' | sed 's/^/=== metric /'\n", c.port+6000)
		fmt.Fprintf(&s, "printf %%s %s > %s/password.new && mv %s/password.new %s/password\n", itest.ShellQuote(rotated), c.name, c.name, c.name)
		fmt.Fprintf(&s, "echo \"=== rotated %s $(curl -s -m 5 -x http://%s:%d \"$URL\")\"\n", c.name, relayAddr, c.port)
	}

	// renewal: every ticket of the first round has expired
	fmt.Fprintf(&s, "sleep %d\n", relayTicketLife+1)
	round("renewed")
	s.WriteString("for f in relay-*.log; do sed \"s|^|=== relaylog $f |\" \"$f\"; done\n")

	out := harness.Netns{
		Addrs:     []string{relayCorpAddr, relayKDCAddr, relayOutsideAddr, relayAddr},
		Hosts:     "127.0.0.1 localhost\n" + relayCorpAddr + " corp-proxy.proxykit.test\n" + relayOutsideAddr + " outside.proxykit.test\n",
		EchoPorts: []string{"8080"},
		RealRoot:  true,
	}.Run(t, s.String())

	lines := map[string]string{}
	var relayLogs []string
	for _, l := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(l, "=== ")
		if !ok {
			continue
		}
		if strings.HasPrefix(rest, "relaylog ") {
			relayLogs = append(relayLogs, rest)
			continue
		}
		key, value := rest, ""
		if i := strings.LastIndex(rest, " "); i >= 0 {
			key, value = rest[:i], rest[i+1:]
		}
		lines[key] = value
	}
	for _, label := range []string{"first", "renewed"} {
		for _, c := range relayCases {
			for client := range relayClients {
				want := "proxy" // squid adds Via to what it forwards
				if client == "curl-tunnel" {
					want = "direct" // inside a tunnel it sees nothing
				}
				assert.Equal(t, want, lines[label+" "+c.name+" "+client], "%s: %s through the relay to %s squid", label, client, c.scheme)
			}
		}
	}
	// each squid names the relay's user on every request it let through
	granted := regexp.MustCompile(`TCP_(MISS|TUNNEL)/200`)
	for _, c := range relayCases[:3] {
		n := 0
		for _, l := range strings.Split(u.AccessLog(t, c.scheme), "\n") {
			if granted.MatchString(l) {
				n++
				assert.Contains(t, l, c.user, "the upstream's log names the relay's user")
			}
		}
		want := 2 * len(relayClients)
		switch c.scheme {
		case "negotiate":
			want *= 2 // two relays: keytab and password
		case "basic", "ntlm":
			want++ // the request after the rotation
		}
		assert.Equal(t, want, n, "%s: requests the upstream let through", c.scheme)
	}

	for _, c := range relayCases[:2] {
		assert.Equal(t, "502", lines["stale "+c.name], "%s: a stale password is the relay's 502, not a 407 the client would answer", c.name)
		assert.Equal(t, "1", lines[`metric proxykit_relay_upstream_auth_failures_total{scheme="`+c.scheme+`"}`], "%s: the 407 is the relay's metric", c.name)
		assert.Equal(t, "proxy", lines["rotated "+c.name], "%s: the next request after the Secret's file changed used the new password, nothing restarted", c.name)
	}
	assert.GreaterOrEqual(t, u.Logins(t), 4, "each negotiate relay logged in again after its tickets expired")

	var saw407 bool
	for _, l := range relayLogs {
		for _, secret := range []string{u.Password, rotated, u.KDCPassword, itest.RelayUser} {
			assert.NotContains(t, l, secret, "a relay's log names no credential")
		}
		saw407 = saw407 || strings.Contains(l, "answered 407")
	}
	assert.True(t, saw407, "the 407 is in the relay's log")
	if t.Failed() {
		t.Logf("the relays' logs:\n%s", strings.Join(relayLogs, "\n"))
	}
}
