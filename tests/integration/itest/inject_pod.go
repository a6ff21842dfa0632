//go:build integration

package itest

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/inject"
	"github.com/proxykit/proxykit/proxytest"
)

// InjectPod runs a Pod through inject, as a post-renderer would.
func InjectPod(t *testing.T, injector *inject.Injector, pod corev1.Pod) corev1.Pod {
	t.Helper()
	in, err := yaml.Marshal(pod)
	require.NoError(t, err)
	out, _, err := injector.Stream(in)
	require.NoError(t, err)
	m, err := proxytest.Parse(string(out))
	require.NoError(t, err)
	var injected corev1.Pod
	require.NoError(t, m.Decode("Pod", pod.Name, &injected))
	return injected
}
