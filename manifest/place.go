package manifest

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/cluster"
)

// Place is where a call goes, which decides whether it must go around the
// proxy. One classification for inject, check and audit.
type Place int

const (
	// PlaceUnknown is a name the cluster's DNS may answer or the world's: a
	// single label that is a public suffix (app, dev) and no Service of the
	// stream, or name.<top-level domain> where that domain is a word a
	// namespace is often called (vault.security, minio.storage, web.app) and
	// the cluster is not known to have such a namespace. It is named, never
	// dropped silently: cluster.namespaces (which proxykit discover writes)
	// places it.
	PlaceUnknown Place = iota
	// PlaceInCluster must go around the proxy, which cannot reach it: a Service
	// of the stream by any of its names, a single label, name.<namespace>, a
	// .svc or cluster-domain name, the API server by any name, an address of
	// the pod or service networks.
	PlaceInCluster
	// PlaceLoopback is the Pod itself: localhost, 127.0.0.0/8, ::1.
	PlaceLoopback
	// PlaceOutside is outside the cluster: the proxy's, unless NO_PROXY names it.
	PlaceOutside
	// PlaceNotHTTP is outside the cluster, for a client that reads no proxy
	// variable (postgres://, a Redis port).
	PlaceNotHTTP
)

func (p Place) String() string {
	return [...]string{"unknown", "in-cluster", "loopback", "outside", "not-http"}[p]
}

// Places places the calls of one stream in one cluster.
type Places struct {
	domain     string
	namespaces []string        // the namespaces the cluster surely has
	apiServer  netip.Addr      // invalid when unknown
	networks   []netip.Prefix  // pod and service networks
	services   map[string]bool // every name the stream's Services are called by
}

// Places is how calls of m are placed in the cluster f describes: its
// namespaces are f.Namespaces and m.KnownNamespaces, its Services m's.
func (m *Manifests) Places(f cluster.Facts) *Places {
	var services []string
	for _, o := range m.Objects {
		if o.Kind == "Service" && o.Name != "" {
			services = append(services, m.NamespaceOf(o)+"/"+o.Name)
		}
	}
	f.Namespaces = append(slices.Clone(f.Namespaces), m.KnownNamespaces()...)
	return NewPlaces(f, services)
}

// NewPlaces places calls in the cluster f describes, where services
// ("namespace/name", namespace "" when unknown) are Services.
func NewPlaces(f cluster.Facts, services []string) *Places {
	p := &Places{domain: strings.ToLower(strings.Trim(f.Domain, ".")), namespaces: f.Namespaces, services: map[string]bool{}}
	if a, err := netip.ParseAddr(f.APIServer); err == nil {
		p.apiServer = a
	}
	for _, cidrs := range [][]string{f.PodCIDRs, f.ServiceCIDRs} {
		for _, c := range cidrs {
			if prefix, err := netip.ParsePrefix(c); err == nil {
				p.networks = append(p.networks, prefix.Masked())
			}
		}
	}
	for _, s := range services {
		ns, name, _ := strings.Cut(s, "/")
		p.services[name] = true
		if ns != "" {
			p.services[name+"."+ns], p.services[name+"."+ns+".svc"] = true, true
			if p.domain != "" {
				p.services[name+"."+ns+".svc."+p.domain] = true
			}
		}
	}
	return p
}

// Of places a call by its host, and for a host outside the cluster by its scheme.
func (p *Places) Of(c HostCall) Place {
	host := strings.ToLower(strings.TrimSuffix(c.Host, "."))
	place := p.host(host)
	if (place == PlaceOutside || place == PlaceUnknown) && !c.HTTP() {
		return PlaceNotHTTP
	}
	return place
}

// Service tells whether host is a name of one of the stream's Services.
func (p *Places) Service(host string) bool {
	return p.services[strings.ToLower(strings.TrimSuffix(host, "."))]
}

func (p *Places) host(host string) Place {
	if addr, err := netip.ParseAddr(host); err == nil {
		switch {
		case addr.IsLoopback():
			return PlaceLoopback
		case addr == p.apiServer, slices.ContainsFunc(p.networks, func(n netip.Prefix) bool { return n.Contains(addr) }):
			return PlaceInCluster
		}
		return PlaceOutside
	}
	labels := strings.Split(host, ".")
	last := labels[len(labels)-1]
	switch {
	case host == "localhost", last == "localhost":
		return PlaceLoopback
	case p.services[host], last == "svc", p.domain != "" && (host == p.domain || strings.HasSuffix(host, "."+p.domain)):
		return PlaceInCluster
	case len(labels) == 1:
		if cluster.PublicSuffix(host) != cluster.SuffixNone {
			return PlaceUnknown
		}
		return PlaceInCluster
	case len(labels) == 2 && slices.Contains(p.namespaces, last):
		return PlaceInCluster // name.<a namespace the cluster has>, whatever the public suffix list says
	case len(labels) == 2 && cluster.PublicSuffix(last) != cluster.SuffixICANN:
		return PlaceInCluster // name.namespace: no public name ends so
	case len(labels) == 2 && namespaceLike(last):
		return PlaceUnknown
	}
	return PlaceOutside
}

// namespaceLike tells a top-level domain that is also a word namespaces are
// called by (security, storage, dev, app, jobs): any but a country's two
// letters and the long-standing generic ones, under which nobody names a
// namespace and every name is someone's public host (github.com, github.io).
func namespaceLike(tld string) bool {
	return len(tld) > 2 && !slices.Contains(genericTLDs, tld)
}

// genericTLDs are the generic top-level domains of before 2012, the ones public
// hosts are mostly under.
var genericTLDs = []string{"com", "net", "org", "edu", "gov", "mil", "int", "arpa", "info", "biz", "name", "pro", "aero", "coop", "museum", "mobi", "asia", "tel", "travel", "cat", "xxx"}

// Unplaced says why a host Places leaves unknown may be the world's, and how to
// place it: a Service whose name is a public suffix is called by its .svc name;
// name.namespace is placed by listing the namespace in cluster.namespaces.
func Unplaced(host string) string {
	host = strings.TrimSuffix(host, ".")
	name, ns, dotted := strings.Cut(host, ".")
	if !dotted {
		return fmt.Sprintf("%s is a public suffix, which NO_PROXY cannot hold without sending every host under .%s around the proxy: if it is a Service, call it as %s.<namespace>.svc", host, host, host)
	}
	return fmt.Sprintf(".%s is a top-level domain, so %s may be a public host: if it is Service %s in namespace %s, list %s in cluster.namespaces (proxykit discover does) or call it as %s.svc", ns, host, name, ns, ns, host)
}
