package inject

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/noproxy"
)

// javaOptionVariables are where a JVM takes flags that beat JAVA_TOOL_OPTIONS
// (noproxy.JavaOptionVariables after it): an own -Dhttp.nonProxyHosts there is
// what the JVM uses, whatever JAVA_TOOL_OPTIONS says.
var javaOptionVariables = slices.DeleteFunc(slices.Clone(noproxy.JavaOptionVariables), func(name string) bool { return name == "JAVA_TOOL_OPTIONS" })

// javaProxyFlags are the flags that make an own JVM option a proxy setting of
// the container's own.
var javaProxyFlags = []string{nonProxyHostsPrefix, "-Dhttp.proxyHost=", "-Dhttps.proxyHost="}

// javaOptions treats the container's own JVM flags outside JAVA_TOOL_OPTIONS
// (javaOptionVariables), with proxy.runtimes java: with Override the proxy's
// flags go after its own proxy flags, so that they win; with MergeNoProxy an
// own -Dhttp.nonProxyHosts gets a last one after it with its own patterns and
// the proxy's it lacks (javaOptionsMerged); else a lacking one is noted. A
// Secret's value is referenced, never copied: it is only noted.
func (m *merger) javaOptions(env []corev1.EnvVar, envFrom map[string]EnvFromValue) {
	if m.javaFlags == "" {
		return
	}
	owns := ownSettings(env, envFrom, javaOptionVariables)
	for _, name := range javaOptionVariables {
		mine, has := owns[name]
		if !has || mine.ref() {
			continue
		}
		value := mine.value
		switch {
		case m.o.Override && containsAny(value, javaProxyFlags) && mine.secret():
			m.note(name, mine, "sets proxy flags, which the JVM reads instead of JAVA_TOOL_OPTIONS's: it comes from a Secret, whose value is never copied into the Pod spec; replace them there")
		case m.o.Override && containsAny(value, javaProxyFlags):
			if !strings.HasSuffix(value, " "+m.javaFlags) {
				value += " " + m.javaFlags
				m.note(name, mine, "has the proxy's flags appended, which win over its own (policy.overrideExisting)")
			}
		case !strings.Contains(value, nonProxyHostsPrefix):
		case m.o.MergeNoProxy && !mine.secret():
			var dropped []string
			value, dropped = javaOptionsMerged(value, m.javaFlags)
			m.notes = append(m.notes, droppedNote(m.o.Where, name, mine, "-Dhttp.nonProxyHosts pattern", "-Dhttp.nonProxyHosts patterns", dropped)...)
		case mergeJava(value, m.javaFlags).lacking:
			why := "policy.mergeNoProxy: true merges them"
			if mine.secret() {
				why = "it comes from a Secret, whose value is never copied into the Pod spec; add the cluster's patterns there (the proxy's JAVA_TOOL_OPTIONS, which proxykit env prints, lists them)"
			}
			m.note(name, mine, "sets -Dhttp.nonProxyHosts, which the JVM reads instead of JAVA_TOOL_OPTIONS's, without the cluster's entries: "+why)
		}
		if value != mine.value && !mine.secret() {
			m.edit.set(corev1.EnvVar{Name: name, Value: value})
		}
	}
}

// javaOptionsMerged is an own JVM option value with its -Dhttp.nonProxyHosts
// merged, the same two steps the policies take at admission: a last flag with
// its own patterns (the last flag's, quotes dropped) and then the proxy's it
// lacks is appended, unless the value already ends with exactly that; then
// that last flag loses its empty patterns and those that match public hosts
// (cluster.PublicJavaPattern), which are returned.
func javaOptionsMerged(value, proxyFlags string) (string, []string) {
	theirs, _ := javaHosts(value)
	ours, _ := javaHosts(proxyFlags)
	if ours == "" {
		return value, nil // the proxy's flags name no pattern: nothing to merge
	}
	have := strings.Split(theirs, "|")
	full := " " + nonProxyHostsPrefix + theirs
	for _, p := range strings.Split(ours, "|") {
		if p != "" && !slices.Contains(have, p) {
			full += "|" + p
		}
	}
	if !strings.HasSuffix(" "+value, full) {
		value += full
	}
	at := strings.LastIndex(value, nonProxyHostsPrefix) + len(nonProxyHostsPrefix)
	var keep, dropped []string
	for _, p := range strings.Split(value[at:], "|") {
		switch {
		case p == "":
		case cluster.PublicJavaPattern(p):
			dropped = append(dropped, p)
		default:
			keep = append(keep, p)
		}
	}
	return value[:at] + strings.Join(keep, "|"), dropped
}

func containsAny(s string, parts []string) bool {
	return slices.ContainsFunc(parts, func(p string) bool { return strings.Contains(s, p) })
}
