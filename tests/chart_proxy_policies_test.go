package tests

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

func TestProxyPoliciesKyvernoRules(t *testing.T) {
	r, err := fixture.RenderE(fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain+fixture.ClusterPolicyKind))
	require.NoError(t, err)
	p := fixture.DecodePolicy(t, r, "inject-proxy-env")
	assert.Equal(t, "none", p.Metadata.Annotations["pod-policies.kyverno.io/autogen-controllers"], "autogen off: no drift on controllers")
	assert.False(t, p.Spec.Background)
	assert.Equal(t, "Ignore", p.Spec.FailurePolicy)

	var names []string
	for _, rule := range p.Spec.Rules {
		names = append(names, rule.Name)
		res := rule.Match.Any[0].Resources
		if strings.HasSuffix(rule.Name, "-debug-ephemeral-containers") {
			assert.Equal(t, []string{"Pod/ephemeralcontainers"}, res.Kinds)
			assert.Equal(t, []string{"UPDATE"}, res.Operations)
		} else {
			assert.Equal(t, []string{"Pod"}, res.Kinds)
			assert.Equal(t, []string{"CREATE"}, res.Operations)
		}
		excluded := rule.Exclude.Any
		require.Len(t, excluded, 5, rule.Name)
		assert.ElementsMatch(t, []string{"kube-system", "monitoring", "kube-p*", fixture.PolicyNamespace, "kyverno"}, excluded[0].Resources.Namespaces)
		assert.Equal(t, []string{"capi-*"}, excluded[1].Resources.Names)
		assert.Equal(t, map[string]string{"kubernetes.azure.com/no-http-proxy-vars": "true"}, excluded[2].Resources.Annotations, "AKS's opt-out")
		assert.Equal(t, map[string]string{"policies.kyverno.io/inject-proxy-env": "exclude"}, excluded[3].Resources.Annotations)
		assert.Equal(t, map[string]string{"proxykit.io/inject": "false"}, excluded[4].Resources.Annotations)

		assert.Nil(t, rule.Mutate.PatchStrategicMerge, "never strategic merge: it can reorder containers")
		if strings.HasPrefix(rule.Name, "inject-plain-") {
			// the plain path: the spec written back once, by a shallow substitution of a string,
			// and on CREATE the record in the Pod's metadata (Kyverno makes the annotations map)
			// (YAML only once Kyverno has substituted it)
			first, rest, _ := strings.Cut(rule.Mutate.PatchesJSON6902, "\n- op:")
			assert.Empty(t, rule.Mutate.Foreach, rule.Name)
			assert.True(t, strings.HasPrefix(first, "- op: replace\n  path: /spec\n  value: {{- to_string("), "%s: %s", rule.Name, first)
			var record []map[string]any
			if rest != "" {
				require.NoError(t, yaml.Unmarshal([]byte("- op:"+rest), &record), rule.Name)
			}
			want := []map[string]any{{"op": "add", "path": "/metadata/annotations/proxykit.io~1proxy-config", "value": fixture.Record(t, fixture.PolicyValuesPlain)}}
			if strings.Contains(rule.Name, "-debug-") {
				want = nil
			}
			assert.Equal(t, want, record, rule.Name)
			continue
		}
		// one JSON patch per container of each list, never strategic merge, each followed by
		// the drop of public entries (TestProxyPoliciesMergeDropsPublicEntries)
		require.Len(t, rule.Mutate.Foreach, map[bool]int{true: 6, false: 2}[rule.Name == "inject-create"], rule.Name)
		assert.Contains(t, rule.Mutate.Foreach[0].PatchesJSON6902, "op: add")
	}
	assert.Equal(t, []string{"inject-create", "inject-debug-ephemeral-containers", "inject-plain-create", "inject-plain-debug-ephemeral-containers"},
		names, "the merge of every list (and its drop: policy.mergeNoProxy by default), then the plain path of the Pods without own settings, with the record")
	assert.Nil(t, r.Find("ClusterPolicy", "inject-proxy-env-secret"), "no credentials, nothing to clone")
}

