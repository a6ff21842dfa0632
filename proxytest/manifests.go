package proxytest

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Manifests is a chart's render: every object, in the order of their templates.
type Manifests struct {
	Objects []Object
	// Values are the values the chart was rendered with (nil after Parse).
	Values map[string]any

	index map[string]int // "Kind/name" -> position in Objects, built by Find
}

// Object is one rendered Kubernetes object.
type Object struct {
	Kind, Name, Namespace string
	// Source is the template that rendered it, e.g. "templates/deployment.yaml" (empty after Parse
	// of output without "# Source:" comments).
	Source string
	// Content is the object as decoded from YAML.
	Content map[string]any
}

// ID is "Kind/name", how findings name an object.
func (o Object) ID() string { return o.Kind + "/" + o.Name }

// Container is one container of a pod template, with where it comes from.
type Container struct {
	Object string // "Kind/name" of the object that holds the pod template
	List   string // "containers", "initContainers" or "ephemeralContainers"
	corev1.Container
}

var (
	docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)
	sourceLine   = regexp.MustCompile(`(?m)^# Source: [^/]+/(.+)$`)
)

// Parse reads manifests as `helm template` or terratest's RenderTemplate print them.
func Parse(manifests string) (*Manifests, error) {
	m := &Manifests{}
	for _, doc := range docSeparator.Split(manifests, -1) {
		source := ""
		if s := sourceLine.FindStringSubmatch(doc); s != nil {
			source = s[1]
		}
		if err := m.add(source, doc); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// parseRendered reads the engine's output, template by template in name order.
func parseRendered(chartName string, files map[string]string) (*Manifests, error) {
	var names []string
	for name := range files {
		if strings.HasPrefix(name, chartName+"/templates/") && path.Ext(name) != ".txt" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	m := &Manifests{}
	for _, name := range names {
		for _, doc := range docSeparator.Split(files[name], -1) {
			if err := m.add(strings.TrimPrefix(name, chartName+"/"), doc); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

func (m *Manifests) add(source, doc string) error {
	var content map[string]any
	if err := yaml.Unmarshal([]byte(doc), &content); err != nil {
		return fmt.Errorf("proxytest: %s: not YAML: %w", source, err)
	}
	if len(content) == 0 {
		return nil
	}
	meta, _ := content["metadata"].(map[string]any)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	m.Objects = append(m.Objects, Object{
		Kind: str(content, "kind"), Name: str(meta, "name"), Namespace: str(meta, "namespace"),
		Source: source, Content: content,
	})
	return nil
}

// Find returns the object of this kind and name (the first, if several), or nil.
func (m *Manifests) Find(kind, name string) *Object {
	if len(m.index) != len(m.Objects) {
		m.index = make(map[string]int, len(m.Objects))
		for i := len(m.Objects) - 1; i >= 0; i-- {
			m.index[m.Objects[i].ID()] = i
		}
	}
	if i, ok := m.index[kind+"/"+name]; ok {
		return &m.Objects[i]
	}
	return nil
}

// podSpecPaths are where workload kinds keep their pod spec; any other object with
// spec.template.spec (an Argo Rollout, say) is found by the last entry.
var podSpecPaths = map[string][]string{
	"Pod":     {"spec"},
	"CronJob": {"spec", "jobTemplate", "spec", "template", "spec"},
	"":        {"spec", "template", "spec"},
}

// PodSpec returns the object's pod spec (a Pod's own, or its pod template's), if it has one.
func (o Object) PodSpec() (*corev1.PodSpec, bool) {
	p, ok := podSpecPaths[o.Kind]
	if !ok {
		p = podSpecPaths[""]
	}
	var node any = o.Content
	for _, key := range p {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, false
		}
		node = m[key]
	}
	raw, ok := node.(map[string]any)
	if !ok {
		return nil, false
	}
	if _, has := raw["containers"]; !has {
		return nil, false
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, false
	}
	var spec corev1.PodSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, false
	}
	return &spec, true
}

// Containers lists every container, init container and ephemeral container of
// every pod template: Pods, Deployments, StatefulSets, DaemonSets, ReplicaSets,
// Jobs, CronJobs and any other object with spec.template.spec.
func (m *Manifests) Containers() []Container {
	var out []Container
	for _, o := range m.Objects {
		spec, ok := o.PodSpec()
		if !ok {
			continue
		}
		for _, c := range spec.InitContainers {
			out = append(out, Container{Object: o.ID(), List: "initContainers", Container: c})
		}
		for _, c := range spec.Containers {
			out = append(out, Container{Object: o.ID(), List: "containers", Container: c})
		}
		for _, e := range spec.EphemeralContainers {
			out = append(out, Container{Object: o.ID(), List: "ephemeralContainers", Container: corev1.Container(e.EphemeralContainerCommon)})
		}
	}
	return out
}
