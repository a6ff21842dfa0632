package rules

import (
	"fmt"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/manifest"
)

// Context is what a rule sees of one container: the container, its env as the
// kubelet resolves it, and what the whole Check shares.
type Context struct {
	manifest.Container
	Env       manifest.Env
	Manifests *manifest.Manifests
	Cluster   cluster.Facts
	// Expected are the proxy variables the container must have, in the order of
	// manifest.ProxyVariables; nil expects all six.
	Expected []string
	// Where says which list an init or ephemeral container is in, for messages:
	// " (an init container, in initContainers)"; "" for containers.
	Where string
	// Live is true for a live cluster's Pods (OnLiveCluster).
	Live bool

	noProxyBudget int // NoProxyBudget, 0 for the kernel's limit

	shared    *shared
	callList  []manifest.HostCall // calls(), read once
	callsRead bool
}

// calls are the hosts the container calls (manifest.Manifests.Calls), read once
// for every rule that judges them.
func (c *Context) calls() []manifest.HostCall {
	if !c.callsRead {
		c.callList, c.callsRead = c.Manifests.Calls(c.Container), true
	}
	return c.callList
}

// rule is one judgement: the message of its finding for a container, or "".
type rule struct {
	name  string
	judge func(*Context) string
}

// containerRules run in this order; a container gets at most one finding per rule.
var containerRules = []rule{
	{RuleMissingProxyEnv, missingProxyEnv},
	{RuleMissingSecret, missingSecret},
	{RuleCredentialsExposed, credentialsExposed},
	{RuleCredentialsBesideRelay, credentialsBesideRelay},
	{RuleCaseMismatch, caseMismatch},
	{RuleNoProxyGap, noProxyGap},
	{RuleProxyBypassedForPublicHosts, proxyBypassedForPublicHosts},
	{RuleReleaseServiceProxied, releaseServiceProxied},
	{RuleInClusterCallProxied, inClusterCallProxied},
	{RuleNoProxyRefused, noProxyRefused},
	{RuleLowercaseRequired, lowercaseRequired},
	{RuleHTTPSProxyUnsupported, httpsProxyUnsupported},
	{RuleNoProxyTooLong, noProxyTooLong},
}

// Option states what Check judges against, instead of what the render says.
type Option func(*options)

type options struct {
	cluster       cluster.Facts
	variables     []string
	live          bool
	noProxyBudget int
}

// OnLiveCluster says the manifests are a live cluster's Pods (proxykit audit):
// the advice of a finding is then an operator's (a rollout, the policy's scope),
// not a chart author's (call generateEnv).
func OnLiveCluster() Option { return func(o *options) { o.live = true } }

// WithCluster judges NO_PROXY against these facts instead of m.Cluster (the
// facts the library read in the render; zero after Parse or FromObjects).
func WithCluster(c cluster.Facts) Option {
	return func(o *options) { o.cluster = c }
}

// ExpectVariables is the proxy variables every container must have, in the
// order of manifest.ProxyVariables; nil expects all six. Without it Check
// expects m.Variables: what the library rendered for a Render, all six after
// Parse. For manifests from Parse or FromObjects, pass
// manifest.VariablesFromValues of their values.
func ExpectVariables(names []string) Option {
	return func(o *options) { o.variables = names }
}

// listNames say where a container that is not in `containers` sits.
var listNames = map[string]string{"initContainers": "init container", "ephemeralContainers": "ephemeral container"}

// Check judges every container of the manifests against the rules, with env
// resolved through envFrom and valueFrom into the ConfigMaps and Secrets of the
// same manifests, and NO_PROXY judged with golang.org/x/net/http/httpproxy (and
// each client's model where a rule says so). It gives at most one finding per
// container and rule. Containers that opt out (manifest.Container.OptedOut) get
// no missing-proxy-env finding; every other rule still applies.
func Check(m *manifest.Manifests, opts ...Option) []Finding {
	o := options{cluster: m.Cluster, variables: m.Variables}
	for _, opt := range opts {
		opt(&o)
	}
	s := newShared(m, o.cluster)
	var findings []Finding
	for _, ctr := range m.Containers() {
		ctx := &Context{Container: ctr, Env: m.ResolveEnv(ctr), Manifests: m, Cluster: o.cluster, Expected: o.variables, Live: o.live, noProxyBudget: o.noProxyBudget, shared: s}
		if name, ok := listNames[ctr.List]; ok {
			ctx.Where = fmt.Sprintf(" (an %s, in %s)", name, ctr.List)
		}
		for _, r := range containerRules {
			if msg := r.judge(ctx); msg != "" {
				// a message quotes what the container holds: a proxy URL pasted into
				// NO_PROXY must not bring its password into a report
				findings = append(findings, Finding{Namespace: ctr.Namespace, Object: ctr.Object, Container: ctr.Name, Rule: r.name, Message: manifest.RedactUserInfo(msg)})
			}
		}
	}
	if !o.live {
		findings = append(findings, hooksWithoutProxy(m, o.variables)...)
	}
	return append(findings, credentialsOutsideSecrets(m)...)
}

// shared holds what the containers of one Check share: a chart's containers
// have a few NO_PROXY values and environments between them.
type shared struct {
	targets   []string
	gaps      map[string][]string // NO_PROXY -> the targets it proxies
	wide      map[string]string   // NO_PROXY -> the public host it bypasses
	services  []service
	decisions serviceJudge
	refused   map[string]string // the environment's key -> no-proxy-refused's message
	// places places calls: the namespaces it knows are the release's, those
	// the render creates and the facts' (cluster.namespaces)
	places *manifest.Places
	// loose are the calls kept in ConfigMaps and Secrets no container reads,
	// which a sidecar may load at run time: every container's NO_PROXY must
	// let them through (one NO_PROXY serves a release)
	loose []manifest.HostCall
}

func newShared(m *manifest.Manifests, c cluster.Facts) *shared {
	loose, _ := m.LooseCalls()
	return &shared{targets: c.Targets(), gaps: map[string][]string{}, wide: map[string]string{}, services: services(m, c), decisions: serviceJudge{}, refused: map[string]string{},
		places: m.Places(c), loose: loose}
}

// once returns judge() for key, judged once per Check.
func once[T any](cache map[string]T, key string, judge func() T) T {
	if v, ok := cache[key]; ok {
		return v
	}
	v := judge()
	cache[key] = v
	return v
}

// noProxy is the container's NO_PROXY (upper case first) when its value is known.
func (c *Context) noProxy() (string, bool) {
	v, ok := c.Env.Vars["NO_PROXY"]
	if !ok || !v.Known() {
		v, ok = c.Env.Vars["no_proxy"]
	}
	return v.Value, ok && v.Known()
}
