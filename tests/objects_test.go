package tests

import (
	"sort"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// find is proxytest's Find that fails the test when the object is missing.
func find(t testing.TB, m *proxytest.Manifests, kind, name string) proxytest.Object {
	t.Helper()
	o := m.Find(kind, name)
	require.NotNil(t, o, "no %s %q rendered; have %v", kind, name, m.IDs())
	return *o
}

// has tells whether an object of that kind and name was rendered.
func has(m *proxytest.Manifests, kind, name string) bool { return m.Find(kind, name) != nil }

// decodeStrict decodes one object into a Kubernetes type; unknown fields fail.
func decodeStrict[T any](t testing.TB, o proxytest.Object) T {
	t.Helper()
	var obj T
	require.NoError(t, o.Decode(&obj))
	return obj
}

// sourceText is what one template rendered, every document of it.
func sourceText(m *proxytest.Manifests, source string) string {
	var docs []string
	for _, o := range m.Objects {
		if o.Source == source {
			docs = append(docs, o.Raw)
		}
	}
	return strings.Join(docs, "\n---\n")
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
