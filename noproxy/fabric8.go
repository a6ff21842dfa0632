package noproxy

import (
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
)

// Utils.getSystemPropertyOrEnvVar("http.proxy"): the upper-case names.
var _ = register(Family{Client: Fabric8, Lists: []List{ListOther}, Rank: 210, FromSource: true,
	Reads: Variables{Proxy: []string{"HTTP_PROXY", "ALL_PROXY"}, NoProxy: []string{"NO_PROXY"}},
	Match: func(_ Client, noProxy string, t target, addr netip.Addr) (bool, string, error) {
		d, e, refused := fabric8Decide(noProxy, t, addr)
		if refused != "" {
			return false, "", refusal(refused)
		}
		return d, e, nil
	},
	ReadEnv: func(_ Client, env map[string]string, t target) (string, string, string) {
		proxy, list, refused := fabric8Env(env, t)
		if refused == "" && proxy == "" {
			return "", "(no proxy variable this client reads)", ""
		}
		return list, "", refused
	}})

// fabric8Invalid and fabric8IP are HttpClientUtils' INVALID_HOST_PATTERN and
// IP_PATTERN (fabric8 kubernetes-client 7.x): the IPv4 form's dots match any
// character, as in the source.
var (
	fabric8Invalid = regexp.MustCompile(`[^0-9a-zA-Z.\-/:]`)
	fabric8IP      = regexp.MustCompile(`(?i)^(?:https?://)?((?:\d{1,3}(?:.\d{1,3}){3}|[a-f\d]{1,4}(?::[a-f\d]{0,4}){2,7})(?:/\d+)?)$`)
)

// fabric8Decide models HttpClientUtils.isHostMatchedByNoProxy: NO_PROXY is
// split at commas as Java's String.split does (no trimming; trailing empty
// entries dropped, an inner empty one kept, and it matches every host, since
// every string ends with ""). Entries are read in order: the first one with a
// character outside [0-9A-Za-z.-/:] (a bracket, "*", a blank) makes the client
// throw MalformedURLException before any request, unless an earlier entry
// matched; an address or CIDR (IPv4, or IPv6 of at least two groups, an
// optional http:// or https://) matches the host's address, which Java looks up
// for a name (addr: the address it resolves to); any other entry matches a host
// that ends with it, with no dot boundary. The host is URL.getHost(): an IPv6
// address keeps its brackets, so a name entry never matches one.
func fabric8Decide(noProxy string, t target, addr netip.Addr) (direct bool, entry, refused string) {
	host := t.url.Host
	if p := t.url.Port(); p != "" {
		host = strings.TrimSuffix(host, ":"+p)
	}
	hostAddr := t.resolved(addr)
	for _, e := range javaSplit(noProxy, ",") {
		if bad := fabric8Invalid.FindString(e); bad != "" {
			return false, "", fmt.Sprintf("NO_PROXY entry %q holds %q, outside [0-9A-Za-z.-/:]: fabric8 throws MalformedURLException (\"NO_PROXY URL contains invalid entry\") and builds no client", e, bad)
		}
		if m := fabric8IP.FindStringSubmatch(e); m != nil {
			if fabric8IPMatch(m[1], hostAddr) {
				return true, e, ""
			}
			continue
		}
		if strings.HasSuffix(host, e) {
			if e == "" {
				return true, "(an empty entry: every host ends with \"\")", ""
			}
			return true, e, ""
		}
	}
	return false, "", ""
}

// fabric8IPMatch is IpAddressMatcher: an address equal to the entry's, or in
// its prefix; IPv4 never matches IPv6.
func fabric8IPMatch(entry string, addr netip.Addr) bool {
	if !addr.IsValid() {
		return false
	}
	if p, err := netip.ParsePrefix(entry); err == nil {
		return p.Addr().Is4() == addr.Is4() && p.Masked().Contains(addr)
	}
	a, err := netip.ParseAddr(entry)
	return err == nil && a == addr
}

// javaSplit is Java's String.split with a literal separator: trailing empty strings removed.
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// fabric8Env is the proxy URL and NO_PROXY fabric8's Config reads for a master
// URL of the target's scheme: HTTP_PROXY for http://, HTTPS_PROXY for https://,
// either over ALL_PROXY, and NO_PROXY; upper case only (system properties
// aside). refused says why a proxy URL stops the client: it needs a port.
func fabric8Env(env map[string]string, t target) (proxy, noProxy, refused string) {
	name := "HTTPS_PROXY"
	if t.url.Scheme == "http" {
		name = "HTTP_PROXY"
	}
	proxy = pickFrom(env, []string{name, "ALL_PROXY"}, false)
	if proxy != "" {
		if u, err := url.Parse(proxy); err == nil && u.Port() == "" {
			return proxy, "", "the proxy URL in " + name + " has no port: fabric8 throws IllegalArgumentException (\"Proxy port is required!\")"
		}
	}
	return proxy, env["NO_PROXY"], ""
}

// JVMImageWords are the words of an image's name that mark a JVM: the runtimes'
// own images and the programs that carry the fabric8 client (Jenkins'
// Kubernetes plugin, Spark, Flink, Strimzi, Keycloak, Camel K).
var JVMImageWords = []string{"java", "jdk", "jre", "temurin", "corretto", "zulu", "graalvm", "jvm",
	"jenkins", "spark", "flink", "strimzi", "kafka", "keycloak", "camel"}

// Fabric8MayRun tells whether a container may run the fabric8 client, which
// only a JVM runs: its environment sets JVM options (JavaOptionVariables), its
// image's name (not its registry) says JVM, or its command starts java. A
// verdict about fabric8 on any other container cries wolf.
func Fabric8MayRun(image string, env map[string]string, command []string) bool {
	for _, name := range JavaOptionVariables {
		if env[name] != "" {
			return true
		}
	}
	repo := image
	if i := strings.LastIndex(repo, "/"); i >= 0 {
		repo = repo[i+1:]
	}
	repo, _, _ = strings.Cut(strings.ToLower(repo), ":")
	for _, word := range JVMImageWords {
		if strings.Contains(repo, word) {
			return true
		}
	}
	return len(command) > 0 && (command[0] == "java" || strings.HasSuffix(command[0], "/java"))
}
