package inject

import (
	"fmt"
	"net/url"
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
// ("namespace/name") serviceHosts'. manifest.Places places each call: a host
// it cannot place (PlaceUnknown: a single label that is a public suffix, app;
// name.namespace whose namespace is a top-level domain that is neither the
// release's, nor one the stream creates, nor one of known: vault.security) is
// left out, with a note that says where it was found and how to place it:
// NO_PROXY would send every host under it around the proxy. known are the
// namespaces the values say the cluster has (cluster.namespaces).
func calledHosts(m *manifest.Manifests, services, known, proxies []string) (hosts []string, notes []objectNote, err error) {
	covered := map[string]bool{} // the Services' own forms, which serviceHosts added, and the hosts found so far
	for _, p := range proxies {
		covered[p] = true // the proxy itself: a URL to it is no call (a Pod manifest a ConfigMap keeps, injected)
	}
	for _, s := range services {
		ns, name, _ := strings.Cut(s, "/")
		covered[name], covered[name+"."+ns] = true, true
	}
	places := manifest.NewPlaces(cluster.Facts{Namespaces: append(m.KnownNamespaces(), known...)}, services)
	noted := map[string]bool{}
	length, from := 0, map[string]int{} // NO_PROXY bytes the hosts take, and how many hosts each place gave
	// who calls: a container's own calls, then the ConfigMaps and Secrets no
	// container reads, which a sidecar may load at run time (Grafana's data sources)
	read := func(who string, about objectRef, calls []manifest.HostCall, lists []string) {
		for _, list := range lists {
			notes = append(notes, about.orWhere(list).note("%s: not read for calls, so none of its hosts was added to NO_PROXY: %s (a value or file naming more than %d hosts is a list of hosts, and at most %d hosts are read for a container, and for the objects no container reads)", who, list, manifest.MaxHostsPerSource, manifest.MaxCallsPerContainer))
		}
		for _, call := range calls {
			host := strings.TrimSuffix(call.Host, ".")
			if strings.Count(host, ".") > 1 || strings.HasSuffix(host, ".svc") || covered[host] {
				continue
			}
			switch places.Of(call) {
			case manifest.PlaceInCluster:
				covered[host] = true
				hosts = append(hosts, host)
				length += len(host) + 1
				from[call.Where]++
			case manifest.PlaceUnknown:
				if !noted[host] {
					noted[host] = true
					notes = append(notes, about.orWhere(call.Where).note("%s calls %s (%s): left out of NO_PROXY, since %s", who, call.HostPort(), call.Where, manifest.Unplaced(host)))
				}
			}
		}
	}
	// each container's calls read side by side, then taken in stream order
	containers := m.Containers()
	calls, hostLists := make([][]manifest.HostCall, len(containers)), make([][]string, len(containers))
	sideBySide(len(containers), func(i int) { calls[i], hostLists[i] = m.ReadCalls(containers[i]) })
	for i, c := range containers {
		read(c.Object+" container "+c.Name, objectRef{c.Object, c.Namespace}, calls[i], hostLists[i])
	}
	loose, lists := m.LooseCalls()
	read("the release", objectRef{}, loose, lists)
	if length > manifest.MaxEnvString {
		// the library would refuse the NO_PROXY anyway: say so before rendering
		// tens of thousands of entries, naming where most of them were found
		most := ""
		for where, n := range from {
			if most == "" || n > from[most] || n == from[most] && where < most {
				most = where
			}
		}
		return nil, nil, fmt.Errorf("the %d hosts the containers call would make NO_PROXY %d bytes, over the kernel's limit of %d for one environment string (MAX_ARG_STRLEN), and no container would start; %d of them are in %s: call those hosts by a name under .svc or the cluster domain (which one entry covers), or opt the Pod out (proxykit.io/inject: \"false\")", len(hosts), length, manifest.MaxEnvString, from[most], most)
	}
	slices.Sort(hosts)
	return hosts, notes, nil
}

// knownNamespaces are the namespaces the values say the cluster has
// (cluster.namespaces), as the library reads them.
func knownNamespaces(values map[string]any) ([]string, error) {
	if c, _ := values["cluster"].(map[string]any); c["namespaces"] == nil {
		return nil, nil // nothing to read: spare the render
	}
	facts, err := manifest.ClusterFromValues(values)
	return facts.Namespaces, err
}

// proxyHosts are the hosts of the proxy URLs the values give (proxy.http,
// proxy.https), lower case.
func proxyHosts(values map[string]any) []string {
	p, _ := values["proxy"].(map[string]any)
	var out []string
	for _, key := range []string{"http", "https"} {
		if s, _ := p[key].(string); s != "" {
			if u, err := url.Parse(s); err == nil && u.Hostname() != "" {
				out = append(out, strings.ToLower(u.Hostname()))
			}
		}
	}
	return out
}

// streamView reads the stream's ConfigMaps, Secrets, Namespaces and pod
// templates as manifests: what the call reader and envFrom read. It shares the
// documents' maps (manifest.FromContent): the pod templates are decoded as
// they are when it is made, and what inject changes later (a pod template's
// env, a note in an object's annotations) is nothing the view reads.
func streamView(docs []document, namespace string) *manifest.Manifests {
	each := make([]*manifest.Manifests, len(docs))
	sideBySide(len(docs), func(i int) {
		doc := docs[i]
		switch {
		case doc.object == nil:
			return
		case doc.kind() == "ConfigMap", doc.kind() == "Secret", doc.kind() == "Namespace":
		default:
			if _, ok := manifest.FindPodTemplate(doc.object); !ok {
				return
			}
		}
		// a pod template that does not decode gets no call read; the API server refuses it anyway
		each[i], _ = manifest.FromContent(doc.object)
	})
	m := &manifest.Manifests{Namespace: namespace}
	for _, one := range each {
		if one != nil {
			m.Objects = append(m.Objects, one.Objects...)
		}
	}
	return m
}
