package discover

import (
	"cmp"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// Each source is read by one method; an absent source answers nothing.

var (
	calicoIPPools    = schema.GroupVersionResource{Group: "crd.projectcalico.org", Version: "v1", Resource: "ippools"}
	openShiftNetwork = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "networks"}
	capiClusters     = []schema.GroupVersionResource{
		{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "clusters"},
		{Group: "cluster.x-k8s.io", Version: "v1beta1", Resource: "clusters"},
	}
)

// serviceCIDRs reads the ServiceCIDR objects (networking.k8s.io/v1): every
// service range the API server allocates from, the default one and any added.
func (r *reader) serviceCIDRs() []finding {
	const object = "ServiceCIDR objects"
	list, err := r.client.NetworkingV1().ServiceCIDRs().List(r.ctx, metav1.ListOptions{})
	if r.skip(err, object) || len(list.Items) == 0 {
		return nil
	}
	// the API server's own range ("kubernetes") first, then the ranges added, by name
	items := list.Items
	slices.SortStableFunc(items, func(a, b networkingv1.ServiceCIDR) int {
		rank := func(s networkingv1.ServiceCIDR) int {
			if s.Name == "kubernetes" {
				return 0
			}
			return 1
		}
		return cmp.Compare(rank(a), rank(b))
	})
	var raw, names []string
	for _, s := range items {
		raw = append(raw, s.Spec.CIDRs...)
		names = append(names, s.Name)
	}
	return []finding{{source: "ServiceCIDR " + strings.Join(names, ","), values: r.cidrs(object, "spec.cidrs", raw)}}
}

// kubeadmFacts is what kube-system/kubeadm-config says.
type kubeadmFacts struct{ pods, services, domain []finding }

// kubeadmConfig reads kube-system/kubeadm-config's ClusterConfiguration:
// networking.podSubnet and serviceSubnet (comma-separated on dual-stack
// clusters) and dnsDomain. It exists on kubeadm clusters only.
func (r *reader) kubeadmConfig() kubeadmFacts {
	const object = "ConfigMap kube-system/kubeadm-config"
	cm, err := r.client.CoreV1().ConfigMaps("kube-system").Get(r.ctx, "kubeadm-config", metav1.GetOptions{})
	if r.skip(err, object) {
		return kubeadmFacts{}
	}
	var cfg struct {
		Networking struct {
			PodSubnet     string `json:"podSubnet"`
			ServiceSubnet string `json:"serviceSubnet"`
			DNSDomain     string `json:"dnsDomain"`
		} `json:"networking"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["ClusterConfiguration"]), &cfg); err != nil {
		r.warnf("%s: its ClusterConfiguration does not parse (%v); left out", object, err)
		return kubeadmFacts{}
	}
	var out kubeadmFacts
	if pods := r.cidrs(object, "networking.podSubnet", []string{cfg.Networking.PodSubnet}); len(pods) > 0 {
		out.pods = []finding{{object, pods}}
	}
	if services := r.cidrs(object, "networking.serviceSubnet", []string{cfg.Networking.ServiceSubnet}); len(services) > 0 {
		out.services = []finding{{object, services}}
	}
	if d := r.domain(object, "networking.dnsDomain", cfg.Networking.DNSDomain); d != "" {
		out.domain = []finding{{object, []string{d}}}
	}
	return out
}

// kubeletDomain reads clusterDomain from kube-system/kubelet-config.
func (r *reader) kubeletDomain() []finding {
	const object = "ConfigMap kube-system/kubelet-config"
	cm, err := r.client.CoreV1().ConfigMaps("kube-system").Get(r.ctx, "kubelet-config", metav1.GetOptions{})
	if r.skip(err, object) {
		return nil
	}
	var cfg struct {
		ClusterDomain string `json:"clusterDomain"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["kubelet"]), &cfg); err != nil {
		r.warnf("%s: its kubelet configuration does not parse (%v); left out", object, err)
		return nil
	}
	if d := r.domain(object, "clusterDomain", cfg.ClusterDomain); d != "" {
		return []finding{{object, []string{d}}}
	}
	return nil
}

// calicoPools reads Calico's IPPools (crd.projectcalico.org/v1): spec.cidr of each
// pool that is not disabled.
func (r *reader) calicoPools() []finding {
	const object = "Calico IPPools"
	list, err := r.dyn.Resource(calicoIPPools).List(r.ctx, metav1.ListOptions{})
	if r.skip(err, object) || len(list.Items) == 0 {
		return nil
	}
	var raw, names []string
	for _, p := range list.Items {
		if disabled, _, _ := unstructured.NestedBool(p.Object, "spec", "disabled"); disabled {
			continue
		}
		cidr, _, _ := unstructured.NestedString(p.Object, "spec", "cidr")
		raw = append(raw, cidr)
		names = append(names, p.GetName())
	}
	if len(raw) == 0 {
		return nil
	}
	return []finding{{"IPPool " + strings.Join(names, ","), r.cidrs(object, "spec.cidr", raw)}}
}

