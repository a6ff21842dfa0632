//go:build integration

package itest

import (
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
)

// ObjectsByName keys every document by kind, name and namespace.
func ObjectsByName(t *testing.T, r *proxytest.Manifests) map[string]any {
	objects := map[string]any{}
	for _, d := range r.Objects {
		var obj any
		require.NoError(t, yaml.Unmarshal([]byte(d.Raw), &obj))
		key := d.Kind + "/" + d.Name + "@" + d.Namespace
		require.NotContains(t, objects, key, "two documents for %s", key)
		objects[key] = obj
	}
	return objects
}
