package proxytest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// Decode decodes the object of this kind and name into out, a k8s.io/api type
// or any struct with JSON tags, strictly: a field the type does not know, or a
// key written twice, fails, so a typo in a template is an error, not a silently
// dropped field.
func (m *Manifests) Decode(kind, name string, out any) error {
	o := m.Find(kind, name)
	if o == nil {
		return fmt.Errorf("proxytest: no %s/%s in the manifests; have %s", kind, name, strings.Join(m.IDs(), ", "))
	}
	return o.Decode(out)
}

// Decode decodes the object into out strictly, as Manifests.Decode does; use it
// where several objects share a kind and name (in different namespaces).
func (o Object) Decode(out any) error {
	if err := yaml.UnmarshalStrict([]byte(o.Raw), out); err != nil {
		return fmt.Errorf("proxytest: %s does not decode into %T: %w", o.ID(), out, err)
	}
	return nil
}

// IDs lists "Kind/name" of every object, in order.
func (m *Manifests) IDs() []string {
	ids := make([]string, 0, len(m.Objects))
	for _, o := range m.Objects {
		ids = append(ids, o.ID())
	}
	return ids
}

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

// ContainerE returns the container (of any list) named name in the object "Kind/name".
func (m *Manifests) ContainerE(object, name string) (Container, error) {
	var names []string
	for _, c := range m.Containers() {
		if c.Object != object {
			continue
		}
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	if names == nil {
		return Container{}, fmt.Errorf("proxytest: %s has no pod template in the manifests; have %s", object, strings.Join(m.IDs(), ", "))
	}
	return Container{}, fmt.Errorf("proxytest: %s has no container %q; it has %s", object, name, strings.Join(names, ", "))
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

// Environment is the container's environment as the kubelet builds it: envFrom,
// then env, with secretKeyRef and configMapKeyRef read from the Secrets and
// ConfigMaps of the manifests. A variable whose source is missing, or that comes
// from a fieldRef or resourceFieldRef, is left out.
func (m *Manifests) Environment(c Container) map[string]string {
	out := map[string]string{}
	for name, v := range resolveEnv(m, c).vars {
		if v.known() {
			out[name] = v.value
		}
	}
	return out
}
