package relay

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Scheme is how the relay authenticates to the upstream proxy.
type Scheme string

// The schemes an upstream proxy may demand.
const (
	SchemeNone      Scheme = "none"
	SchemeBasic     Scheme = "basic"
	SchemeNTLM      Scheme = "ntlm"
	SchemeNegotiate Scheme = "negotiate"
)

// Schemes lists every Scheme, for flags and messages.
var Schemes = []Scheme{SchemeNone, SchemeBasic, SchemeNTLM, SchemeNegotiate}

// Options configure a Relay.
type Options struct {
	// Upstream is the corporate proxy, http://host:port, without user-info:
	// credentials live only in CredentialsDir.
	Upstream string
	// Scheme is how the relay proves itself to Upstream.
	Scheme Scheme
	// CredentialsDir holds the mounted Secret's files: username and password
	// (Basic, NTLM, Negotiate), or username and keytab (Negotiate). For NTLM
	// the user may be DOMAIN\user or user@domain; for Negotiate user@REALM.
	CredentialsDir string
	// Krb5Config is the krb5.conf that names the realm's KDCs (Negotiate).
	Krb5Config string
	// SPN is the upstream proxy's service principal; HTTP/<upstream host> when empty.
	SPN string
	// Allow are the source networks served; loopback is always served and
	// every other source is refused.
	Allow []netip.Prefix
	// NoUpstream are destinations reached directly, in NO_PROXY's syntax
	// (host, .domain, address, CIDR, with an optional :port).
	NoUpstream []string
	// DialTimeout bounds a connection to the upstream or a direct destination.
	DialTimeout time.Duration
	// IdleTimeout closes a tunnel no byte has crossed, either way, for that
	// long: a client that walked away holds no connection (10 minutes when 0).
	IdleTimeout time.Duration
	// MaxConnections bounds the requests and tunnels served at once; past it a
	// client gets 503 at once (1024 when 0).
	MaxConnections int
	// DialDirect opens connections to NoUpstream destinations; by default a
	// dialer that refuses loopback and unspecified addresses, so no client
	// reaches the relay's own host through it.
	DialDirect func(ctx context.Context, network, addr string) (net.Conn, error)
	// Logger receives one line per refused source and per upstream 407; nil
	// logs to slog's default.
	Logger *slog.Logger
}

// upstream parses and checks Options.Upstream.
func (o Options) upstream() (*url.URL, error) {
	if o.Upstream == "" {
		return nil, fmt.Errorf("upstream: the corporate proxy's URL is required")
	}
	u, err := url.Parse(o.Upstream)
	if err != nil || u.Scheme != "http" || u.Hostname() == "" {
		return nil, fmt.Errorf("upstream: want http://host:port, got a URL that does not parse as one")
	}
	if u.User != nil {
		return nil, fmt.Errorf("upstream: the URL carries user-info; give the credentials as files in the credentials directory instead")
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), "80")
	}
	return u, nil
}

// scheme checks Options.Scheme and what it needs.
func (o Options) scheme() (Scheme, error) {
	s := Scheme(strings.ToLower(string(o.Scheme)))
	if s == "" {
		s = SchemeNone
	}
	switch s {
	case SchemeNone:
		return s, nil
	case SchemeBasic, SchemeNTLM, SchemeNegotiate:
		if o.CredentialsDir == "" {
			return "", fmt.Errorf("scheme %s: a credentials directory is required", s)
		}
		if s == SchemeNegotiate && o.Krb5Config == "" {
			return "", fmt.Errorf("scheme negotiate: a krb5.conf is required")
		}
		return s, nil
	}
	return "", fmt.Errorf("scheme: %q is not one of %v", o.Scheme, Schemes)
}
