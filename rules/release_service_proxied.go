package rules

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/manifest"
	"github.com/proxykit/proxykit/noproxy"
)

// RuleReleaseServiceProxied: a container's NO_PROXY sends a Service of the same
// render, called by one of the names a Pod's DNS search resolves, through the proxy.
const RuleReleaseServiceProxied = "release-service-proxied"

// service is a Service of the render.
type service struct {
	name, namespace string     // namespace "" when unknown (after Parse, without -n)
	port            int32      // its first port, 0 without one
	addr            netip.Addr // an address its names resolve to, for clients that look (Ruby)
}

// releaseServiceProxied judges the names a container may call the render's
// Services by, for every client model, on the container's own variables.
func releaseServiceProxied(c *Context) string {
	vars, key, ok := proxyEnv(c.Env)
	if !ok || len(c.shared.services) == 0 {
		return ""
	}
	msg, onlyJava := c.shared.decisions.releaseServiceFinding(vars, key, callHosts(c.shared.services, c.calls(), c.Namespace, c.Cluster.Domain), judgedClients(c))
	if msg == "" {
		return ""
	}
	if own := noproxy.JavaOwnNonProxyHosts(vars); own != "" && onlyJava {
		// NO_PROXY holds the names: the JVM reads its own flag instead
		return msg + c.Where + fmt.Sprintf("; the JVM reads -Dhttp.nonProxyHosts from the container's own %s, which lacks those names: policy.mergeNoProxy: true merges the cluster's entries into it (proxykit inject and the policies), or add them there", own)
	}
	return msg + c.Where + "; add those names to NO_PROXY: a chart of your own passes proxykit.proxy.serviceHosts to generateEnv's \"noProxy\", a chart you don't own gets every Service of its release from proxykit inject"
}

// services lists the render's Services.
func services(m *manifest.Manifests, c cluster.Facts) []service {
	var out []service
	for _, o := range m.Objects {
		if o.Kind != "Service" || o.Name == "" {
			continue
		}
		s := service{name: o.Name, namespace: m.NamespaceOf(o)}
		var svc corev1.Service
		if o.Decode(&svc) == nil && len(svc.Spec.Ports) > 0 {
			s.port = svc.Spec.Ports[0].Port
		}
		s.addr = serviceAddr(svc.Spec, c)
		out = append(out, s)
	}
	return out
}

// serviceAddr is what a Service's names resolve to: its clusterIP, else one the
// cluster would give it (the middle of its first service network; a headless
// Service's names give Pod addresses); none for an ExternalName, or without networks.
func serviceAddr(spec corev1.ServiceSpec, c cluster.Facts) netip.Addr {
	if a, err := netip.ParseAddr(spec.ClusterIP); err == nil {
		return a
	}
	if spec.Type == corev1.ServiceTypeExternalName {
		return netip.Addr{}
	}
	cidrs := c.ServiceCIDRs
	if spec.ClusterIP == corev1.ClusterIPNone {
		cidrs = c.PodCIDRs
	}
	for _, cidr := range cidrs {
		if sample := cluster.SamplePrefix(cidr); len(sample) == 3 {
			return netip.MustParseAddr(sample[1])
		}
	}
	return netip.Addr{}
}

// callHost is one name a container may call a Service by, and what named it.
type callHost struct {
	service service
	host    string // host[:port]
	why     string // "" for the DNS forms, else e.g. "env REPO_SERVER"
}

// forms are the names a Pod in namespace ns calls the Service by: the bare name
// only from its own namespace (or when either namespace is unknown), name.namespace
// and name.namespace.svc from anywhere. name.namespace.svc.<domain> is the
// cluster domain's, which no-proxy-gap judges.
func (s service) forms(ns string) []string {
	var out []string
	if s.namespace == "" || ns == "" || s.namespace == ns {
		out = append(out, s.name)
	}
	if s.namespace != "" {
		out = append(out, s.name+"."+s.namespace, s.name+"."+s.namespace+".svc")
	}
	return out
}

// names are the forms and, with a namespace and a domain, the cluster domain's
// name.namespace.svc.<domain>: every name a call to the Service is written with.
func (s service) names(ns, domain string) []string {
	names := s.forms(ns)
	if domain = strings.Trim(domain, "."); s.namespace != "" && domain != "" {
		names = append(names, s.name+"."+s.namespace+".svc."+domain)
	}
	return names
}

func (s service) target(host string) string {
	if s.port > 0 && !strings.Contains(host, ":") {
		host += ":" + strconv.Itoa(int(s.port))
	}
	return "http://" + host
}

