package inject

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/manifest"
)

// twins pairs each proxy variable with its other-case twin: clients read one or
// the other, so the two must always agree.
var twins = map[string]string{
	"HTTP_PROXY": "http_proxy", "http_proxy": "HTTP_PROXY",
	"HTTPS_PROXY": "https_proxy", "https_proxy": "HTTPS_PROXY",
	"NO_PROXY": "no_proxy", "no_proxy": "NO_PROXY",
}

func isNoProxy(name string) bool { return name == "NO_PROXY" || name == "no_proxy" }

// own is a proxy variable as the container sets it itself, before injection.
type own struct {
	entry  map[string]any // the env entry, nil when the value comes through envFrom
	value  string         // a plain value, or the envFrom source's
	source string         // "ConfigMap/NAME" or "Secret/NAME" for envFrom
	key    string         // the source's key for envFrom
}

// ref tells an own env entry that reads a key (valueFrom): nothing to merge into.
func (o own) ref() bool { _, ok := o.entry["valueFrom"]; return ok }

// secret tells an own setting that a Secret gives through envFrom: its value
// may hold a credential (a trust store's password in JAVA_TOOL_OPTIONS), so it
// is never copied into a plain value, only referenced.
func (o own) secret() bool { return strings.HasPrefix(o.source, "Secret/") }

// where says where a message finds the own setting.
func (o own) where() string {
	if o.source != "" {
		return " (" + o.source + " key " + o.key + ", envFrom)"
	}
	return ""
}

// asEntry is an env entry named name that gives what the own setting gives:
// its valueFrom, its value, or a key reference to its envFrom source.
func (o own) asEntry(name string) map[string]any {
	switch {
	case o.ref():
		entry := clone(o.entry)
		entry["name"] = name
		return entry
	case o.source != "":
		kind, object, _ := strings.Cut(o.source, "/")
		refKey := map[string]string{"ConfigMap": "configMapKeyRef", "Secret": "secretKeyRef"}[kind]
		return map[string]any{"name": name, "valueFrom": map[string]any{refKey: map[string]any{"name": object, "key": o.key}}}
	}
	return map[string]any{"name": name, "value": o.value}
}

// ownSettings reads the proxy variables a container sets itself, as the
// kubelet resolves them (env wins over envFrom), from env and from the envFrom
// ConfigMaps and Secrets of the stream (view, in the Pod's namespace). An empty
// value counts as unset, as Go and most clients read it: a chart's empty
// placeholder (HTTP_PROXY: "") is no setting of its own.
func ownSettings(c map[string]any, view *manifest.Manifests, namespace string, names []string) map[string]own {
	out := map[string]own{}
	envFrom, _ := c["envFrom"].([]any)
	for _, item := range envFrom {
		src, _ := item.(map[string]any)
		prefix, _ := src["prefix"].(string)
		for kind, field := range map[string]string{"ConfigMap": "configMapRef", "Secret": "secretRef"} {
			ref, _ := src[field].(map[string]any)
			name, _ := ref["name"].(string)
			if name == "" {
				continue
			}
			data, _ := view.ObjectData(kind, name, namespace)
			for key, value := range data {
				if slices.Contains(names, prefix+key) {
					out[prefix+key] = own{value: value, source: kind + "/" + name, key: key}
				}
			}
		}
	}
	env, _ := c["env"].([]any)
	for _, item := range env {
		entry, _ := item.(map[string]any)
		name, _ := entry["name"].(string)
		if !slices.Contains(names, name) {
			continue
		}
		value, _ := entry["value"].(string)
		o := own{entry: entry, value: value}
		if !o.ref() && value == "" {
			delete(out, name) // env wins over envFrom, and empty is unset
			continue
		}
		out[name] = o
	}
	return out
}

