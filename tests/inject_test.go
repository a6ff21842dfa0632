package tests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// TestInjectPodCases runs the policies' shared Pod table through inject: every
// container gets what the injection rule inject.MergeEnv writes out
// says, the opt-outs are honoured, and no container moves. Namespace and name
// scope (kube-system, namespaces.exclude, exclude.names) are the policies' own:
// inject injects what it is given. The differential test against the native
// policy in real admission is tests/integration's TestInjectMatchesAdmission.
func TestInjectPodCases(t *testing.T) {
	var values map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(fixture.PolicyValuesPlain), &values))
	for _, pc := range fixture.PodCases() {
		t.Run(pc.Name, func(t *testing.T) {
			in, err := yaml.Marshal(pc.Pod)
			require.NoError(t, err)
			out, _, err := inject.Stream(in, inject.Options{Values: values})
			require.NoError(t, err)
			m, err := proxytest.Parse(string(out))
			require.NoError(t, err)
			var got corev1.Pod
			require.NoError(t, m.Decode("Pod", pc.Pod.Name, &got))
			assert.Equal(t, fixture.ContainerOrder(pc.Pod), fixture.ContainerOrder(got))
			optedOut := proxytest.Container{Annotations: pc.Pod.Annotations}.OptedOut() != ""
			for key, c := range fixture.Containers(pc.Pod) {
				own := c.Env
				want := fixture.ExpectedEnv(c, fixture.PolicyProxyEnv, inject.MergeOptions{MergeNoProxy: true}) // policy.mergeNoProxy by default
				if optedOut || fixture.Skipped(pc.Pod, key) {
					want = own
				}
				assert.Equal(t, want, fixture.ContainerEnvs(got)[key], key)
			}
		})
	}
}
