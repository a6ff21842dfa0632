// Package discover reads a live cluster's facts — the pod and service networks,
// the API server's address and the DNS domain — from the objects that hold them,
// most exact first, so that a values file for proxykit comes from the cluster
// instead of from hand-assembled kubectl output.
//
// It never guesses silently: when sources disagree, when a fact can only be
// inferred (the pod network from per-node ranges) or assumed (cluster.local),
// Result.Warnings says so, naming the objects.
package discover

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/manifest"
)

// Facts are the cluster.* values proxykit's library reads: package cluster's Facts.
type Facts = cluster.Facts

// Result is what Discover found: the facts, the objects each came from (by
// values key: "domain", "podCIDRs", ...; each "Kind namespace/name"), and what it
// could not know.
type Result struct {
	Cluster  Facts               `json:"cluster"`
	Sources  map[string][]string `json:"sources"`
	Warnings []string            `json:"warnings"`
}

// Options narrow what Discover reads.
type Options struct {
	// CAPICluster, "namespace/name", reads a workload cluster's facts from the
	// Cluster API Cluster object of that name in a management cluster, instead of
	// the facts of the cluster the client talks to.
	CAPICluster string
}

// OptionError is an Options field whose value Discover cannot use; it names
// the field (a CLI names its flag instead).
type OptionError struct{ Option, Message string }

func (e *OptionError) Error() string { return "Options." + e.Option + ": " + e.Message }

// ClusterFor is the facts an audit judges with: the values' cluster.* keys, read
// as the library reads them, when they name a pod or service network; else what
// Discover reads from the cluster behind config, with its sources and warnings.
func ClusterFor(ctx context.Context, config *rest.Config, values map[string]any) (*Result, error) {
	facts, err := manifest.ClusterFromValues(values)
	if err != nil {
		return nil, err
	}
	if len(facts.PodCIDRs)+len(facts.ServiceCIDRs) > 0 {
		return &Result{Cluster: facts, Sources: map[string][]string{}}, nil
	}
	res, err := Discover(ctx, config, Options{})
	if err != nil && res != nil {
		err = fmt.Errorf("the values name no pod or service network and %w", err)
	}
	return res, err
}

// ErrUnreachable wraps the error of a cluster that does not answer.
var ErrUnreachable = errors.New("the cluster does not answer")

// Discover reads the facts of the cluster behind config.
func Discover(ctx context.Context, config *rest.Config, opts Options) (*Result, error) {
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, manifest.RedactUserInfo(config.Host), manifest.RedactUserInfo(err.Error()))
	}
	return discoverWith(ctx, client, dyn, opts)
}

// discoverWith reads the facts through the given clients.
func discoverWith(ctx context.Context, client kubernetes.Interface, dyn dynamic.Interface, opts Options) (*Result, error) {
	r := &reader{ctx: ctx, client: client, dyn: dyn}
	if opts.CAPICluster != "" {
		return r.capi(opts.CAPICluster)
	}
	return r.live()
}

// finding is one source's answer for one fact.
type finding struct {
	source string   // "ConfigMap kube-system/kubeadm-config"
	values []string // CIDRs, or one host or domain
}

// reader holds the clients and the warnings of one Discover.
type reader struct {
	ctx      context.Context
	client   kubernetes.Interface
	dyn      dynamic.Interface
	warnings []string
}

