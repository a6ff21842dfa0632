package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// maxTemplateDepth bounds the walk of an object for run-time templates.
const maxTemplateDepth = 24

// RunTimeTemplates are the places in an object, other than a pod template
// FindPodTemplate finds, that hold containers a program makes Pods from at
// run time: a list of containers with images in a custom resource
// (Prometheus' and Alertmanager's spec.containers, which their operator
// merges into the Pods it makes) or in a ConfigMap's value (Jenkins' agent
// pod templates in a JCasC file). Each is written as a path
// (".spec.containers", "key jcasc.yaml: .jenkins.clouds[0]...containers"), in
// a stable order; a ConfigMap value that is a whole Pod manifest is not one
// (inject injects it).
func RunTimeTemplates(object map[string]any) []string {
	if _, ok := FindPodTemplate(object); ok {
		return nil
	}
	if object["kind"] != "ConfigMap" {
		var out []string
		containerLists(object, "", 0, &out)
		return out
	}
	data, _ := object["data"].(map[string]any)
	var out []string
	for _, key := range slices.Sorted(maps.Keys(data)) {
		text, _ := data[key].(string)
		if !strings.Contains(text, "containers") || !strings.Contains(text, "image") {
			continue // most values: nothing to decode
		}
		var v any
		if yaml.Unmarshal([]byte(text), &v) != nil {
			continue
		}
		if m, ok := v.(map[string]any); ok && m["kind"] == "Pod" {
			continue
		}
		var paths []string
		containerLists(v, "", 0, &paths)
		for _, p := range paths {
			out = append(out, fmt.Sprintf("key %s: %s", key, p))
		}
	}
	return out
}

// containerLists collects the paths under node of lists named containers
// (or initContainers) whose items are maps with an image.
func containerLists(node any, path string, depth int, out *[]string) {
	if depth > maxTemplateDepth {
		return
	}
	switch n := node.(type) {
	case map[string]any:
		for _, key := range slices.Sorted(maps.Keys(n)) {
			if (key == "containers" || key == "initContainers") && hasImages(n[key]) {
				*out = append(*out, path+"."+key)
				continue
			}
			containerLists(n[key], path+"."+key, depth+1, out)
		}
	case []any:
		for i, v := range n {
			containerLists(v, fmt.Sprintf("%s[%d]", path, i), depth+1, out)
		}
	}
}

// hasImages tells a list with a map that names an image.
func hasImages(v any) bool {
	list, _ := v.([]any)
	return slices.ContainsFunc(list, func(item any) bool {
		m, _ := item.(map[string]any)
		image, _ := m["image"].(string)
		return image != ""
	})
}
