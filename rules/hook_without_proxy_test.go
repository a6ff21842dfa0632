package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/manifest"
)

// A hook Job that Helm 3 never post-rendered is reported once, not per
// container, with advice for a chart the user may not own: the policies, or
// Helm 4. A container that opts out is not named; on a live cluster a hook's
// Pod is an ordinary Pod (missing-proxy-env, with an operator's advice).
func TestHookWithoutProxy(t *testing.T) {
	job := `apiVersion: batch/v1
kind: Job
metadata: {name: migrate, annotations: {helm.sh/hook: "pre-install,pre-upgrade"}}
spec:
  template:
    metadata: {annotations: {proxykit.io/skip-containers: metrics}}
    spec:
      initContainers: [{name: wait, image: x}]
      containers: [{name: migrate, image: x}, {name: metrics, image: x}]
`
	m, err := manifest.Parse(job)
	require.NoError(t, err)
	findings := Check(m, WithCluster(testCluster))
	require.Len(t, findings, 1, "%v", findings)
	f := findings[0]
	assert.Equal(t, RuleHookWithoutProxy, f.Rule)
	assert.Equal(t, "Job/migrate", f.Object)
	assert.Empty(t, f.Container, "one finding for the object")
	assert.Equal(t, "a Helm hook (helm.sh/hook: pre-install,pre-upgrade) whose containers wait, migrate get no proxy: Helm 3 passes hooks to no post-renderer, so proxykit inject never sees it; "+
		"for a chart you don't own, proxy-policies injects it at admission, or Helm 4 post-renders hooks (proxykit inject as its plugin) unless an SDK user (Flux, say) sets Helm 4.3's nohooks post-render strategy, which leaves hooks as Helm 3 does; in a chart you own, call proxykit.generateEnv for it", f.Message)

	// injected: nothing
	m, err = manifest.Parse(pod(plainEnv("http://proxy:3128", goodNoProxy), ""))
	require.NoError(t, err)
	for _, f := range Check(m, WithCluster(testCluster)) {
		assert.NotEqual(t, RuleHookWithoutProxy, f.Rule)
	}

	// live: the Pod of a hook is judged as any Pod
	m, err = manifest.Parse(job)
	require.NoError(t, err)
	var rules []string
	for _, f := range Check(m, WithCluster(testCluster), OnLiveCluster()) {
		rules = append(rules, f.Rule)
	}
	assert.Equal(t, []string{RuleMissingProxyEnv, RuleMissingProxyEnv}, rules)
}
