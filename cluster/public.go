package cluster

import (
	"net/netip"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Suffix says whether a host name is itself a public suffix, where anyone may
// register names: SuffixICANN for a top-level domain or a registry's own level
// (com, app, co.uk, ck, whose names all sit under *.ck), SuffixPrivate for a
// provider's (github.io, vercel.app, googleapis.com), by the public suffix
// list that golang.org/x/net/publicsuffix carries; SuffixNone otherwise.
type Suffix int

const (
	SuffixNone Suffix = iota
	SuffixICANN
	SuffixPrivate
)

// PublicSuffix tells what kind of public suffix name is (case, a leading "."
// and a trailing "." ignored).
func PublicSuffix(name string) Suffix {
	name = strings.Trim(strings.ToLower(name), ".")
	if name == "" || strings.Contains(name, ":") {
		return SuffixNone
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return SuffixNone
	}
	ps, icann := publicsuffix.PublicSuffix(name)
	switch {
	case ps == name && icann:
		return SuffixICANN
	case ps == name && strings.Contains(name, "."):
		return SuffixPrivate
	case !strings.Contains(name, "."):
		// a top-level domain the list names only by a wildcard (*.ck): every
		// name under it is a suffix, so the domain is one too
		if _, childICANN := publicsuffix.PublicSuffix("x." + name); childICANN {
			return SuffixICANN
		}
	}
	return SuffixNone
}

// Public tells whether a NO_PROXY entry sends public hosts around the proxy,
// and says which: "*", a public suffix of the ICANN section (com, .io, app,
// co.uk:443: every name under it is someone else's), or a network wider than
// any one holder's that holds public addresses (IPv4 wider than /8, IPv6 wider
// than /32 outside fc00::/7 and fe80::/10; 0.0.0.0/0 and ::/0 among them).
// A provider's suffix (github.io, googleapis.com) is not: operators bypass
// their cloud's endpoints on purpose (Private Google Access, S3 gateway
// endpoints, Private Link), and the library lets them; it is never a host
// of the cluster (manifest.Places), and inject never adds one from a call.
// The library holds the same predicate in templates: proxykit.noProxy.entry
// refuses what proxykit.noProxy.publicSuffix ("icann") and
// proxykit.noProxy.widePublic judge so.
func Public(entry string) (string, bool) {
	entry = strings.TrimSpace(entry)
	switch {
	case entry == "*":
		return "every host (*)", true
	case entry == "":
		return "", false
	}
	if p, err := netip.ParsePrefix(entry); err == nil {
		if widePublic(p.Masked()) {
			return "public addresses (" + p.Masked().String() + ")", true
		}
		return "", false
	}
	host := strings.TrimPrefix(entry, "*")
	if h, _, ok := strings.Cut(host, "]"); ok && strings.HasPrefix(h, "[") {
		return "", false // [IPv6]:port: one address
	}
	if strings.Count(host, ":") == 1 {
		host, _, _ = strings.Cut(host, ":")
	}
	if PublicSuffix(host) == SuffixICANN {
		return "every host under " + strings.Trim(strings.ToLower(host), ".") + " (a public suffix)", true
	}
	return "", false
}

// privateSpace are the IPv6 networks no one holds publicly: unique local and
// link-local addresses.
var privateSpace = []netip.Prefix{netip.MustParsePrefix("fc00::/7"), netip.MustParsePrefix("fe80::/10")}

// widePublic tells whether a network is wider than any one holder's block (an
// IPv4 /8, an IPv6 /32) and holds public addresses.
func widePublic(p netip.Prefix) bool {
	if p.Addr().Is4() || p.Addr().Is4In6() {
		return p.Bits() < 8 || p.Addr().Is4In6() && p.Bits() < 96+8
	}
	if p.Bits() >= 32 {
		return false
	}
	for _, private := range privateSpace {
		if private.Bits() <= p.Bits() && private.Contains(p.Addr()) {
			return false
		}
	}
	return true
}

// PublicJavaPattern tells whether a pattern of the JVM's -Dhttp.nonProxyHosts
// (where "*" is a wildcard at either end) matches public hosts: "*", "*" before
// a public suffix of the ICANN section or before nothing (*.com, *com, *.), or
// a prefix that ends inside a label before its "*" (1*, a*: every address from
// 1 and 100 to 199, every name that starts with a). 10.* and *.corp.example
// are one holder's. The policies hold the same predicate in CEL and JMESPath
// (proxy-policies' _public.tpl).
func PublicJavaPattern(p string) bool {
	p = strings.TrimSpace(p)
	if rest, ok := strings.CutPrefix(p, "*"); ok {
		return strings.Trim(rest, ".") == "" || PublicSuffix(rest) == SuffixICANN
	}
	if prefix, ok := strings.CutSuffix(p, "*"); ok {
		return !strings.HasSuffix(prefix, ".")
	}
	return false
}
