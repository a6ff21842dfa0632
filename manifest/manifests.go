package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/cluster"
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
	Cluster cluster.Facts
	// Variables are the proxy variables the library renders for those values, in
	// the order of ProxyVariables: HTTPS_PROXY is left out when no https proxy is
	// set, the lower-case twins when proxy.lowercase is false. Check expects these
	// in every container; nil (after Parse, or with the proxy off) means all six.
	Variables []string

	// Namespace is the release namespace: objects rendered without a namespace
	// land there (empty after Parse: such objects match any namespace).
	Namespace string

	// ProxyOff is true when proxykit was rendered with no proxy URL: findings say so.
	ProxyOff bool

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

// Parse reads manifests as `helm template` or terratest's RenderTemplate print them.
func Parse(manifests string) (*Manifests, error) {
	m := &Manifests{}
	docs, err := SplitDocuments(manifests)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	for _, doc := range docs {
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

// Add reads a stream of documents that one template (source, such as
// "templates/deployment.yaml") rendered, and adds its objects.
func (m *Manifests) Add(source, stream string) error {
	docs, err := SplitDocuments(stream)
	if err != nil {
		return fmt.Errorf("manifest: %s: %w", sourceOrDocument(source), err)
	}
	for _, doc := range docs {
		if err := m.add(source, doc); err != nil {
			return err
		}
	}
	return nil
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
			return nil, fmt.Errorf("manifest: object %d: %w", i+1, err)
		}
		var content map[string]any
		if err := json.Unmarshal(b, &content); err != nil {
			return nil, fmt.Errorf("manifest: object %d is not a Kubernetes object: %w", i+1, err)
		}
		if kind, _ := content["kind"].(string); kind == "" {
			return nil, fmt.Errorf("manifest: object %d has no kind: set its TypeMeta (apiVersion and kind)", i+1)
		}
		if err := m.addObject("", "", content); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// FromContent reads objects already decoded from JSON or YAML (what
// encoding/json gives for a map, numbers as float64 or json.Number) without
// copying them: the Manifests share their maps, which the caller must not
// change while it reads them. proxykit inject reads its stream so, once.
func FromContent(objects ...map[string]any) (*Manifests, error) {
	m := &Manifests{}
	for i, content := range objects {
		if kind, _ := content["kind"].(string); kind == "" {
			return nil, fmt.Errorf("manifest: object %d has no kind", i+1)
		}
		if err := m.addObject("", "", content); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Manifests) add(source, doc string) error {
	var content map[string]any
	if err := yaml.Unmarshal([]byte(doc), &content); err != nil {
		return fmt.Errorf("manifest: %s: not YAML: %w", sourceOrDocument(source), err)
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
			return fmt.Errorf("manifest: %s: a %s whose items are not a list", sourceOrDocument(source), kind)
		}
		for i, item := range items {
			obj, ok := item.(map[string]any)
			if !ok {
				return fmt.Errorf("manifest: %s: item %d of a %s is not an object", sourceOrDocument(source), i, kind)
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
			return fmt.Errorf("manifest: %s %s: the pod template does not decode: %w", sourceOrDocument(source), o.ID(), err)
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
		if ns := m.NamespaceOf(*o); ns == "" || namespace == "" || ns == namespace {
			return o
		}
	}
	return nil
}

// NamespaceOf is the object's namespace, else the release namespace.
func (m *Manifests) NamespaceOf(o Object) string {
	if o.Namespace != "" {
		return o.Namespace
	}
	return m.Namespace
}

// KnownNamespaces lists the namespaces the cluster surely has: the release
// namespace (the operator names it; Helm installs there) and those the
// manifests' Namespace objects create. A call to name.namespace is into the
// cluster for these even when the namespace is also a top-level domain
// (Places). A namespace an object merely names is not one: a chart
// that puts a ConfigMap in namespace com must not make github.com a Service.
func (m *Manifests) KnownNamespaces() []string {
	var out []string
	if m.Namespace != "" {
		out = append(out, m.Namespace)
	}
	for _, o := range m.Objects {
		if o.Kind == "Namespace" && o.Name != "" && !slices.Contains(out, o.Name) {
			out = append(out, o.Name)
		}
	}
	return out
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
