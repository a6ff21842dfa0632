//go:build integration

package integration

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// TestCLIAndSDKRenderTheSame keeps the fast in-process renderer honest: the helm
// CLI that users run must produce the same objects from the same values.
func TestCLIAndSDKRenderTheSame(t *testing.T) {
	harness.Parallel(t)
	for name, values := range map[string]string{
		"plain":       fixture.PlainProxy + "defaults: {env: [{name: TZ, value: UTC}, {name: PORT, value: 8080}]}\n",
		"credentials": fixture.CredentialValues(t, nil),
		"off":         "",
	} {
		t.Run(name, func(t *testing.T) {
			cli, err := fixture.RenderCLI(t, fixture.Fixture, values)
			require.NoError(t, err)
			sdk := fixture.Render(t, fixture.Fixture, values)
			assert.Equal(t, objectsByName(t, sdk), objectsByName(t, cli))
		})
	}
}

// objectsByName keys every document by kind, name and namespace.
func objectsByName(t *testing.T, r *proxytest.Manifests) map[string]any {
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
