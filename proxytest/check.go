package proxytest

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/noproxy"
)

// The rules of Check, as Finding.Rule names them.
const (
	RuleMissingProxyEnv             = "missing-proxy-env"               // HTTP_PROXY, HTTPS_PROXY, NO_PROXY or a lower-case twin is absent
	RuleCaseMismatch                = "case-mismatch"                   // a variable and its lower-case twin differ
	RuleNoProxyGap                  = "no-proxy-gap"                    // NO_PROXY sends a cluster destination to the proxy
	RuleProxyBypassedForPublicHosts = "proxy-bypassed-for-public-hosts" // NO_PROXY bypasses everything or a public host (was proxied-cluster-wide)
	RuleCredentialsExposed          = "credentials-exposed"             // a proxy URL with user-info outside a Secret
	RuleMissingSecret               = "missing-secret"                  // a proxy variable reads an object the manifests lack

	publicHostsAreNotCovered = "https://example.com,https://api.github.com,http://93.184.216.34,http://[2606:2800:220:1::1]"
)

// ProxyVariables are the names every container needs, upper case first.
var ProxyVariables = []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"}

// Finding is one rule a container (or an object, Container empty) breaks.
type Finding struct {
	// Namespace is the object's (the release namespace when it has none; empty
	// when unknown, after Parse): "Kind/name" alone does not tell two Pods of one
	// name in two namespaces apart.
	Namespace string `json:"namespace,omitempty"`
	Object    string `json:"object"`    // "Kind/name"
	Container string `json:"container"` // the container's name; empty for object-wide findings
	Rule      string `json:"rule"`
	Message   string `json:"message"`
}

func (f Finding) String() string {
	where := f.Object
	if f.Container != "" {
		where += " container " + f.Container
	}
	return fmt.Sprintf("%s: %s: %s", where, f.Rule, f.Message)
}

// AssertOption changes what AssertProxyReady accepts.
type AssertOption func(*assertOptions)

type assertOptions struct{ noWorkloads bool }

// NoWorkloads says the chart renders no container on purpose (policies, CRDs,
// Secrets only): AssertProxyReady then passes a render without one.
func NoWorkloads() AssertOption { return func(o *assertOptions) { o.noWorkloads = true } }

// AssertProxyReady reports every Finding of Check as one t.Errorf. A render with no
// container at all fails too, unless NoWorkloads says so: a values typo that turns
// every workload off would otherwise pass with nothing checked.
func AssertProxyReady(t testing.TB, m *Manifests, c Cluster, opts ...AssertOption) {
	t.Helper()
	var o assertOptions
	for _, opt := range opts {
		opt(&o)
	}
	if !o.noWorkloads && len(m.Containers()) == 0 {
		t.Errorf("proxytest: the render has no container, so nothing was checked (%d objects); if the values turned the workloads off, turn them on; "+
			"if the chart has none, say so: AssertProxyReady(t, m, c, proxytest.NoWorkloads())", len(m.Objects))
	}
	for _, f := range Check(m, c) {
		t.Errorf("%s", f)
	}
}

// CheckOption states what Check expects, instead of what the render says.
type CheckOption func(*checkOptions)

type checkOptions struct {
	variables    []string
	variablesSet bool
}

// ExpectVariables is the proxy variables every container must have, in the
// order of ProxyVariables; nil expects all six. Without it Check expects
// m.Variables: what the library rendered for a Render, all six after Parse. For
// manifests from Parse or FromObjects, pass VariablesFromValues of their values.
func ExpectVariables(names []string) CheckOption {
	return func(o *checkOptions) { o.variables, o.variablesSet = names, true }
}

// listNames say where a container that is not in `containers` sits.
var listNames = map[string]string{"initContainers": "init container", "ephemeralContainers": "ephemeral container"}

