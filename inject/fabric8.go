package inject

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/noproxy"
)

// MayRunFabric8 tells whether a container may run the fabric8 Kubernetes
// client (noproxy.Fabric8MayRun), by what it sets itself: a JVM option
// variable by value or valueFrom, or among the names envFrom gives it (not a
// value that is the proxy's JAVA_TOOL_OPTIONS, proxyFlags, which inject adds:
// a second run decides as the first), its image's name, or its command line.
// Such a container gets NO_PROXY without its bracketed entries; the policy
// engines decide the same from what they see (no envFrom), held to this by
// the tests' fixture.ExpectedEnv.
func MayRunFabric8(c corev1.Container, proxyFlags string, envFrom []string) bool {
	own := map[string]string{}
	for _, name := range envFrom {
		own[name] = "envFrom"
	}
	for _, e := range c.Env {
		switch {
		case !slices.Contains(noproxy.JavaOptionVariables, e.Name):
		case e.ValueFrom != nil:
			own[e.Name] = "valueFrom"
		case e.Value != proxyFlags:
			own[e.Name] = e.Value
		}
	}
	return noproxy.Fabric8MayRun(c.Image, own, append(slices.Clone(c.Command), c.Args...))
}
