package manifest

import (
	"encoding/base64"
	"fmt"
)

// Value is one variable as a container would see it, with where it comes from.
type Value struct {
	Value string
	// From is "value", "Secret/NAME", "ConfigMap/NAME", or "other" (a fieldRef,
	// a resourceFieldRef: nothing the manifests can tell).
	From string
	// Missing names the object or key it reads that the manifests lack.
	Missing string
	// Withheld: the key is there but its value was not read (proxykit audit
	// keeps a live Secret's keys, not its values, which may hold credentials).
	Withheld bool
}

// Known tells whether the value is what the container gets: its source is in
// the manifests, its value was read, and it is no fieldRef.
func (v Value) Known() bool { return v.Missing == "" && v.From != "other" && !v.Withheld }

// Env is a container's environment as the kubelet builds it.
type Env struct {
	Vars map[string]Value
	// MissingSources are the envFrom sources ("Secret/NAME") the manifests lack
	// and that are not optional.
	MissingSources []string
}

// ResolveEnv applies envFrom, then env, as the kubelet does (env wins), reading
// secretKeyRef and configMapKeyRef from the Secrets and ConfigMaps of the
// manifests in the container's namespace.
func (m *Manifests) ResolveEnv(ctr Container) Env {
	c, ns := ctr.Container, ctr.Namespace
	env := Env{Vars: map[string]Value{}}
	for _, src := range ctr.Sources().EnvFrom {
		data, ok := m.objectData(src.Kind, src.Name, ns)
		if !ok {
			if !src.Optional {
				env.MissingSources = append(env.MissingSources, src.String())
			}
			continue
		}
		for k, v := range data {
			env.Vars[src.Prefix+k] = v.from(src.String())
		}
	}
	total := 0
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			// $(VAR) reads the variables set so far, as the kubelet expands them;
			// past the kernel's limit of a whole environment nothing more is
			// expanded (such a container never starts)
			value, ok := e.Value, false
			if total <= maxEnvironment {
				value, ok = expand(e.Value, env.lookup)
			}
			if ok {
				total += len(value)
			}
			env.Vars[e.Name] = Value{Value: value, From: "value"}
		case e.ValueFrom.SecretKeyRef != nil:
			env.Vars[e.Name] = m.keyRef("Secret", e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key, ns)
		case e.ValueFrom.ConfigMapKeyRef != nil:
			env.Vars[e.Name] = m.keyRef("ConfigMap", e.ValueFrom.ConfigMapKeyRef.Name, e.ValueFrom.ConfigMapKeyRef.Key, ns)
		default:
			env.Vars[e.Name] = Value{From: "other"}
		}
	}
	return env
}

// maxEnvironment is the most a whole environment can hold: the kernel gives
// arguments and environment together a quarter of the stack (2 MiB with the
// usual 8 MiB stack).
const maxEnvironment = 2 << 20

// lookup is a variable's value for $(VAR), when known.
func (e Env) lookup(name string) (string, bool) {
	v, ok := e.Vars[name]
	if !ok || !v.Known() {
		return "", false
	}
	return v.Value, true
}

func (m *Manifests) keyRef(kind, name, key, namespace string) Value {
	data, ok := m.objectData(kind, name, namespace)
	if !ok {
		return Value{From: kind + "/" + name, Missing: kind + "/" + name}
	}
	v, ok := data[key]
	if !ok {
		return Value{From: kind + "/" + name, Missing: fmt.Sprintf("key %s of %s/%s", key, kind, name)}
	}
	return v.from(kind + "/" + name)
}

// datum is one key's value; withheld when the object holds the key with a null
// value: read from a live cluster without its value.
type datum struct {
	value    string
	withheld bool
}

func (d datum) from(source string) Value {
	return Value{Value: d.value, From: source, Withheld: d.withheld}
}

// ObjectData is a ConfigMap's data or a Secret's data (decoded) and stringData,
// of the object in that namespace: a Pod reads only its own namespace's. A key
// whose value was withheld (null) is left out.
func (m *Manifests) ObjectData(kind, name, namespace string) (map[string]string, bool) {
	data, ok := m.objectData(kind, name, namespace)
	if !ok {
		return nil, false
	}
	out := map[string]string{}
	for k, d := range data {
		if !d.withheld {
			out[k] = d.value
		}
	}
	return out, true
}

func (m *Manifests) objectData(kind, name, namespace string) (map[string]datum, bool) {
	o := m.FindIn(kind, name, namespace)
	if o == nil {
		return nil, false
	}
	out := map[string]datum{}
	if d, ok := o.Content["data"].(map[string]any); ok {
		for k, v := range d {
			if v == nil {
				out[k] = datum{withheld: true}
				continue
			}
			s := fmt.Sprint(v)
			if kind == "Secret" {
				if b, err := base64.StdEncoding.DecodeString(s); err == nil {
					s = string(b)
				}
			}
			out[k] = datum{value: s}
		}
	}
	if d, ok := o.Content["stringData"].(map[string]any); ok && kind == "Secret" {
		for k, v := range d {
			out[k] = datum{value: fmt.Sprint(v)}
		}
	}
	return out, true
}

// Environment is the container's environment as the kubelet builds it: envFrom,
// then env, with secretKeyRef and configMapKeyRef read from the Secrets and
// ConfigMaps of the manifests. A variable whose source is missing, or that comes
// from a fieldRef or resourceFieldRef, is left out.
func (m *Manifests) Environment(c Container) map[string]string {
	return m.ResolveEnv(c).Values()
}

// Values are the variables whose value is known (Value.Known), by name.
func (e Env) Values() map[string]string {
	out := map[string]string{}
	for name, v := range e.Vars {
		if v.Known() {
			out[name] = v.Value
		}
	}
	return out
}
