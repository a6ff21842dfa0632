package discover

import (
	"cmp"
	"net"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// relaySelector finds the proxy-relay chart's Services.
const relaySelector = "app.kubernetes.io/name=proxy-relay"

// relay reads the relay a proxy-relay release runs (its Service's proxy
// port): Pods then need no credentials, and an audit reports those that still
// carry them (rule credentials-beside-relay). Its URL names the Service under
// the cluster's domain; nodes, which do not resolve that name, take its
// ClusterIP instead (docs/relay.md).
func (r *reader) relay(domain string) *finding {
	list, err := r.client.CoreV1().Services("").List(r.ctx, metav1.ListOptions{LabelSelector: relaySelector})
	if r.skip(err, "Services labelled "+relaySelector) || len(list.Items) == 0 {
		return nil
	}
	services := list.Items
	slices.SortFunc(services, func(a, b corev1.Service) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	var found *finding
	for _, svc := range services {
		port := proxyPort(svc)
		if port == 0 {
			r.warnf("proxy.relay: Service %s/%s has no port named proxy", svc.Namespace, svc.Name)
			continue
		}
		url := "http://" + net.JoinHostPort(svc.Name+"."+svc.Namespace+".svc."+domain, strconv.Itoa(int(port)))
		if found == nil {
			found = &finding{source: "Service " + svc.Namespace + "/" + svc.Name, values: []string{url}}
			continue
		}
		r.warnf("proxy.relay: %s and Service %s/%s are both relays; the first is used", found.source, svc.Namespace, svc.Name)
	}
	return found
}

// proxyPort is the Service's port named proxy, or its only port.
func proxyPort(svc corev1.Service) int32 {
	for _, p := range svc.Spec.Ports {
		if p.Name == "proxy" {
			return p.Port
		}
	}
	if len(svc.Spec.Ports) == 1 {
		return svc.Spec.Ports[0].Port
	}
	return 0
}
