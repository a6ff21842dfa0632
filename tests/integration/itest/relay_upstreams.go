//go:build integration

package itest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/harness"
)

// relayUpstreams are the corporate proxies of the relay tests, set up in a
// folder of their own: three squids on one address demanding Basic
// (basic_ncsa_auth), NTLM (this test binary as squid's helper, recomputing
// each NTLMv2 proof) and Negotiate (negotiate_kerberos_auth), and the realm
// PROXYKIT.TEST's KDC (Debian's krb5kdc) on another, with principals for the
// relay's user and the proxy's service.
type relayUpstreams struct {
	Dir        string
	Addr       string         // the squids' address
	KDC        string         // the KDC's address
	Ports      map[string]int // the squid of each scheme
	TicketLife int            // seconds a ticket lives
	// the passwords hold no space or quote: kadmin.local -q parses its own way
	Password    string // svc-relay's password at the Basic and NTLM squids
	KDCPassword string // svc-relay@PROXYKIT.TEST's password
	Krb5Conf    string // the krb5.conf that names the KDC
	Keytab      string // svc-relay's keytab, written by start
}

// The relay's user everywhere, and the proxy's service principal.
const (
	RelayUser      = "svc-relay"
	RelayNTLMUser  = `CORP\svc-relay`
	RelayPrincipal = "svc-relay@PROXYKIT.TEST"
	RelaySPN       = "HTTP/corp-proxy.proxykit.test"
)

func NewRelayUpstreams(t *testing.T, addr, kdc string, firstPort, ticketLife int) *relayUpstreams {
	t.Helper()
	for _, tool := range []string{"squid", "krb5kdc", "kdb5_util", "kadmin.local", "htpasswd"} {
		_, err := lookPath(tool)
		require.NoError(t, err, "%s is missing: `make debian-packages` installs it", tool)
	}
	// squid runs as user proxy: its folder is open to it
	dir, err := os.MkdirTemp("", "relay-upstreams-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o777))
	u := &relayUpstreams{Dir: dir, Addr: addr, KDC: kdc, TicketLife: ticketLife,
		Ports:    map[string]int{"basic": firstPort, "ntlm": firstPort + 1, "negotiate": firstPort + 2},
		Password: "Relay-pw:1", KDCPassword: "Kerberos-pw:1",
		Krb5Conf: filepath.Join(dir, "krb5.conf"), Keytab: filepath.Join(dir, "svc-relay.keytab")}

	// squid's NTLM helper is this test binary, which needs a path squid's user may run
	self, err := os.Executable()
	require.NoError(t, err)
	raw, err := os.ReadFile(self)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(u.path("ntlm-helper"), raw, 0o755))
	require.NoError(t, os.WriteFile(u.path("passwd-ntlm"), []byte(u.Password), 0o644))
	for scheme := range u.Ports {
		u.render(t, "squid.conf.tmpl", "squid-"+scheme+".conf", map[string]any{"Scheme": scheme, "Dir": dir, "Helper": u.path("ntlm-helper"), "Listen": fmt.Sprintf("%s:%d", addr, u.Ports[scheme])})
	}
	u.render(t, "kdc.conf.tmpl", "kdc.conf", map[string]any{"Dir": dir, "KDC": kdc, "TicketLife": fmt.Sprintf("%ds", ticketLife)})
	u.render(t, "krb5.conf.tmpl", "krb5.conf", map[string]any{"KDC": kdc})
	return u
}

func (u *relayUpstreams) path(name string) string { return filepath.Join(u.Dir, name) }

func (u *relayUpstreams) render(t *testing.T, name, out string, data any) {
	t.Helper()
	tmpl := template.Must(template.ParseFiles(Testdata("relay", name)))
	f, err := os.Create(u.path(out))
	require.NoError(t, err)
	require.NoError(t, tmpl.Execute(f, data))
	require.NoError(t, f.Close())
}

// start is the bash script that starts the realm and the squids, inside a
// namespace of the test's own (as the machine's root: squid switches users),
// and waits until each answers.
func (u *relayUpstreams) Start() string {
	var s strings.Builder
	fmt.Fprintf(&s, "( cd %q\nmount -t tmpfs tmpfs /dev/shm\n", u.Dir)
	fmt.Fprintf(&s, "export KRB5_CONFIG=%q KRB5_KDC_PROFILE=%q\n", u.Krb5Conf, u.path("kdc.conf"))
	// the realm: the relay's principal, and the proxy's, whose key squid holds
	fmt.Fprintf(&s, `mkdir -p kdb && kdb5_util create -s -P master -r PROXYKIT.TEST >/dev/null 2>&1
kadmin.local -q "addprinc -pw %s %s" >/dev/null 2>&1
kadmin.local -q "addprinc -randkey %s" >/dev/null 2>&1
kadmin.local -q "ktadd -k http.keytab %s" >/dev/null 2>&1
kadmin.local -q "ktadd -norandkey -k %s %s" >/dev/null 2>&1
chown proxy http.keytab
krb5kdc -n >kdc.out 2>&1 &
`, u.KDCPassword, RelayUser, RelaySPN, RelaySPN, u.Keytab, RelayUser)
	fmt.Fprintf(&s, "htpasswd -bc passwd %s %s 2>/dev/null\nchmod 644 passwd\n", RelayUser, ShellQuote(u.Password))
	for scheme := range u.Ports {
		fmt.Fprintf(&s, "KRB5_KTNAME=%q %s=%q %s=%q squid -N -n %s -f squid-%s.conf >squid-%s.out 2>&1 &\n",
			u.path("http.keytab"), ntlmUserVar, RelayNTLMUser, ntlmPasswordVar, u.path("passwd-ntlm"), scheme, scheme, scheme)
	}
	s.WriteString(")\n")
	for _, port := range u.Ports {
		s.WriteString(harness.WaitForPort(u.Addr, port))
	}
	s.WriteString(harness.WaitForPort(u.KDC, 88))
	return s.String()
}

// rotate changes svc-relay's password at the Basic and NTLM squids.
func (u *relayUpstreams) Rotate(password string) string {
	return fmt.Sprintf("htpasswd -b %q %s %s 2>/dev/null\nprintf %%s %s > %q\n", u.path("passwd"), RelayUser, ShellQuote(password), ShellQuote(password), u.path("passwd-ntlm"))
}

// AccessLog is the access log of the scheme's squid.
func (u *relayUpstreams) AccessLog(t *testing.T, scheme string) string {
	t.Helper()
	raw, _ := os.ReadFile(u.path("access-" + scheme + ".log"))
	return string(raw)
}

// logins counts the relay's logins at the KDC (AS requests it granted).
func (u *relayUpstreams) Logins(t *testing.T) int {
	raw, _ := os.ReadFile(u.path("kdc.log"))
	n := 0
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.Contains(l, "AS_REQ") && strings.Contains(l, "ISSUE") && strings.Contains(l, RelayPrincipal+" for krbtgt") {
			n++
		}
	}
	return n
}
