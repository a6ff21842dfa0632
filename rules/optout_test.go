package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/manifest"
)

func TestOptOuts(t *testing.T) {
	cases := []struct {
		name        string
		annotations string
		want        map[string]string // container -> OptedOut()
	}{
		{"no annotation", "", map[string]string{"init": "", "app": "", "metrics": ""}},
		{"proxykit.io/inject false", `proxykit.io/inject: "false"`,
			map[string]string{"init": "the Pod is annotated proxykit.io/inject: false", "app": "the Pod is annotated proxykit.io/inject: false", "metrics": "the Pod is annotated proxykit.io/inject: false"}},
		{"proxykit.io/inject true is no opt-out", `proxykit.io/inject: "true"`, map[string]string{"init": "", "app": "", "metrics": ""}},
		{"Giant Swarm's annotation", `policies.kyverno.io/inject-proxy-env: exclude`,
			map[string]string{"init": "the Pod is annotated policies.kyverno.io/inject-proxy-env: exclude", "app": "the Pod is annotated policies.kyverno.io/inject-proxy-env: exclude", "metrics": "the Pod is annotated policies.kyverno.io/inject-proxy-env: exclude"}},
		{"AKS's annotation", `kubernetes.azure.com/no-http-proxy-vars: "true"`,
			map[string]string{"init": "the Pod is annotated kubernetes.azure.com/no-http-proxy-vars: true", "app": "the Pod is annotated kubernetes.azure.com/no-http-proxy-vars: true", "metrics": "the Pod is annotated kubernetes.azure.com/no-http-proxy-vars: true"}},
		{"skip-containers names a container and an init container, with spaces", `proxykit.io/skip-containers: " metrics ,init,"`,
			map[string]string{"init": "proxykit.io/skip-containers names it", "app": "", "metrics": "proxykit.io/skip-containers names it"}},
		{"skip-containers matches whole names only", `proxykit.io/skip-containers: "metric,ap"`, map[string]string{"init": "", "app": "", "metrics": ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    metadata:\n      annotations: {" + tc.annotations + "}\n" +
				"    spec:\n      initContainers: [{name: init, image: x}]\n      containers: [{name: app, image: x}, {name: metrics, image: x}]\n"
			m, err := manifest.Parse(doc)
			require.NoError(t, err)
			got := map[string]string{}
			var missing []string
			for _, c := range m.Containers() {
				got[c.Name] = c.OptedOut()
			}
			for _, f := range Check(m, WithCluster(testCluster)) {
				require.Equal(t, RuleMissingProxyEnv, f.Rule)
				missing = append(missing, f.Container)
			}
			assert.Equal(t, tc.want, got)
			var want []string
			for _, name := range []string{"init", "app", "metrics"} {
				if tc.want[name] == "" {
					want = append(want, name)
				}
			}
			assert.Equal(t, want, missing, "missing-proxy-env only for containers that do not opt out")
		})
	}
}

// An opted-out container still must not leak credentials or read a missing Secret.
func TestOptOutKeepsTheOtherRules(t *testing.T) {
	m, err := manifest.Parse(`apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {proxykit.io/inject: "false"}
spec:
  containers:
    - name: c
      image: x
      env:
        - {name: HTTP_PROXY, value: "http://u:pw@proxy:3128"}
        - {name: HTTPS_PROXY, valueFrom: {secretKeyRef: {name: gone, key: HTTPS_PROXY}}}
`)
	require.NoError(t, err)
	assert.Equal(t, []string{RuleCredentialsExposed, RuleCredentialsExposed, RuleMissingSecret}, rules(Check(m, WithCluster(testCluster))))
}
