package tests

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// objectsBySource lists "Kind/name" per template file, sorted.
func objectsBySource(r *proxytest.Manifests) map[string][]string {
	out := map[string][]string{}
	for _, d := range r.Objects {
		id := d.Kind + "/" + d.Name
		if d.Namespace != "" {
			id += "@" + d.Namespace
		}
		out[d.Source] = append(out[d.Source], id)
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out
}

// TestEachTemplateRendersItsObjects pins which template renders which objects,
// with credentials on so that every template of every chart renders.
func TestEachTemplateRendersItsObjects(t *testing.T) {
	secret := fixture.Release + "-proxy-credentials"
	cases := []struct {
		chart, values string
		want          map[string][]string
	}{
		{
			chart:  fixture.ChartOperator,
			values: fixture.CredentialValues(t, nil),
			want: map[string][]string{
				"templates/serviceaccount.yaml":     {"ServiceAccount/test@" + fixture.Namespace},
				"templates/clusterrole.yaml":        {"ClusterRole/test"},
				"templates/clusterrolebinding.yaml": {"ClusterRoleBinding/test"},
				"templates/deployment.yaml":         {"Deployment/test@" + fixture.Namespace},
				"templates/proxy-secret.yaml":       {"Secret/" + secret + "@" + fixture.Namespace},
			},
		},
		{
			chart:  fixture.ClusterProxy,
			values: fixture.CredentialValues(t, map[string]any{"clusterName": "mgmt", "talos": map[string]any{"enabled": true}, "flatcar": map[string]any{"enabled": true}}),
			want: map[string][]string{
				"templates/cluster-values-secret.yaml": {"Secret/mgmt-cluster-values@" + fixture.Namespace},
				"templates/systemd-proxy-secret.yaml":  {"Secret/mgmt-systemd-proxy@" + fixture.Namespace},
				"templates/talos-patch-secret.yaml":    {"Secret/mgmt-talos-proxy@" + fixture.Namespace},
				"templates/flatcar-butane-secret.yaml": {"Secret/mgmt-flatcar-proxy@" + fixture.Namespace},
				"templates/proxy-env.yaml":             {"Secret/proxy-env@" + fixture.Namespace},
				"templates/proxy-secret.yaml":          {"Secret/" + secret + "@kube-system", "Secret/" + secret + "@" + fixture.Namespace},
			},
		},
		{
			chart: fixture.ProxyPolicies,
			values: fixture.CredentialValues(t, map[string]any{
				"native": map[string]any{"enabled": true, "secretNamespaces": []string{"apps"}}, "defaults": nil}),
			want: map[string][]string{
				"templates/kyverno-mutatingpolicy.yaml":         {"MutatingPolicy/inject-proxy-env"},
				"templates/kyverno-generatingpolicy.yaml":       {"GeneratingPolicy/inject-proxy-env-secret"},
				"templates/kyverno-secrets-clusterrole.yaml":    {"ClusterRole/test:kyverno-clone-secrets", "ClusterRole/test:kyverno-read-secrets"},
				"templates/native-mutatingadmissionpolicy.yaml": {"MutatingAdmissionPolicy/inject-proxy-env", "MutatingAdmissionPolicyBinding/inject-proxy-env"},
				"templates/native-proxy-secrets.yaml":           {"Secret/" + secret + "@apps"},
				"templates/proxy-secret.yaml":                   {"Secret/" + secret + "@" + fixture.Namespace},
			},
		},
		{
			chart:  fixture.ProxyPolicies,
			values: fixture.CredentialValues(t, map[string]any{"kyverno": map[string]any{"policyKind": "ClusterPolicy"}, "defaults": nil}),
			want: map[string][]string{
				"templates/kyverno-clusterpolicy.yaml":              {"ClusterPolicy/inject-proxy-env"},
				"templates/kyverno-clusterpolicy-clone-secret.yaml": {"ClusterPolicy/inject-proxy-env-secret"},
				"templates/kyverno-secrets-clusterrole.yaml":        {"ClusterRole/test:kyverno-clone-secrets", "ClusterRole/test:kyverno-read-secrets"},
				"templates/proxy-secret.yaml":                       {"Secret/" + secret + "@" + fixture.Namespace},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.chart[len(fixture.Root)+1:], func(t *testing.T) {
			assert.Equal(t, tc.want, objectsBySource(fixture.Render(t, tc.chart, proxytest.Values(tc.values))))
		})
	}
}
