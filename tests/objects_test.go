package tests

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// Doc is one YAML document of a render.
type Doc struct {
	Source    string // template file, e.g. templates/deployment.yaml
	Kind      string
	Name      string
	Namespace string
	Raw       []byte
}

var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// decodeManifests splits manifests into documents and reads kind and name of each.
func decodeManifests(t testing.TB, manifests map[string]string) *Rendered {
	t.Helper()
	r := &Rendered{Manifests: manifests}
	sources := make([]string, 0, len(manifests))
	for source := range manifests {
		sources = append(sources, source)
	}
	sort.Strings(sources) // a stable document order, whatever the map order
	for _, source := range sources {
		text := manifests[source]
		for _, part := range docSeparator.Split(text, -1) {
			if strings.TrimSpace(stripComments(part)) == "" {
				continue
			}
			var head struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
			}
			require.NoError(t, yaml.Unmarshal([]byte(part), &head), "%s is not YAML:\n%s", source, part)
			require.NotEmpty(t, head.Kind, "%s renders a document without kind:\n%s", source, part)
			r.Docs = append(r.Docs, Doc{Source: source, Kind: head.Kind, Name: head.Metadata.Name, Namespace: head.Metadata.Namespace, Raw: []byte(part)})
		}
	}
	return r
}

func stripComments(s string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// decodeStrict decodes a document into a Kubernetes type; unknown fields fail.
func decodeStrict[T any](t testing.TB, d Doc) T {
	t.Helper()
	var obj T
	require.NoError(t, yaml.UnmarshalStrict(d.Raw, &obj), "%s %s from %s does not decode strictly:\n%s", d.Kind, d.Name, d.Source, d.Raw)
	return obj
}

// Find returns the document of that kind and name; the test fails when it is missing.
func (r *Rendered) Find(t testing.TB, kind, name string) Doc {
	t.Helper()
	for _, d := range r.Docs {
		if d.Kind == kind && d.Name == name {
			return d
		}
	}
	require.Failf(t, "missing object", "no %s %q rendered; have %v", kind, name, r.Names())
	return Doc{}
}

// Has tells whether a document of that kind and name was rendered.
func (r *Rendered) Has(kind, name string) bool {
	for _, d := range r.Docs {
		if d.Kind == kind && d.Name == name {
			return true
		}
	}
	return false
}

// Names lists "Kind/name" of every document, for messages.
func (r *Rendered) Names() []string {
	var names []string
	for _, d := range r.Docs {
		names = append(names, d.Kind+"/"+d.Name)
	}
	return names
}

func (r *Rendered) Deployment(t testing.TB, name string) appsv1.Deployment {
	t.Helper()
	return decodeStrict[appsv1.Deployment](t, r.Find(t, "Deployment", name))
}

func (r *Rendered) Secret(t testing.TB, name string) corev1.Secret {
	t.Helper()
	return decodeStrict[corev1.Secret](t, r.Find(t, "Secret", name))
}

func (r *Rendered) ConfigMap(t testing.TB, name string) corev1.ConfigMap {
	t.Helper()
	return decodeStrict[corev1.ConfigMap](t, r.Find(t, "ConfigMap", name))
}

// container finds a container or init container by name.
func container(t testing.TB, spec corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range list {
			if c.Name == name {
				return c
			}
		}
	}
	require.Failf(t, "missing container", "no container %q", name)
	return corev1.Container{}
}

func boolPtr(b bool) *bool { return &b }

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

func yamlUnmarshal(s string, v any) error { return yaml.Unmarshal([]byte(s), v) }

func yamlUnmarshalStrict(s string, v any) error { return yaml.UnmarshalStrict([]byte(s), v) }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
