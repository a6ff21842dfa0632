package noproxy

import (
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpproxy"
)

// GoProxied is Go's own proxy selection (golang.org/x/net/http/httpproxy, what
// net/http's ProxyFromEnvironment runs) for one NO_PROXY, with a proxy set for
// both schemes: the function tells whether a URL goes through the proxy. It is
// the one place the project builds that decision; build it once per NO_PROXY.
func GoProxied(noProxy string) func(*url.URL) bool {
	proxyFor := (&httpproxy.Config{HTTPProxy: "http://proxy.invalid:3128", HTTPSProxy: "http://proxy.invalid:3128", NoProxy: noProxy}).ProxyFunc()
	return func(u *url.URL) bool {
		p, err := proxyFor(u)
		return err == nil && p != nil
	}
}

// goDecide is Go's own selection; the entry is the first that decides alone.
func goDecide(noProxy string, t target) (bool, string) {
	decide := func(np string) bool { return !GoProxied(np)(t.url) }
	if !decide(noProxy) {
		return false, ""
	}
	for _, entry := range strings.Split(noProxy, ",") {
		if e := strings.TrimSpace(entry); e != "" && decide(e) {
			return true, e
		}
	}
	return true, "(loopback: Go never proxies it)"
}

// curlDecide models Curl_check_noproxy of curl 7.88 (Debian 12): "*" alone
// bypasses everything; entries are separated by commas or blanks; host names
// match exactly or as a domain suffix, ignoring one leading and trailing dot on
// both sides; IPv4 addresses match only IPv4 entries, exactly or by CIDR; ports
// and brackets in entries never match. curl hands the check an IPv6 host
// without its brackets, so it is compared as a name: "fd00::1" matches only the
// entry "fd00::1", never an IPv6 CIDR (the real curl confirms it).
func curlDecide(noProxy string, t target) (bool, string) {
	if noProxy == "*" {
		return true, "*"
	}
	addr, err := netip.ParseAddr(t.hostname)
	isIP := err == nil && addr.Is4()
	name := strings.TrimSuffix(t.hostname, ".")
	for _, token := range strings.FieldsFunc(noProxy, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if isIP {
			check, bits := token, -1
			if i := strings.Index(token, "/"); i >= 0 {
				check = token[:i]
				bits, _ = strconv.Atoi(token[i+1:]) // atoi: junk reads as 0, a full-length match
			}
			if cidrMatch(addr, check, bits) {
				return true, token
			}
			continue
		}
		tok := strings.TrimSuffix(token, ".")
		tok = strings.TrimPrefix(tok, ".")
		tok = strings.ToLower(tok)
		if tok == name || (len(tok) < len(name) && strings.HasSuffix(name, "."+tok)) {
			return true, token
		}
	}
	return false, ""
}

// cidrMatch is Curl_cidr4_match and Curl_cidr6_match: bits 0 (or none) means the whole address.
func cidrMatch(addr netip.Addr, check string, bits int) bool {
	network, err := netip.ParseAddr(check)
	if err != nil || network.Is4() != addr.Is4() || network.Zone() != "" {
		return false
	}
	if bits <= 0 || bits > network.BitLen() {
		bits = network.BitLen()
	}
	p, err := network.Prefix(bits)
	return err == nil && p.Contains(addr)
}

// wgetDecide models sufmatch of wget 1.21: each comma-separated entry matches
// the host exactly or as a suffix at a dot; no CIDR, no "*", no ports; IPv6
// hosts are compared without brackets.
func wgetDecide(noProxy string, t target) (bool, string) {
	host := t.hostname
	for _, entry := range strings.Split(noProxy, ",") {
		e := strings.ToLower(strings.TrimSpace(entry))
		if e == "" || len(host) < len(e) || !strings.HasSuffix(host, e) {
			continue
		}
		k := len(host) - len(e) - 1
		if k == -1 || host[k] == '.' || e[0] == '.' {
			return true, strings.TrimSpace(entry)
		}
	}
	return false, ""
}

// requestsDecide models should_bypass_proxies of requests 2.28: for an IPv4
// host, IPv4 CIDR entries and exact addresses; for any other host, a plain
// string suffix match on the host and on host:port (no dot boundary, so
// "example.com" also matches "badexample.com"); then urllib's own check on the
// bare host name.
func requestsDecide(noProxy string, t target) (bool, string) {
	var entries []string
	for _, e := range strings.Split(strings.ReplaceAll(noProxy, " ", ""), ",") {
		if e != "" {
			entries = append(entries, e)
		}
	}
	if addr, err := netip.ParseAddr(t.hostname); err == nil && addr.Is4() && isDottedQuad(t.hostname) {
		for _, e := range entries {
			if p, err := parseRequestsCIDR(e); err == nil {
				if p.Contains(addr) {
					return true, e
				}
			} else if t.hostname == e {
				return true, e
			}
		}
	} else {
		hostWithPort := t.hostname
		if t.port != "" {
			hostWithPort += ":" + t.port
		}
		for _, e := range entries {
			if strings.HasSuffix(t.hostname, e) || strings.HasSuffix(hostWithPort, e) {
				return true, e
			}
		}
	}
	return urllibDecide(noProxy, t.hostname)
}

var dottedQuad = regexp.MustCompile(`^[0-9]{1,3}(\.[0-9]{1,3}){3}$`)

func isDottedQuad(s string) bool { return dottedQuad.MatchString(s) }

// parseRequestsCIDR is requests' is_valid_cidr: an IPv4 address, "/", a mask of 1 to 32.
func parseRequestsCIDR(e string) (netip.Prefix, error) {
	i := strings.Index(e, "/")
	if i < 0 || strings.Count(e, "/") != 1 {
		return netip.Prefix{}, strconv.ErrSyntax
	}
	bits, err := strconv.Atoi(e[i+1:])
	if err != nil || bits < 1 || bits > 32 || !isDottedQuad(e[:i]) {
		return netip.Prefix{}, strconv.ErrSyntax
	}
	addr, err := netip.ParseAddr(e[:i])
	if err != nil {
		return netip.Prefix{}, err
	}
	return addr.Prefix(bits)
}

var splitPort = regexp.MustCompile(`^(.*):([0-9]*)$`)

// urllibDecide models proxy_bypass_environment of Python 3.11 on the URL's
// netloc (host[:port], IPv6 brackets kept): "*" alone bypasses everything;
// each entry, leading dots stripped, matches the host (without port) or the
// whole netloc exactly or as a suffix at a dot. No CIDR, no "*." wildcard.
func urllibDecide(noProxy, netloc string) (bool, string) {
	if noProxy == "*" {
		return true, "*"
	}
	host := strings.ToLower(netloc)
	hostOnly := host
	if m := splitPort.FindStringSubmatch(host); m != nil && m[2] != "" {
		hostOnly = m[1]
	}
	for _, entry := range strings.Split(noProxy, ",") {
		name := strings.ToLower(strings.TrimLeft(strings.TrimSpace(entry), "."))
		if strings.TrimSpace(entry) == "" {
			continue
		}
		if hostOnly == name || host == name {
			return true, strings.TrimSpace(entry)
		}
		if strings.HasSuffix(hostOnly, "."+name) || strings.HasSuffix(host, "."+name) {
			return true, strings.TrimSpace(entry)
		}
	}
	return false, ""
}
