package manifest

import (
	"encoding/json"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// found is a host a text names as called: a URL, a host:port, or a host key
// beside a port or scheme key.
type found struct{ host, port, scheme string }

var (
	// urlPattern: scheme://[userinfo@]host[:port], the host a DNS name or a
	// bracketed IPv6 address; the user-info runs to the last "@" before the
	// path, query or fragment, as Go's url.Parse and Python's urlsplit read it
	// (a password may hold "@").
	urlPattern = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]{0,15})://(?:[^\s/?#"'<>]*@)?(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9])?\.?)(?::(\d{1,5}))?`)
	// hostAfterUserInfo: the host[:port] after the last "@" of an authority.
	hostAfterUserInfo = regexp.MustCompile(`(?i)^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9])?\.?)(?::(\d{1,5}))?`)
	// hostPortPattern: host:port standing alone (between quotes, after = or a
	// space ...), so that an image tag (nginx:1.25) or a time (12:30) is not one.
	// The delimiter after the port is checked by hand (hostPortEnd), not
	// matched, so that it may start the next one: a,b in host:1,host:2.
	hostPortPattern = regexp.MustCompile(`(?i)(?:^|[\s"'=,;(\[{])((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.?):(\d{2,5})`)
	// hostPortArgs: a host and a port as two words of a command that takes
	// them so (nc -z mysql.db 3306, telnet, ncat, netcat).
	hostPortArgs = regexp.MustCompile(`(?i)\b(?:nc|ncat|netcat|telnet)(?:\s+-[a-z]+)*\s+((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)\s+(\d{2,5})\b`)
	// xmlAttribute: name="value" in a tag.
	xmlAttribute = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.:-]*)="([^"]*)"`)
	// nginxUpstream names an upstream block, which proxy_pass calls by that
	// name: http://backend is no host.
	nginxUpstream = regexp.MustCompile(`(?m)^\s*upstream\s+([A-Za-z0-9_.-]+)\s*\{`)
	// linePair: key = value, key: value (INI, properties, plain YAML-ish lines).
	linePair = regexp.MustCompile(`^\s*([A-Za-z0-9_.\-]+)\s*[=:]\s*"?([^"#;]*?)"?\s*$`)
	// hostKey names a key whose value is a host: host, hostname, server,
	// address, addr, endpoint (and db_host, esHost, serverAddress ...).
	// service-name is a Service's name (a readiness checker's --service-name with --namespace and --port).
	hostKey = regexp.MustCompile(`(?i)(^|[_.-])(host|hostname|server|address|addr|endpoint|service-name)s?$|[a-z](Host|Hostname|Server|Address|Addr|Endpoint|ServiceName)s?$`)
	// hostWord is the word of a host key that names the host (POSTGRES_HOST,
	// esHost): what is left is the prefix its port key shares.
	hostWord = regexp.MustCompile(`(?i)(host|hostname|server|address|addr|endpoint)s?$`)
	// flagPair is a command-line flag with its value: --name=value.
	flagPair = regexp.MustCompile(`^--?([A-Za-z0-9][A-Za-z0-9_.-]*)=(.*)$`)
	// dnsName is a host name as written in a config value.
	dnsName = regexp.MustCompile(`(?i)^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.?$`)
	// hostDefault is a host variable read with a default in code:
	// env("CLICKHOUSE_HOST", "clickhouse"), os.getenv('REDIS_HOST', 'redis'),
	// os.environ.get("DB_HOST", "db"), process.env.X_HOST || "x": the default
	// is the host the program calls when the variable is unset.
	hostDefault = regexp.MustCompile(`(?i)\b(?:env|getenv|environ\.get|get_env)\(\s*["']([A-Z0-9_]*_HOST(?:NAME)?)["']\s*,\s*(?:default\s*=\s*)?["']([^"'\s]+)["']|process\.env\.([A-Z0-9_]*_HOST(?:NAME)?)\s*(?:\|\||\?\?)\s*["']([^"'\s]+)["']`)
)

