package proxytest

import (
	"testing"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/manifest"
	"github.com/proxykit/proxykit/rules"
)

// Manifests is a chart's render (package manifest's model), with the helpers
// a test calls on it (Container, which fails the test). Every field and method
// of manifest.Manifests is there: Objects, Values, Cluster, Containers, Find,
// Decode, Environment.
type Manifests struct{ *manifest.Manifests }

// The manifest model and the findings, under the names chart authors' tests use.
type (
	Object    = manifest.Object
	Container = manifest.Container
	Cluster   = cluster.Facts
	Finding   = rules.Finding
)

// The rules of Check, as Finding.Rule names them (package rules has one file each).
const (
	RuleMissingProxyEnv             = rules.RuleMissingProxyEnv
	RuleCaseMismatch                = rules.RuleCaseMismatch
	RuleNoProxyGap                  = rules.RuleNoProxyGap
	RuleProxyBypassedForPublicHosts = rules.RuleProxyBypassedForPublicHosts
	RuleCredentialsExposed          = rules.RuleCredentialsExposed
	RuleMissingSecret               = rules.RuleMissingSecret
	RuleReleaseServiceProxied       = rules.RuleReleaseServiceProxied
	RuleInClusterCallProxied        = rules.RuleInClusterCallProxied
	RuleHookWithoutProxy            = rules.RuleHookWithoutProxy
	RuleStaleProxyEnv               = rules.RuleStaleProxyEnv
	RuleNoProxyRefused              = rules.RuleNoProxyRefused
	RuleLowercaseRequired           = rules.RuleLowercaseRequired
	RuleHTTPSProxyUnsupported       = rules.RuleHTTPSProxyUnsupported
	RuleNoProxyTooLong              = rules.RuleNoProxyTooLong
)

// The opt-out annotations (see manifest.Container.OptedOut), and the record of
// the proxy configuration a Pod was given (see manifest.AnnotationProxyConfig).
const (
	AnnotationInject         = manifest.AnnotationInject
	AnnotationSkipContainers = manifest.AnnotationSkipContainers
	AnnotationProxyConfig    = manifest.AnnotationProxyConfig
)

// ProxyVariables are the names every container needs, upper case first.
var ProxyVariables = manifest.ProxyVariables

// Parse reads manifests as `helm template` or terratest's RenderTemplate print them.
func Parse(manifests string) (*Manifests, error) { return wrap(manifest.Parse(manifests)) }

// FromObjects reads typed objects (k8s.io/api types), as manifest.FromObjects does.
func FromObjects(objects ...any) (*Manifests, error) { return wrap(manifest.FromObjects(objects...)) }

func wrap(m *manifest.Manifests, err error) (*Manifests, error) {
	if err != nil {
		return nil, err
	}
	return &Manifests{m}, nil
}

// ClusterFromValues reads the cluster.* keys of a chart's values the way the
// proxykit library reads them, with the library's checks.
func ClusterFromValues(values map[string]any) (Cluster, error) {
	return manifest.ClusterFromValues(values)
}

// VariablesFromValues lists the proxy variables the library renders for these values.
func VariablesFromValues(values map[string]any) ([]string, error) {
	return manifest.VariablesFromValues(values)
}

// CheckOption changes what Check and AssertProxyReady judge against:
// WithCluster, ExpectVariables, NoProxyBudget, NoWorkloads. A Cluster given as
// one is WithCluster of it, so that tests written against 0.6, where the facts
// were the second argument (Check(m, c), AssertProxyReady(t, m, c)), still
// compile and judge the same; that form is deprecated.
type CheckOption interface{ CheckOption() }

// checkFunc is every option of this package.
type checkFunc func(*checkOptions)

// CheckOption marks checkFunc as a CheckOption.
func (checkFunc) CheckOption() {}

type checkOptions struct {
	rules       []rules.Option
	noWorkloads bool
}

// WithCluster judges NO_PROXY against these facts instead of m.Cluster, the
// facts the library read in the render (zero after Parse).
func WithCluster(c Cluster) CheckOption {
	return checkFunc(func(o *checkOptions) { o.rules = append(o.rules, rules.WithCluster(c)) })
}

// ExpectVariables is the proxy variables every container must have, in the
// order of ProxyVariables; nil expects all six (see rules.ExpectVariables).
func ExpectVariables(names []string) CheckOption {
	return checkFunc(func(o *checkOptions) { o.rules = append(o.rules, rules.ExpectVariables(names)) })
}

// NoProxyBudget judges NO_PROXY against budget characters instead of what one
// environment string holds (see rules.NoProxyBudget): 1023 for a chart whose
// NO_PROXY also reaches nodes through pam_env, 2047 through Ignition.
func NoProxyBudget(budget int) CheckOption {
	return checkFunc(func(o *checkOptions) { o.rules = append(o.rules, rules.NoProxyBudget(budget)) })
}

// NoWorkloads says the chart renders no container on purpose (policies, CRDs,
// Secrets only): AssertProxyReady then passes a render without one.
func NoWorkloads() CheckOption { return checkFunc(func(o *checkOptions) { o.noWorkloads = true }) }

func collect(opts []CheckOption) checkOptions {
	var o checkOptions
	for _, opt := range opts {
		switch opt := opt.(type) {
		case checkFunc:
			opt(&o)
		case Cluster:
			WithCluster(opt).(checkFunc)(&o)
		}
	}
	return o
}

// Check judges every container with the rules of package rules, against the
// cluster facts of the render unless WithCluster says otherwise.
func Check(m *Manifests, opts ...CheckOption) []Finding {
	return rules.Check(m.Manifests, collect(opts).rules...)
}

// AssertProxyReady reports every Finding of Check as one t.Errorf. A render with no
// container at all fails too, unless NoWorkloads says so: a values typo that turns
// every workload off would otherwise pass with nothing checked.
func AssertProxyReady(t testing.TB, m *Manifests, opts ...CheckOption) {
	t.Helper()
	o := collect(opts)
	if !o.noWorkloads && len(m.Containers()) == 0 {
		t.Errorf("proxytest: the render has no container, so nothing was checked (%d objects); if the values turned the workloads off, turn them on; "+
			"if the chart has none, say so: AssertProxyReady(t, m, proxytest.NoWorkloads())", len(m.Objects))
	}
	for _, f := range rules.Check(m.Manifests, o.rules...) {
		t.Errorf("%s", f)
	}
}
