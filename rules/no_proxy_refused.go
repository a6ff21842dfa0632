package rules

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/proxykit/proxykit/noproxy"
)

// RuleNoProxyRefused: the fabric8 Kubernetes client (Jenkins' Kubernetes cloud,
// Spark, Flink, Keycloak and Strimzi operators) would refuse the container's
// NO_PROXY for its API server, and build no client at all.
const RuleNoProxyRefused = "no-proxy-refused"

// noProxyRefused decides, with fabric8's model, each name a Kubernetes client
// calls the API server by (and its address, when the cluster facts know it):
// fabric8 throws on the first NO_PROXY entry outside [0-9A-Za-z.-/:] it reaches
// before one matches, so an entry such as "*.corp.example" or "[::1]" before
// "svc" stops every such client. The library writes every bracketed entry last;
// a list of the container's own is judged as it is. Only a container that may
// run a JVM is judged (noproxy.Fabric8MayRun).
func noProxyRefused(c *Context) string {
	env, key, ok := proxyEnv(c.Env)
	if !ok || (env["HTTPS_PROXY"] == "" && env["HTTP_PROXY"] == "") {
		return "" // fabric8 reads only the upper-case variables
	}
	if !noproxy.Fabric8MayRun(c.Image, env, append(slices.Clone(c.Command), c.Args...)) {
		return "" // no JVM, no fabric8
	}
	targets := []string{"https://kubernetes.default.svc:443", "https://kubernetes.default:443"}
	var addr netip.Addr
	if a, err := netip.ParseAddr(c.Cluster.APIServer); err == nil {
		addr = a
		targets = append(targets, "https://"+netip.AddrPortFrom(a, 443).String())
	}
	return once(c.shared.refused, key, func() string {
		for _, target := range targets {
			d, err := noproxy.Decide(noproxy.Fabric8, target, noproxy.Env(env), noproxy.ResolvedTo(addr))
			if err == nil && d.Refused != "" {
				return fmt.Sprintf("for its API server (%s) the fabric8 Kubernetes client, which Jenkins' Kubernetes cloud and the Spark, Flink, Keycloak and Strimzi operators use, reads NO_PROXY in order and %s%s; put entries with brackets, \"*\" or blanks after svc and the service network (the library writes them last), or drop them",
					target, d.Refused, c.Where)
			}
		}
		return ""
	})
}
