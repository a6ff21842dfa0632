package manifest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/proxykit/proxykit"
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

// PodOptOuts returns the annotations, with their values, that opt a whole Pod out:
// proxykit's own, Giant Swarm's and AKS's. They are the library's
// (proxykit.optOut.annotations), which the policies of proxy-policies read too,
// rendered once.
func PodOptOuts() map[string]string { return maps.Clone(libraryOptOuts()) }

// libraryOptOuts reads the library's vocabulary once; callers must not change the map.
func libraryOptOuts() map[string]string {
	optOutsOnce.Do(func() {
		const helper = "proxykit.optOut.annotations"
		answers, err := proxykit.Ask(nil, "", "", proxykit.Call{Helper: helper})
		out := answers[helper]
		if err == nil {
			var v struct {
				Pod            map[string]string
				SkipContainers string
			}
			if err = json.Unmarshal([]byte(out), &v); err == nil && v.SkipContainers != AnnotationSkipContainers {
				err = fmt.Errorf("the library's skip-containers annotation is %q", v.SkipContainers)
			}
			podOptOuts = v.Pod
		}
		if err != nil {
			panic("proxytest: read the library's opt-out annotations: " + err.Error())
		}
	})
	return podOptOuts
}

var (
	optOutsOnce sync.Once
	podOptOuts  map[string]string
)

// OptedOut tells why the container must not get the proxy, from its pod
// template's annotations: "" when it must get it.
func (c Container) OptedOut() string {
	optOuts := libraryOptOuts()
	for _, key := range slices.Sorted(maps.Keys(optOuts)) {
		want := optOuts[key]
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
