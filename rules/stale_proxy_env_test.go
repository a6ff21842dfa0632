package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/manifest"
)

func TestCheckStale(t *testing.T) {
	m, err := manifest.Parse(`apiVersion: v1
kind: Pod
metadata: {name: old, annotations: {proxykit.io/skip-containers: skipped}}
spec:
  containers:
    - name: stale
      env: [{name: NO_PROXY, value: "10.244.0.0/16"}, {name: HTTP_PROXY, value: "http://p:3128"}]
    - name: current
      env: [{name: NO_PROXY, value: "10.244.0.0/16,10.245.0.0/16"}, {name: HTTP_PROXY, value: "http://p:3128"}]
    - name: partial
      env: [{name: HTTP_PROXY, value: "http://p:3128"}]
    - name: skipped
      env: [{name: NO_PROXY, value: "old"}]
`)
	require.NoError(t, err)
	want := map[string]string{"NO_PROXY": "10.244.0.0/16,10.245.0.0/16", "HTTP_PROXY": "http://p:3128"}
	assert.Equal(t, []Finding{{Object: "Pod/old", Container: "stale", Rule: RuleStaleProxyEnv,
		Message: "NO_PROXY differs from what the values render now; Pod env is immutable: roll out the Pod's owner"}}, CheckStale(m, want),
		"a missing variable is missing-proxy-env's; an opted-out container is left alone")
}
