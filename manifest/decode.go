package manifest

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// Decode decodes the object of this kind and name into out, a k8s.io/api type
// or any struct with JSON tags, strictly: a field the type does not know, or a
// key written twice, fails, so a typo in a template is an error, not a silently
// dropped field.
func (m *Manifests) Decode(kind, name string, out any) error {
	o := m.Find(kind, name)
	if o == nil {
		return fmt.Errorf("manifest: no %s/%s in the manifests; have %s", kind, name, strings.Join(m.IDs(), ", "))
	}
	return o.Decode(out)
}

// Decode decodes the object into out strictly, as Manifests.Decode does; use it
// where several objects share a kind and name (in different namespaces).
func (o Object) Decode(out any) error {
	if err := yaml.UnmarshalStrict([]byte(o.Raw), out); err != nil {
		return fmt.Errorf("manifest: %s does not decode into %T: %w", o.ID(), out, err)
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
		return Container{}, fmt.Errorf("manifest: %s has no pod template in the manifests; have %s", object, strings.Join(m.IDs(), ", "))
	}
	return Container{}, fmt.Errorf("manifest: %s has no container %q; it has %s", object, name, strings.Join(names, ", "))
}