// Check judges every container of the manifests against the rules, with env
// resolved through envFrom and valueFrom into the ConfigMaps and Secrets of the
// same manifests, and NO_PROXY judged with golang.org/x/net/http/httpproxy. It
// gives at most one finding per container and rule. Containers that opt out
// (OptedOut) get no missing-proxy-env finding; every other rule still applies.
func Check(m *Manifests, c Cluster, opts ...CheckOption) []Finding {
	var o checkOptions
	for _, opt := range opts {
		opt(&o)
	}
	expected := m.Variables
	if o.variablesSet {
		expected = o.variables
	}
	var findings []Finding
	targets := c.Targets()
	type judgement struct {
		gaps []string
		wide string
	}
	judged := map[string]judgement{} // containers of one chart share a few NO_PROXY values
	services, serviceDecisions := m.services(c), serviceJudge{}
	for _, ctr := range m.Containers() {
		where := ""
		if name, ok := listNames[ctr.List]; ok {
			where = fmt.Sprintf(" (an %s, in %s)", name, ctr.List)
		}
		add := func(rule, format string, args ...any) {
			findings = append(findings, Finding{Namespace: ctr.Namespace, Object: ctr.Object, Container: ctr.Name, Rule: rule, Message: fmt.Sprintf(format, args...)})
		}
		env := resolveEnv(m, ctr)

		var missing, missingRefs, exposed []string
		for _, name := range ProxyVariables {
			v, ok := env.vars[name]
			switch {
			case !ok && (expected == nil || slices.Contains(expected, name)):
				missing = append(missing, name)
			case !ok: // not rendered for these values (no https proxy, say): nothing to judge
			case v.missing != "":
				missingRefs = append(missingRefs, name+" reads "+v.missing)
			case v.from == "value" && hasUserInfo(v.value):
				exposed = append(exposed, name+" (a plain value)")
			case strings.HasPrefix(v.from, "ConfigMap/") && hasUserInfo(v.value):
				exposed = append(exposed, name+" (from "+v.from+")")
			}
		}
		if len(missing) > 0 && ctr.OptedOut() == "" {
			fix := "call proxykit.generateEnv for it, or, if it must not use the proxy, name it in the pod template's " + AnnotationSkipContainers + " annotation"
			if m.proxyOff {
				fix = "the proxy is off in the values this chart was rendered with (proxy.http and proxy.https, cluster.proxy.* and global.proxy.* are empty), so the library emits no proxy variable: set the proxy in the values you test with"
			}
			add(RuleMissingProxyEnv, "%s %s not set%s; %s", strings.Join(missing, ", "), isAre(len(missing)), where, fix)
		}
		for _, src := range env.missingSources {
			missingRefs = append(missingRefs, "envFrom reads "+src)
		}
		if len(missingRefs) > 0 {
			add(RuleMissingSecret, "%s, which the manifests do not contain%s; render proxykit.proxy.secret in this chart, or create it in the Pod's namespace", strings.Join(missingRefs, "; "), where)
		}
		if len(exposed) > 0 {
			add(RuleCredentialsExposed, "%s hold%s a proxy URL with user-info%s; put it in a Secret and read it with secretKeyRef (the library does when a URL carries credentials)",
				strings.Join(exposed, ", "), sIfOne(len(exposed)), where)
		}
		var mismatched []string
		for _, upper := range ProxyVariables[:3] {
			a, okA := env.vars[upper]
			b, okB := env.vars[strings.ToLower(upper)]
			if okA && okB && a.known() && b.known() && a.value != b.value {
				mismatched = append(mismatched, upper+" and "+strings.ToLower(upper))
			}
		}
		if len(mismatched) > 0 {
			add(RuleCaseMismatch, "%s differ%s; clients disagree on which case they read: set both from one source", strings.Join(mismatched, ", "), where)
		}
		noProxy, ok := env.vars["NO_PROXY"]
		if !ok || !noProxy.known() {
			noProxy, ok = env.vars["no_proxy"]
		}
		if ok && noProxy.known() {
			j, seen := judged[noProxy.value]
			if !seen {
				j = judgement{gaps: noProxyGaps(noProxy.value, targets), wide: bypassesPublicHosts(noProxy.value)}
				judged[noProxy.value] = j
			}
			if len(j.gaps) > 0 {
				add(RuleNoProxyGap, "NO_PROXY sends %s through the proxy%s; set cluster.podCIDRs, serviceCIDRs, nodeCIDRs, apiServer and domain to the cluster's (or add the entries to proxy.noProxy)",
					strings.Join(j.gaps, ", "), where)
			}
			if j.wide != "" {
				add(RuleProxyBypassedForPublicHosts, "NO_PROXY bypasses the proxy for %s, so public traffic goes direct%s; remove that entry from NO_PROXY", j.wide, where)
			}
		}
		if vars, key, ok := proxyEnv(env); ok && len(services) > 0 {
			if msg := serviceDecisions.releaseServiceFinding(vars, key, callHosts(services, ctr, c.Domain)); msg != "" {
				add(RuleReleaseServiceProxied, "%s%s; add those names to NO_PROXY: a chart of your own passes proxykit.proxy.serviceHosts to generateEnv's \"noProxy\", a chart you don't own gets every Service of its release from proxykit inject", msg, where)
			}
		}
	}
	findings = append(findings, credentialsOutsideSecrets(m)...)
	return findings
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func sIfOne(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

// envValue is a variable as a container would see it.
type envValue struct {
	value   string
	from    string // "value", "Secret/NAME", "ConfigMap/NAME" or "other" (fieldRef ...)
	missing string // the object or key it reads that the manifests lack
}

func (v envValue) known() bool { return v.missing == "" && v.from != "other" }

type containerEnv struct {
	vars           map[string]envValue
	missingSources []string
}

// resolveEnv applies envFrom, then env, as the kubelet does: env wins.
func resolveEnv(m *Manifests, ctr Container) containerEnv {
	c, ns := ctr.Container, ctr.Namespace
	env := containerEnv{vars: map[string]envValue{}}
	for _, src := range c.EnvFrom {
		kind, name, optional := "ConfigMap", "", false
		if src.ConfigMapRef != nil {
			name, optional = src.ConfigMapRef.Name, src.ConfigMapRef.Optional != nil && *src.ConfigMapRef.Optional
		} else if src.SecretRef != nil {
			kind, name, optional = "Secret", src.SecretRef.Name, src.SecretRef.Optional != nil && *src.SecretRef.Optional
		} else {
			continue
		}
		data, ok := objectData(m, kind, name, ns)
		if !ok {
			if !optional {
				env.missingSources = append(env.missingSources, kind+"/"+name)
			}
			continue
		}
		for k, v := range data {
			env.vars[src.Prefix+k] = envValue{value: v, from: kind + "/" + name}
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env.vars[e.Name] = envValue{value: e.Value, from: "value"}
		case e.ValueFrom.SecretKeyRef != nil:
			env.vars[e.Name] = keyRef(m, "Secret", e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key, ns)
		case e.ValueFrom.ConfigMapKeyRef != nil:
			env.vars[e.Name] = keyRef(m, "ConfigMap", e.ValueFrom.ConfigMapKeyRef.Name, e.ValueFrom.ConfigMapKeyRef.Key, ns)
		default:
			env.vars[e.Name] = envValue{from: "other"}
		}
	}
	return env
}

func keyRef(m *Manifests, kind, name, key, namespace string) envValue {
	data, ok := objectData(m, kind, name, namespace)
	if !ok {
		return envValue{from: kind + "/" + name, missing: kind + "/" + name}
	}
	v, ok := data[key]
	if !ok {
		return envValue{from: kind + "/" + name, missing: fmt.Sprintf("key %s of %s/%s", key, kind, name)}
	}
	return envValue{value: v, from: kind + "/" + name}
}

// objectData is a ConfigMap's data or a Secret's data (decoded) and stringData,
// of the object in that namespace: a Pod reads only its own namespace's.
func objectData(m *Manifests, kind, name, namespace string) (map[string]string, bool) {
	o := m.FindIn(kind, name, namespace)
	if o == nil {
		return nil, false
	}
	out := map[string]string{}
	if d, ok := o.Content["data"].(map[string]any); ok {
		for k, v := range d {
			s := fmt.Sprint(v)
			if kind == "Secret" {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil {
					s = string(b)
				}
			}
			out[k] = s
		}
	}
	if d, ok := o.Content["stringData"].(map[string]any); ok && kind == "Secret" {
		for k, v := range d {
			out[k] = fmt.Sprint(v)
		}
	}
	return out, true
}

// UserInfoURL matches the start of a URL of any scheme (http, https, socks5,
// socks5h, ...) with user-info: the scheme, "://", then anything but "/", "@" and
// blanks up to an "@". Quotes count: a password may hold them. It is the one
// pattern that finds user-info (credentials-exposed) and hides it (RedactUserInfo).
var UserInfoURL = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@`)

// RedactUserInfo replaces the user-info of every URL in s with "***".
func RedactUserInfo(s string) string { return UserInfoURL.ReplaceAllString(s, "${1}***@") }

func hasUserInfo(s string) bool {
	for _, field := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if u, err := url.Parse(field); err == nil && u.User != nil && u.Host != "" {
			return true
		}
	}
	return UserInfoURL.MatchString(s)
}

// credentialsOutsideSecrets finds URLs with user-info in any object that is not a Secret.
func credentialsOutsideSecrets(m *Manifests) []Finding {
	var out []Finding
	for _, o := range m.Objects {
		if o.Kind == "Secret" {
			continue
		}
		if text := fmt.Sprint(o.Content); UserInfoURL.MatchString(text) {
			out = append(out, Finding{Namespace: m.namespaceOf(o), Object: o.ID(), Rule: RuleCredentialsExposed,
				Message: "holds a URL with user-info; proxy credentials belong in a Secret"})
		}
	}
	return out
}

// noProxyGaps lists the targets that Go's proxy selection sends to the proxy.
func noProxyGaps(noProxy string, targets []string) []string {
	proxied := noproxy.GoProxied(noProxy)
	var gaps []string
	for _, target := range targets {
		if u, err := url.Parse(target); err == nil && proxied(u) {
			gaps = append(gaps, target)
		}
	}
	return gaps
}

// bypassesPublicHosts names the first public host NO_PROXY sends around the proxy.
func bypassesPublicHosts(noProxy string) string {
	for _, entry := range strings.Split(noProxy, ",") {
		if strings.TrimSpace(entry) == "*" {
			return "every host (*)"
		}
	}
	hosts := strings.Split(publicHostsAreNotCovered, ",")
	sort.Strings(hosts)
	proxied := noproxy.GoProxied(noProxy)
	for _, target := range hosts {
		if u, err := url.Parse(target); err == nil && !proxied(u) {
			return target
		}
	}
	return ""
}