// ciliumPools reads kube-system/cilium-config's cluster-pool-ipv4-cidr and
// cluster-pool-ipv6-cidr (Cilium's cluster-pool IPAM).
func (r *reader) ciliumPools() []finding {
	const object = "ConfigMap kube-system/cilium-config"
	cm, err := r.client.CoreV1().ConfigMaps("kube-system").Get(r.ctx, "cilium-config", metav1.GetOptions{})
	if r.skip(err, object) {
		return nil
	}
	var raw []string
	for _, key := range []string{"cluster-pool-ipv4-cidr", "cluster-pool-ipv6-cidr"} {
		// a list may be written with spaces as well as commas
		raw = append(raw, strings.ReplaceAll(cm.Data[key], " ", ","))
	}
	if pods := r.cidrs(object, "cluster-pool-ipv4-cidr/ipv6-cidr", raw); len(pods) > 0 {
		return []finding{{object, pods}}
	}
	return nil
}

// openShift reads OpenShift's cluster Network config (config.openshift.io/v1,
// "cluster"): spec.clusterNetwork[].cidr and spec.serviceNetwork[].
func (r *reader) openShift() (pods, services []finding) {
	const object = "Network.config.openshift.io cluster"
	n, err := r.dyn.Resource(openShiftNetwork).Get(r.ctx, "cluster", metav1.GetOptions{})
	if r.skip(err, object) {
		return nil, nil
	}
	serviceRaw, _, _ := unstructured.NestedStringSlice(n.Object, "spec", "serviceNetwork")
	var podRaw []string
	entries, _, _ := unstructured.NestedSlice(n.Object, "spec", "clusterNetwork")
	for _, e := range entries {
		if m, ok := e.(map[string]any); ok {
			if cidr, ok := m["cidr"].(string); ok {
				podRaw = append(podRaw, cidr)
			}
		}
	}
	if cidrs := r.cidrs(object, "spec.clusterNetwork", podRaw); len(cidrs) > 0 {
		pods = []finding{{object, cidrs}}
	}
	if cidrs := r.cidrs(object, "spec.serviceNetwork", serviceRaw); len(cidrs) > 0 {
		services = []finding{{object, cidrs}}
	}
	return pods, services
}

// nodeFacts is what the Nodes say: their pod ranges and their cloud.
type nodeFacts struct {
	count     int
	podCIDRs  finding
	providers []string // "Node NAME (aws)" per cloud seen
}

// cloudName is how a providerID names its cloud ("aws", "gce", "azure", "openstack" ...).
var cloudName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)

