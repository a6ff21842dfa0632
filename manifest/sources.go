package manifest

import corev1 "k8s.io/api/core/v1"

// Ref names a ConfigMap or Secret a container reads: typed, never a
// "Kind/name" string to cut apart again.
type Ref struct {
	Kind string // "ConfigMap" or "Secret"
	Name string
}

func (r Ref) String() string { return r.Kind + "/" + r.Name }

// EnvSource is an envFrom source: the object, the prefix its keys get, and
// whether the container starts without it.
type EnvSource struct {
	Ref
	Prefix   string
	Optional bool
}

// VolumeSource is a ConfigMap or Secret a volume projects, with the keys it
// picks and the paths they get (nil: every key, at its own name).
type VolumeSource struct {
	Ref
	Items, Paths []string
}

// MountedSource is a VolumeSource as one container mounts it.
type MountedSource struct {
	VolumeSource
	MountPath, SubPath string
}

// Sources are the objects a container reads besides its own values, each
// once in the order the kubelet reads them: its envFrom sources, the objects
// its env's keyRefs name, and what its mounts project. Env resolution, the
// call reader, the loose-object reader and audit all walk them here.
type Sources struct {
	EnvFrom []EnvSource
	KeyRefs []Ref
	Mounts  []MountedSource
}

// Sources are the container's sources.
func (c Container) Sources() Sources { return SourcesOf(c.Container, c.Volumes) }

// SourcesOf are the sources of container c of a pod with volumes.
func SourcesOf(c corev1.Container, volumes []corev1.Volume) Sources {
	var s Sources
	for _, src := range c.EnvFrom {
		switch {
		case src.ConfigMapRef != nil:
			s.EnvFrom = append(s.EnvFrom, EnvSource{Ref{"ConfigMap", src.ConfigMapRef.Name}, src.Prefix, src.ConfigMapRef.Optional != nil && *src.ConfigMapRef.Optional})
		case src.SecretRef != nil:
			s.EnvFrom = append(s.EnvFrom, EnvSource{Ref{"Secret", src.SecretRef.Name}, src.Prefix, src.SecretRef.Optional != nil && *src.SecretRef.Optional})
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
		case e.ValueFrom.ConfigMapKeyRef != nil:
			s.KeyRefs = append(s.KeyRefs, Ref{"ConfigMap", e.ValueFrom.ConfigMapKeyRef.Name})
		case e.ValueFrom.SecretKeyRef != nil:
			s.KeyRefs = append(s.KeyRefs, Ref{"Secret", e.ValueFrom.SecretKeyRef.Name})
		}
	}
	for _, mount := range c.VolumeMounts {
		for _, v := range volumes {
			if v.Name != mount.Name {
				continue
			}
			for _, src := range VolumeSources(v) {
				s.Mounts = append(s.Mounts, MountedSource{src, mount.MountPath, mount.SubPath})
			}
		}
	}
	return s
}

// Refs are every object the sources name, envFrom first, in order, with repeats.
func (s Sources) Refs() []Ref {
	var out []Ref
	for _, e := range s.EnvFrom {
		out = append(out, e.Ref)
	}
	out = append(out, s.KeyRefs...)
	for _, m := range s.Mounts {
		out = append(out, m.Ref)
	}
	return out
}

// VolumeSources are the ConfigMaps and Secrets one volume projects, with the
// keys it picks.
func VolumeSources(v corev1.Volume) []VolumeSource {
	pick := func(items []corev1.KeyToPath) (keys, paths []string) {
		for _, it := range items {
			keys, paths = append(keys, it.Key), append(paths, it.Path)
		}
		return keys, paths
	}
	var out []VolumeSource
	add := func(kind, name string, items []corev1.KeyToPath) {
		keys, paths := pick(items)
		out = append(out, VolumeSource{Ref{kind, name}, keys, paths})
	}
	switch {
	case v.ConfigMap != nil:
		add("ConfigMap", v.ConfigMap.Name, v.ConfigMap.Items)
	case v.Secret != nil:
		add("Secret", v.Secret.SecretName, v.Secret.Items)
	case v.Projected != nil:
		for _, p := range v.Projected.Sources {
			if p.ConfigMap != nil {
				add("ConfigMap", p.ConfigMap.Name, p.ConfigMap.Items)
			}
			if p.Secret != nil {
				add("Secret", p.Secret.Name, p.Secret.Items)
			}
		}
	}
	return out
}
