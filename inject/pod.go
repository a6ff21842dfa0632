package inject

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

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
	changed, injected, notes, err := inj.containers(spec, skip, o)
	if err != nil {
		return false, 0, nil, err
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

// containers injects into every container of a pod spec but those skip
// names: whether any changed, how many got the proxy, and the notes.
func (inj *injection) containers(spec map[string]any, skip map[string]bool, o containerOptions) (bool, int, []string, error) {
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
			c2, n, err := inj.container(c, co)
			if err != nil {
				return false, 0, nil, fmt.Errorf("spec.%s[%d] (%s): %w", list, i, name, err)
			}
			changed = changed || c2
			notes = append(notes, n...)
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

// container injects into one container, in place, and tells whether it
// changed and what it did with the container's own settings (notes): its env
// becomes MergeEnv of its own and the proxy's (without NO_PROXY's bracketed
// entries where it may run the fabric8 client), and it mounts the trust bundle.
func (inj *injection) container(c map[string]any, o containerOptions) (bool, []string, error) {
	list, _ := c["env"].([]any)
	env, err := typedEnv(list)
	if err != nil {
		return false, nil, err
	}
	envFrom, _ := c["envFrom"].([]any)
	sources, err := typedEnvFrom(envFrom)
	if err != nil {
		return false, nil, err
	}
	fromSources := envFromValues(sources, o.view, o.namespace)
	proxy := inj.env
	image, _ := c["image"].(string)
	if MayRunFabric8(corev1.Container{Image: image, Args: containerWords(c), Env: env}, inj.javaFlags, slices.Collect(maps.Keys(fromSources))) {
		proxy = inj.fabric8Env
	}
	merged, notes := MergeEnv(env, proxy, MergeOptions{Override: o.override, MergeNoProxy: o.merge,
		EnvFrom: fromSources, Where: o.where})
	notes = append(notes, inj.commandLineNote(c, o.where)...)
	changed := !reflect.DeepEqual(env, merged)
	if changed {
		if c["env"], err = untypedEnv(merged, env, list); err != nil {
			return false, nil, err
		}
	}
	if inj.mount != nil {
		mounts, _ := c["volumeMounts"].([]any)
		if !hasNamed(mounts, inj.mount["name"], inj.mount["mountPath"]) {
			c["volumeMounts"] = append(mounts, clone(inj.mount))
			changed = true
		}
	}
	return changed, notes, nil
}

// commandLineNote reports an own -Dhttp.nonProxyHosts on a container's command
// line that lacks the proxy's patterns: the JVM reads it instead of
// JAVA_TOOL_OPTIONS's, and where a launch script puts it among its own flags is
// not known, so inject does not rewrite it.
func (inj *injection) commandLineNote(c map[string]any, where string) []string {
	words := slices.DeleteFunc(containerWords(c), func(w string) bool { return !strings.Contains(w, nonProxyHostsPrefix) })
	if inj.javaFlags == "" || len(words) == 0 || !mergeJava(strings.Join(words, " "), inj.javaFlags).lacking {
		return nil
	}
	return []string{where + ": its command line sets -Dhttp.nonProxyHosts, which the JVM reads instead of JAVA_TOOL_OPTIONS's, without the cluster's entries; inject does not rewrite a command line: add them there (the proxy's JAVA_TOOL_OPTIONS, which proxykit env prints, lists them) or move the flag into JAVA_TOOL_OPTIONS"}
}

// containerWords is a container's command line: its command, then its args.
func containerWords(c map[string]any) []string {
	var words []string
	for _, field := range []string{"command", "args"} {
		list, _ := c[field].([]any)
		for _, w := range list {
			if s, ok := w.(string); ok {
				words = append(words, s)
			}
		}
	}
	return words
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
