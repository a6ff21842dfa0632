package inject

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/internal/blockyaml"
	"github.com/proxykit/proxykit/manifest"
)

// configMapPods injects into the Pod manifests a ConfigMap keeps as values: a
// program of the release makes Pods from them at run time (Airflow's
// KubernetesExecutor reads its pod_template_file so), and those Pods reach the
// API server after any post-renderer, where only the policies could give them
// the proxy. A value is one when it is a YAML document of kind Pod with
// containers; it is written back as YAML (its comments go). It returns whether
// the ConfigMap changed, how many containers got the proxy, and the notes.
func (inj *injection) configMapPods(doc document, o containerOptions) (bool, int, []string, error) {
	data, _ := doc.object["data"].(map[string]any)
	changed, injected := false, 0
	var notes []string
	for _, key := range slices.Sorted(maps.Keys(data)) {
		text, _ := data[key].(string)
		if !strings.Contains(text, "Pod") || !strings.Contains(text, "containers") {
			continue // most values: no manifest to decode
		}
		v, err := blockyaml.Decode([]byte(text))
		pod, _ := v.(map[string]any)
		if err != nil || pod == nil || pod["kind"] != "Pod" {
			continue
		}
		tmpl, ok := manifest.FindPodTemplate(pod)
		if !ok {
			continue
		}
		one := o
		one.where = fmt.Sprintf("%s key %s (a Pod manifest)", o.where, key)
		c, n, own, err := inj.podTemplate(tmpl, one)
		if err != nil {
			return false, 0, nil, fmt.Errorf("key %s: %w", key, err)
		}
		notes = append(notes, own...)
		injected += n
		if !c {
			continue
		}
		out, err := blockyaml.Marshal(pod)
		if err != nil {
			return false, 0, nil, fmt.Errorf("key %s: %w", key, err)
		}
		data[key] = out
		changed = true
		notes = append(notes, fmt.Sprintf("%s key %s: a Pod manifest, which a program of the release makes Pods from at run time: %d containers got the proxy (its comments are not kept)", o.where, key, n))
	}
	return changed, injected, notes, nil
}

// runTimeNotes name the containers an object keeps for Pods a program makes
// at run time (manifest.RunTimeTemplates), which no post-renderer reaches.
func runTimeNotes(doc document) []string {
	var out []string
	for _, place := range manifest.RunTimeTemplates(doc.object) {
		out = append(out, fmt.Sprintf("%s/%s holds containers (%s) that a program makes Pods from at run time: inject cannot reach those Pods; proxy-policies gives them the proxy at admission", doc.kind(), doc.meta("name"), place))
	}
	return out
}
