package rules

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// RuleInClusterCallProxied: a container calls a host only the cluster's DNS
// answers (a single label, name.namespace, a .svc or cluster-domain name: another
// release's Service, the API server as kubernetes.default), or the Pod itself
// (localhost), wherever the manifests keep the call (a ConfigMap no container
// reads too: a sidecar may load it), and its NO_PROXY sends that call through
// the proxy. A host that may be in the cluster or not (manifest.PlaceUnknown:
// vault.security) is named as such.
const RuleInClusterCallProxied = "in-cluster-call-proxied"

// inClusterCallProxied judges every HTTP call of the container that must go
// around the proxy (manifest.Places), for every client model, on the
// container's own variables. The render's own Services are release-service-proxied's.
func inClusterCallProxied(c *Context) string {
	vars, key, ok := proxyEnv(c.Env)
	if !ok {
		return ""
	}
	var proxied []string
	more := 0
	seen := map[manifest.Place]bool{}
	judged := judgedClients(c)
	for _, call := range append(slices.Clone(c.calls()), c.shared.loose...) {
		place := c.shared.places.Of(call)
		if place != manifest.PlaceInCluster && place != manifest.PlaceUnknown && place != manifest.PlaceLoopback ||
			!call.HTTP() || c.isServiceForm(call.Host) || isProxyHost(vars, call.Host) {
			continue
		}
		clients := c.shared.decisions.proxiedBy(vars, key, call.Target(), netip.Addr{}, judged)
		if len(clients) == 0 {
			continue
		}
		seen[place] = true
		if len(proxied) == 5 {
			more++
			continue
		}
		who := "every client"
		if len(clients) < len(judged) {
			who = strings.Join(clients, ", ")
		}
		proxied = append(proxied, fmt.Sprintf("%s (%s): %s%s", call.HostPort(), call.Where, who, placeNote(place, call.Host)))
	}
	if len(proxied) == 0 {
		return ""
	}
	if more > 0 {
		proxied = append(proxied, andMore(more))
	}
	var fixes []string
	if seen[manifest.PlaceInCluster] || seen[manifest.PlaceUnknown] {
		fix := "a chart of your own adds the cluster's hosts to generateEnv's \"noProxy\" (or proxy.noProxy), a chart you don't own gets every single-label and name.namespace host it calls from proxykit inject"
		if c.Live {
			fix = "add the cluster's hosts to proxy.noProxy in the values of the policy that injected the Pod, then roll it out"
		}
		fixes = append(fixes, fix)
	}
	if seen[manifest.PlaceLoopback] {
		fixes = append(fixes, "NO_PROXY needs localhost, 127.0.0.1 and ::1, which the library's always lists")
	}
	return fmt.Sprintf("NO_PROXY sends calls that must go around the proxy through it, which cannot reach them: %s%s; %s", strings.Join(proxied, "; "), c.Where, strings.Join(fixes, "; "))
}

// placeNote is what a message says of a call placed so: nothing for a host
// of the cluster; for the Pod itself, that; for a host that may be the
// cluster's or the world's, how to tell.
func placeNote(place manifest.Place, host string) string {
	host = strings.TrimSuffix(host, ".")
	switch place {
	case manifest.PlaceLoopback:
		return ", the Pod itself"
	case manifest.PlaceUnknown:
		return ", since " + manifest.Unplaced(host)
	}
	return ""
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
