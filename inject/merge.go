package inject

import (
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/manifest"
)

// EnvFromValue is a variable a container takes from an envFrom source: its
// value as the stream's ConfigMap or Secret holds it.
type EnvFromValue struct {
	Value  string
	Source manifest.Ref
	Key    string // the source's key (the variable's name without the envFrom prefix)
}

// MergeOptions are what MergeEnv needs besides the two env lists.
type MergeOptions struct {
	// Override replaces a container's own proxy settings with the proxy's
	// (policy.overrideExisting); an own valueFrom is kept all the same.
	Override bool
	// MergeNoProxy gives an own NO_PROXY and an own -Dhttp.nonProxyHosts the
	// cluster's entries (policy.mergeNoProxy).
	MergeNoProxy bool
	// EnvFrom are the variables the container's envFrom sources give, by
	// name; its env wins over them, as the kubelet resolves them.
	EnvFrom map[string]EnvFromValue
	// Where names the container in notes ("Deployment/web container app").
	Where string
}

// MergeEnv is a container's env with the proxy's (the library's
// proxykit.proxy.env and proxykit.trust.env) merged in, and notes that say what
// became of the container's own settings where the proxy's were not simply
// added. It is the one rule every engine follows: inject here, and the
// proxy-policies engines at admission, which the tests hold to it.
//
// The container's entries stay in place and in order; the proxy's it lacks are
// appended in the proxy's order. An own setting (in env, or through envFrom;
// an empty value is unset) is kept, or replaced with Override unless it is a
// valueFrom. With MergeNoProxy an own NO_PROXY gets the cluster's entries
// first, its own after them, less those that send public hosts around the
// proxy. A variable whose other-case twin the container sets gets what the
// twin gives, so the two never disagree. An own JAVA_TOOL_OPTIONS is joined
// after the proxy's flags (its own -D flags then win), before them with
// Override; with MergeNoProxy its own -Dhttp.nonProxyHosts gets a last one
// after it that adds the proxy's patterns. The JVM's flags in the variables
// that beat JAVA_TOOL_OPTIONS (noproxy.JavaOptionVariables) are merged so too, or with
// Override get the proxy's flags after them. What a Secret gives through
// envFrom is referenced, never copied into a value.
func MergeEnv(env, proxy []corev1.EnvVar, o MergeOptions) ([]corev1.EnvVar, []string) {
	names := make([]string, len(proxy))
	m := &merger{o: o, edit: newEnvEditor(env)}
	for i, p := range proxy {
		names[i] = p.Name
		if p.Name == "JAVA_TOOL_OPTIONS" {
			m.javaFlags = p.Value
		}
	}
	m.owns = ownSettings(env, o.EnvFrom, names)
	for _, p := range proxy {
		m.variable(p)
	}
	m.javaOptions(env, o.EnvFrom)
	return m.edit.env, m.notes
}

// envEditor edits a copy of a container's env: set replaces the entry of the
// same name or appends one, and remembers whether anything changed.
type envEditor struct {
	env     []corev1.EnvVar
	index   map[string]int
	changed bool
}

func newEnvEditor(env []corev1.EnvVar) *envEditor {
	e := &envEditor{env: slices.Clone(env), index: make(map[string]int, len(env))}
	for i, entry := range env {
		e.index[entry.Name] = i
	}
	return e
}

func (e *envEditor) set(entry corev1.EnvVar) {
	if i, ok := e.index[entry.Name]; ok {
		if reflect.DeepEqual(e.env[i], entry) {
			return
		}
		e.env[i] = entry
	} else {
		e.index[entry.Name] = len(e.env)
		e.env = append(e.env, entry)
	}
	e.changed = true
}

// merger decides each proxy variable of one container against the
// container's own settings, one named case each, and collects the notes.
type merger struct {
	o            MergeOptions
	javaFlags    string // the proxy's JAVA_TOOL_OPTIONS, "" without proxy.runtimes java
	owns         map[string]own
	edit         *envEditor
	notes        []string
	noProxyNoted bool // one note of a kept NO_PROXY per container, not one per twin
}

// variable is one proxy variable of the library's env.
func (m *merger) variable(entry corev1.EnvVar) {
	mine, has := m.owns[entry.Name]
	switch {
	case has && mine.ref():
		// kept as it is: a merge cannot drop an own valueFrom
	case has && entry.Name == "JAVA_TOOL_OPTIONS" && m.javaFlags != "":
		m.java(entry.Name, mine)
	case has && m.o.Override:
		m.override(entry, mine)
	case has && isNoProxy(entry.Name):
		m.noProxy(entry, mine)
	case has:
		// kept
	default:
		m.missing(entry)
	}
}

