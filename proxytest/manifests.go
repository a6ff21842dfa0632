package proxytest

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Manifests is a chart's render: every object, in the order of their templates,
// subcharts' objects included.
type Manifests struct {
	Objects []Object
	// Values are the values the chart was rendered with, merged exactly as Helm
	// merges them: the chart's values.yaml, its subcharts' defaults, globals, then
	// the options in order (nil after Parse).
	Values map[string]any
	// Cluster holds the cluster facts the proxykit library read in the same render,
	// from those values; for an umbrella chart, every network any subchart names.
	// Zero when no chart of the render uses proxykit, and after Parse.
	Cluster Cluster
	// Variables are the proxy variables the library renders for those values, in
	// the order of ProxyVariables: HTTPS_PROXY is left out when no https proxy is
	// set, the lower-case twins when proxy.lowercase is false. Check expects these
	// in every container; nil (after Parse, or with the proxy off) means all six.
	Variables []string

	// Namespace is the release namespace: objects rendered without a namespace
	// land there (empty after Parse: such objects match any namespace).
	Namespace string

	proxyOff bool // proxykit rendered with no proxy URL: findings say so

	mu      sync.Mutex
	index   map[string][]int // "Kind/name" -> positions in Objects, built by Find
	indexed int              // len(Objects) when index was built
}

// Object is one rendered Kubernetes object.
type Object struct {
	Kind, Name, Namespace string
	// Source is the template that rendered it, e.g. "templates/deployment.yaml" (empty after Parse
	// of output without "# Source:" comments).
	Source string
	// Content is the object as decoded from YAML.
	Content map[string]any
	// Raw is the document as rendered, comments included.
	Raw string

	template *corev1.PodTemplateSpec // the pod template, decoded once by Parse and Render
}

// ID is "Kind/name", how findings name an object.
func (o Object) ID() string { return o.Kind + "/" + o.Name }

// Container is one container of a pod template, with where it comes from.
type Container struct {
	Object string // "Kind/name" of the object that holds the pod template
	List   string // "containers", "initContainers" or "ephemeralContainers"
	// Namespace is the namespace of the object that holds the pod template (the
	// release namespace when it has none; empty when unknown, after Parse).
	Namespace string
	// Annotations are the pod template's annotations, where the opt-outs live.
	Annotations map[string]string
	corev1.Container
}

var (
	// a document starts at a line "---", blanks or a comment may follow it
	docSeparator = regexp.MustCompile(`(?m)^---[ \t]*(?:#.*)?$`)
	// ... or at "--- " with the document's first line after it ("--- {a: 1}")
	docOnSeparator = regexp.MustCompile(`(?m)^---[ \t]+([^#\s].*)$`)
	sourceLine     = regexp.MustCompile(`(?m)^# Source: [^/]+/(.+)$`)
)

// SplitDocuments splits a YAML stream into its documents, as Parse reads it: at
// every line "---" (a comment may follow it), and at "--- " with the document's
// first line on it ("--- {a: 1}"). proxykit inject splits with it too.
func SplitDocuments(text string) []string {
	if strings.Contains(text, "--- ") || strings.Contains(text, "---\t") {
		text = docOnSeparator.ReplaceAllString(text, "---\n$1")
	}
	return docSeparator.Split(text, -1)
}