func TestProxyPoliciesOverrideRulesComeFirst(t *testing.T) {
	p := fixture.DecodePolicy(t, fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain+fixture.ClusterPolicyKind+"policy: {overrideExisting: true}\n")), "inject-proxy-env")
	var names []string
	for _, rule := range p.Spec.Rules {
		names = append(names, rule.Name)
		if strings.HasPrefix(rule.Name, "override-") {
			assert.Len(t, rule.Mutate.Foreach, len(fixture.PolicyProxyEnv), "one nested foreach per variable")
		}
	}
	assert.Equal(t, []string{
		"override-create-containers", "override-create-init-containers", "override-create-ephemeral-containers", "inject-create",
		"override-debug-ephemeral-containers", "inject-debug-ephemeral-containers",
		"inject-plain-create", "inject-plain-debug-ephemeral-containers",
	}, names)
}

func TestProxyPoliciesNative(t *testing.T) {
	r, err := fixture.RenderE(fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain))
	require.NoError(t, err)
	policy := proxytest.Get[admissionv1.MutatingAdmissionPolicy](t, r, "inject-proxy-env")
	binding := proxytest.Get[admissionv1.MutatingAdmissionPolicyBinding](t, r, "inject-proxy-env")
	assert.Equal(t, "inject-proxy-env", binding.Spec.PolicyName)
	assert.Equal(t, admissionv1.IfNeededReinvocationPolicy, policy.Spec.ReinvocationPolicy)
	require.Len(t, policy.Spec.Mutations, 1, "one JSON patch for the env of every list and the record: each mutation costs a conversion of the Pod")
	m := policy.Spec.Mutations[0]
	assert.Equal(t, admissionv1.PatchTypeJSONPatch, m.PatchType)
	require.NotNil(t, m.JSONPatch)
	expr := m.JSONPatch.Expression
	// every list through one body (an absent list is empty); a container without env gets the whole list
	assert.Contains(t, expr, `[[dyn(has(object.spec.containers) ? object.spec.containers : []), dyn(has(object.spec.initContainers) ? object.spec.initContainers : []), `+
		`dyn(has(object.spec.ephemeralContainers) ? object.spec.ephemeralContainers : [])]].map(ls, `+
		`lists.range(3).map(k, [["containers", "initContainers", "ephemeralContainers"][k]].map(lname, [ls[k]].map(cs, lists.range(size(cs)).map(i, [cs[i]].map(c,`)
	assert.Contains(t, expr, `!has(c.env) ? [JSONPatch{op: "add", path: "/spec/" + lname + "/" + string(i) + "/env", value: plist}]`)
	// each variable takes its value from the list the expression binds once (vals)
	values := []string{"http://proxy.corp.example:3128", "http://proxy.corp.example:3129", fixture.PolicyNoProxy}
	for _, e := range fixture.PolicyProxyEnv {
		assert.Contains(t, expr, fmt.Sprintf(`{"name": dyn(%q), "value": dyn(vals[%d])}`, e.Name, slices.Index(values, e.Value)))
	}
	// and fabric8's NO_PROXY, the cluster's cut before its bracketed entries, last
	fabric8NoProxy := fixture.EnvMap(fixture.Fabric8Env(fixture.PolicyProxyEnv))["NO_PROXY"].Value
	assert.True(t, strings.HasPrefix(expr, `[[["http://proxy.corp.example:3128", "http://proxy.corp.example:3129", "`+fixture.PolicyNoProxy+`"]].map(v, v + [v[2].substring(0, `+
		strconv.Itoa(len(fabric8NoProxy))+`)])[0]].map(vals,`), expr)
	assert.Equal(t, 1, strings.Count(expr, fixture.PolicyNoProxy), "NO_PROXY written once: the expression has 100,000 code points at most")
	// each container's env is scanned once, against the names bound once per request
	assert.Contains(t, expr, `[{"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "http_proxy": true, "https_proxy": true, "no_proxy": true}].map(names,`)
	assert.Equal(t, 1, strings.Count(expr, `lists.range(size(c.env))`), "one body for every container list")
	// an empty own value is filled in place, a twin copied from the container's own
	assert.Contains(t, expr, `holes.filter(j, c.env[j].name == "NO_PROXY").map(j, JSONPatch{op: "replace", path: "/spec/" + lname + "/" + string(i) + "/env" + "/" + string(j), value: e})`)
	assert.Contains(t, expr, `"NO_PROXY" in own ? mine.filter(x, x.name == "NO_PROXY").map(x, has(x.valueFrom) ? {"name": dyn("no_proxy"), "valueFrom": dyn(`)
	assert.Contains(t, expr, `has(object.metadata.annotations) ? [JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("proxykit.io/proxy-config"), value: `)
	conditions := map[string]string{}
	for _, c := range policy.Spec.MatchConditions {
		conditions[c.Name] = c.Expression
	}
	// names by membership, wildcards by a literal regex (compiled once with the policy)
	assert.Equal(t, `![request.namespace].exists(s, s in ["kube-system", "monitoring", "proxykit-test", "kyverno"] || s.matches("^kube-p.*$"))`, conditions["namespace-not-excluded"],
		"patterns as in Kyverno; kube-system although the values list does not name it")
	assert.Contains(t, conditions["name-not-excluded"], `.exists(s, s.matches("^capi-.*$"))`)
	assert.Contains(t, conditions["not-opted-out"], `object.metadata.annotations["proxykit.io/inject"] == "false"`)
	rules := policy.Spec.MatchConstraints.ResourceRules
	require.Len(t, rules, 2)
	assert.Equal(t, []string{"pods/ephemeralcontainers"}, rules[1].Resources)
}

