package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/manifest"
)

// A chart's render gets a chart author's advice; a live cluster's Pod an
// operator's: a rollout, or the policy's scope (issue 36).
func TestMissingProxyEnvAdvice(t *testing.T) {
	m, err := manifest.Parse("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  containers: [{name: c, image: x}]\n")
	require.NoError(t, err)
	chart := Check(m, WithCluster(testCluster))
	require.Len(t, chart, 1)
	assert.Contains(t, chart[0].Message, "call proxykit.generateEnv")
	live := Check(m, WithCluster(testCluster), OnLiveCluster())
	require.Len(t, live, 1)
	assert.NotContains(t, live[0].Message, "generateEnv")
	assert.Contains(t, live[0].Message, "If the policy injects namespace shop now, `proxykit rollout --apply` restarts the Pod's owner")
	assert.Contains(t, live[0].Message, "namespaces.include")
}

func TestRuleMissingProxyEnv(t *testing.T) {
	checkCases(t, []ruleCase{
		{"no proxy env at all", pod("", ""), []string{RuleMissingProxyEnv}},
		{"lower-case twins missing", pod("- {name: HTTP_PROXY, value: \"http://p:1\"}\n- {name: HTTPS_PROXY, value: \"http://p:1\"}\n- {name: NO_PROXY, value: \""+goodNoProxy+"\"}", ""),
			[]string{RuleMissingProxyEnv}},
	})
}
