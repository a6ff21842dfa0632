package tests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// proxykit.labels: one label block for the library's Secrets and every chart's objects.
func TestLabels(t *testing.T) {
	answers, err := proxykit.Ask(nil, "shop", "", proxykit.Call{Helper: "proxykit.labels"})
	require.NoError(t, err)
	out := answers["proxykit.labels"]
	var labels map[string]string
	require.NoError(t, yaml.Unmarshal([]byte(out), &labels))
	assert.Equal(t, map[string]string{"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/part-of": "proxykit"}, labels)

	answers, err = proxykit.Ask(nil, "0123", "", proxykit.Call{Helper: "proxykit.labels", Args: map[string]any{"name": "proxy-policies"}})
	require.NoError(t, err)
	out = answers["proxykit.labels"]
	require.NoError(t, yaml.Unmarshal([]byte(out), &labels))
	assert.Equal(t, map[string]string{"app.kubernetes.io/name": "proxy-policies", "app.kubernetes.io/instance": "0123",
		"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/part-of": "proxykit"}, labels, "a release named by digits stays a string")

	// every object of every chart carries it, rendered with each chart's CI values
	files, err := filepath.Glob(fixture.Path("charts", "*", "ci", "*-values.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		chart := filepath.Dir(filepath.Dir(file))
		values, err := os.ReadFile(file)
		require.NoError(t, err)
		m := fixture.Render(t, chart, proxytest.Values(string(values)))
		for _, o := range m.Objects {
			meta, _ := o.Content["metadata"].(map[string]any)
			got, _ := meta["labels"].(map[string]any)
			assert.Equal(t, "proxykit", got["app.kubernetes.io/part-of"], "%s %s", file, o.ID())
		}
	}
}