func (r *reader) warnf(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

// skip tells whether a read error only means the source is absent (no object, no
// such resource); a refused read is a warning naming the object, so the other
// sources still answer.
func (r *reader) skip(err error, object string) bool {
	switch {
	case err == nil:
		return false
	case apierrors.IsNotFound(err):
		return true
	case apierrors.IsForbidden(err):
		r.warnf("%s: not allowed to read it (%s); the facts it holds were not read", object, apierrors.ReasonForError(err))
	default:
		r.warnf("%s: %v", object, err)
	}
	return true
}

// live reads the cluster the client talks to.
func (r *reader) live() (*Result, error) {
	res := &Result{Sources: map[string][]string{}, Cluster: Facts{Metadata: true, PodCIDRs: []string{}, ServiceCIDRs: []string{}, NodeCIDRs: []string{}}}
	kubeadm := r.kubeadmConfig()
	openShiftPods, openShiftServices := r.openShift()
	services := append(r.serviceCIDRs(), kubeadm.services...)
	services = append(services, openShiftServices...)
	pods := kubeadm.pods
	pods = append(pods, r.calicoPools()...)
	pods = append(pods, r.ciliumPools()...)
	pods = append(pods, openShiftPods...)
	nodes := r.nodes()
	if len(pods) == 0 && len(nodes.podCIDRs.values) > 0 {
		r.warnf("cluster.podCIDRs: inferred from the per-node ranges of %d Node(s), the only source found; a new node adds a range these do not cover: prefer the pod network of the CNI or kubeadm", nodes.count)
		pods = append(pods, nodes.podCIDRs)
	}
	res.Cluster.ServiceCIDRs, res.Sources["serviceCIDRs"] = r.pick("cluster.serviceCIDRs", services)
	res.Cluster.PodCIDRs, res.Sources["podCIDRs"] = r.pick("cluster.podCIDRs", pods)

	domains := kubeadm.domain
	domains = append(domains, r.kubeletDomain()...)
	if d, src := r.pick("cluster.domain", domains); len(d) > 0 {
		res.Cluster.Domain, res.Sources["domain"] = d[0], src
	} else {
		res.Cluster.Domain = "cluster.local"
		r.warnf("cluster.domain: no kubeadm-config or kubelet-config names it; cluster.local assumed")
	}
	if api := r.apiServer(); api != nil {
		res.Cluster.APIServer, res.Sources["apiServer"] = api.values[0], []string{api.source}
	} else {
		r.warnf("cluster.apiServer: the Service default/kubernetes was not read")
	}
	if len(nodes.providers) > 0 {
		res.Sources["metadataEndpoints"] = nodes.providers
	}
	if relay := r.relay(res.Cluster.Domain); relay != nil {
		res.Cluster.Relay, res.Sources["relay"] = relay.values[0], []string{relay.source}
	}
	if ns := r.namespaces(); len(ns.values) > 0 {
		res.Cluster.Namespaces, res.Sources["namespaces"] = ns.values, []string{ns.source}
	}
	r.warnf("cluster.nodeCIDRs: the machine network is not in the Kubernetes API; set it to the network of the nodes' addresses (hostNetwork Pods, kubelets)")
	if len(res.Cluster.PodCIDRs)+len(res.Cluster.ServiceCIDRs) == 0 {
		res.Warnings = r.warnings
		return res, fmt.Errorf("no source named a pod or a service network (%s)", strings.Join(r.warnings, "; "))
	}
	res.Warnings = r.warnings
	return res, nil
}

// sourcesOf are the objects discover reads for a fact, most exact first.
var sourcesOf = map[string]string{
	"cluster.serviceCIDRs": "ServiceCIDR objects, kube-system/kubeadm-config, OpenShift's Network",
	"cluster.podCIDRs":     "kube-system/kubeadm-config, Calico IPPools, Cilium's cilium-config, OpenShift's Network, the Nodes' spec.podCIDRs",
}

// pick takes the first (most exact) source's answer and warns about every
// other source that disagrees with it.
func (r *reader) pick(key string, found []finding) ([]string, []string) {
	if len(found) == 0 {
		if key != "cluster.domain" { // the domain's own warning says what is assumed
			r.warnf("%s: no source names it (%s); set it to the cluster's", key, sourcesOf[key])
		}
		return []string{}, nil
	}
	first := found[0]
	sources := []string{first.source}
	for _, f := range found[1:] {
		if slices.Equal(sorted(f.values), sorted(first.values)) {
			sources = append(sources, f.source)
			continue
		}
		r.warnf("%s: %s says %s, %s says %s; the first is used", key, first.source, strings.Join(first.values, ","), f.source, strings.Join(f.values, ","))
	}
	return first.values, sources
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// cidrs reads a list of CIDRs (a comma-separated string in kubeadm's and
// Cilium's configuration), each in canonical form; one that does not parse is
// a warning naming the object.
func (r *reader) cidrs(object, field string, raw []string) []string {
	var out []string
	for _, item := range raw {
		for _, s := range strings.Split(item, ",") {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			p, err := netip.ParsePrefix(s)
			if err != nil {
				r.warnf("%s: %s %q is not a CIDR; left out", object, field, s)
				continue
			}
			if c := p.Masked().String(); !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}
