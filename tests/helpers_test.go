package tests

import (
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

func boolPtr(b bool) *bool { return &b }

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

func yamlUnmarshalStrict(s string, v any) error { return yaml.UnmarshalStrict([]byte(s), v) }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
