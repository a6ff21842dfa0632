package inject

import "reflect"

// envEditor edits a container's env list in place: set replaces the entry of
// the same name or appends one, and remembers whether anything changed.
type envEditor struct {
	env     []any
	index   map[string]int
	changed bool
}

func newEnvEditor(c map[string]any) *envEditor {
	e := &envEditor{index: map[string]int{}}
	e.env, _ = c["env"].([]any)
	for i, entry := range e.env {
		if m, ok := entry.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				e.index[name] = i
			}
		}
	}
	return e
}

func (e *envEditor) set(entry map[string]any) {
	name, _ := entry["name"].(string)
	if i, ok := e.index[name]; ok {
		if reflect.DeepEqual(e.env[i], entry) {
			return
		}
		e.env[i] = entry
	} else {
		e.index[name] = len(e.env)
		e.env = append(e.env, entry)
	}
	e.changed = true
}

// merger decides each proxy variable of one container against the
// container's own settings, as the policies do at admission, one named case
// each; it collects the notes for the object's annotation.
type merger struct {
	inj          *injection
	o            containerOptions
	owns         map[string]own
	edit         *envEditor
	notes        []string
	noProxyNoted bool // one note of a kept NO_PROXY per container, not one per twin
}

// variable is one proxy variable of the library's env.
func (m *merger) variable(entry map[string]any) {
	name, _ := entry["name"].(string)
	mine, has := m.owns[name]
	switch {
	case has && mine.ref():
		// kept as it is: a merge cannot drop an own valueFrom
	case has && name == "JAVA_TOOL_OPTIONS" && m.inj.javaOptions != "":
		m.java(name, mine)
	case has && m.o.override:
		m.override(name, entry, mine)
	case has && isNoProxy(name):
		m.noProxy(name, entry, mine)
	case has:
		// kept
	default:
		m.missing(name, entry)
	}
}

// java joins the proxy's JVM flags with the container's own, its own
// -Dhttp.nonProxyHosts merged with policy.mergeNoProxy.
func (m *merger) java(name string, mine own) {
	merged := mergeJava(mine.value, m.inj.javaOptions)
	suffix, wide := merged.suffix, merged.dropped
	value := mine.value
	if mine.secret() {
		// the kubelet expands $(JAVA_TOOL_OPTIONS) to the envFrom Secret's
		// value: the flags are joined without the Secret's text in the Pod
		value = "$(" + name + ")"
		if merged.lacking || len(wide) > 0 {
			m.notes = append(m.notes, ownNote(m.o.where, name, mine, "keeps its own -Dhttp.nonProxyHosts without the cluster's entries: it comes from a Secret, whose value is never copied into the Pod spec; add the cluster's entries there (proxykit noproxy prints them)"))
		}
		suffix = ""
	}
	if joined, ok := joinJava(value, m.inj.javaOptions, m.o.override); ok {
		value = joined
		if m.o.merge && !m.o.override {
			value += suffix
			m.notes = append(m.notes, droppedNote(m.o.where, name, mine, "-Dhttp.nonProxyHosts pattern", "-Dhttp.nonProxyHosts patterns", wide)...)
		} else if merged.lacking && !m.o.override {
			m.notes = append(m.notes, ownNote(m.o.where, name, mine, "keeps its own -Dhttp.nonProxyHosts, which the JVM reads instead of the proxy's, without the cluster's entries: policy.mergeNoProxy: true merges them"))
		}
	}
	if mine.entry == nil || value != mine.value {
		m.edit.set(map[string]any{"name": name, "value": value})
	}
}

// override replaces an own value (policy.overrideExisting), an own NO_PROXY
// merged into the cluster's with policy.mergeNoProxy.
func (m *merger) override(name string, entry map[string]any, mine own) {
	replacement := clone(entry)
	if cluster, plain := entry["value"].(string); plain && m.o.merge && isNoProxy(name) && !mine.secret() {
		merged, dropped := unionNoProxy(cluster, mine.value)
		replacement = map[string]any{"name": name, "value": merged}
		m.notes = append(m.notes, droppedNote(m.o.where, name, mine, "entry", "entries", dropped)...)
	}
	if value, _ := replacement["value"].(string); value != mine.value {
		m.notes = append(m.notes, ownNote(m.o.where, name, mine, "replaced (policy.overrideExisting)"))
	}
	m.edit.set(replacement)
}

// noProxy keeps an own NO_PROXY, merged with the cluster's entries under
// policy.mergeNoProxy (unless a Secret holds it), noted otherwise.
func (m *merger) noProxy(name string, entry map[string]any, mine own) {
	cluster, _ := entry["value"].(string)
	merged, dropped := unionNoProxy(cluster, mine.value)
	switch {
	case merged == mine.value && len(dropped) == 0:
	case m.o.merge && mine.secret():
		m.notes = append(m.notes, ownNote(m.o.where, name, mine, "kept without the cluster's entries: it comes from a Secret, whose value is never copied into the Pod spec; add the cluster's entries there (proxykit noproxy prints them)"))
	case m.o.merge:
		m.edit.set(map[string]any{"name": name, "value": merged})
		m.notes = append(m.notes, droppedNote(m.o.where, name, mine, "entry", "entries", dropped)...)
	case !m.noProxyNoted:
		m.noProxyNoted = true
		m.notes = append(m.notes, ownNote(m.o.where, name, mine, "kept without the cluster's entries (its Services, networks, the API server): policy.mergeNoProxy: true merges them"))
	}
}

// missing adds a variable the container lacks: the proxy's, or its own twin's
// (http_proxy for HTTP_PROXY), whose NO_PROXY is merged under policy.mergeNoProxy.
func (m *merger) missing(name string, entry map[string]any) {
	twin, hasTwin := m.owns[twins[name]]
	cluster, plain := entry["value"].(string)
	switch {
	case hasTwin && m.o.merge && isNoProxy(name) && !twin.ref() && !twin.secret() && plain:
		// with override too: the twin itself is merged so
		merged, _ := unionNoProxy(cluster, twin.value) // what it drops, the twin's own case notes
		m.edit.set(map[string]any{"name": name, "value": merged})
	case !hasTwin || m.o.override:
		m.edit.set(clone(entry))
	default:
		m.edit.set(twin.asEntry(name))
	}
}