// java joins the proxy's JVM flags with the container's own, its own
// -Dhttp.nonProxyHosts merged with MergeNoProxy.
func (m *merger) java(name string, mine own) {
	merged := mergeJava(mine.value, m.javaFlags)
	suffix, wide := merged.suffix, merged.dropped
	value := mine.value
	if mine.secret() {
		// the kubelet expands $(JAVA_TOOL_OPTIONS) to the envFrom Secret's
		// value: the flags are joined without the Secret's text in the Pod
		value = "$(" + name + ")"
		if merged.lacking || len(wide) > 0 {
			m.note(name, mine, "keeps its own -Dhttp.nonProxyHosts without the cluster's entries: it comes from a Secret, whose value is never copied into the Pod spec; add the cluster's entries there (proxykit noproxy prints them)")
		}
		suffix = ""
	}
	if joined, ok := joinJava(value, m.javaFlags, m.o.Override); ok {
		value = joined
		if m.o.MergeNoProxy && !m.o.Override {
			value += suffix
			m.notes = append(m.notes, droppedNote(m.o.Where, name, mine, "-Dhttp.nonProxyHosts pattern", "-Dhttp.nonProxyHosts patterns", wide)...)
		} else if merged.lacking && !m.o.Override && !mine.secret() {
			m.note(name, mine, "keeps its own -Dhttp.nonProxyHosts, which the JVM reads instead of the proxy's, without the cluster's entries: policy.mergeNoProxy: true merges them")
		}
	}
	if mine.entry == nil || value != mine.value {
		m.edit.set(corev1.EnvVar{Name: name, Value: value})
	}
}

// override replaces an own value (Override), an own NO_PROXY merged into the
// cluster's with MergeNoProxy.
func (m *merger) override(entry corev1.EnvVar, mine own) {
	replacement := *entry.DeepCopy()
	if entry.ValueFrom == nil && m.o.MergeNoProxy && isNoProxy(entry.Name) && !mine.secret() {
		merged, dropped := unionNoProxy(entry.Value, mine.value)
		replacement = corev1.EnvVar{Name: entry.Name, Value: merged}
		m.notes = append(m.notes, droppedNote(m.o.Where, entry.Name, mine, "entry", "entries", dropped)...)
	}
	if replacement.ValueFrom != nil || replacement.Value != mine.value {
		m.note(entry.Name, mine, "replaced (policy.overrideExisting)")
	}
	m.edit.set(replacement)
}

// noProxy keeps an own NO_PROXY, merged with the cluster's entries under
// MergeNoProxy (unless a Secret holds it), noted otherwise.
func (m *merger) noProxy(entry corev1.EnvVar, mine own) {
	merged, dropped := unionNoProxy(entry.Value, mine.value)
	switch {
	case merged == mine.value && len(dropped) == 0:
	case m.o.MergeNoProxy && mine.secret():
		m.note(entry.Name, mine, "kept without the cluster's entries: it comes from a Secret, whose value is never copied into the Pod spec; add the cluster's entries there (proxykit noproxy prints them)")
	case m.o.MergeNoProxy:
		m.edit.set(corev1.EnvVar{Name: entry.Name, Value: merged})
		m.notes = append(m.notes, droppedNote(m.o.Where, entry.Name, mine, "entry", "entries", dropped)...)
	case !m.noProxyNoted:
		m.noProxyNoted = true
		m.note(entry.Name, mine, "kept without the cluster's entries (its Services, networks, the API server): policy.mergeNoProxy: true merges them")
	}
}

// missing adds a variable the container lacks: the proxy's, or its own twin's
// (http_proxy for HTTP_PROXY), whose NO_PROXY is merged under MergeNoProxy.
func (m *merger) missing(entry corev1.EnvVar) {
	twin, hasTwin := m.owns[twins[entry.Name]]
	switch {
	case hasTwin && m.o.MergeNoProxy && isNoProxy(entry.Name) && !twin.ref() && !twin.secret() && entry.ValueFrom == nil:
		// with override too: the twin itself is merged so
		merged, _ := unionNoProxy(entry.Value, twin.value) // what it drops, the twin's own case notes
		m.edit.set(corev1.EnvVar{Name: entry.Name, Value: merged})
	case !hasTwin || m.o.Override:
		m.edit.set(*entry.DeepCopy())
	default:
		m.edit.set(twin.asEntry(entry.Name))
	}
}

// note records what became of the container's own setting of a variable.
func (m *merger) note(name string, mine own, what string) {
	m.notes = append(m.notes, ownNote(m.o.Where, name, mine, what))
}
