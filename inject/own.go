package inject

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

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
	entry *corev1.EnvVar // the env entry, nil when the value comes through envFrom
	value string         // a plain value, or the envFrom source's
	from  *EnvFromValue  // the envFrom source, nil for an env entry
}

// ref tells an own env entry that reads a key (valueFrom): nothing to merge into.
func (o own) ref() bool { return o.entry != nil && o.entry.ValueFrom != nil }

// secret tells an own setting that a Secret gives through envFrom: its value
// may hold a credential (a trust store's password in JAVA_TOOL_OPTIONS), so it
// is never copied into a plain value, only referenced.
func (o own) secret() bool { return o.from != nil && o.from.Source.Kind == "Secret" }

// where says where a message finds the own setting.
func (o own) where() string {
	if o.from != nil {
		return " (" + o.from.Source.String() + " key " + o.from.Key + ", envFrom)"
	}
	return ""
}

// asEntry is an env entry named name that gives what the own setting gives:
// its valueFrom, its value, or a key reference to its envFrom source.
func (o own) asEntry(name string) corev1.EnvVar {
	switch {
	case o.ref():
		return corev1.EnvVar{Name: name, ValueFrom: o.entry.ValueFrom.DeepCopy()}
	case o.from != nil && o.from.Source.Kind == "Secret":
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: o.from.Source.Name}, Key: o.from.Key}}}
	case o.from != nil:
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: o.from.Source.Name}, Key: o.from.Key}}}
	}
	return corev1.EnvVar{Name: name, Value: o.value}
}

// ownSettings are the proxy variables (names) a container sets itself, as the
// kubelet resolves them: env wins over envFrom. An empty value counts as
// unset, as Go and most clients read it: a chart's empty placeholder
// (HTTP_PROXY: "") is no setting of its own.
func ownSettings(env []corev1.EnvVar, envFrom map[string]EnvFromValue, names []string) map[string]own {
	out := map[string]own{}
	for name, v := range envFrom {
		if slices.Contains(names, name) {
			out[name] = own{value: v.Value, from: &v}
		}
	}
	for i := range env {
		e := &env[i]
		if !slices.Contains(names, e.Name) {
			continue
		}
		o := own{entry: e, value: e.Value}
		if !o.ref() && e.Value == "" {
			delete(out, e.Name) // env wins over envFrom, and empty is unset
			continue
		}
		out[e.Name] = o
	}
	return out
}

// envFromValues are the variables a container's envFrom sources give, read
// from the stream's ConfigMaps and Secrets (view) in the Pod's namespace; a
// later source wins over an earlier one, as the kubelet reads them.
func envFromValues(sources []manifest.EnvSource, view *manifest.Manifests, namespace string) map[string]EnvFromValue {
	if len(sources) == 0 {
		return nil
	}
	out := map[string]EnvFromValue{}
	for _, src := range sources {
		data, _ := view.ObjectData(src.Kind, src.Name, namespace)
		for key, value := range data {
			out[src.Prefix+key] = EnvFromValue{Value: value, Source: src.Ref, Key: key}
		}
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
