package manifest

import (
	"fmt"
	"maps"
	"slices"
)

// LooseCalls lists the calls kept in the manifests' ConfigMaps and Secrets
// that no container reads (no envFrom, valueFrom or volume of any pod template
// names them): a sidecar may load such an object at run time by its label
// (Grafana's data sources, Prometheus rules), and the program it feeds calls
// those hosts all the same. Each key is read as a mounted file is, a key named
// as a credential never; the bounds of ReadCalls apply, and hostLists names
// what was left unread.
func (m *Manifests) LooseCalls() ([]HostCall, []string) {
	read := map[string]bool{} // "Kind/namespace/name" some container reads
	mark := func(kind, ns, name string) { read[kind+"/"+ns+"/"+name] = true }
	for _, c := range m.Containers() {
		for _, ref := range c.Sources().Refs() {
			mark(ref.Kind, c.Namespace, ref.Name)
		}
		// a volume no container mounts names its objects all the same
		for _, v := range c.Volumes {
			for _, src := range VolumeSources(v) {
				mark(src.Kind, c.Namespace, src.Name)
			}
		}
	}
	var r bounded
	for _, o := range m.Objects {
		ns := m.NamespaceOf(o)
		if o.Kind != "ConfigMap" && o.Kind != "Secret" || read[o.Kind+"/"+ns+"/"+o.Name] {
			continue
		}
		data, _ := m.ObjectData(o.Kind, o.Name, ns)
		for _, key := range slices.Sorted(maps.Keys(data)) {
			if !SecretName(key) {
				r.read(fmt.Sprintf("%s key %s, which no container reads", o.ID(), key), data[key], scanFile)
			}
		}
	}
	return r.calls("of the ConfigMaps and Secrets no container reads")
}
