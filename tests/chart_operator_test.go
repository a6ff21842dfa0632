package tests

import (
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

var chartOperatorChart = repoPath("charts", "chart-operator")

func operatorEnv(t *testing.T, r *proxytest.Manifests) []corev1.EnvVar {
	t.Helper()
	return container(t, proxytest.Get[appsv1.Deployment](t, r, releaseName).Spec.Template.Spec, "chart-operator").Env
}

func TestChartOperatorEnv(t *testing.T) {
	cases := []struct {
		name   string
		values string
		want   []corev1.EnvVar
	}{
		{
			name:   "no proxy: no env key",
			values: ``,
			want:   nil,
		},
		{
			name: "cluster.proxy from a cluster-values Secret, then defaults.env and chartOperator.env",
			values: `
cluster:
  proxy: {http: "http://c:3128", noProxy: "localhost,cluster.local,10.96.0.0/12,.corp.example"}
  metadataEndpoints: false
proxy: {lowercase: false}
defaults: {env: [{name: TZ, value: UTC}, {name: LOG_LEVEL, value: info}]}
chartOperator: {env: [{name: LOG_LEVEL, value: debug}]}
`,
			want: []corev1.EnvVar{
				val("HTTP_PROXY", "http://c:3128"),
				val("NO_PROXY", "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,10.96.0.0/12,.corp.example"),
				val("TZ", "UTC"), val("LOG_LEVEL", "debug"),
			},
		},
		{
			name: "global.proxy is read as well; proxy wins per key",
			values: `
global: {proxy: {http: "http://g:1", https: "http://g:2"}}
proxy: {https: "http://p:2", lowercase: false}
cluster: {metadataEndpoints: false, requireNetworks: false}
`,
			want: []corev1.EnvVar{
				val("HTTP_PROXY", "http://g:1"), val("HTTPS_PROXY", "http://p:2"),
				val("NO_PROXY", "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc"),
			},
		},
		{
			name: "bootstrap literals go last and win over values; the endpoint joins NO_PROXY in place",
			values: `
proxy: {https: "http://p:3128", lowercase: false}
cluster: {apiServer: 10.96.0.1, serviceCIDRs: [10.96.0.0/12], metadataEndpoints: false}
chartOperator:
  env: [{name: KUBERNETES_SERVICE_HOST, value: ignored}]
  bootstrap: {enabled: true, apiServerHost: api.wc1.example.com, apiServerPort: 443}
`,
			want: []corev1.EnvVar{
				val("HTTPS_PROXY", "http://p:3128"),
				val("NO_PROXY", "localhost,127.0.0.1,::1,[::1],cluster.local,cluster.local.,svc,10.96.0.0/12,10.96.0.1,api.wc1.example.com"),
				val("KUBERNETES_SERVICE_HOST", "api.wc1.example.com"),
				val("KUBERNETES_SERVICE_PORT", "443"),
			},
		},
		{
			name: "bootstrap with credentials: URLs from the Secret, NO_PROXY with the endpoint as a plain value",
			values: credentialValues(t, map[string]any{"chartOperator": map[string]any{
				"bootstrap": map[string]any{"enabled": true, "apiServerHost": "fd00:1::10"}}}),
			want: []corev1.EnvVar{
				secretRef("HTTP_PROXY", releaseName+"-proxy-credentials", "HTTP_PROXY"),
				secretRef("HTTPS_PROXY", releaseName+"-proxy-credentials", "HTTPS_PROXY"),
				val("NO_PROXY", noProxyPlain+",fd00:1::10,[fd00:1::10]"),
				secretRef("http_proxy", releaseName+"-proxy-credentials", "HTTP_PROXY"),
				secretRef("https_proxy", releaseName+"-proxy-credentials", "HTTPS_PROXY"),
				val("no_proxy", noProxyPlain+",fd00:1::10,[fd00:1::10]"),
				val("TZ", "UTC"),
				val("KUBERNETES_SERVICE_HOST", "fd00:1::10"),
				val("KUBERNETES_SERVICE_PORT", "6443"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, operatorEnv(t, mustRenderSDK(t, chartOperatorChart, tc.values)))
		})
	}
}

func TestChartOperatorObjects(t *testing.T) {
	r, err := renderCLI(t, chartOperatorChart, `
cluster: {proxy: {http: "http://c:3128"}, apiServer: 10.96.0.1, serviceCIDRs: [10.96.0.0/12]}
chartOperator: {bootstrap: {enabled: true, apiServerHost: api.wc1.example.com}}
`)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"ServiceAccount/test", "ClusterRole/test", "ClusterRoleBinding/test", "Deployment/test"}, r.IDs())

	sa := decodeStrict[corev1.ServiceAccount](t, find(t, r, "ServiceAccount", releaseName))
	assert.Equal(t, namespace, sa.Namespace)
	role := decodeStrict[rbacv1.ClusterRole](t, find(t, r, "ClusterRole", releaseName))
	assert.Equal(t, []string{"*"}, role.Rules[0].Verbs)
	binding := decodeStrict[rbacv1.ClusterRoleBinding](t, find(t, r, "ClusterRoleBinding", releaseName))
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: releaseName}, binding.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: releaseName, Namespace: namespace}}, binding.Subjects)

	spec := proxytest.Get[appsv1.Deployment](t, r, releaseName).Spec.Template.Spec
	assert.Equal(t, releaseName, spec.ServiceAccountName)
	assert.True(t, spec.HostNetwork, "bootstrap mode runs before the CNI")
	assert.Equal(t, corev1.DNSClusterFirstWithHostNet, spec.DNSPolicy)
	env := envMap(container(t, spec, "chart-operator").Env)
	assert.Equal(t, "api.wc1.example.com", env["KUBERNETES_SERVICE_HOST"].Value, "the endpoint, not the Service ClusterIP")
	assert.Contains(t, strings.Split(env["NO_PROXY"].Value, ","), "api.wc1.example.com")
	assert.Equal(t, env["NO_PROXY"].Value, env["no_proxy"].Value)
	assert.Equal(t, "6443", env["KUBERNETES_SERVICE_PORT"].Value)
	assert.Equal(t, "giantswarm/chart-operator:4.2.0", container(t, spec, "chart-operator").Image)
}

