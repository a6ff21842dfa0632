package tests

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/manifest"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// One opt-out vocabulary: the library's proxykit.optOut.annotations is what
// proxytest (and so check, audit and inject) honours and what the policies of
// proxy-policies exclude.
func TestOptOutVocabularyIsTheLibrarys(t *testing.T) {
	out := fixture.Include(t, nil, proxykit.Call{Helper: "proxykit.optOut.annotations"})
	var v struct {
		Pod            map[string]string
		SkipContainers string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, v.Pod, manifest.PodOptOuts())
	assert.Equal(t, "false", v.Pod[proxytest.AnnotationInject])
	assert.Equal(t, proxytest.AnnotationSkipContainers, v.SkipContainers)

	// the ClusterPolicy excludes exactly those Pods
	m := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain+fixture.ClusterPolicyKind))
	excluded := map[string]string{}
	for _, rule := range fixture.DecodePolicy(t, m, "inject-proxy-env").Spec.Rules {
		for _, any := range rule.Exclude.Any {
			for k, val := range any.Resources.Annotations {
				excluded[k] = val
			}
		}
	}
	assert.Equal(t, v.Pod, excluded)
	// the CEL engines name every one, and the skip-containers key
	for _, text := range []string{fixture.SourceText(m, "templates/native-mutatingadmissionpolicy.yaml")} {
		for k := range v.Pod {
			assert.Contains(t, text, k)
		}
		assert.Contains(t, text, v.SkipContainers)
	}
}