// TestProxyPoliciesMergeDropsPublicEntries: policy.mergeNoProxy is on unless
// switched off, and each engine drops from a merged value what sends public
// hosts around the proxy. The CEL engines do it in the merge itself, reading
// the public suffix table from a variable (CEL parses 100,000 code points per
// expression at most, and the table is 75,000; a variable is evaluated only
// when read, so a Pod without own settings never reads it); the ClusterPolicy
// in foreach entries of the inject rules, after the merge. Without the merge there is
// neither. TestOwnSettingsAreOneBehaviour runs them through the Kyverno CLI and
// the API server against inject.
func TestProxyPoliciesMergeDropsPublicEntries(t *testing.T) {
	java := strings.Replace(fixture.PolicyValuesPlain, "proxy:\n", "proxy:\n  runtimes: [java]\n", 1)
	merged := java
	table := fixture.Include(t, nil, proxykit.Call{Helper: "proxykit.noProxy.icannSuffixes"})

	r := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(merged))
	policy := proxytest.Get[admissionv1.MutatingAdmissionPolicy](t, r, "inject-proxy-env")
	require.Len(t, policy.Spec.Mutations, 1, "the merge and its drop in the env's one JSON patch")
	require.Len(t, policy.Spec.Variables, 1)
	assert.Equal(t, admissionv1.Variable{Name: "psl", Expression: strconv.Quote(table)}, policy.Spec.Variables[0], "the table, a variable")
	env := policy.Spec.Mutations[0].JSONPatch.Expression
	assert.NotContains(t, env, table)
	assert.Less(t, len(env), 100000)
	assert.Contains(t, env, `.filter(s, s != "" && !(s in have) && ![s.lowerAscii()].map(l, l == "*" || l.contains("@")`, "an own NO_PROXY entry joins unless it is public")
	assert.Contains(t, env, `variables.psl.contains("|" + n + "|")`)
	assert.Contains(t, env, `(theirs + jhosts.filter(p, !(p in theirs))).filter(p, p != "" && ![p.trim()]`, "the JAVA_TOOL_OPTIONS flag merge leaves out public patterns")
	assert.Contains(t, env, `.map(full, (" " + v).endsWith(full) ? v : v + full).map(m, [m.lastIndexOf("-Dhttp.nonProxyHosts=") + 21]`, "the JVM's other option variables: appended, then the last flag's public patterns dropped")
	var mpol kyvernoCELPolicy
	require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, r, "MutatingPolicy", "inject-proxy-env").Raw), &mpol))
	assert.Equal(t, policy.Spec.Variables, mpol.Spec.Variables, "Kyverno's MutatingPolicy reads the same variable")

	off := proxytest.Get[admissionv1.MutatingAdmissionPolicy](t, fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(java+"policy: {mergeNoProxy: false}\n")), "inject-proxy-env")
	assert.Empty(t, off.Spec.Variables, "no merge, no table")
	assert.NotContains(t, off.Spec.Mutations[0].JSONPatch.Expression, "variables.psl")

	clusterPolicy := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(merged+fixture.ClusterPolicyKind))
	// the inject rules' drop entries write the table into each JMESPath expression (a filter
	// sees no variable): eight times with proxy.runtimes java, within what etcd stores (1.5 MiB)
	assert.Less(t, len(fixture.Find(t, clusterPolicy, "ClusterPolicy", "inject-proxy-env").Raw), 1<<20)
	p := fixture.DecodePolicy(t, clusterPolicy, "inject-proxy-env")
	var names []string
	for _, rule := range p.Spec.Rules {
		names = append(names, rule.Name)
		if rule.Name == "inject-create" || rule.Name == "inject-debug-ephemeral-containers" {
			lists := map[bool]int{true: 3, false: 1}[rule.Name == "inject-create"]
			require.Len(t, rule.Mutate.Foreach, 3*lists, "per list: the merge, then the drop from NO_PROXY and its twin, then from the JVM's option variables")
			for i, f := range rule.Mutate.Foreach {
				if i%3 == 0 {
					assert.Contains(t, f.PatchesJSON6902, "newEnv", "the merge first")
					continue
				}
				assert.Equal(t, 1, strings.Count(fmt.Sprint(f.Foreach), table), "the table once per patch")
			}
		}
	}
	assert.Equal(t, []string{
		"join-java-create-containers", "join-java-create-init-containers", "join-java-create-ephemeral-containers",
		"java-options-create-containers", "java-options-create-init-containers", "java-options-create-ephemeral-containers", "inject-create",
		"join-java-debug-ephemeral-containers", "java-options-debug-ephemeral-containers", "inject-debug-ephemeral-containers",
		"inject-plain-create", "inject-plain-debug-ephemeral-containers",
	}, names, "the drop in the rule that merges last, after the merge")
}