func TestChartOperatorCredentials(t *testing.T) {
	r, err := renderCLI(t, chartOperatorChart, credentialValues(t, nil))
	require.NoError(t, err)
	secretName := releaseName + "-proxy-credentials"
	assert.Equal(t, credHTTP, string(proxytest.Get[corev1.Secret](t, r, secretName).Data["HTTP_PROXY"]))
	assert.Equal(t, append(secretEnv(secretName, true), val("TZ", "UTC")), operatorEnv(t, r))
	assertNoCredentialsOutsideSecrets(t, r)
}

func TestChartOperatorBadValues(t *testing.T) {
	cases := []struct{ name, values, want string }{
		{"bootstrap without an API server", `chartOperator: {bootstrap: {enabled: true}}`, "chartOperator.bootstrap.apiServerHost"},
		{"bootstrap never falls back to the Service ClusterIP", `cluster: {apiServer: 10.96.0.1}
chartOperator: {bootstrap: {enabled: true}}`, "chartOperator.bootstrap.apiServerHost is required"},
		{"bootstrap endpoint with a port", "proxy: {http: \"http://p:1\"}\ncluster: {serviceCIDRs: [10.96.0.0/16]}\nchartOperator: {bootstrap: {enabled: true, apiServerHost: \"api.example:6443:1\"}}", "chartOperator.bootstrap.apiServerHost: \"api.example:6443:1\" is not a host name"},
		{"port out of range", `chartOperator: {bootstrap: {apiServerPort: 70000}}`, "/chartOperator/bootstrap/apiServerPort"},
		{"env entry without name", `chartOperator: {env: [{value: x}]}`, "env source 1[0] has no name"},
		{"pull policy", `chartOperator: {image: {pullPolicy: Sometimes}}`, "/chartOperator/image/pullPolicy"},
		{"bad proxy URL from cluster.proxy", `cluster: {proxy: {https: "proxy:3128"}}`, "cluster.proxy.https"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assertFailsNaming(t, chartOperatorChart, tc.values, tc.want) })
	}
}