// bucketSchemes name a bucket, not a host: s3://my-bucket.logs/x is a call to
// the object store's endpoint, which the URL does not say.
var bucketSchemes = map[string]bool{"s3": true, "s3a": true, "s3n": true, "gs": true, "gcs": true, "az": true,
	"abfs": true, "abfss": true, "wasb": true, "wasbs": true, "oss": true, "cos": true, "r2": true}

// keyAlgorithms are the words before a size or curve in a key specification
// (openssl's -newkey rsa:4096, ec:secp384r1 as a file aside): no host.
var keyAlgorithms = map[string]bool{"rsa": true, "dsa": true, "ec": true, "ed25519": true, "ed448": true, "x25519": true, "x448": true}

// scanText finds the URLs and host:port forms of a text, line by line. A line
// that sets a credential (password = ..., --db-password=..., DB_TOKEN: ...) is
// never read, so that no part of a password becomes a host; nor is a comment
// (# in YAML, shell, Python and properties, ; in INI, // in JavaScript and
// Java), which calls nothing: # "LOCATION": ["memcached:11211"].
func scanText(text string) []found {
	var out []found
	for line := range strings.Lines(text) {
		if !secretLine(line) && !commentLine(line) {
			out = append(out, scanLine(line)...)
		}
	}
	return out
}

// commentLine tells a line that is a comment as a whole.
func commentLine(line string) bool {
	trimmed := strings.TrimSpace(line)
	return strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, ";") || strings.HasPrefix(trimmed, "//") || strings.HasPrefix(trimmed, "<!--")
}

// secretLine tells whether a line sets a key or flag named as a credential.
func secretLine(line string) bool {
	if m := linePair.FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil && SecretName(m[1]) {
		return true
	}
	for _, field := range strings.Fields(line) {
		if m := flagPair.FindStringSubmatch(field); m != nil && SecretName(m[1]) {
			return true
		}
	}
	return false
}

// scanLine finds the URLs and host:port forms of one line.
func scanLine(text string) []found {
	var out []found
	blank := []byte(text) // the text with the URLs' authorities blanked: what they hold is not read twice as host:port
	for _, m := range urlPattern.FindAllStringSubmatchIndex(text, -1) {
		scheme, host := strings.ToLower(text[m[2]:m[3]]), text[m[4]:m[5]]
		port := ""
		if m[6] >= 0 {
			port = text[m[6]:m[7]]
		}
		// the authority runs to the path, query, fragment or the end of the
		// token; a password may hold characters the pattern stops at (' , ;
		// in an RFC 3986 sub-delim), so a later "@" in it ends the user-info,
		// as Go's url.Parse reads it, and the host follows that "@"
		start := m[3] + len("://")
		authority := text[start:]
		if i := strings.IndexAny(authority, " \t/?#\"<>"); i >= 0 {
			authority = authority[:i]
		}
		end := max(m[1], start+len(authority))
		if at := strings.LastIndex(authority, "@"); at >= 0 && start+at >= m[4] {
			host, port = "", ""
			if h := hostAfterUserInfo.FindStringSubmatch(authority[at+1:]); h != nil {
				host, port = h[1], h[2]
			}
		}
		for i := m[0]; i < end; i++ {
			blank[i] = ' '
		}
		if bucketSchemes[scheme] {
			continue
		}
		if f, ok := newFound(host, port, scheme); ok {
			out = append(out, f)
		}
	}
	rest := string(blank)
	for _, m := range hostPortPattern.FindAllStringSubmatchIndex(rest, -1) {
		host, port := rest[m[2]:m[3]], rest[m[4]:m[5]]
		if keyAlgorithms[strings.ToLower(host)] || !hostPortEnd(rest[m[5]:]) {
			continue
		}
		if f, ok := newFound(host, port, ""); ok {
			out = append(out, f)
		}
	}
	for _, m := range hostPortArgs.FindAllStringSubmatch(rest, -1) {
		if f, ok := newFound(m[1], m[2], ""); ok {
			out = append(out, f)
		}
	}
	for _, m := range hostDefault.FindAllStringSubmatch(text, -1) {
		host := m[2] + m[4] // one alternative matched
		if f, ok := newFound(host, "", ""); ok {
			out = append(out, f)
		}
	}
	return out
}

