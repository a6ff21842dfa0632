package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/manifest"
)

// A Pod without a record: its variables against what the values render.
func TestCheckStaleWithoutRecord(t *testing.T) {
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
    - name: withheld
      env: [{name: HTTP_PROXY, valueFrom: {secretKeyRef: {name: live, key: HTTP_PROXY}}}, {name: NO_PROXY, value: "10.244.0.0/16,10.245.0.0/16"}]
---
apiVersion: v1
kind: Secret
metadata: {name: live}
data: {HTTP_PROXY: null}
`)
	require.NoError(t, err)
	want := map[string]string{"NO_PROXY": "10.244.0.0/16,10.245.0.0/16", "HTTP_PROXY": "http://p:3128"}
	assert.Equal(t, []Finding{{Object: "Pod/old", Container: "stale", Rule: RuleStaleProxyEnv,
		Message: "NO_PROXY differs from what the values render now (the Pod carries no proxykit.io/proxy-config record, so its variables were compared); Pod env is immutable: roll out the Pod's owner"}},
		CheckStale(m, Now{Values: want, Record: "v1-new"}),
		"a missing variable is missing-proxy-env's; an opted-out container is left alone; a value withheld from a live Secret is not compared")
	assert.Empty(t, CheckStale(m, Now{}), "nothing known about now, nothing judged")
}

// A Pod with a record: judged by it against its Secret's, else the values'; its
// own variables are never compared.
func TestCheckStaleByRecord(t *testing.T) {
	const pods = `apiVersion: v1
kind: Pod
metadata: {name: through-secret, annotations: {proxykit.io/proxy-config: v1-old}}
spec:
  containers:
    - name: app
      env: [{name: HTTP_PROXY, valueFrom: {secretKeyRef: {name: proxy, key: HTTP_PROXY}}}]
    - name: no-proxy-variables
      env: [{name: OTHER, value: x}]
---
apiVersion: v1
kind: Pod
metadata: {name: plain, annotations: {proxykit.io/proxy-config: v1-old}}
spec:
  containers:
    - name: own
      env: [{name: HTTP_PROXY, value: "http://own:3128"}, {name: NO_PROXY, value: own}]
`
	secret := func(record string) string {
		return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: proxy, annotations: {proxykit.io/proxy-config: " + record + "}}\ndata: {HTTP_PROXY: null}\n"
	}
	values := map[string]string{"HTTP_PROXY": "http://p:3128", "NO_PROXY": "10.0.0.0/8"}
	for _, c := range []struct {
		name, secret, record string
		want                 []Finding
	}{
		{"right after install: the records agree", secret("v1-old"), "v1-old", nil},
		{"the Secret changed in place", secret("v1-new"), "v1-old", []Finding{{Object: "Pod/through-secret", Container: "app", Rule: RuleStaleProxyEnv,
			Message: "the Pod started with proxy configuration v1-old (its proxykit.io/proxy-config annotation) and a container starting now gets v1-new (from Secret/proxy): a password, NO_PROXY or a network changed since, and Pod env is immutable: roll out the Pod's owner"}}},
		{"the values changed", secret("v1-old"), "v1-new", []Finding{{Object: "Pod/plain", Container: "own", Rule: RuleStaleProxyEnv,
			Message: "the Pod started with proxy configuration v1-old (its proxykit.io/proxy-config annotation) and a container starting now gets v1-new (from the values): a password, NO_PROXY or a network changed since, and Pod env is immutable: roll out the Pod's owner"}}},
		{"the Secret speaks before the values", secret("v1-old"), "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := manifest.Parse(pods + c.secret)
			require.NoError(t, err)
			assert.Equal(t, c.want, CheckStale(m, Now{Record: c.record, Values: values}))
		})
	}
}
