package noproxy

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/proxykit/proxykit"
)

// JavaOptionVariables are the variables a JVM takes -D flags from, in the
// order they apply (it keeps the last of two flags for one property):
// JAVA_TOOL_OPTIONS, which the JVM reads first; JDK_JAVA_OPTIONS, which the
// java launcher puts before the command line; JAVA_OPTS and JAVA_OPTS_APPEND,
// which launch scripts (Keycloak's kc.sh, WildFly, Tomcat, Jenkins) put on the
// command line in this order; _JAVA_OPTIONS, which the JVM reads after the
// command line.
var JavaOptionVariables = []string{"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_OPTS", "JAVA_OPTS_APPEND", "_JAVA_OPTIONS"}

// The JVM reads no proxy variable: its -D flags, from JavaOptionVariables; on
// a NO_PROXY list it matches the library's translation of it.
var _ = register(Family{Client: Java, Lists: []List{ListMain}, Rank: 80, Match: javaFamily,
	DecideEnv: func(_ Client, env map[string]string, t target) (bool, string) {
		var options []string
		for _, name := range JavaOptionVariables {
			options = append(options, env[name])
		}
		flags := javaFlags(strings.Join(options, " "))
		if flags["http.proxyHost"] == "" {
			return true, "(no -Dhttp.proxyHost in the JVM's options)"
		}
		return javaDecide(compileNonProxyHosts(flags["http.nonProxyHosts"]), t)
	}})

// JavaSkipped is a NO_PROXY entry the JVM's http.nonProxyHosts cannot express,
// and why.
type JavaSkipped struct {
	Entry  string `json:"entry"`
	Reason string `json:"reason"`
}

