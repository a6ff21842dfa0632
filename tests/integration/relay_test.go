//go:build integration

package integration

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/internal/ntlmtest"
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
	squid    int    // the squid's port
	port     int    // the relay's proxy port (admin: port+6000)
	username string
	user     string // the user the squid's access log names
}

var relayCases = []relayCase{
	{"basic", "basic", 3128, 3201, "svc-relay", "svc-relay"},
	{"ntlm", "ntlm", 3129, 3202, `CORP\svc-relay`, `CORP\\svc-relay`},
	{"negotiate-keytab", "negotiate", 3130, 3203, "svc-relay@PROXYKIT.TEST", "svc-relay@PROXYKIT.TEST"},
	{"negotiate-password", "negotiate", 3130, 3204, "svc-relay@PROXYKIT.TEST", "svc-relay@PROXYKIT.TEST"},
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
}

// Pods' clients with no credentials reach a host outside through the relay and
// each of three real upstream proxies: squid demanding Basic, NTLM, and
// Negotiate against a KDC of the test's own (the relay holding a keytab, or a
// password). The upstream's access log names the relay's user; a password
// rotated at the upstream shows as the relay's metric and log line, never the
// password, and the next request after the Secret's file changes uses the new
// one; Kerberos tickets shorter than the test are renewed.
func TestRelayAuthenticatesToUpstreams(t *testing.T) {
	relayBin := filepathBin("proxykit-relay")
	_, err := os.Stat(relayBin)
	require.NoError(t, err, "`make tools` builds bin/proxykit-relay")
	for _, tool := range []string{"squid", "krb5kdc", "kdb5_util", "kadmin.local", "htpasswd"} {
		_, err := lookPath(tool)
		require.NoError(t, err, "%s is missing: `make debian-packages` installs it", tool)
	}
	binaries, _ := nodeRuntimes(t)
	var nodeBin string
	for _, b := range binaries {
		if nodeBin == "" || b > nodeBin {
			nodeBin = b
		}
	}
	self, err := os.Executable()
	require.NoError(t, err)

	// squid runs as user proxy: its folder is open to it
	dir, err := os.MkdirTemp("", "relay-upstreams-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o777))
	const password, rotated, kdcPassword = "Relay-pw:1", "Relay-pw:2-rotated", "Kerberos-pw:1"
	for _, c := range relayCases {
		creds := filepath.Join(dir, c.name)
		require.NoError(t, os.MkdirAll(creds, 0o700))
		pw := password
		if c.scheme == "negotiate" {
			pw = kdcPassword
		}
		require.NoError(t, os.WriteFile(filepath.Join(creds, "username"), []byte(c.username+"\n"), 0o600))
		if c.name != "negotiate-keytab" {
			require.NoError(t, os.WriteFile(filepath.Join(creds, "password"), []byte(pw), 0o600))
		}
	}
	// squid's NTLM helper is this test binary (ntlmtest's helper protocol), which
	// checks the NTLMv2 proof against the password in passwd-ntlm
	helper := filepath.Join(dir, "ntlm-helper")
	raw, err := os.ReadFile(self)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(helper, raw, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "passwd-ntlm"), []byte(password), 0o644))
	render := func(name, out string, data any) {
		tmpl := template.Must(template.ParseFiles(filepath.Join("testdata", "relay", name)))
		f, err := os.Create(filepath.Join(dir, out))
		require.NoError(t, err)
		require.NoError(t, tmpl.Execute(f, data))
		require.NoError(t, f.Close())
	}
	for _, c := range relayCases[:3] {
		render("squid.conf.tmpl", "squid-"+c.scheme+".conf", map[string]any{"Scheme": c.scheme, "Dir": dir, "Helper": helper, "Listen": fmt.Sprintf("%s:%d", relayCorpAddr, c.squid)})
	}
	render("kdc.conf.tmpl", "kdc.conf", map[string]any{"Dir": dir, "TicketLife": fmt.Sprintf("%ds", relayTicketLife)})
	krb5, err := filepath.Abs(filepath.Join("testdata", "relay", "krb5.conf"))
	require.NoError(t, err)

	var s strings.Builder
	fmt.Fprintf(&s, "D=%q SELF=%q NODE=%q\ncd \"$D\"\nmount -t tmpfs tmpfs /dev/shm\n", dir, self, nodeBin)
	fmt.Fprintf(&s, "export KRB5_CONFIG=%q KRB5_KDC_PROFILE=\"$D/kdc.conf\"\n", krb5)
	// the realm: the relay's principal, and the proxy's, whose key squid holds
	s.WriteString(`mkdir kdb && kdb5_util create -s -P master -r PROXYKIT.TEST >/dev/null 2>&1
kadmin.local -q "addprinc -pw ` + kdcPassword + ` svc-relay" >/dev/null 2>&1
kadmin.local -q "addprinc -randkey HTTP/corp-proxy.proxykit.test" >/dev/null 2>&1
kadmin.local -q "ktadd -k $D/http.keytab HTTP/corp-proxy.proxykit.test" >/dev/null 2>&1
kadmin.local -q "ktadd -norandkey -k $D/negotiate-keytab/keytab svc-relay" >/dev/null 2>&1
chown proxy http.keytab
krb5kdc -n >kdc.out 2>&1 &
`)
	fmt.Fprintf(&s, "htpasswd -bc passwd svc-relay %s 2>/dev/null\nchmod 644 passwd\n", shellQuote(password))
	for _, c := range relayCases[:3] {
		fmt.Fprintf(&s, "KRB5_KTNAME=\"$D/http.keytab\" %s=%q %s=\"$D/passwd-ntlm\" squid -N -n %s -f \"$D/squid-%s.conf\" >squid-%s.out 2>&1 &\n",
			ntlmUserVar, `CORP\svc-relay`, ntlmPasswordVar, c.scheme, c.scheme, c.scheme)
	}
	for _, c := range relayCases {
		fmt.Fprintf(&s, "%q --listen %s:%d --admin-listen 127.0.0.1:%d --upstream http://corp-proxy.proxykit.test:%d --scheme %s --credentials-dir \"$D/%s\" --krb5-config %q --allow 10.70.0.0/24 >relay-%s.log 2>&1 &\n",
			relayBin, relayAddr, c.port, c.port+6000, c.squid, c.scheme, c.name, krb5, c.name)
	}
	for _, c := range relayCases {
		s.WriteString(waitForPort(relayCorpAddr, c.squid) + waitForPort(relayAddr, c.port))
	}
	s.WriteString(waitForPort(relayKDCAddr, 88))
	s.WriteString("URL=http://outside.proxykit.test:8080/\nexport NO_PROXY=localhost,127.0.0.1 no_proxy=localhost,127.0.0.1\n")
	round := func(label string) {
		for _, c := range relayCases {
			for _, name := range slices.Sorted(maps.Keys(relayClients)) {
				fmt.Fprintf(&s, "echo \"=== %s %s %s $(HTTP_PROXY=http://%s:%d http_proxy=http://%s:%d; export HTTP_PROXY http_proxy; %s)\"\n",
					label, c.name, name, relayAddr, c.port, relayAddr, c.port, relayClients[name])
			}
		}
	}
	round("first")

	// rotation: the upstream's password changes first, then the Secret's file
	// (written as the kubelet does, by a rename)
	fmt.Fprintf(&s, "htpasswd -b passwd svc-relay %s 2>/dev/null\nprintf %%s %s > passwd-ntlm\nsleep 1.5\n", shellQuote(rotated), shellQuote(rotated))
	for _, c := range relayCases[:2] {
		fmt.Fprintf(&s, "echo \"=== stale %s $(curl -s -o /dev/null -w '%%{http_code}' -m 5 -x http://%s:%d \"$URL\")\"\n", c.name, relayAddr, c.port)
		fmt.Fprintf(&s, "curl -s http://127.0.0.1:%d/metrics | grep '^proxykit_relay_upstream_auth_failures_total' | sed 's/^/=== metric /'\n", c.port+6000)
		fmt.Fprintf(&s, "printf %%s %s > %s/password.new && mv %s/password.new %s/password\n", shellQuote(rotated), c.name, c.name, c.name)
		fmt.Fprintf(&s, "echo \"=== rotated %s $(curl -s -m 5 -x http://%s:%d \"$URL\")\"\n", c.name, relayAddr, c.port)
	}

	// renewal: every ticket of the first round has expired
	fmt.Fprintf(&s, "sleep %d\n", relayTicketLife+1)
	round("renewed")
	s.WriteString("for f in access-*.log; do sed \"s|^|=== log $f |\" \"$f\"; done\n")
	s.WriteString("grep -c 'AS_REQ.*ISSUE.*svc-relay@PROXYKIT.TEST for krbtgt' kdc.log | sed 's/^/=== logins /'\n")
	s.WriteString("for f in relay-*.log; do sed \"s|^|=== relaylog $f |\" \"$f\"; done\n")

	out := netns{
		Addrs:     []string{relayCorpAddr, relayKDCAddr, relayOutsideAddr, relayAddr},
		Hosts:     "127.0.0.1 localhost\n" + relayCorpAddr + " corp-proxy.proxykit.test\n" + relayOutsideAddr + " outside.proxykit.test\n",
		EchoPorts: []string{"8080"},
		RealRoot:  true,
	}.run(t, s.String())

	if os.Getenv("RELAY_DEBUG") != "" {
		t.Log(out)
	}
	lines := map[string]string{}
	var logs, relayLogs []string
	for _, l := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(l, "=== ")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(rest, "log "):
			logs = append(logs, rest)
		case strings.HasPrefix(rest, "relaylog "):
			relayLogs = append(relayLogs, rest)
		default:
			key, value := rest, ""
			if i := strings.LastIndex(rest, " "); i >= 0 {
				key, value = rest[:i], rest[i+1:]
			}
			lines[key] = value
		}
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
	for _, c := range relayCases[:3] {
		granted := 0
		for _, l := range logs {
			if strings.Contains(l, "access-"+c.scheme+".log") && regexp.MustCompile(`TCP_(MISS|TUNNEL)/200`).MatchString(l) {
				granted++
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
		assert.Equal(t, want, granted, "%s: requests the upstream let through", c.scheme)
	}

	for _, c := range relayCases[:2] {
		assert.Equal(t, "502", lines["stale "+c.name], "%s: a stale password is the relay's 502, not a 407 the client would answer", c.name)
		assert.Equal(t, "1", lines[`metric proxykit_relay_upstream_auth_failures_total{scheme="`+c.scheme+`"}`], "%s: the 407 is the relay's metric", c.name)
		assert.Equal(t, "proxy", lines["rotated "+c.name], "%s: the next request after the Secret's file changed used the new password, nothing restarted", c.name)
	}
	var logins int
	fmt.Sscan(lines["logins"], &logins)
	assert.GreaterOrEqual(t, logins, 4, "each negotiate relay logged in again after its tickets expired")

	var saw407 bool
	for _, l := range relayLogs {
		for _, secret := range []string{password, rotated, kdcPassword, "svc-relay"} {
			assert.NotContains(t, l, secret, "a relay's log names no credential")
		}
		saw407 = saw407 || strings.Contains(l, "answered 407")
	}
	assert.True(t, saw407, "the 407 is in the relay's log")
}

// The NTLM helper role's settings: the one user it accepts, and the file that
// holds that user's password.
const (
	ntlmUserVar     = "PROXYKIT_NTLM_USER"
	ntlmPasswordVar = "PROXYKIT_NTLM_PASSWORD_FILE"
)

// playRelayRole runs the relay test's helper roles:
//   - "ntlm-helper": squid's NTLM authenticator (ntlmtest.ServeSquidHelper),
//     with the user and password file its variables name.
func playRelayRole(role string) (int, bool) {
	if role != "ntlm-helper" {
		return 0, false
	}
	password := func() string {
		b, _ := os.ReadFile(os.Getenv(ntlmPasswordVar))
		return strings.TrimSpace(string(b))
	}
	if err := ntlmtest.ServeSquidHelper(os.Stdin, os.Stdout, os.Getenv(ntlmUserVar), password); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	return 0, true
}