func TestProxyPoliciesScope(t *testing.T) {
	r := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain+`
namespaces:
  exclude: [monitoring]
  include: [apps, team-*]
kyverno: {namespace: policy-engine, policyKind: ClusterPolicy}
`))

	p := fixture.DecodePolicy(t, r, "inject-proxy-env")
	for _, rule := range p.Spec.Rules {
		assert.Equal(t, []string{"apps", "team-*"}, rule.Match.Any[0].Resources.Namespaces)
		assert.ElementsMatch(t, []string{"kube-system", "monitoring", fixture.PolicyNamespace, "policy-engine"}, rule.Exclude.Any[0].Resources.Namespaces, "kube-system stays excluded")
	}
	native := proxytest.Get[admissionv1.MutatingAdmissionPolicy](t, r, "inject-proxy-env")
	var included string
	for _, c := range native.Spec.MatchConditions {
		if c.Name == "namespace-included" {
			included = c.Expression
		}
	}
	assert.Equal(t, `[request.namespace].exists(s, s in ["apps"] || s.matches("^team-.*$"))`, included)
}

func TestProxyPoliciesCredentials(t *testing.T) {
	values := fixture.CredentialValues(t, map[string]any{
		"native":   map[string]any{"enabled": true, "secretNamespaces": []string{"apps", "batch"}},
		"kyverno":  map[string]any{"policyKind": "ClusterPolicy"},
		"defaults": nil,
	})
	r, err := fixture.RenderE(fixture.ProxyPolicies, proxytest.Values(values))
	require.NoError(t, err)
	secretName := fixture.Release + "-proxy-credentials"

	var namespaces []string
	for _, d := range r.Objects {
		if d.Kind == "Secret" {
			s := fixture.Decode[corev1.Secret](t, d)
			assert.Equal(t, secretName, s.Name)
			assert.Equal(t, fixture.CredHTTPS, string(s.Data["HTTPS_PROXY"]))
			namespaces = append(namespaces, s.Namespace)
		}
	}
	assert.ElementsMatch(t, []string{fixture.PolicyNamespace, "apps", "batch"}, namespaces)

	clone := fixture.DecodePolicy(t, r, "inject-proxy-env-secret")
	require.Len(t, clone.Spec.Rules, 1)
	gen := clone.Spec.Rules[0].Generate
	require.NotNil(t, gen)
	assert.True(t, gen.Synchronize)
	assert.True(t, gen.GenerateExisting)
	assert.Equal(t, secretName, gen.Name)
	assert.Equal(t, struct{ Namespace, Name string }{fixture.PolicyNamespace, secretName}, gen.Clone)

	role := proxytest.Get[rbacv1.ClusterRole](t, r, fixture.Release+":kyverno-clone-secrets")
	assert.Equal(t, "true", role.Labels["rbac.kyverno.io/aggregate-to-background-controller"])

	native := proxytest.Get[admissionv1.MutatingAdmissionPolicy](t, r, "inject-proxy-env")
	// secretKeyRef is an atomic struct an apply configuration may not add: a JSON patch appends it
	require.Equal(t, admissionv1.PatchTypeJSONPatch, native.Spec.Mutations[0].PatchType)
	assert.Contains(t, native.Spec.Mutations[0].JSONPatch.Expression, `"secretKeyRef": {"name": "`+secretName+`", "key": "HTTP_PROXY"}`)
	for _, m := range native.Spec.Mutations {
		if m.ApplyConfiguration != nil {
			assert.NotContains(t, m.ApplyConfiguration.Expression, "secretKeyRef")
		}
	}
	// only namespaces with a copy of the Secret
	assert.Equal(t, "namespace-holds-the-proxy-secret", native.Spec.MatchConditions[0].Name)
	assert.Equal(t, `["apps", "batch"].exists(n, request.namespace == n)`, native.Spec.MatchConditions[0].Expression)
	fixture.AssertNoCredentialsOutsideSecrets(t, r)
}

