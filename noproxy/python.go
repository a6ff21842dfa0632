package noproxy

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// Python: urllib's getproxies_environment, which requests uses too.
var pythonReads = Variables{Proxy: []string{"http_proxy", "HTTP_PROXY"}, NoProxy: []string{"no_proxy", "NO_PROXY"}}

var (
	_ = register(Family{Client: PythonRequests, Lists: []List{ListMain}, Rank: 40, Reads: pythonReads, Match: plain(requestsDecide)})
	_ = register(Family{Client: PythonURLLib, Lists: []List{ListMain}, Rank: 50, Reads: pythonReads,
		Match: func(_ Client, noProxy string, t target, _ netip.Addr) (bool, string, error) {
			d, e := urllibDecide(noProxy, t.netloc)
			return d, e, nil
		}})
)

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
