// Package cluster holds the facts a NO_PROXY must cover, in one shape: the keys
// of the proxykit library's cluster.* values (its JSON tags), what
// `proxykit discover` reads from a live cluster, and what proxytest's Check
// judges a render against.
package cluster

import (
	"math/big"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// Facts are a cluster's networks, API server, domain and whether the cloud
// metadata endpoints must stay off the proxy.
type Facts struct {
	Domain       string   `json:"domain"`
	PodCIDRs     []string `json:"podCIDRs"`
	ServiceCIDRs []string `json:"serviceCIDRs"`
	NodeCIDRs    []string `json:"nodeCIDRs"`
	APIServer    string   `json:"apiServer"`
	// Metadata: the cloud metadata endpoints must be bypassed too (values key
	// cluster.metadataEndpoints).
	Metadata bool `json:"metadataEndpoints"`
	// Namespaces the cluster has (values key cluster.namespaces): a call to
	// name.namespace is into the cluster for them even when the namespace is a
	// top-level domain too (vault.security). No NO_PROXY entry.
	Namespaces []string `json:"namespaces,omitempty"`
	// Relay is the relay's URL (values key proxy.relay, at any tier): Pods use
	// it with no credentials, so a Pod that still reads the corporate proxy's
	// password is a finding. No NO_PROXY entry.
	Relay string `json:"relay,omitempty"`
}

// CheckOption makes Facts a proxytest.CheckOption: until 0.6 the facts were
// the second argument of proxytest.Check and AssertProxyReady, and tests
// written so still compile.
//
// Deprecated: pass proxytest.WithCluster(facts).
func (Facts) CheckOption() {}

// Targets are the destinations NO_PROXY must send around the proxy, as URLs:
// loopback, the API server, names under the domain with and without the trailing
// dot, the first, middle and last address of every network, and with Metadata the
// metadata endpoints (AWS's IPv6 ones only when the facts hold an IPv6 network).
func (f Facts) Targets() []string {
	domain := strings.TrimSuffix(f.Domain, ".")
	if domain == "" {
		domain = "cluster.local"
	}
	targets := []string{
		"http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080",
		"https://kubernetes.default.svc",
		"https://kubernetes.default.svc." + domain, "https://kubernetes.default.svc." + domain + ".",
		"http://web.shop.svc." + domain + ":8080", "http://web.shop.svc." + domain + ".:8080",
	}
	if f.APIServer != "" {
		targets = append(targets, "https://"+net.JoinHostPort(f.APIServer, "443"))
	}
	for _, cidrs := range [][]string{f.PodCIDRs, f.ServiceCIDRs, f.NodeCIDRs} {
		for _, cidr := range cidrs {
			for _, addr := range SamplePrefix(cidr) {
				targets = append(targets, "http://"+net.JoinHostPort(addr, "8080"))
			}
		}
	}
	if f.Metadata {
		targets = append(targets, "http://169.254.169.254/latest/meta-data", "http://metadata.google.internal/computeMetadata/v1", "http://168.63.129.16",
			"http://169.254.170.23/v1/credentials") // EKS Pod Identity's agent
		// AWS's IPv6 endpoints are reachable only from Pods with IPv6 addresses
		if f.HasIPv6() {
			targets = append(targets, "http://[fd00:ec2::254]/latest/meta-data", "http://[fd00:ec2::23]/v1/credentials")
		}
	}
	return targets
}

// HasIPv6 tells whether the facts hold an IPv6 network or API server address.
func (f Facts) HasIPv6() bool {
	for _, cidrs := range [][]string{f.PodCIDRs, f.ServiceCIDRs, f.NodeCIDRs} {
		for _, cidr := range cidrs {
			if p, err := netip.ParsePrefix(cidr); err == nil && p.Addr().Is6() && !p.Addr().Is4In6() {
				return true
			}
		}
	}
	a, err := netip.ParseAddr(f.APIServer)
	return err == nil && a.Is6() && !a.Is4In6()
}

// Merge adds other's networks to f (compared as parsed prefixes); the first
// domain and API server win, and the metadata endpoints are bypassed if either says so.
func (f Facts) Merge(other Facts) Facts {
	if f.Domain == "" {
		f.Domain = other.Domain
	}
	if f.APIServer == "" {
		f.APIServer = other.APIServer
	}
	f.Metadata = f.Metadata || other.Metadata
	f.PodCIDRs = union(f.PodCIDRs, other.PodCIDRs)
	f.ServiceCIDRs = union(f.ServiceCIDRs, other.ServiceCIDRs)
	f.NodeCIDRs = union(f.NodeCIDRs, other.NodeCIDRs)
	for _, ns := range other.Namespaces {
		if !slices.Contains(f.Namespaces, ns) {
			f.Namespaces = append(slices.Clip(f.Namespaces), ns) // Clip: the caller's slice is never written through
		}
	}
	return f
}

// union appends to a the prefixes of b that a lacks, compared as parsed prefixes.
func union(a, b []string) []string {
	have := map[netip.Prefix]bool{}
	for _, s := range a {
		if p, err := netip.ParsePrefix(s); err == nil {
			have[p.Masked()] = true
		}
	}
	out := append([]string{}, a...)
	for _, s := range b {
		p, err := netip.ParsePrefix(s)
		if err == nil && have[p.Masked()] {
			continue
		}
		have[p.Masked()] = true
		out = append(out, s)
	}
	return out
}

// SamplePrefix is the first, middle and last address of a CIDR (nil for one that
// does not parse).
func SamplePrefix(cidr string) []string {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return nil
	}
	p = p.Masked()
	first := p.Addr()
	bits := first.BitLen() - p.Bits()
	start := new(big.Int).SetBytes(first.AsSlice())
	size := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	at := func(offset *big.Int) string {
		n := new(big.Int).Add(start, offset).Bytes()
		b := make([]byte, first.BitLen()/8)
		copy(b[len(b)-len(n):], n)
		a, _ := netip.AddrFromSlice(b)
		return a.String()
	}
	last := new(big.Int).Sub(size, big.NewInt(1))
	middle := new(big.Int).Rsh(size, 1)
	seen := map[string]bool{}
	var out []string
	for _, off := range []*big.Int{big.NewInt(0), middle, last} {
		if a := at(off); !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