func TestProxyPoliciesOff(t *testing.T) {
	r := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(`native: {enabled: true}`))
	assert.Empty(t, r.IDs(), "no proxy, no policy")
	r = fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain+`kyverno: {enabled: false}`+"\n"))
	assert.ElementsMatch(t, []string{"MutatingAdmissionPolicy/inject-proxy-env", "MutatingAdmissionPolicyBinding/inject-proxy-env"}, r.IDs())
}

func TestProxyPoliciesBadValues(t *testing.T) {
	cases := []struct{ name, values, want string }{
		{"failure policy", "policy: {failurePolicy: Sometimes}", "/policy/failurePolicy"},
		{"namespace pattern", "namespaces: {exclude: [Kube_System]}", "/namespaces/exclude/0"},
		{"proxy URL", "proxy: {https: proxy:3128}", "proxy.https"},
		{"service CIDR", "proxy: {https: 'http://p:1'}\ncluster: {serviceCIDRs: [fd00::/129]}", "cluster.serviceCIDRs"},
		{"secret namespace", "native: {secretNamespaces: [Apps]}", "/native/secretNamespaces/0"},
		{"credentials without secret namespaces", "proxy: {https: 'http://u:p@p:1'}\ncluster: {serviceCIDRs: [10.96.0.0/12]}\nnative: {enabled: true}", "native.secretNamespaces"},
		{"policy kind", "kyverno: {policyKind: Policy}", "/kyverno/policyKind"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { fixture.AssertFailsNaming(t, fixture.ProxyPolicies, tc.values, tc.want) })
	}
}

// kyvernoCELPolicy is the part of a Kyverno MutatingPolicy or GeneratingPolicy
// (policies.kyverno.io/v1) these tests read; the live admission matrix runs them.
type kyvernoCELPolicy struct {
	Spec struct {
		FailurePolicy      string `json:"failurePolicy"`
		ReinvocationPolicy string `json:"reinvocationPolicy"`
		Autogen            struct {
			PodControllers struct {
				Controllers *[]string `json:"controllers"`
			} `json:"podControllers"`
		} `json:"autogen"`
		Evaluation       map[string]map[string]bool    `json:"evaluation"`
		MatchConstraints admissionv1.MatchResources    `json:"matchConstraints"`
		MatchConditions  []admissionv1.MatchCondition  `json:"matchConditions"`
		Variables        []admissionv1.Variable        `json:"variables"`
		Mutations        []admissionv1.Mutation        `json:"mutations"`
		Generate         []struct{ Expression string } `json:"generate"`
	} `json:"spec"`
}