// JavaNonProxyHosts translates a NO_PROXY value to the JVM's http.nonProxyHosts
// with the library's proxykit.java.nonProxyHosts, the translation that
// JAVA_TOOL_OPTIONS carries: "|"-separated patterns, and the entries left out.
func JavaNonProxyHosts(noProxy string) (string, []JavaSkipped, error) {
	const helper = "proxykit.java.nonProxyHosts"
	answers, err := proxykit.Ask(nil, "", "", proxykit.Call{Helper: helper, Value: noProxy})
	if err != nil {
		return "", nil, err
	}
	out := answers[helper]
	var parsed struct {
		NonProxyHosts string        `json:"nonProxyHosts"`
		Skipped       []JavaSkipped `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &parsed); err != nil {
		return "", nil, fmt.Errorf("noproxy: read proxykit.java.nonProxyHosts: %w", err)
	}
	return parsed.NonProxyHosts, parsed.Skipped, nil
}

// javaTranslation is a NO_PROXY as the JVM receives it from proxykit: the
// library's translation to http.nonProxyHosts, compiled.
type javaTranslation struct {
	nonProxyHosts string
	skipped       []JavaSkipped
	patterns      []javaPattern
}

type javaPattern struct {
	text  string
	regex *regexp.Regexp
}

// javaTranslations caches translations: rendering the library takes milliseconds.
var javaTranslations sync.Map // NO_PROXY -> *javaTranslation

// translateForJava renders the library's proxykit.java.nonProxyHosts for noProxy.
func translateForJava(noProxy string) (*javaTranslation, error) {
	if cached, ok := javaTranslations.Load(noProxy); ok {
		return cached.(*javaTranslation), nil
	}
	hosts, skipped, err := JavaNonProxyHosts(noProxy)
	if err != nil {
		return nil, err
	}
	tr := &javaTranslation{nonProxyHosts: hosts, skipped: skipped, patterns: compileNonProxyHosts(hosts)}
	javaTranslations.Store(noProxy, tr)
	return tr, nil
}

// compileNonProxyHosts models OpenJDK 17's DefaultProxySelector: the property
// is split at "|", empty parts are dropped, each part is lower-cased and becomes
// a regular expression: "*" alone matches everything, a leading or trailing "*"
// any run of characters, the rest literally; a host matches a part whole.
func compileNonProxyHosts(hosts string) []javaPattern {
	var patterns []javaPattern
	for _, part := range strings.Split(hosts, "|") {
		if part == "" {
			continue
		}
		p := strings.ToLower(part)
		var expr string
		switch {
		case p == "*":
			expr = ".*"
		case strings.HasPrefix(p, "*") && strings.HasSuffix(p, "*"):
			expr = ".*" + regexp.QuoteMeta(p[1:len(p)-1]) + ".*"
		case strings.HasPrefix(p, "*"):
			expr = ".*" + regexp.QuoteMeta(p[1:])
		case strings.HasSuffix(p, "*"):
			expr = regexp.QuoteMeta(p[:len(p)-1]) + ".*"
		default:
			expr = regexp.QuoteMeta(p)
		}
		patterns = append(patterns, javaPattern{text: part, regex: regexp.MustCompile("^(?:" + expr + ")$")})
	}
	return patterns
}

// javaHost is the host the JVM matches: the URI's host, lower case, an IPv6
// address in brackets.
func javaHost(t target) string {
	if strings.Contains(t.hostname, ":") {
		return "[" + t.hostname + "]"
	}
	return t.hostname
}

// javaLoopback is what the JVM reaches directly whatever http.nonProxyHosts
// says: OpenJDK's DefaultProxySelector keeps its defaults for loopback (the
// real JVM sends localhost, 127.0.0.1 and [::1] direct with a property that
// names none of them, in the node suite's TestNoProxyModelsMatchRealClients).
var javaLoopback = compileNonProxyHosts("localhost|127.*|[::1]|0.0.0.0|[::0]")

// javaDecide matches a target against translated nonProxyHosts patterns.
func javaDecide(patterns []javaPattern, t target) (bool, string) {
	host := javaHost(t)
	for _, p := range slices.Concat(patterns, javaLoopback) { // never append to a cached translation
		if p.regex.MatchString(host) {
			return true, p.text
		}
	}
	return false, ""
}

// JavaNotExpressed lists the entries of noProxy that the JVM's http.nonProxyHosts
// cannot express (an IPv6 CIDR, an entry with a port), each with the reason: the
// JVM sends those hosts through the proxy where Go goes direct.
func JavaNotExpressed(noProxy string) ([]JavaSkipped, error) {
	tr, err := translateForJava(noProxy)
	if err != nil {
		return nil, err
	}
	return tr.skipped, nil
}

// javaFlags reads the system properties from JVM options (JAVA_TOOL_OPTIONS
// and the others, joined in the order they apply); the JVM keeps the last of
// two flags for one property.
func javaFlags(options string) map[string]string {
	flags := map[string]string{}
	for _, field := range strings.Fields(options) {
		if name, value, ok := strings.Cut(strings.TrimPrefix(field, "-D"), "="); ok && strings.HasPrefix(field, "-D") {
			flags[name] = value
		}
	}
	return flags
}

// javaFamily decides on the library's translation of NO_PROXY into the JVM's
// http.nonProxyHosts (what proxy.runtimes java writes into JAVA_TOOL_OPTIONS).
func javaFamily(_ Client, noProxy string, t target, _ netip.Addr) (bool, string, error) {
	tr, err := translateForJava(noProxy)
	if err != nil {
		return false, "", err
	}
	d, e := javaDecide(tr.patterns, t)
	return d, e, nil
}

// JavaOwnNonProxyHosts names the variable whose -Dhttp.nonProxyHosts the JVM
// uses instead of the one proxy.runtimes java writes: a later variable of
// JavaOptionVariables that sets the flag, or JAVA_TOOL_OPTIONS itself when it
// sets it more than once (an own value joined after the proxy's flags); ""
// when the JVM reads the proxy's own, or none.
func JavaOwnNonProxyHosts(env map[string]string) string {
	const flag = "-Dhttp.nonProxyHosts="
	for i := len(JavaOptionVariables) - 1; i > 0; i-- {
		if strings.Contains(env[JavaOptionVariables[i]], flag) {
			return JavaOptionVariables[i]
		}
	}
	if strings.Count(env["JAVA_TOOL_OPTIONS"], flag) > 1 {
		return "JAVA_TOOL_OPTIONS"
	}
	return ""
}
