package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// RuleStaleProxyEnv names a container whose proxy variables differ from what
// the library renders for the current values: Pod env is immutable, so a Pod
// created before the proxy or a network changed keeps the old values until its
// owner rolls out. `proxykit audit` checks it when -f gives the proxy.
const RuleStaleProxyEnv = "stale-proxy-env"

// CheckStale compares each container's proxy variables, resolved as Check
// resolves them, with want (name -> the value the library renders). A variable
// the container lacks is missing-proxy-env's business, not this rule's; a
// container that opts out is left alone. The message names the variables,
// never their values: they may carry credentials.
func CheckStale(m *manifest.Manifests, want map[string]string) []Finding {
	var findings []Finding
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, ctr := range m.Containers() {
		if ctr.OptedOut() != "" {
			continue
		}
		env := m.ResolveEnv(ctr).Vars
		var differ []string
		for _, name := range names {
			if v, ok := env[name]; ok && v.Known() && v.Value != want[name] {
				differ = append(differ, name)
			}
		}
		if len(differ) > 0 {
			verb := "differ"
			if len(differ) == 1 {
				verb = "differs"
			}
			findings = append(findings, Finding{Namespace: ctr.Namespace, Object: ctr.Object, Container: ctr.Name, Rule: RuleStaleProxyEnv,
				Message: fmt.Sprintf("%s %s from what the values render now; Pod env is immutable: roll out the Pod's owner", strings.Join(differ, ", "), verb)})
		}
	}
	return findings
}