// TestProxyPoliciesMutatingPolicy: the default Kyverno kind carries the native
// policy's CEL body (one source), with autogen off; the scope conditions that read
// the Pod (opt-outs, name patterns) guard its mutations instead of matching, as the
// API server would evaluate them on Kyverno's webhook for every Pod.
func TestProxyPoliciesMutatingPolicy(t *testing.T) {
	cases := []struct {
		values    string
		named     []string // the excluded namespaces a selector says
		patterned string   // the CEL for the excluded patterns, or ""
	}{
		{fixture.PolicyValuesPlain, []string{"kube-system", "monitoring", fixture.Namespace, "kyverno"}, `![request.namespace].exists(s, s.matches("^kube-p.*$"))`},
		{fixture.CredentialValues(t, map[string]any{"native": map[string]any{"enabled": true, "secretNamespaces": []string{"apps"}}, "defaults": nil}),
			[]string{"kube-system", fixture.Namespace, "kyverno"}, ""},
	}
	for _, tc := range cases {
		r := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(tc.values))
		var p kyvernoCELPolicy
		require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, r, "MutatingPolicy", "inject-proxy-env").Raw), &p))
		native := proxytest.Get[admissionv1.MutatingAdmissionPolicy](t, r, "inject-proxy-env")
		require.NotNil(t, p.Spec.Autogen.PodControllers.Controllers)
		assert.Empty(t, *p.Spec.Autogen.PodControllers.Controllers, "no rules copied onto Deployments")
		assert.Equal(t, "Ignore", p.Spec.FailurePolicy)
		assert.Equal(t, "IfNeeded", p.Spec.ReinvocationPolicy)
		conditions := map[string]string{}
		for _, c := range native.Spec.MatchConditions {
			conditions[c.Name] = c.Expression
		}
		// the scope a selector cannot say guards every mutation: the opt-outs, the name
		// patterns, and the namespace patterns
		guard := "(" + conditions["not-opted-out"] + ")"
		if names := conditions["name-not-excluded"]; names != "" {
			guard += " && (" + names + ")"
		}
		if tc.patterned != "" {
			guard += " && (" + tc.patterned + ")"
		}
		require.Len(t, p.Spec.Mutations, len(native.Spec.Mutations))
		for i, m := range native.Spec.Mutations {
			mp := p.Spec.Mutations[i]
			require.Equal(t, m.PatchType, mp.PatchType)
			if m.JSONPatch != nil {
				assert.Equal(t, "!("+guard+") ? [] : ( "+m.JSONPatch.Expression+")", mp.JSONPatch.Expression, "the native policy's JSON patch, guarded")
			} else {
				assert.Equal(t, "!("+guard+") ? Object{} : ( "+m.ApplyConfiguration.Expression+")", mp.ApplyConfiguration.Expression, "the native policy's apply configuration, guarded")
			}
		}
		assert.Equal(t, native.Spec.MatchConstraints.ResourceRules, p.Spec.MatchConstraints.ResourceRules)
		// named namespaces are a selector, which the API server applies without converting the Pod
		assert.Equal(t, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: tc.named,
		}}}, p.Spec.MatchConstraints.NamespaceSelector)
		assert.Empty(t, p.Spec.MatchConditions,
			"no match condition: Kyverno copies them into its webhook, where the API server converts every Pod to evaluate one")
	}
}

// TestProxyPoliciesGeneratingPolicy: with credentials, the copies are made for
// existing namespaces too, kept in sync, and outlive the policy; the source and
// the native copies carry helm.sh/resource-policy: keep.
func TestProxyPoliciesGeneratingPolicy(t *testing.T) {
	r := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.CredentialValues(t, map[string]any{
		"native": map[string]any{"enabled": true, "secretNamespaces": []string{"apps"}}, "defaults": nil})))

	secret := fixture.Release + "-proxy-credentials"
	var p kyvernoCELPolicy
	require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, r, "GeneratingPolicy", "inject-proxy-env-secret").Raw), &p))
	for _, key := range []string{"generateExisting", "synchronize", "orphanDownstreamOnPolicyDelete"} {
		assert.True(t, p.Spec.Evaluation[key]["enabled"], key)
	}
	assert.Equal(t, []string{"namespaces"}, p.Spec.MatchConstraints.ResourceRules[0].Resources)
	require.Len(t, p.Spec.Variables, 1)
	assert.Equal(t, `resource.Get("v1", "secrets", "`+fixture.Namespace+`", "`+secret+`")`, p.Spec.Variables[0].Expression)
	require.Len(t, p.Spec.Generate, 1)
	assert.Equal(t, "generator.Apply(object.metadata.name, [variables.source])", p.Spec.Generate[0].Expression)
	assert.Contains(t, p.Spec.MatchConditions[0].Expression, `s in ["kube-system", `)
	for _, ns := range []string{fixture.Namespace, "apps"} {
		var s corev1.Secret
		for _, d := range r.Objects {
			if d.Kind == "Secret" && d.Namespace == ns {
				s = fixture.Decode[corev1.Secret](t, d)
			}
		}
		assert.Equal(t, "keep", s.Annotations["helm.sh/resource-policy"], "Secret in %s", ns)
	}

	r = fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.CredentialValues(t, map[string]any{"kyverno": map[string]any{"policyKind": "ClusterPolicy"}, "defaults": nil})))
	assert.Contains(t, string(fixture.Find(t, r, "ClusterPolicy", "inject-proxy-env-secret").Raw), "orphanDownstreamOnPolicyDelete: true")
	assert.Nil(t, r.Find("GeneratingPolicy", "inject-proxy-env-secret"))
	assert.Nil(t, r.Find("MutatingPolicy", "inject-proxy-env"))
}

