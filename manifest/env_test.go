package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A Secret read from a live cluster keeps its keys, not its values (proxykit
// audit drops them): such a value is withheld, never the empty string, and a
// key that is not there is missing.
func TestResolveEnvWithheldSecretValues(t *testing.T) {
	secret := corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: metav1.ObjectMeta{Name: "proxy", Namespace: "apps"},
		Data: map[string][]byte{"HTTP_PROXY": nil, "NO_PROXY": []byte("10.0.0.0/8")}}
	ref := func(name, key string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "proxy"}, Key: key}}}
	}
	pod := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "apps"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app",
			Env:     []corev1.EnvVar{ref("HTTP_PROXY", "HTTP_PROXY"), ref("NO_PROXY", "NO_PROXY"), ref("HTTPS_PROXY", "HTTPS_PROXY")},
			EnvFrom: []corev1.EnvFromSource{{Prefix: "FROM_", SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "proxy"}}}}}}}}
	m, err := FromObjects(pod, secret)
	require.NoError(t, err)
	ctrs := m.Containers()
	require.Len(t, ctrs, 1)
	env := m.ResolveEnv(ctrs[0]).Vars
	assert.Equal(t, Value{From: "Secret/proxy", Withheld: true}, env["HTTP_PROXY"])
	assert.False(t, env["HTTP_PROXY"].Known())
	assert.Equal(t, Value{From: "Secret/proxy", Withheld: true}, env["FROM_HTTP_PROXY"])
	assert.Equal(t, Value{Value: "10.0.0.0/8", From: "Secret/proxy"}, env["NO_PROXY"])
	assert.True(t, env["NO_PROXY"].Known())
	assert.Equal(t, "key HTTPS_PROXY of Secret/proxy", env["HTTPS_PROXY"].Missing)
	assert.Equal(t, map[string]string{"NO_PROXY": "10.0.0.0/8", "FROM_NO_PROXY": "10.0.0.0/8"}, m.Environment(ctrs[0]))
	data, ok := m.ObjectData("Secret", "proxy", "apps")
	assert.True(t, ok)
	assert.Equal(t, map[string]string{"NO_PROXY": "10.0.0.0/8"}, data)
}
