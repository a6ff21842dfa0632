package inject

import (
	"slices"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// calledHosts are the hosts the stream's containers call (manifest's call
// reader: env, envFrom, command, args, mounted config files) that only the
// cluster's DNS answers and that no NO_PROXY suffix of the library covers: a
// single label (another release's Service, called from its namespace) and
// name.namespace. Sorted, each once. A name ending in .svc or the cluster
// domain is the library's .svc and domain entries', the stream's Services
// ("namespace/name") serviceHosts'.
func calledHosts(m *manifest.Manifests, services []string) []string {
	namespaces := m.Namespaces()
	covered := map[string]bool{} // the Services' own forms, which serviceHosts added
	for _, s := range services {
		ns, name, _ := strings.Cut(s, "/")
		covered[name], covered[name+"."+ns] = true, true
	}
	var out []string
	for _, c := range m.Containers() {
		for _, call := range m.Calls(c) {
			host := strings.TrimSuffix(call.Host, ".")
			if strings.Count(host, ".") > 1 || strings.HasSuffix(host, ".svc") || covered[host] || !call.InCluster("", namespaces...) || slices.Contains(out, host) {
				continue
			}
			out = append(out, host)
		}
	}
	slices.Sort(out)
	return out
}

// streamView reads the stream's ConfigMaps, Secrets, Namespaces and pod
// templates as manifests: what the call reader and envFrom read.
func streamView(docs []document, namespace string) *manifest.Manifests {
	m := &manifest.Manifests{Namespace: namespace}
	for _, doc := range docs {
		switch {
		case doc.object == nil:
		case doc.kind() == "ConfigMap", doc.kind() == "Secret", doc.kind() == "Namespace":
		default:
			if _, ok := manifest.FindPodTemplate(doc.object); !ok {
				continue
			}
		}
		one, err := manifest.FromObjects(doc.object)
		if err != nil {
			continue // a pod template that does not decode gets no call read; the API server refuses it anyway
		}
		m.Objects = append(m.Objects, one.Objects...)
	}
	return m
}
