//go:build integration

package admission

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// BenchmarkKyvernoApply times `kyverno apply` of the injection policy on one Pod
// with 1, 20 and 200 containers; the CLI's start-up is part of every run.
func BenchmarkKyvernoApply(b *testing.B) {
	r := fixture.Render(b, fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain+fixture.ClusterPolicyKind))
	for _, n := range []int{1, 20, 200} {
		b.Run(fmt.Sprintf("containers=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			policy := filepath.Join(dir, "policy.yaml")
			require.NoError(b, os.WriteFile(policy, []byte(fixture.Find(b, r, "ClusterPolicy", "inject-proxy-env").Raw), 0o600))
			var containers []corev1.Container
			for i := 0; i < n; i++ {
				containers = append(containers, fixture.Ctr(fmt.Sprintf("c%d", i), fixture.Val("OWN", "1")))
			}
			p, err := yaml.Marshal(fixture.Pod("bench", "apps", nil, containers...))
			require.NoError(b, err)
			resources := filepath.Join(dir, "pod.yaml")
			require.NoError(b, os.WriteFile(resources, p, 0o600))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				runKyvernoApply(b, policy, resources)
			}
		})
	}
}
