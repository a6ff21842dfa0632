package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// RuleStaleProxyEnv names a container that started on another proxy
// configuration than the one a container starting now gets: Pod env is
// immutable and a Secret is read only at start, so a Pod created before a
// password, NO_PROXY or a network changed keeps the old one until its owner
// rolls out. `proxykit audit` checks it.
const RuleStaleProxyEnv = "stale-proxy-env"

// Now is what a container that starts now is given, as far as the caller knows.
type Now struct {
	// Record is the library's record for the values (proxykit.proxy.record), ""
	// when unknown. A Pod's own Secret, when it carries a record, speaks first.
	Record string
	// Values are the proxy variables the values render, name -> value
	// (proxykit.proxy.envValues): what a Pod without a record is compared with.
	// nil when unknown.
	Values map[string]string
}

// CheckStale finds the containers that started on an old proxy configuration.
// A Pod with a record (manifest.AnnotationProxyConfig) is judged by it: stale
// when it differs from the record of the Secret its proxy variables read, or,
// without one, from now.Record; its own variables, which an injector kept on
// purpose, are never compared. A Pod without a record is judged as before
// records existed: its variables, as Check resolves them, against now.Values,
// and the message says so. A variable the container lacks is
// missing-proxy-env's business; a container that opts out is left alone.
// Messages name variables and records, never values: they may carry credentials.
func CheckStale(m *manifest.Manifests, now Now) []Finding {
	var findings []Finding
	names := make([]string, 0, len(now.Values))
	for name := range now.Values {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, ctr := range m.Containers() {
		if ctr.OptedOut() != "" {
			continue
		}
		env := m.ResolveEnv(ctr).Vars
		if !slices.ContainsFunc(manifest.ProxyVariables, func(name string) bool { _, ok := env[name]; return ok }) {
			continue
		}
		finding := Finding{Namespace: ctr.Namespace, Object: ctr.Object, Container: ctr.Name, Rule: RuleStaleProxyEnv}
		if record := ctr.Record(); record != "" {
			current, source := m.SecretRecord(ctr)
			if current == "" {
				current, source = now.Record, "the values"
			}
			if current != "" && current != record {
				finding.Message = fmt.Sprintf("the Pod started with proxy configuration %s (its %s annotation) and a container starting now gets %s (from %s): a password, NO_PROXY or a network changed since, and Pod env is immutable: roll out the Pod's owner",
					record, manifest.AnnotationProxyConfig, current, source)
				findings = append(findings, finding)
			}
			continue
		}
		var differ []string
		for _, name := range names {
			if v, ok := env[name]; ok && v.Known() && v.Value != now.Values[name] {
				differ = append(differ, name)
			}
		}
		if len(differ) > 0 {
			verb := "differ"
			if len(differ) == 1 {
				verb = "differs"
			}
			finding.Message = fmt.Sprintf("%s %s from what the values render now (the Pod carries no %s record, so its variables were compared); Pod env is immutable: roll out the Pod's owner",
				strings.Join(differ, ", "), verb, manifest.AnnotationProxyConfig)
			findings = append(findings, finding)
		}
	}
	return findings
}
