package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// RuleHookWithoutProxy: a Helm hook or test (helm.sh/hook) whose containers have
// no proxy. Helm 3 passes hooks to no post-renderer, so `proxykit inject` never
// saw them: one finding per object, with advice for a chart the user may not own.
const RuleHookWithoutProxy = "hook-without-proxy"

// hooksWithoutProxy finds, once per hook object, the containers that miss an
// expected proxy variable and do not opt out; missing-proxy-env leaves them to it.
func hooksWithoutProxy(m *manifest.Manifests, expected []string) []Finding {
	type hook struct {
		namespace, object, annotation string
		containers                    []string
	}
	var order []string
	byObject := map[string]*hook{}
	for _, ctr := range m.Containers() {
		if ctr.Hook == "" || ctr.OptedOut() != "" || len(missingVariables(m.ResolveEnv(ctr), expected)) == 0 {
			continue
		}
		key := ctr.Namespace + "/" + ctr.Object
		h, seen := byObject[key]
		if !seen {
			h = &hook{namespace: ctr.Namespace, object: ctr.Object, annotation: ctr.Hook}
			byObject[key] = h
			order = append(order, key)
		}
		if !slices.Contains(h.containers, ctr.Name) {
			h.containers = append(h.containers, ctr.Name)
		}
	}
	var out []Finding
	for _, key := range order {
		h := byObject[key]
		out = append(out, Finding{Namespace: h.namespace, Object: h.object, Rule: RuleHookWithoutProxy, Message: fmt.Sprintf(
			"a Helm hook (helm.sh/hook: %s) whose container%s %s get%s no proxy: Helm 3 passes hooks to no post-renderer, so proxykit inject never sees it; "+
				"for a chart you don't own, proxy-policies injects it at admission, or Helm 4 post-renders hooks (proxykit inject as its plugin) unless an SDK user (Flux, say) sets Helm 4.3's nohooks post-render strategy, which leaves hooks as Helm 3 does; in a chart you own, call proxykit.generateEnv for it",
			h.annotation, nounS(len(h.containers)), strings.Join(h.containers, ", "), verbS(len(h.containers)))})
	}
	return out
}

// missingVariables are the expected proxy variables env lacks (all six when expected is nil).
func missingVariables(env manifest.Env, expected []string) []string {
	var missing []string
	for _, name := range manifest.ProxyVariables {
		if _, ok := env.Vars[name]; !ok && (expected == nil || slices.Contains(expected, name)) {
			missing = append(missing, name)
		}
	}
	return missing
}