// callHosts are the hosts a container is judged on: every form of every Service,
// then the calls the container makes (manifest.Manifests.Calls: env, envFrom,
// command, args, mounted files) when they are a Service's, with the port
// written there, and the cluster domain's form too.
func callHosts(services []service, calls []manifest.HostCall, ns, domain string) []callHost {
	var out []callHost
	for _, s := range services {
		for _, f := range s.forms(ns) {
			// a form that is a public suffix (a Service called app) is no entry NO_PROXY
			// can hold, so the library leaves it out: judged only where a call uses it
			if cluster.PublicSuffix(f) == cluster.SuffixNone {
				out = append(out, callHost{service: s, host: f})
			}
		}
	}
	for _, call := range calls {
		bare := strings.TrimSuffix(call.Host, ".")
		for _, s := range services {
			if slices.Contains(s.names(ns, domain), bare) {
				out = append(out, callHost{service: s, host: call.HostPort(), why: call.Where})
				break
			}
		}
	}
	return out
}

// clientVariables are the variables that decide where a client sends a request.
var clientVariables = append(append(slices.Clone(manifest.ProxyVariables), noproxy.JavaOptionVariables...), "NODE_USE_ENV_PROXY")

// proxiedBy lists the clients that send target through the proxy when started
// with env: each reads its own variables (curl and wget the lower-case ones, the
// JVM its -D flags, Node.js only with NODE_USE_ENV_PROXY=1) and matches NO_PROXY
// its own way (Ruby also against addr, the address the host resolves to).
func proxiedBy(env map[string]string, target string, addr netip.Addr, clients []noproxy.Client) []string {
	var out []string
	for _, client := range clients {
		d, err := noproxy.Decide(client, target, noproxy.Env(env), noproxy.ResolvedTo(addr))
		if err == nil && !d.Direct {
			out = append(out, string(client))
		}
	}
	return out
}

// serviceJudge remembers decisions: the containers of a chart share a few environments.
type serviceJudge map[string][]string

func (j serviceJudge) proxiedBy(env map[string]string, envKey, target string, addr netip.Addr, judged []noproxy.Client) []string {
	key := fmt.Sprint(envKey, "\x00", target, "\x00", addr, "\x00", judged[len(noproxy.Clients):])
	if clients, ok := j[key]; ok {
		return clients
	}
	clients := proxiedBy(env, target, addr, judged)
	j[key] = clients
	return clients
}

// proxyEnv is the part of a container's env that decides where requests go, and
// a key for it; ok is false when no proxy variable is known.
func proxyEnv(env manifest.Env) (vars map[string]string, key string, ok bool) {
	vars = map[string]string{}
	var b strings.Builder
	for _, name := range clientVariables {
		if v, has := env.Vars[name]; has && v.Known() {
			vars[name] = v.Value
			b.WriteString(name + "=" + v.Value + "\x00")
		}
	}
	return vars, b.String(), vars["HTTP_PROXY"] != "" || vars["http_proxy"] != ""
}

// releaseServiceFinding is the message of RuleReleaseServiceProxied for one
// container, or "" when every Service's names go around the proxy; onlyJava
// tells whether the JVM is the only client that proxies them.
func (j serviceJudge) releaseServiceFinding(env map[string]string, envKey string, hosts []callHost, judged []noproxy.Client) (msg string, onlyJava bool) {
	type proxiedHost struct {
		host, why string
		clients   []string
	}
	byService := map[service][]proxiedHost{}
	var order []service
	onlyJava = true
	for _, h := range hosts {
		clients := j.proxiedBy(env, envKey, h.service.target(h.host), h.service.addr, judged)
		if len(clients) == 0 {
			continue
		}
		onlyJava = onlyJava && len(clients) == 1 && clients[0] == string(noproxy.Java)
		if _, seen := byService[h.service]; !seen {
			order = append(order, h.service)
		}
		byService[h.service] = append(byService[h.service], proxiedHost{h.host, h.why, clients})
	}
	if len(order) == 0 {
		return "", false
	}
	const shown = 5
	var parts []string
	for i, s := range order {
		if i == shown {
			parts = append(parts, andMore(len(order)-shown))
			break
		}
		// hosts that the same clients proxy, together: "api, api.ns: every client; api.ns.svc: node"
		var groups []string
		hostsBy := map[string][]string{}
		for _, h := range byService[s] {
			clients := "every client"
			if len(h.clients) < len(judged) {
				clients = strings.Join(h.clients, ", ")
			}
			what := h.host
			if h.why != "" {
				what += " (" + h.why + ")"
			}
			if host, _, _ := strings.Cut(h.host, ":"); cluster.PublicSuffix(host) != cluster.SuffixNone && s.namespace != "" {
				what += fmt.Sprintf(" (a public suffix, which NO_PROXY cannot hold without sending every host under it around the proxy: call it as %s.%s.svc)", s.name, s.namespace)
			}
			if _, seen := hostsBy[clients]; !seen {
				groups = append(groups, clients)
			}
			hostsBy[clients] = append(hostsBy[clients], what)
		}
		var hs []string
		for _, clients := range groups {
			hs = append(hs, strings.Join(hostsBy[clients], ", ")+": "+clients)
		}
		parts = append(parts, fmt.Sprintf("Service %s (%s)", s.name, strings.Join(hs, "; ")))
	}
	return fmt.Sprintf("NO_PROXY sends %s through the proxy, which cannot reach it", strings.Join(parts, ", ")), onlyJava
}
