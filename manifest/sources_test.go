package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

// One walk of a container's sources: envFrom with its prefix and optional
// flag, the keyRefs, and what its mounts project (items, subPath), a volume
// it does not mount left out.
func TestSourcesOf(t *testing.T) {
	yes := true
	c := corev1.Container{
		EnvFrom: []corev1.EnvFromSource{
			{Prefix: "APP_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "env"}}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Optional: &yes}},
		},
		Env: []corev1.EnvVar{
			{Name: "A", Value: "x"},
			{Name: "B", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "proxy"}, Key: "HTTP_PROXY"}}},
			{Name: "C", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "conf", MountPath: "/etc/app", SubPath: "app.ini"}},
	}
	volumes := []corev1.Volume{
		{Name: "conf", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "app"}, Items: []corev1.KeyToPath{{Key: "ini", Path: "app.ini"}}}},
			{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "tls"}}},
		}}}},
		{Name: "unmounted", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "other"}}}},
	}
	s := SourcesOf(c, volumes)
	assert.Equal(t, []EnvSource{{Ref{"ConfigMap", "env"}, "APP_", false}, {Ref{"Secret", "creds"}, "", true}}, s.EnvFrom)
	assert.Equal(t, []Ref{{"Secret", "proxy"}}, s.KeyRefs)
	assert.Equal(t, []MountedSource{
		{VolumeSource{Ref{"ConfigMap", "app"}, []string{"ini"}, []string{"app.ini"}}, "/etc/app", "app.ini"},
		{VolumeSource{Ref: Ref{"Secret", "tls"}}, "/etc/app", "app.ini"},
	}, s.Mounts)
	assert.Equal(t, []Ref{{"ConfigMap", "env"}, {"Secret", "creds"}, {"Secret", "proxy"}, {"ConfigMap", "app"}, {"Secret", "tls"}}, s.Refs())
	assert.Equal(t, "Secret/creds", s.EnvFrom[1].String())
}