// TestProxyPoliciesMutatingPolicyNamespaces: namespaces.include of names is a selector
// (In), one with a pattern is checked in the mutations, whole, beside the exclusions.
func TestProxyPoliciesMutatingPolicyNamespaces(t *testing.T) {
	for _, tc := range []struct {
		include string
		in      []string // the selector's In values, or none
		guarded string   // what the guard holds for the include, or ""
	}{
		{"[team-a, team-b]", []string{"team-a", "team-b"}, ""},
		{`[team-a, "apps-*"]`, nil, `[request.namespace].exists(s, s in ["team-a"] || s.matches("^apps-.*$"))`},
	} {
		r := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain+"namespaces: {exclude: [monitoring], include: "+tc.include+"}\n"))
		var p kyvernoCELPolicy
		require.NoError(t, yaml.Unmarshal([]byte(fixture.Find(t, r, "MutatingPolicy", "inject-proxy-env").Raw), &p))
		want := []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn,
			Values: []string{"kube-system", "monitoring", fixture.Namespace, "kyverno"}}}
		if tc.in != nil {
			want = append(want, metav1.LabelSelectorRequirement{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: tc.in})
		}
		assert.Equal(t, want, p.Spec.MatchConstraints.NamespaceSelector.MatchExpressions, tc.include)
		guard := strings.SplitN(p.Spec.Mutations[0].JSONPatch.Expression, " ? [] : ( ", 2)[0]
		if tc.guarded != "" {
			assert.True(t, strings.HasSuffix(guard, " && ("+tc.guarded+"))"), "%s: %s", tc.include, guard)
		} else {
			assert.NotContains(t, guard, "request.namespace", tc.include)
		}
	}
}

// TestProxyPoliciesFabric8: a container that may run the fabric8 client gets
// NO_PROXY without its bracketed entries in every engine, decided as inject
// decides it (noproxy.Fabric8MayRun) from the same words; the CEL engines
// write NO_PROXY into their expression once, and without bracketed entries in
// NO_PROXY (or with credentials, whose NO_PROXY the Secret holds) nothing is
// chosen per container. The engines' output is held to inject's by
// TestOwnSettingsAreOneBehaviour and the admission matrix (fixture.ExpectedEnv).
func TestProxyPoliciesFabric8(t *testing.T) {
	goVars, err := json.Marshal(noproxy.JavaOptionVariables)
	require.NoError(t, err)
	r := fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain))
	expr := proxytest.Get[admissionv1.MutatingAdmissionPolicy](t, r, "inject-proxy-env").Spec.Mutations[0].JSONPatch.Expression
	assert.Contains(t, expr, fmt.Sprintf(`.matches(%q)`, "(^|/)[^/:]*("+strings.Join(noproxy.JVMImageWords, "|")+")[^/:]*(:[^/]*)?$"), "the image words are Go's")
	assert.Contains(t, expr, "e.name in "+string(goVars), "the JVM's option variables are Go's")
	assert.Contains(t, expr, `.map(jvm, [jvm ? pfabric8 : pall].map(plist, [jvm ? vals[3] : vals[2]].map(cnp,`)
	assert.Equal(t, 1, strings.Count(expr, fixture.PolicyNoProxy), "NO_PROXY written once")
	clusterPolicy := string(fixture.Find(t, fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(fixture.PolicyValuesPlain+fixture.ClusterPolicyKind)), "ClusterPolicy", "inject-proxy-env").Raw)
	assert.Contains(t, clusterPolicy, "- name: fabric8\n", "the ClusterPolicy decides per container too")

	// with credentials NO_PROXY is the Secret's: nothing to choose
	credentials := fixture.CredentialValues(t, map[string]any{"native": map[string]any{"enabled": true, "secretNamespaces": []string{"apps"}}, "defaults": nil})
	expr = proxytest.Get[admissionv1.MutatingAdmissionPolicy](t, fixture.Render(t, fixture.ProxyPolicies, proxytest.Values(credentials)), "inject-proxy-env").Spec.Mutations[0].JSONPatch.Expression
	assert.NotContains(t, expr, "pfabric8")
}
