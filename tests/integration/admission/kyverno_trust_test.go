//go:build integration

package admission

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/harness"
)

// TestKyvernoInjectsTheTrust: with proxy.trustedCA the real Kyverno engine adds
// the four trust variables, the bundle volume once, and a read-only mount to
// every container, init and ephemeral container, keeping a container's own mount
// at that path and leaving opted-out Pods alone.
func TestKyvernoInjectsTheTrust(t *testing.T) {
	harness.Parallel(t)
	ca, _ := fixture.NewCA(t, "corp")
	values := strings.Replace(fixture.PolicyValuesPlain, "proxy:\n", "proxy:\n  trustedCA: "+fixture.YAMLQuote(ca)+"\n", 1)
	require.Contains(t, values, "trustedCA")
	cases := fixture.PodCases()
	ownMount := fixture.Pod("own-mount", "apps", nil, fixture.Ctr("app"))
	ownMount.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "corp-ca", MountPath: "/etc/proxykit/ca"}}
	ownMount.Spec.Volumes = []corev1.Volume{{Name: "corp-ca", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	cases = append(cases, fixture.PodCase{Name: "own mount at the bundle's path", Pod: ownMount, Injected: true})
	var pods []corev1.Pod
	for _, c := range cases {
		pods = append(pods, c.Pod)
	}
	mutated := kyvernoApply(t, values, pods)
	mount := corev1.VolumeMount{Name: "proxykit-ca-bundle", MountPath: "/etc/proxykit/ca", ReadOnly: true}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got := mutated[c.Pod.Name]
			assertInjection(t, c.Pod, got, fixture.WithEnv(fixture.PolicyProxyEnv, fixture.TrustEnv...), c.Injected, false)
			var bundles []corev1.Volume
			for _, v := range got.Spec.Volumes {
				if v.Name == "proxykit-ca-bundle" {
					bundles = append(bundles, v)
				}
			}
			if !c.Injected {
				assert.Empty(t, bundles, "no volume")
				assert.Equal(t, c.Pod.Spec.Containers[0].VolumeMounts, got.Spec.Containers[0].VolumeMounts)
				return
			}
			require.Len(t, bundles, 1, "the bundle volume, once")
			assert.Equal(t, "proxykit-ca-bundle", bundles[0].ConfigMap.Name)
			all := append(append([]corev1.Container{}, got.Spec.InitContainers...), got.Spec.Containers...)
			for _, e := range got.Spec.EphemeralContainers {
				all = append(all, corev1.Container(e.EphemeralContainerCommon))
			}
			for i, ctr := range all {
				if fixture.Skipped(c.Pod, "any/"+ctr.Name) {
					assert.Empty(t, ctr.VolumeMounts, "%s opts out: no bundle mount", ctr.Name)
					continue
				}
				if c.Pod.Name == "own-mount" {
					assert.Equal(t, ownMount.Spec.Containers[0].VolumeMounts, ctr.VolumeMounts, "the container's own mount stays")
					continue
				}
				assert.Equal(t, []corev1.VolumeMount{mount}, ctr.VolumeMounts, "container %d (%s)", i, ctr.Name)
			}
		})
	}
}

// TestKyvernoMountsTheTrustInDebugContainers: kubectl debug adds ephemeral
// containers through the pods/ephemeralcontainers subresource; they get the
// mount too, but only in a Pod that has the bundle volume (a subresource update
// cannot add volumes, and a mount without its volume would be rejected).
func TestKyvernoMountsTheTrustInDebugContainers(t *testing.T) {
	harness.Parallel(t)
	ca, _ := fixture.NewCA(t, "corp")
	values := strings.Replace(fixture.PolicyValuesPlain, "proxy:\n", "proxy:\n  trustedCA: "+fixture.YAMLQuote(ca)+"\n", 1)
	policy := fixture.DecodePolicy(t, fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(values+fixture.ClusterPolicyKind)), "inject-proxy-env")
	var names []string
	for _, r := range policy.Spec.Rules {
		names = append(names, r.Name)
	}
	assert.Subset(t, names, []string{"add-ca-bundle-volume", "mount-ca-bundle-create-containers", "mount-ca-bundle-create-init-containers",
		"mount-ca-bundle-create-ephemeral-containers", "mount-ca-bundle-debug-ephemeral-containers"})
	raw := string(fixture.Find(t, fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(values+fixture.ClusterPolicyKind)), "ClusterPolicy", "inject-proxy-env").Raw)
	debug := raw[strings.Index(raw, "name: mount-ca-bundle-debug-ephemeral-containers"):]
	assert.Contains(t, debug[:800], "kinds: [Pod/ephemeralcontainers]")
	assert.Contains(t, debug[:1200], "request.object.spec.volumes[?name=='proxykit-ca-bundle']")
}
