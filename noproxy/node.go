package noproxy

import (
	"regexp"
	"strconv"
	"strings"
)

var nodeEntryPort = regexp.MustCompile(`^(.+):(\d+)$`)

// nodeDecide models undici 6's EnvHttpProxyAgent, which NODE_USE_ENV_PROXY uses:
// NO_PROXY is split at commas and blanks; an empty list proxies everything, the
// value "*" nothing; an entry with ":port" applies to that port only (the
// target's port is its scheme's default when the URL has none); an entry that
// starts with "." or "*" matches as a plain suffix ("*" dropped), any other entry
// only the exact host. The host keeps its IPv6 brackets. No CIDR.
func nodeDecide(noProxy string, t target) (bool, string) {
	if noProxy == "*" {
		return true, "*"
	}
	host := strings.ToLower(t.netloc)
	if t.port != "" {
		host = strings.TrimSuffix(host, ":"+t.port)
	}
	port := 0
	if t.port != "" {
		port, _ = strconv.Atoi(t.port)
	} else if t.url.Scheme == "https" {
		port = 443
	} else if t.url.Scheme == "http" {
		port = 80
	}
	for _, entry := range strings.FieldsFunc(noProxy, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }) {
		name, entryPort := strings.ToLower(entry), 0
		if m := nodeEntryPort.FindStringSubmatch(entry); m != nil {
			name = strings.ToLower(m[1])
			entryPort, _ = strconv.Atoi(m[2])
		}
		if entryPort != 0 && entryPort != port {
			continue
		}
		if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "*") {
			if strings.HasSuffix(host, strings.TrimPrefix(name, "*")) {
				return true, entry
			}
		} else if host == name {
			return true, entry
		}
	}
	return false, ""
}