// hostPortEnd tells whether what follows a host:port ends it: the end, a
// space, a quote or a separator (not nginx:1.25's ".", nor 12:30's more digits).
func hostPortEnd(after string) bool {
	return after == "" || strings.ContainsAny(after[:1], " \t\r\n\"',;)]}/")
}

// newFound checks a host and port as read: a name with a letter in it (12:30 is
// no host) or an IP address, and a port a service listens on.
func newFound(host, port, scheme string) (found, bool) {
	host = strings.ToLower(strings.Trim(host, "[]"))
	if strings.TrimSuffix(host, ".") == "" {
		return found{}, false
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 20 || n > 65535 {
			return found{}, false
		}
	}
	addr, err := netip.ParseAddr(host)
	switch {
	case err == nil && addr.IsUnspecified():
		return found{}, false // 0.0.0.0 and :: are where a server listens, never what a client calls
	case err != nil && (!dnsName.MatchString(host) || !strings.ContainsAny(host, "abcdefghijklmnopqrstuvwxyz")):
		return found{}, false
	}
	return found{host: host, port: port, scheme: scheme}, true
}

// scanFile finds the calls of a mounted file: a YAML or JSON document is walked
// (every string scanned, and each map's host keys read with the port and scheme
// keys beside them); anything else (INI, properties, XML, plain text) is scanned
// as text, and its key = value lines read the same way, section by section.
func scanFile(content string) []found {
	var doc any
	if err := yaml.Unmarshal([]byte(content), &doc); err == nil {
		_, isMap := doc.(map[string]any)
		_, isList := doc.([]any)
		// an INI file's [section] reads as a YAML list: a list counts as YAML only
		// when it is written as one, or as JSON
		if isMap || isList && (strings.HasPrefix(strings.TrimSpace(content), "-") || json.Valid([]byte(content))) {
			var out []found
			walk(doc, &out)
			return out
		}
	}
	out := scanText(content)
	section := map[string]string{}
	flush := func() {
		out = append(out, neighbours(section)...)
		section = map[string]string{}
	}
	for _, line := range strings.Split(content, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "[") || trimmed == "" {
			flush()
			continue
		}
		if commentLine(line) {
			continue
		}
		if m := linePair.FindStringSubmatch(line); m != nil {
			section[m[1]] = strings.TrimSpace(m[2])
		}
		out = append(out, xmlAttributes(line, section)...)
	}
	flush()
	return withoutUpstreams(content, out)
}

// xmlAttributes reads a tag's attributes: name="K" value="V" is the pair K = V
// of the section (a Tomcat Parameter, a Spring property); other attributes
// are read as one tag's pairs (a Connector's host= and port=).
func xmlAttributes(line string, section map[string]string) []found {
	attrs := map[string]string{}
	for _, m := range xmlAttribute.FindAllStringSubmatch(line, -1) {
		attrs[m[1]] = m[2]
	}
	if name, value := attrs["name"], attrs["value"]; name != "" && value != "" && !SecretName(name) {
		section[name] = value
		return nil
	}
	for k := range attrs {
		if SecretName(k) {
			delete(attrs, k)
		}
	}
	return neighbours(attrs)
}

// withoutUpstreams drops the hosts that are an nginx upstream's name, which
// proxy_pass calls by it: the servers inside the block are the calls.
func withoutUpstreams(content string, calls []found) []found {
	upstreams := nginxUpstream.FindAllStringSubmatch(content, -1)
	if len(upstreams) == 0 {
		return calls
	}
	return slices.DeleteFunc(calls, func(f found) bool {
		return f.port == "" && slices.ContainsFunc(upstreams, func(m []string) bool { return strings.EqualFold(m[1], f.host) })
	})
}

