package rules

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/noproxy"
)

// RuleInClusterCallProxied: a container calls a host only the cluster's DNS
// answers (a single label, name.namespace, a .svc or cluster-domain name: another
// release's Service, the API server as kubernetes.default), wherever the
// manifests keep the call, and its NO_PROXY sends that call through the proxy.
const RuleInClusterCallProxied = "in-cluster-call-proxied"

// inClusterCallProxied judges every HTTP call of the container into the
// cluster, for every client model, on the container's own variables. The
// render's own Services are release-service-proxied's.
func inClusterCallProxied(c *Context) string {
	vars, key, ok := proxyEnv(c.Env)
	if !ok {
		return ""
	}
	var proxied []string
	more := 0
	for _, call := range c.calls() {
		suffix := bareSuffix(call.Host)
		if !call.HTTP() || !call.InCluster(c.Cluster.Domain, c.shared.namespaces...) && suffix == "" || c.isServiceForm(call.Host) || isProxyHost(vars, call.Host) {
			continue
		}
		clients := c.shared.decisions.proxiedBy(vars, key, call.Target(), netip.Addr{})
		if len(clients) == 0 {
			continue
		}
		if len(proxied) == 5 {
			more++
			continue
		}
		who := "every client"
		if len(clients) < len(noproxy.Clients) {
			who = strings.Join(clients, ", ")
		}
		proxied = append(proxied, fmt.Sprintf("%s (%s): %s%s", call.HostPort(), call.Where, who, suffix))
	}
	if len(proxied) == 0 {
		return ""
	}
	if more > 0 {
		proxied = append(proxied, fmt.Sprintf("and %d more", more))
	}
	fix := "a chart of your own adds them to generateEnv's \"noProxy\" (or proxy.noProxy), a chart you don't own gets every single-label and name.namespace host it calls from proxykit inject"
	if c.Live {
		fix = "add them to proxy.noProxy in the values of the policy that injected the Pod, then roll it out"
	}
	return fmt.Sprintf("NO_PROXY sends calls into the cluster through the proxy, which cannot reach them: %s%s; %s", strings.Join(proxied, "; "), c.Where, fix)
}

// isProxyHost tells the proxy's own host: a variable that names it is no call.
func isProxyHost(vars map[string]string, host string) bool {
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		if u, err := url.Parse(vars[name]); err == nil && vars[name] != "" && strings.EqualFold(u.Hostname(), strings.TrimSuffix(host, ".")) {
			return true
		}
	}
	return false
}

// isServiceForm tells a name of one of the render's Services, which
// release-service-proxied judges.
func (c *Context) isServiceForm(host string) bool {
	host = strings.TrimSuffix(host, ".")
	for _, s := range c.shared.services {
		if slices.Contains(s.names(c.Namespace, c.Cluster.Domain), host) {
			return true
		}
	}
	return false
}

// bareSuffix is what a message says of a single-label host that is a top-level
// domain (a Service called app, dev or shop): only the cluster's DNS answers it,
// yet NO_PROXY cannot hold it without sending every host under it around the
// proxy, so the call must name the Service otherwise. "" for any other host.
func bareSuffix(host string) string {
	host = strings.TrimSuffix(host, ".")
	if strings.Contains(host, ".") || cluster.PublicSuffix(host) != cluster.SuffixICANN {
		return ""
	}
	return fmt.Sprintf(", and %s is a public suffix, which NO_PROXY cannot hold without sending every host under .%s around the proxy: call it as %s.<namespace>.svc", host, host, host)
}
