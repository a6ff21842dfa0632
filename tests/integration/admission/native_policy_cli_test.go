//go:build integration

package admission

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// TestNativePolicyCELWithKyvernoCLI runs the MutatingAdmissionPolicy through the
// Kyverno CLI's admission-policy engine (the Kubernetes CEL libraries) on the
// shared pod table. The CLI knows this kind only as v1alpha1, whose spec fields
// are the same, so the test relabels it. Offline the CLI has no Pod schema and
// merges lists atomically, so this proves that the CEL compiles, that scope and
// opt-outs hold, and that missing variables are added; that a container's own
// entries survive the merge is a property of the API server's merge. The CLI
// does not give a MutatingAdmissionPolicy its variables (it fails on a Pod whose
// own NO_PROXY the merge reads variables.psl for), so this runs the policy with
// policy.mergeNoProxy switched off; the admission matrix runs the default in
// the API server.
func TestNativePolicyCELWithKyvernoCLI(t *testing.T) {
	harness.Parallel(t)
	r := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain+"policy: {mergeNoProxy: false}\n"))
	var docs []string
	for _, kind := range []string{"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"} {
		docs = append(docs, strings.Replace(string(fixture.Find(t, r, kind, "inject-proxy-env").Raw),
			"apiVersion: admissionregistration.k8s.io/v1\n", "apiVersion: admissionregistration.k8s.io/v1alpha1\n", 1))
	}
	cases := fixture.PodCases()
	var pods []corev1.Pod
	for _, c := range cases {
		pods = append(pods, c.Pod)
	}
	mutated := kyvernoApplyPolicy(t, []byte(strings.Join(docs, "\n---\n")), pods)
	injected := 0
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			after, ok := mutated[c.Pod.Name]
			require.True(t, ok)
			if !c.Injected {
				assert.Equal(t, fixture.ContainerEnvs(c.Pod), fixture.ContainerEnvs(after), "left alone")
				return
			}
			injected++
			got := fixture.ContainerEnvs(after)
			for name, ctr := range fixture.Containers(c.Pod) {
				own := ctr.Env
				want := fixture.ExpectedEnv(ctr, fixture.PolicyProxyEnv, inject.MergeOptions{})
				if fixture.Skipped(c.Pod, name) {
					want = own
				}
				assert.Equal(t, want, got[name], "%s", name)
			}
		})
	}
	assert.Positive(t, injected)
}