// walk collects the calls of a decoded YAML tree.
func walk(node any, out *[]found) {
	switch n := node.(type) {
	case map[string]any:
		strs := map[string]string{}
		for k, v := range n {
			if SecretName(k) {
				continue // password: ...: never read, so never a host
			}
			switch s := v.(type) {
			case string:
				strs[k] = s
				*out = append(*out, scanText(s)...)
			case float64, int64, int:
				strs[k] = strconv.FormatFloat(toFloat(s), 'f', -1, 64)
			default:
				walk(v, out)
			}
		}
		*out = append(*out, neighbours(strs)...)
	case []any:
		for _, v := range n {
			walk(v, out)
		}
	case string:
		*out = append(*out, scanText(n)...)
	}
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	case int:
		return float64(n)
	}
	return 0
}

// scanFlags reads a command line's --key=value and --key value flags as one
// section of neighbouring keys (--service-name=api --namespace=shop --port=8000
// --https).
func scanFlags(args []string) []found {
	pairs := map[string]string{}
	for i, arg := range args {
		switch strings.TrimLeft(arg, "-") {
		case "https", "tls", "secure":
			if strings.HasPrefix(arg, "-") {
				pairs["scheme"] = "https" // a switch that turns the call to TLS
				continue
			}
		}
		if m := flagPair.FindStringSubmatch(arg); m != nil {
			pairs[strings.TrimLeft(m[1], "-")] = m[2]
		} else if strings.HasPrefix(arg, "-") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			pairs[strings.TrimLeft(arg, "-")] = args[i+1]
		}
	}
	return neighbours(pairs)
}

// portKeys are the keys that may hold a host key's own port: its prefix and
// PORT, in the cases keys are written in (POSTGRES_HOST: POSTGRES_PORT; esHost:
// esPort); none for a key that is only the host word.
func portKeys(hostKey string) []string {
	prefix := hostWord.ReplaceAllString(hostKey, "")
	if prefix == "" {
		return nil
	}
	return []string{prefix + "PORT", prefix + "Port", prefix + "port"}
}

// neighbours reads the host keys of one map or section. A host:port value is
// found by scanText already; here it gets the scheme key beside it. A bare
// name counts only with a port or scheme key beside it (server: nginx is a
// name, not a call), or when it is dotted (host: es.search.svc); a single
// label with a namespace key beside it is name.namespace.
func neighbours(pairs map[string]string) []found {
	port, scheme, namespace := "", "", ""
	// X_PORT beside X_HOST (POSTGRES_HOST and POSTGRES_PORT, esHost and esPort):
	// the port of that host, before a section's plain port
	portOf := func(hostKey string) string {
		for _, k := range portKeys(hostKey) {
			if v, ok := pairs[k]; ok {
				return v
			}
		}
		return port
	}
	for k, v := range pairs {
		switch strings.ToLower(k) {
		case "port":
			port = v
		case "scheme", "protocol":
			scheme = strings.ToLower(v)
		case "namespace", "service-namespace":
			namespace = v
		}
	}
	var out []found
	for k, v := range pairs {
		if !hostKey.MatchString(k) || v == "" {
			continue
		}
		if strings.Contains(v, "://") {
			continue // a URL: scanText read it, scheme and all
		}
		host, p, hasPort := strings.Cut(v, ":")
		if hasPort {
			if scheme == "" {
				continue
			}
			if f, ok := newFound(host, p, scheme); ok {
				out = append(out, f)
			}
			continue
		}
		port := portOf(k)
		if port == "" && scheme == "" && !strings.Contains(strings.TrimSuffix(v, "."), ".") {
			continue
		}
		if namespace != "" && dnsName.MatchString(namespace) && !strings.Contains(v, ".") {
			v += "." + namespace
		}
		if f, ok := newFound(v, port, scheme); ok {
			out = append(out, f)
		}
	}
	return out
}
