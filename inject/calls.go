package inject

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/manifest"
)

// calledHosts are the hosts the stream's containers call (manifest's call
// reader: env, envFrom, command, args, mounted config files) that only the
// cluster's DNS answers and that no NO_PROXY suffix of the library covers: a
// single label (another release's Service, called from its namespace) and
// name.namespace. Sorted, each once. A name ending in .svc or the cluster
// domain is the library's .svc and domain entries', the stream's Services
// ("namespace/name") serviceHosts'. A host that is a public suffix (app,
// github.io), or name.namespace whose namespace is a top-level domain the
// stream does not create (vault.security, github.com), is left out, each with a note that says where
// it was found and how to call it instead: NO_PROXY would send every host
// under it around the proxy. A namespace the stream creates counts (Call.InCluster).
func calledHosts(m *manifest.Manifests, services []string) (hosts, notes []string) {
	covered := map[string]bool{} // the Services' own forms, which serviceHosts added
	for _, s := range services {
		ns, name, _ := strings.Cut(s, "/")
		covered[name], covered[name+"."+ns] = true, true
	}
	declared := m.CreatedNamespaces()
	noted := map[string]bool{}
	for _, c := range m.Containers() {
		for _, call := range m.Calls(c) {
			host := strings.TrimSuffix(call.Host, ".")
			if strings.Count(host, ".") > 1 || strings.HasSuffix(host, ".svc") || covered[host] || slices.Contains(hosts, host) {
				continue
			}
			if call.InCluster("", declared...) {
				hosts = append(hosts, host)
				continue
			}
			if why := publicHost(host); why != "" && call.HTTP() && !noted[host] {
				noted[host] = true
				notes = append(notes, fmt.Sprintf("%s container %s calls %s (%s): left out of NO_PROXY, since %s; if it is a Service, call it as %s.svc", c.Object, c.Name, call.HostPort(), call.Where, why, host+map[bool]string{true: ".<namespace>", false: ""}[!strings.Contains(host, ".")]))
			}
		}
	}
	slices.Sort(hosts)
	return hosts, notes
}

// publicHost says why a single-label or name.namespace host may be public: it
// is a public suffix, or its last label is a top-level domain; "" otherwise.
func publicHost(host string) string {
	if cluster.PublicSuffix(host) != cluster.SuffixNone {
		return host + " is a public suffix, and NO_PROXY would send every host under it around the proxy"
	}
	if _, tld, ok := strings.Cut(host, "."); ok && cluster.PublicSuffix(tld) == cluster.SuffixICANN {
		return "." + tld + " is a top-level domain, so " + host + " may be a public host"
	}
	return ""
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
