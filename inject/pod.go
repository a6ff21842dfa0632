package inject

import (
	"fmt"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// containerLists are the pod spec's lists, each of whose containers gets the proxy.
var containerLists = []string{"initContainers", "containers", "ephemeralContainers"}

// podTemplate injects into one pod template, in place: what the policies do at
// admission. It tells whether anything changed and how many containers it injected.
func (inj *injection) podTemplate(tmpl map[string]any, o containerOptions) (bool, int, []string, error) {
	meta, _ := tmpl["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	for key, value := range manifest.PodOptOuts() {
		if annotations[key] == value {
			return false, 0, nil, nil
		}
	}
	skip := map[string]bool{}
	if names, ok := annotations[manifest.AnnotationSkipContainers].(string); ok {
		for _, name := range strings.Split(names, ",") {
			skip[strings.TrimSpace(name)] = true
		}
	}
	spec, _ := tmpl["spec"].(map[string]any)
	changed, injected := false, 0
	var notes []string
	for _, list := range containerLists {
		items, _ := spec[list].([]any)
		for i, item := range items {
			c, ok := item.(map[string]any)
			if !ok {
				return false, 0, nil, fmt.Errorf("spec.%s[%d] is not a container", list, i)
			}
			name, _ := c["name"].(string)
			if skip[name] {
				continue
			}
			injected++
			co := o
			co.where += " container " + name
			c2, n := inj.container(c, co)
			changed = changed || c2
			notes = append(notes, n...)
		}
	}
	// the record of what the Pod is given, as the policies stamp it; a record
	// already there stays unless override replaced the variables it describes
	if inj.record != "" && injected > 0 && (annotations[manifest.AnnotationProxyConfig] == nil || o.override) && annotations[manifest.AnnotationProxyConfig] != inj.record {
		if meta == nil {
			meta = map[string]any{}
			tmpl["metadata"] = meta
		}
		if annotations == nil {
			annotations = map[string]any{}
			meta["annotations"] = annotations
		}
		annotations[manifest.AnnotationProxyConfig] = inj.record
		changed = true
	}
	// the policies mount the bundle into every Pod they inject, like this
	if inj.volume != nil {
		volumes, _ := spec["volumes"].([]any)
		if !hasNamed(volumes, inj.volume["name"], "") {
			spec["volumes"] = append(volumes, clone(inj.volume))
			changed = true
		}
	}
	return changed, injected, notes, nil
}

// containerOptions are what injecting one container needs besides the injection.
type containerOptions struct {
	override bool // policy.overrideExisting: the proxy's settings replace the container's own
	merge    bool // policy.mergeNoProxy: an own NO_PROXY and -Dhttp.nonProxyHosts get the cluster's entries too
	// view holds the stream's ConfigMaps and Secrets, which envFrom reads
	view      *manifest.Manifests
	namespace string
	where     string // "Deployment/web container web", for notes
}

// container injects into one container, in place, and tells whether it changed
// and what it did with the container's own settings (notes). The proxy entries
// it lacks are appended in order. An own setting, in env or through envFrom (env
// wins over envFrom, and an empty value counts as unset), is kept, or replaced
// with override when it is no valueFrom; with merge an own NO_PROXY gets the
// cluster's entries (its own kept) and so does an own -Dhttp.nonProxyHosts. A
// variable whose other-case twin the container sets itself gets what the twin
// gives (with override, the proxy's), so that the two never disagree. An own
// JAVA_TOOL_OPTIONS value is joined after the proxy flags once (its own -D flags
// then win), before them with override (the proxy's win); with merge (and no
// override) an own -Dhttp.nonProxyHosts gets a last one after it that adds the
// proxy's patterns it lacks (javaMergeSuffix).
func (inj *injection) container(c map[string]any, o containerOptions) (bool, []string) {
	m := &merger{inj: inj, o: o, owns: ownSettings(c, o.view, o.namespace, inj.names), edit: newEnvEditor(c)}
	for _, entry := range inj.env {
		m.variable(entry)
	}
	changed := m.edit.changed
	if changed {
		c["env"] = m.edit.env
	}
	if inj.mount != nil {
		mounts, _ := c["volumeMounts"].([]any)
		if !hasNamed(mounts, inj.mount["name"], inj.mount["mountPath"]) {
			c["volumeMounts"] = append(mounts, clone(inj.mount))
			changed = true
		}
	}
	return changed, m.notes
}

// hasNamed tells whether a list of maps holds one with this name, or this mountPath.
func hasNamed(items []any, name, mountPath any) bool {
	for _, item := range items {
		m, _ := item.(map[string]any)
		if m["name"] == name || (mountPath != "" && m["mountPath"] == mountPath) {
			return true
		}
	}
	return false
}

// clone copies a map of the library's render, so that no two containers share one.
func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if inner, ok := v.(map[string]any); ok {
			v = clone(inner)
		}
		out[k] = v
	}
	return out
}

// joinJava joins a container's own JAVA_TOOL_OPTIONS value and the proxy's flags
// as the policies do: "<flags> <own>" (the JVM keeps the last of two -D flags, so
// its own win), or with override "<own> <flags>" (the proxy's win over older proxy
// flags of its own); false when the value already holds them so.
func joinJava(own any, flags string, override bool) (string, bool) {
	value, _ := own.(string)
	switch {
	case override && strings.HasSuffix(value, flags), !override && strings.HasPrefix(value, flags):
		return "", false
	case value == "":
		return flags, true
	case override:
		return value + " " + flags, true
	}
	return flags + " " + value, true
}