// unionNoProxy merges an own NO_PROXY into the cluster's: the cluster's
// entries, then the own entries it lacks, in their order. Plain set union, the
// same the policies' engines compute at admission; the cluster's value is the
// library's. An own entry that sends public hosts around the proxy (*, .com,
// 0.0.0.0/0: cluster.Public) is dropped, and returned: the merge must not carry
// what the library refuses from values; so is a URL with user-info. Without the cluster's value (it lives
// in proxy.existingSecret) the own value stays as it is.
func unionNoProxy(clusterValue, own string) (string, []string) {
	if clusterValue == "" {
		return own, nil
	}
	have := strings.Split(clusterValue, ",")
	out := clusterValue
	var dropped []string
	for _, e := range strings.Split(own, ",") {
		e = strings.TrimSpace(e)
		switch _, public := cluster.Public(e); {
		case e == "" || slices.Contains(have, e):
		case strings.Contains(e, "@") || manifest.HasUserInfo(e):
			// a proxy URL pasted into the list: no entry, and its password is not
			// copied into another variable, nor named in the note
			dropped = append(dropped, withUserInfo)
		case public:
			dropped = append(dropped, e)
		default:
			out += "," + e
		}
	}
	return out, dropped
}

// nonProxyHostsPrefix starts the JVM's flag for the hosts it reaches directly.
const nonProxyHostsPrefix = "-Dhttp.nonProxyHosts="

// javaHosts is what the last -Dhttp.nonProxyHosts flag of a JAVA_TOOL_OPTIONS
// value says (the JVM keeps the last): the text after it up to the next space,
// quotes dropped; false without such a flag.
func javaHosts(value string) (string, bool) {
	i := strings.LastIndex(value, nonProxyHostsPrefix)
	if i < 0 {
		return "", false
	}
	hosts, _, _ := strings.Cut(value[i+len(nonProxyHostsPrefix):], " ")
	return strings.ReplaceAll(hosts, `"`, ""), true
}

// javaMerge is what policy.mergeNoProxy makes of an own JAVA_TOOL_OPTIONS that
// sets -Dhttp.nonProxyHosts: suffix, appended after it, is a last such flag (the
// JVM keeps the last of two -D flags) with the own patterns and then the
// proxy's they lack. Every engine appends it whenever the own value sets the
// flag, so that the policies can drop wide patterns from the end of the value
// in a step of their own. An own pattern that sends public hosts direct (*,
// *.com, 1*: cluster.PublicJavaPattern) is left out, and returned; lacking
// says whether the own patterns missed any of the proxy's.
type javaMerge struct {
	suffix  string
	lacking bool
	dropped []string
}

// mergeJava computes javaMerge; the zero value when the own value sets no such
// flag or the proxy's flags name no pattern.
func mergeJava(own, proxyFlags string) javaMerge {
	theirs, ok := javaHosts(own)
	ours, _ := javaHosts(proxyFlags)
	if !ok || ours == "" {
		return javaMerge{}
	}
	var m javaMerge
	var have []string
	for _, p := range strings.Split(theirs, "|") {
		if cluster.PublicJavaPattern(p) {
			m.dropped = append(m.dropped, p)
		} else if p != "" {
			have = append(have, p)
		}
	}
	var extra []string
	for _, p := range strings.Split(ours, "|") {
		if p != "" && !slices.Contains(have, p) {
			extra = append(extra, p)
		}
	}
	m.lacking = len(extra) > 0
	m.suffix = " " + nonProxyHostsPrefix + strings.Join(append(have, extra...), "|")
	return m
}

// ownNote is what inject reports of a container's own settings.
func ownNote(where, name string, o own, what string) string {
	return fmt.Sprintf("%s: its own %s%s %s", where, name, o.where(), what)
}

// withUserInfo stands in a note for an entry that holds a password.
const withUserInfo = "a URL with user-info (not shown)"

// droppedNote says which own entries (or -Dhttp.nonProxyHosts patterns) a
// merge left out, because they send public hosts around the proxy; nothing
// when none.
func droppedNote(where, name string, o own, one, many string, dropped []string) []string {
	if len(dropped) == 0 {
		return nil
	}
	if len(dropped) > 1 {
		one = many
	}
	why := "which would send public hosts around the proxy (the library refuses the same from proxy.noProxy)"
	if slices.Contains(dropped, withUserInfo) {
		why = "which would send public hosts around the proxy or copy a password (the library refuses both from proxy.noProxy)"
	}
	return []string{ownNote(where, name, o, fmt.Sprintf("merged without %s %s, %s", one, strings.Join(dropped, ", "), why))}
}
