package proxytest

import (
	"maps"
	"slices"
	"strings"
)

// The opt-out vocabulary: a Pod (or pod template) says once what must not get the
// proxy, and the policies of proxy-policies, Check, `proxykit check` and
// `proxykit audit` all honour it.
const (
	// AnnotationInject "false" opts the whole Pod out.
	AnnotationInject = "proxykit.io/inject"
	// AnnotationSkipContainers lists containers (of any list) that opt out: "metrics,envoy".
	AnnotationSkipContainers = "proxykit.io/skip-containers"
)

// PodOptOuts are the annotations, with their values, that opt a whole Pod out:
// proxykit's own, Giant Swarm's and AKS's.
var PodOptOuts = map[string]string{
	AnnotationInject:                          "false",
	"policies.kyverno.io/inject-proxy-env":    "exclude",
	"kubernetes.azure.com/no-http-proxy-vars": "true",
}

// OptedOut tells why the container must not get the proxy, from its pod
// template's annotations: "" when it must get it.
func (c Container) OptedOut() string {
	for _, key := range slices.Sorted(maps.Keys(PodOptOuts)) {
		want := PodOptOuts[key]
		if v, ok := c.Annotations[key]; ok && v == want {
			return "the Pod is annotated " + key + ": " + want
		}
	}
	for _, name := range strings.Split(c.Annotations[AnnotationSkipContainers], ",") {
		if strings.TrimSpace(name) == c.Name && c.Name != "" {
			return AnnotationSkipContainers + " names it"
		}
	}
	return ""
}