// Parse reads manifests as `helm template` or terratest's RenderTemplate print them.
func Parse(manifests string) (*Manifests, error) {
	m := &Manifests{}
	for _, doc := range SplitDocuments(manifests) {
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

// FromObjects reads typed objects (k8s.io/api types such as corev1.Pod, or any
// value that encodes to a Kubernetes object as JSON), as a live cluster's client
// returns them: no caller writes them out as text to Parse them again. Each needs
// its apiVersion and kind (TypeMeta), which a client's List leaves empty.
func FromObjects(objects ...any) (*Manifests, error) {
	m := &Manifests{}
	for i, obj := range objects {
		b, err := json.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("proxytest: object %d: %w", i+1, err)
		}
		var content map[string]any
		if err := json.Unmarshal(b, &content); err != nil {
			return nil, fmt.Errorf("proxytest: object %d is not a Kubernetes object: %w", i+1, err)
		}
		if kind, _ := content["kind"].(string); kind == "" {
			return nil, fmt.Errorf("proxytest: object %d has no kind: set its TypeMeta (apiVersion and kind)", i+1)
		}
		if err := m.addObject("", "", content); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// parseRendered reads the engine's output, template by template in name order:
// the chart's own templates, then its subcharts' (charts/<sub>/templates/...).
func parseRendered(chartName string, files map[string]string) (*Manifests, error) {
	var names []string
	for name := range files {
		if isManifest(chartName, name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	m := &Manifests{}
	for _, name := range names {
		for _, doc := range SplitDocuments(files[name]) {
			if err := m.add(strings.TrimPrefix(name, chartName+"/"), doc); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// isManifest tells whether a rendered file is one `helm template` prints: a file
// of a templates/ folder of the chart or a subchart, not NOTES.txt, not the facts.
func isManifest(chartName, name string) bool {
	if !strings.HasPrefix(name, chartName+"/") || path.Ext(name) == ".txt" || path.Base(name) == path.Base(factsTemplate) {
		return false
	}
	return strings.HasPrefix(name, chartName+"/templates/") || strings.Contains(name, "/charts/") && strings.Contains(name, "/templates/")
}

func (m *Manifests) add(source, doc string) error {
	var content map[string]any
	if err := yaml.Unmarshal([]byte(doc), &content); err != nil {
		return fmt.Errorf("proxytest: %s: not YAML: %w", sourceOrDocument(source), err)
	}
	if len(content) == 0 {
		return nil
	}
	return m.addObject(source, doc, content)
}

// addObject adds one decoded object; a List (what `kubectl get -o yaml` prints)
// adds its items. An object whose pod template does not decode into the
// Kubernetes type is an error: Check would otherwise judge nothing of it.
func (m *Manifests) addObject(source, raw string, content map[string]any) error {
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	kind := str(content, "kind")
	if kind == "List" || (strings.HasSuffix(kind, "List") && content["items"] != nil) {
		items, ok := content["items"].([]any)
		if !ok && content["items"] != nil {
			return fmt.Errorf("proxytest: %s: a %s whose items are not a list", sourceOrDocument(source), kind)
		}
		for i, item := range items {
			obj, ok := item.(map[string]any)
			if !ok {
				return fmt.Errorf("proxytest: %s: item %d of a %s is not an object", sourceOrDocument(source), i, kind)
			}
			b, err := yaml.Marshal(obj)
			if err != nil {
				return err
			}
			if err := m.addObject(source, string(b), obj); err != nil {
				return err
			}
		}
		return nil
	}
	meta, _ := content["metadata"].(map[string]any)
	o := Object{Kind: kind, Name: str(meta, "name"), Namespace: str(meta, "namespace"), Source: source, Content: content, Raw: raw}
	if raw, ok := o.podTemplate(); ok {
		tmpl, err := decodePodTemplate(raw)
		if err != nil {
			return fmt.Errorf("proxytest: %s %s: the pod template does not decode: %w", sourceOrDocument(source), o.ID(), err)
		}
		o.template = tmpl
	}
	m.Objects = append(m.Objects, o)
	return nil
}

func sourceOrDocument(source string) string {
	if source == "" {
		return "a document"
	}
	return source
}

// Find returns the object of this kind and name (the first, if several), or nil.
// Safe for concurrent use.
func (m *Manifests) Find(kind, name string) *Object {
	if all := m.findAll(kind, name); len(all) > 0 {
		return all[0]
	}
	return nil
}

// FindIn returns the object of this kind and name in a namespace, or nil. An
// object rendered without a namespace is in the release namespace; after Parse,
// where that is unknown, it matches any namespace.
func (m *Manifests) FindIn(kind, name, namespace string) *Object {
	for _, o := range m.findAll(kind, name) {
		if ns := m.namespaceOf(*o); ns == "" || namespace == "" || ns == namespace {
			return o
		}
	}
	return nil
}

func (m *Manifests) namespaceOf(o Object) string {
	if o.Namespace != "" {
		return o.Namespace
	}
	return m.Namespace
}

func (m *Manifests) findAll(kind, name string) []*Object {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.index == nil || m.indexed != len(m.Objects) {
		m.indexed = len(m.Objects)
		m.index = make(map[string][]int, len(m.Objects))
		for i := range m.Objects {
			m.index[m.Objects[i].ID()] = append(m.index[m.Objects[i].ID()], i)
		}
	}
	var out []*Object
	for _, i := range m.index[kind+"/"+name] {
		out = append(out, &m.Objects[i])
	}
	return out
}

// podTemplatePaths are where workload kinds keep their pod template (a Pod is its
// own); any other object with spec.template (an Argo Rollout, say) is found by the
// last entry.
var podTemplatePaths = map[string][]string{
	"Pod":     {},
	"CronJob": {"spec", "jobTemplate", "spec", "template"},
	"":        {"spec", "template"},
}

// podTemplate returns the object's pod template as decoded YAML (a Pod's own
// content), if it has one with containers.
func (o Object) podTemplate() (map[string]any, bool) { return FindPodTemplate(o.Content) }

// FindPodTemplate returns the pod template of a decoded object (a Pod's own
// content; a CronJob's spec.jobTemplate.spec.template; spec.template of any other
// kind: Deployment, StatefulSet, an Argo Rollout ...) when it has one with
// containers. It is the object's own map: changing it changes the object.
func FindPodTemplate(object map[string]any) (map[string]any, bool) {
	kind, _ := object["kind"].(string)
	p, ok := podTemplatePaths[kind]
	if !ok {
		p = podTemplatePaths[""]
	}
	var node any = object
	for _, key := range p {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, false
		}
		node = m[key]
	}
	tmpl, ok := node.(map[string]any)
	if !ok {
		return nil, false
	}
	spec, ok := tmpl["spec"].(map[string]any)
	if !ok {
		return nil, false
	}
	if _, has := spec["containers"]; !has {
		return nil, false
	}
	return tmpl, true
}

// PodTemplate returns the object's pod template (a Pod's own metadata and spec), if it has one.
func (o Object) PodTemplate() (*corev1.PodTemplateSpec, bool) {
	if o.template != nil {
		return o.template.DeepCopy(), true
	}
	raw, ok := o.podTemplate()
	if !ok {
		return nil, false
	}
	tmpl, err := decodePodTemplate(raw)
	return tmpl, err == nil
}

func decodePodTemplate(raw map[string]any) (*corev1.PodTemplateSpec, error) {
	b, err := json.Marshal(map[string]any{"metadata": raw["metadata"], "spec": raw["spec"]})
	if err != nil {
		return nil, err
	}
	var tmpl corev1.PodTemplateSpec
	if err := json.Unmarshal(b, &tmpl); err != nil {
		return nil, err
	}
	return &tmpl, nil
}

// PodSpec returns the object's pod spec (a Pod's own, or its pod template's), if it has one.
func (o Object) PodSpec() (*corev1.PodSpec, bool) {
	tmpl, ok := o.PodTemplate()
	if !ok {
		return nil, false
	}
	return &tmpl.Spec, true
}

// Containers lists every container, init container and ephemeral container of
// every pod template: Pods, Deployments, StatefulSets, DaemonSets, ReplicaSets,
// Jobs, CronJobs and any other object with spec.template.spec.
func (m *Manifests) Containers() []Container {
	var out []Container
	for _, o := range m.Objects {
		tmpl, ok := o.PodTemplate()
		if !ok {
			continue
		}
		at := func(list string, c corev1.Container) Container {
			return Container{Object: o.ID(), List: list, Namespace: m.namespaceOf(o), Annotations: tmpl.Annotations, Container: c}
		}
		for _, c := range tmpl.Spec.InitContainers {
			out = append(out, at("initContainers", c))
		}
		for _, c := range tmpl.Spec.Containers {
			out = append(out, at("containers", c))
		}
		for _, e := range tmpl.Spec.EphemeralContainers {
			out = append(out, at("ephemeralContainers", corev1.Container(e.EphemeralContainerCommon)))
		}
	}
	return out
}
