package proxytest

import (
	"reflect"
	"testing"
)

// Get returns the object named name whose kind is T's type name, decoded into T
// strictly (Decode), and fails t when it is missing or does not decode:
//
//	d := proxytest.Get[appsv1.Deployment](t, m, "shop-api")
func Get[T any](t testing.TB, m *Manifests, name string) T {
	t.Helper()
	var out T
	if err := m.Decode(reflect.TypeOf(out).Name(), name, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Container is ContainerE that fails t. Its Env is the container's []corev1.EnvVar:
//
//	env := m.Container(t, "Deployment/shop-api", "api").Env
func (m *Manifests) Container(t testing.TB, object, name string) Container {
	t.Helper()
	c, err := m.ContainerE(object, name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
