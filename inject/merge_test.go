package inject

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/manifest"
)

// mergeGolden is testdata/merge-env.yaml: the rule for a container's own
// settings, written out by hand case by case.
type mergeGolden struct {
	Proxy []corev1.EnvVar `json:"proxy"`
	Cases []struct {
		Name     string `json:"name"`
		Override bool   `json:"override"`
		Merge    bool   `json:"merge"`
		EnvFrom  map[string]struct {
			Value, Kind, Object, Key string
		} `json:"envFrom"`
		Env   []corev1.EnvVar `json:"env"`
		Want  []corev1.EnvVar `json:"want"`
		Notes []string        `json:"notes"`
	} `json:"cases"`
}

// MergeEnv gives what the golden table writes out, and exactly the notes it
// names (each note found by a part of its text).
func TestMergeEnvGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/merge-env.yaml")
	require.NoError(t, err)
	var g mergeGolden
	require.NoError(t, yaml.UnmarshalStrict(b, &g))
	require.NotEmpty(t, g.Cases)
	for _, tc := range g.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			o := MergeOptions{Override: tc.Override, MergeNoProxy: tc.Merge, Where: "Deployment/web container app"}
			for name, v := range tc.EnvFrom {
				if o.EnvFrom == nil {
					o.EnvFrom = map[string]EnvFromValue{}
				}
				o.EnvFrom[name] = EnvFromValue{Value: v.Value, Source: manifest.Ref{Kind: v.Kind, Name: v.Object}, Key: v.Key}
			}
			before := append([]corev1.EnvVar{}, tc.Env...)
			got, notes := MergeEnv(tc.Env, g.Proxy, o)
			assert.Equal(t, tc.Want, got)
			assert.ElementsMatch(t, before, tc.Env, "the container's own list is not touched")
			require.Len(t, notes, len(tc.Notes), "%q", notes)
			for i, part := range tc.Notes {
				assert.Contains(t, notes[i], "Deployment/web container app: "+part)
			}
			again, _ := MergeEnv(got, g.Proxy, o)
			assert.Equal(t, got, again, "merging twice equals merging once")
		})
	}
}

// envEditor replaces in place, appends in order, and changes nothing for an
// equal entry.
func TestEnvEditor(t *testing.T) {
	e := newEnvEditor([]corev1.EnvVar{{Name: "A", Value: "1"}})
	e.set(corev1.EnvVar{Name: "A", Value: "1"})
	assert.False(t, e.changed, "an equal entry changes nothing")
	e.set(corev1.EnvVar{Name: "B", Value: "2"})
	e.set(corev1.EnvVar{Name: "A", Value: "3"})
	assert.True(t, e.changed)
	assert.Equal(t, []corev1.EnvVar{{Name: "A", Value: "3"}, {Name: "B", Value: "2"}}, e.env)
}

// The stream's maps go to the API's types and back untouched where the merge
// changed nothing: fields the types do not know stay.
func TestUntypedEnvKeepsWhatItDidNotChange(t *testing.T) {
	list := []any{
		map[string]any{"name": "A", "value": "1", "x-unknown": "kept"},
		map[string]any{"name": "B", "valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}}},
	}
	env, err := typedEnv(list)
	require.NoError(t, err)
	merged := append(append([]corev1.EnvVar(nil), env...), corev1.EnvVar{Name: "C", ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"}}})
	out, err := untypedEnv(merged, env, list)
	require.NoError(t, err)
	assert.Equal(t, list[:2], out[:2])
	assert.Equal(t, map[string]any{"name": "C", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "k"}}}, out[2])

	_, err = typedEnv([]any{"NAME=value"})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "env[0] "), err)
}
