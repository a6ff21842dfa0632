//go:build integration

package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/tests/fixture"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// cellInjector is `proxykit inject` with an admission cell's values and release,
// which names the credentials Secret as the policies' release does.
func cellInjector(t testing.TB, cell admissionCell) *inject.Injector {
	t.Helper()
	var values map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(cell.values(cell.password())), &values))
	return inject.New(inject.Options{Values: values, Release: cell.release()})
}

// assertInjectMatchesAdmission is the differential test of inject against the
// native policy in real admission: the Pod as inject writes it and the Pod as the
// API server stored it have the same env in every container, the same bundle
// mount and the same bundle volume. Scope (namespaces, name patterns) is the
// policies' own, so only Pods the policy injects, or that opt out, are compared.
func assertInjectMatchesAdmission(t *testing.T, injector *inject.Injector, original, stored corev1.Pod) {
	t.Helper()
	injected := itest.InjectPod(t, injector, original)
	assert.Equal(t, fixture.ContainerEnvs(stored), fixture.ContainerEnvs(injected), "inject and the native policy give every container the same env")
	assert.Equal(t, bundleMounts(stored), bundleMounts(injected), "and the same bundle mounts")
	assert.Equal(t, bundleVolumes(stored), bundleVolumes(injected), "and the same bundle volume (the ConfigMap it reads)")
}

func bundleMounts(p corev1.Pod) map[string][]corev1.VolumeMount {
	out := map[string][]corev1.VolumeMount{}
	add := func(list string, c corev1.Container) {
		for _, m := range c.VolumeMounts {
			if m.Name == "proxykit-ca-bundle" {
				out[list+"/"+c.Name] = append(out[list+"/"+c.Name], m)
			}
		}
	}
	for _, c := range p.Spec.InitContainers {
		add("initContainers", c)
	}
	for _, c := range p.Spec.Containers {
		add("containers", c)
	}
	for _, e := range p.Spec.EphemeralContainers {
		add("ephemeralContainers", corev1.Container(e.EphemeralContainerCommon))
	}
	return out
}

// bundleVolumes names the ConfigMap of each bundle volume (the API server adds
// defaultMode to what either wrote).
func bundleVolumes(p corev1.Pod) []string {
	var out []string
	for _, v := range p.Spec.Volumes {
		if v.Name == "proxykit-ca-bundle" && v.ConfigMap != nil {
			out = append(out, v.ConfigMap.Name)
		}
	}
	return out
}
