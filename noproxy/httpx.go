package noproxy

import "strings"

var _ = register(Family{Client: PythonHTTPX, Lists: []List{ListMain}, Rank: 60, Match: plain(httpxDecide), Reads: pythonReads})

// httpxDecide models HTTPX 0.23 (Debian 12's python3-httpx), which turns each
// NO_PROXY entry into the mount pattern "all://*ENTRY": "*" anywhere bypasses
// everything; "name" matches the host and its subdomains, ".name" only the
// subdomains ("*.name"), "*.name" nothing (it becomes "**.name"); ":port" that
// port only, and never a URL without a port or with its scheme's default port.
// The host is compared without brackets, so no IPv6 entry and no CIDR match
// (an IPv4 address matches itself, and any address that ends with it at a dot).
func httpxDecide(noProxy string, t target) (bool, string) {
	entries := strings.Split(noProxy, ",")
	for _, raw := range entries {
		if strings.TrimSpace(raw) == "*" {
			return true, "*"
		}
	}
	targetPort := atoi(t.port) // 0: none
	if (t.url.Scheme == "http" && targetPort == 80) || (t.url.Scheme == "https" && targetPort == 443) {
		targetPort = 0 // httpx normalizes a default port away
	}
	for _, raw := range entries {
		entry := strings.TrimSpace(raw)
		if entry == "" {
			continue
		}
		host, port, ok := httpxPattern(entry)
		if !ok || (port != "" && atoi(port) != targetPort) {
			continue
		}
		switch {
		case host == "": // "all://*:port": every host
			return true, entry
		case strings.HasPrefix(host, "*"): // "**...": a literal star
			continue
		case strings.HasPrefix(host, "."):
			if len(t.hostname) > len(host) && strings.HasSuffix(t.hostname, host) {
				return true, entry
			}
		case t.hostname == host || strings.HasSuffix(t.hostname, "."+host):
			return true, entry
		}
	}
	return false, ""
}

// httpxPattern is the host (the entry's, without the "*" httpx prefixes) and
// port of the URL "all://*ENTRY"; ok is false for one whose host cannot be a
// host httpx compares: an IPv6 literal, a blank, a port that is no number.
func httpxPattern(entry string) (host, port string, ok bool) {
	authority := entry
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if strings.ContainsAny(authority, "[] \t") || strings.Count(authority, ":") > 1 {
		return "", "", false
	}
	host, port, _ = strings.Cut(authority, ":")
	if strings.Trim(port, "0123456789") != "" {
		return "", "", false
	}
	return strings.ToLower(host), port, true
}