// nodes reads every Node's spec.podCIDRs and spec.providerID, a page at a time.
func (r *reader) nodes() nodeFacts {
	const object = "Nodes"
	var out nodeFacts
	var raw []string
	clouds := map[string]bool{}
	opts := metav1.ListOptions{Limit: 500}
	for {
		list, err := r.client.CoreV1().Nodes().List(r.ctx, opts)
		if r.skip(err, object) {
			return out
		}
		for _, n := range list.Items {
			out.count++
			raw = append(raw, n.Spec.PodCIDRs...)
			cloud, _, ok := strings.Cut(n.Spec.ProviderID, "://")
			switch {
			case !ok || clouds[cloud]:
			case !cloudName.MatchString(cloud):
				// text a kubelet wrote, never a name: it reaches no output but quoted
				clouds[cloud] = true
				r.warnf("Node %s: spec.providerID %q names no cloud provider; it is not read", n.Name, n.Spec.ProviderID)
			default:
				clouds[cloud] = true
				out.providers = append(out.providers, fmt.Sprintf("Node %s (%s)", n.Name, cloud))
			}
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	out.podCIDRs = finding{fmt.Sprintf("spec.podCIDRs of %d Node(s)", out.count), r.cidrs(object, "spec.podCIDRs", raw)}
	return out
}

// apiServer reads the ClusterIP of the Service default/kubernetes: the address
// in-cluster clients use (KUBERNETES_SERVICE_HOST).
func (r *reader) apiServer() *finding {
	const object = "Service default/kubernetes"
	svc, err := r.client.CoreV1().Services("default").Get(r.ctx, "kubernetes", metav1.GetOptions{})
	if r.skip(err, object) || svc.Spec.ClusterIP == "" {
		return nil
	}
	return &finding{object, []string{svc.Spec.ClusterIP}}
}

// capi reads a workload cluster's facts from its Cluster API Cluster object:
// spec.clusterNetwork (pods, services, serviceDomain) and the control plane
// endpoint's host.
func (r *reader) capi(ref string) (*Result, error) {
	ns, name, ok := strings.Cut(ref, "/")
	if !ok || ns == "" || name == "" {
		return nil, &OptionError{Option: "CAPICluster", Message: fmt.Sprintf("%q is not NAMESPACE/NAME", ref)}
	}
	object := fmt.Sprintf("Cluster %s/%s", ns, name)
	var cluster *unstructured.Unstructured
	var lastErr error
	for _, gvr := range capiClusters {
		c, err := r.dyn.Resource(gvr).Namespace(ns).Get(r.ctx, name, metav1.GetOptions{})
		if err == nil {
			cluster = c
			break
		}
		lastErr = err
	}
	if cluster == nil {
		return nil, fmt.Errorf("%s (cluster.x-k8s.io): %v", object, lastErr)
	}
	return r.capiFacts(object, cluster)
}

// capiFacts reads a Cluster API Cluster's spec.clusterNetwork and control
// plane endpoint.
func (r *reader) capiFacts(object string, cluster *unstructured.Unstructured) (*Result, error) {
	res := &Result{Sources: map[string][]string{}, Cluster: Facts{Metadata: true, PodCIDRs: []string{}, ServiceCIDRs: []string{}, NodeCIDRs: []string{}}}
	// in this order, so that the warnings come in the same order on every run
	for _, network := range []struct {
		key  string
		path []string
	}{
		{"podCIDRs", []string{"spec", "clusterNetwork", "pods", "cidrBlocks"}},
		{"serviceCIDRs", []string{"spec", "clusterNetwork", "services", "cidrBlocks"}},
	} {
		key, path := network.key, network.path
		raw, _, _ := unstructured.NestedStringSlice(cluster.Object, path...)
		cidrs := r.cidrs(object, strings.Join(path, "."), raw)
		if len(cidrs) == 0 {
			r.warnf("cluster.%s: %s sets no %s", key, object, strings.Join(path, "."))
			continue
		}
		if key == "podCIDRs" {
			res.Cluster.PodCIDRs = cidrs
		} else {
			res.Cluster.ServiceCIDRs = cidrs
		}
		res.Sources[key] = []string{object}
	}
	raw, _, _ := unstructured.NestedString(cluster.Object, "spec", "clusterNetwork", "serviceDomain")
	if d := r.domain(object, "spec.clusterNetwork.serviceDomain", raw); d != "" {
		res.Cluster.Domain, res.Sources["domain"] = d, []string{object}
	} else {
		res.Cluster.Domain = "cluster.local"
		r.warnf("cluster.domain: %s sets no spec.clusterNetwork.serviceDomain; cluster.local assumed (kubeadm's default)", object)
	}
	// the workload cluster's in-cluster API address is the first address of its service network
	if len(res.Cluster.ServiceCIDRs) > 0 {
		if p, err := netip.ParsePrefix(res.Cluster.ServiceCIDRs[0]); err == nil {
			res.Cluster.APIServer = p.Addr().Next().String()
			res.Sources["apiServer"] = []string{object + " (the first address of spec.clusterNetwork.services, the Service default/kubernetes)"}
		}
	}
	if host, _, _ := unstructured.NestedString(cluster.Object, "spec", "controlPlaneEndpoint", "host"); host != "" {
		r.warnf("the control plane endpoint %s is what nodes and bootstrap components use; add it to proxy.noProxy if they reach it through the proxy", host)
	}
	r.warnf("cluster.nodeCIDRs: the machine network is not in the Cluster object; set it to the infrastructure's node network")
	res.Warnings = r.warnings
	if len(res.Cluster.PodCIDRs)+len(res.Cluster.ServiceCIDRs) == 0 {
		return res, fmt.Errorf("%s names no pod or service network", object)
	}
	return res, nil
}

// dnsDomain is a DNS domain as the library takes cluster.domain: labels of
// letters, digits and "-", no trailing dot.
var dnsDomain = regexp.MustCompile(`^(?i)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// domain reads a domain field: trimmed, without its trailing dot; one that is no
// DNS domain is left out ("") with a warning naming the object and field.
func (r *reader) domain(object, field, raw string) string {
	d := strings.TrimSuffix(strings.TrimSpace(raw), ".")
	if d == "" || len(d) <= 253 && dnsDomain.MatchString(d) {
		return d
	}
	if len(raw) > 100 {
		raw = raw[:100] + "..."
	}
	r.warnf("%s: %s %q is not a DNS domain; left out", object, field, raw)
	return ""
}
