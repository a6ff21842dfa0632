package rules

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/manifest"
)

const goodNoProxy = "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.244.0.0/16,10.96.0.0/12,10.96.0.1,169.254.169.254,metadata.google.internal,168.63.129.16,169.254.170.23,fd00:ec2::254,fd00:ec2::23,[::1],[fd00:ec2::254],[fd00:ec2::23]"

var testCluster = cluster.Facts{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1", Metadata: true}

// pod renders a Pod manifest whose one container has the given env and envFrom YAML.
func pod(env, envFrom string, extra ...string) string {
	doc := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      image: x\n"
	if env != "" {
		doc += "      env:\n" + indent(env, "        ")
	}
	if envFrom != "" {
		doc += "      envFrom:\n" + indent(envFrom, "        ")
	}
	return strings.Join(append([]string{doc}, extra...), "\n---\n")
}

func indent(s, prefix string) string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, prefix+line)
	}
	return strings.Join(out, "\n") + "\n"
}

func plainEnv(http, noProxy string) string {
	var lines []string
	for _, n := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		lines = append(lines, "- {name: "+n+", value: \""+http+"\"}")
	}
	for _, n := range []string{"NO_PROXY", "no_proxy"} {
		lines = append(lines, "- {name: "+n+", value: \""+noProxy+"\"}")
	}
	return strings.Join(lines, "\n")
}

func rules(findings []Finding) []string {
	var out []string
	for _, f := range findings {
		out = append(out, f.Rule)
	}
	sort.Strings(out)
	return out
}

// ruleCase is a render and the rules Check finds in it, sorted.
type ruleCase struct {
	name      string
	manifests string
	want      []string
}

// checkCases runs each case through Check against testCluster; no finding ever
// shows a password.
func checkCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := manifest.Parse(tc.manifests)
			require.NoError(t, err)
			findings := Check(m, WithCluster(testCluster))
			assert.Equal(t, tc.want, rules(findings), "%v", findings)
			for _, f := range findings {
				assert.NotContains(t, f.Message, "pw@", "a finding shows a password")
				assert.NotContains(t, f.Message, "s3cret")
			}
		})
	}
}

// secretDoc is a Secret holding a proxy URL with user-info and a good NO_PROXY.
var secretDoc = "apiVersion: v1\nkind: Secret\nmetadata: {name: proxy}\nstringData:\n  HTTP_PROXY: http://u:p@proxy:3128\n  NO_PROXY: " + goodNoProxy

func TestCheckRules(t *testing.T) {
	checkCases(t, []ruleCase{
		{"complete and covering", pod(plainEnv("http://proxy:3128", goodNoProxy), ""), nil},
		{"secretKeyRefs into a Secret of the manifests", pod(strings.Join([]string{
			"- {name: HTTP_PROXY, valueFrom: {secretKeyRef: {name: proxy, key: HTTP_PROXY}}}",
			"- {name: HTTPS_PROXY, valueFrom: {secretKeyRef: {name: proxy, key: HTTP_PROXY}}}",
			"- {name: NO_PROXY, valueFrom: {secretKeyRef: {name: proxy, key: NO_PROXY}}}",
			"- {name: http_proxy, valueFrom: {secretKeyRef: {name: proxy, key: HTTP_PROXY}}}",
			"- {name: https_proxy, valueFrom: {secretKeyRef: {name: proxy, key: HTTP_PROXY}}}",
			"- {name: no_proxy, valueFrom: {secretKeyRef: {name: proxy, key: NO_PROXY}}}"}, "\n"), "", secretDoc), nil},
		{"envFrom an optional missing Secret", pod(plainEnv("http://proxy:3128", goodNoProxy), "- secretRef: {name: gone, optional: true}"), nil},
	})
}

// AWS's IPv6 metadata address is judged only where Pods can reach it: on a
// cluster with an IPv6 network. A hand-written NO_PROXY without it on an
// IPv4-only cluster is fine.
func TestIPv6MetadataOnlyWithIPv6Networks(t *testing.T) {
	without := strings.ReplaceAll(strings.ReplaceAll(goodNoProxy, ",fd00:ec2::254", ""), ",[fd00:ec2::254]", "")
	m, err := manifest.Parse(pod(plainEnv("http://proxy:3128", without), ""))
	require.NoError(t, err)
	assert.Empty(t, Check(m, WithCluster(testCluster)), "IPv4 only")
	assert.NotContains(t, testCluster.Targets(), "http://[fd00:ec2::254]/latest/meta-data")

	dual := testCluster
	dual.PodCIDRs = []string{"10.244.0.0/16", "fd00:10:244::/56"}
	withNetwork := strings.Replace(without, "10.244.0.0/16", "10.244.0.0/16,fd00:10:244::/56", 1)
	m, err = manifest.Parse(pod(plainEnv("http://proxy:3128", withNetwork), ""))
	require.NoError(t, err)
	findings := Check(m, WithCluster(dual))
	require.Len(t, findings, 1)
	assert.Equal(t, RuleNoProxyGap, findings[0].Rule)
	assert.Contains(t, findings[0].Message, "http://[fd00:ec2::254]/latest/meta-data")

	v6API := testCluster
	v6API.APIServer = "fd00:10:96::1"
	assert.Contains(t, v6API.Targets(), "http://[fd00:ec2::254]/latest/meta-data", "an IPv6 API server address means IPv6 Pods")
	assert.Contains(t, v6API.Targets(), "http://[fd00:ec2::23]/v1/credentials", "EKS Pod Identity's IPv6 agent")
	assert.Contains(t, testCluster.Targets(), "http://169.254.170.23/v1/credentials", "EKS Pod Identity's agent")
}

// Check's expectations can be given explicitly, not through m.Variables.
func TestCheckExpectVariables(t *testing.T) {
	only := "- {name: HTTP_PROXY, value: http://proxy:3128}\n- {name: NO_PROXY, value: \"" + goodNoProxy + "\"}\n- {name: http_proxy, value: http://proxy:3128}\n- {name: no_proxy, value: \"" + goodNoProxy + "\"}"
	m, err := manifest.Parse(pod(only, ""))
	require.NoError(t, err)
	assert.Equal(t, []string{RuleMissingProxyEnv}, rules(Check(m, WithCluster(testCluster))), "after Parse, all six are expected")
	assert.Empty(t, Check(m, WithCluster(testCluster), ExpectVariables([]string{"HTTP_PROXY", "NO_PROXY", "http_proxy", "no_proxy"})), "no https proxy set")
	assert.Empty(t, m.Variables, "the manifests are left as they are")
}

// A proxy URL pasted into NO_PROXY, with a password that holds "@", is judged
// without its password ever reaching a message.
func TestFindingsNeverQuoteAPassword(t *testing.T) {
	pasted := "http://svc:Pw0rd@Leak@proxy.corp:3128,*," + goodNoProxy
	m, err := manifest.Parse(pod(plainEnv("http://proxy:3128", pasted), ""))
	require.NoError(t, err)
	findings := Check(m, WithCluster(testCluster))
	require.NotEmpty(t, findings)
	for _, f := range findings {
		assert.NotContains(t, f.String(), "Pw0rd")
		assert.NotContains(t, f.String(), "Leak")
	}
}
