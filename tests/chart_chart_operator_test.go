package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/rules"
	"github.com/proxykit/proxykit/tests/fixture"
)

func operatorEnv(t *testing.T, r *proxytest.Manifests) []corev1.EnvVar {
	t.Helper()
	return r.Container(t, "Deployment/"+fixture.Release, "chart-operator").Env
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
				fixture.Val("HTTP_PROXY", "http://c:3128"),
				fixture.Val("NO_PROXY", "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.96.0.0/12,corp.example,.corp.example,[::1]"),
				fixture.Val("TZ", "UTC"), fixture.Val("LOG_LEVEL", "debug"),
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
				fixture.Val("HTTP_PROXY", "http://g:1"), fixture.Val("HTTPS_PROXY", "http://p:2"),
				fixture.Val("NO_PROXY", "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,[::1]"),
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
				fixture.Val("HTTPS_PROXY", "http://p:3128"),
				fixture.Val("NO_PROXY", "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.96.0.0/12,10.96.0.1,api.wc1.example.com,[::1]"),
				fixture.Val("KUBERNETES_SERVICE_HOST", "api.wc1.example.com"),
				fixture.Val("KUBERNETES_SERVICE_PORT", "443"),
			},
		},
		{
			name: "bootstrap with credentials: URLs from the Secret, NO_PROXY with the endpoint as a plain value",
			values: fixture.CredentialValues(t, map[string]any{"chartOperator": map[string]any{
				"bootstrap": map[string]any{"enabled": true, "apiServerHost": "fd00:1::10"}}}),
			want: []corev1.EnvVar{
				fixture.SecretRef("HTTP_PROXY", fixture.Release+"-proxy-credentials", "HTTP_PROXY"),
				fixture.SecretRef("HTTPS_PROXY", fixture.Release+"-proxy-credentials", "HTTPS_PROXY"),
				fixture.Val("NO_PROXY", fixture.WithNoProxy(fixture.NoProxyPlain, "fd00:1::10,[fd00:1::10]")),
				fixture.SecretRef("http_proxy", fixture.Release+"-proxy-credentials", "HTTP_PROXY"),
				fixture.SecretRef("https_proxy", fixture.Release+"-proxy-credentials", "HTTPS_PROXY"),
				fixture.Val("no_proxy", fixture.WithNoProxy(fixture.NoProxyPlain, "fd00:1::10,[fd00:1::10]")),
				fixture.Val("TZ", "UTC"),
				fixture.Val("KUBERNETES_SERVICE_HOST", "fd00:1::10"),
				fixture.Val("KUBERNETES_SERVICE_PORT", "6443"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, operatorEnv(t, fixture.Render(t, fixture.ChartOperator, proxytest.Values(tc.values))))
		})
	}
}

// TestChartOperatorRuntimes: chart-operator's container gets the runtimes'
// variables like every container generateEnv renders.
func TestChartOperatorRuntimes(t *testing.T) {
	r := fixture.Render(t, fixture.ChartOperator, proxytest.Values("cluster: {proxy: {http: \"http://c:3128\", runtimes: node}, serviceCIDRs: [10.96.0.0/12]}\n"))
	env := r.Environment(r.Containers()[0])
	assert.Equal(t, "1", env["NODE_USE_ENV_PROXY"])
	assert.Contains(t, env["NO_PROXY"], ",.cluster.local,")
}

func TestChartOperatorObjects(t *testing.T) {
	r, err := fixture.RenderE(fixture.ChartOperator, proxytest.Values(`
cluster: {proxy: {http: "http://c:3128"}, apiServer: 10.96.0.1, serviceCIDRs: [10.96.0.0/12]}
chartOperator: {bootstrap: {enabled: true, apiServerHost: api.wc1.example.com}}
`))

	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"ServiceAccount/test", "ClusterRole/test", "ClusterRoleBinding/test", "Deployment/test"}, r.IDs())

	sa := proxytest.Get[corev1.ServiceAccount](t, r, fixture.Release)
	assert.Equal(t, fixture.Namespace, sa.Namespace)
	role := proxytest.Get[rbacv1.ClusterRole](t, r, fixture.Release)
	assert.Equal(t, []string{"*"}, role.Rules[0].Verbs)
	binding := proxytest.Get[rbacv1.ClusterRoleBinding](t, r, fixture.Release)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: fixture.Release}, binding.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: fixture.Release, Namespace: fixture.Namespace}}, binding.Subjects)

	spec := proxytest.Get[appsv1.Deployment](t, r, fixture.Release).Spec.Template.Spec
	assert.Equal(t, fixture.Release, spec.ServiceAccountName)
	assert.True(t, spec.HostNetwork, "bootstrap mode runs before the CNI")
	assert.Equal(t, corev1.DNSClusterFirstWithHostNet, spec.DNSPolicy)
	env := fixture.EnvMap(fixture.SpecContainer(t, spec, "chart-operator").Env)
	assert.Equal(t, "api.wc1.example.com", env["KUBERNETES_SERVICE_HOST"].Value, "the endpoint, not the Service ClusterIP")
	assert.Contains(t, strings.Split(env["NO_PROXY"].Value, ","), "api.wc1.example.com")
	assert.Equal(t, env["NO_PROXY"].Value, env["no_proxy"].Value)
	assert.Equal(t, "6443", env["KUBERNETES_SERVICE_PORT"].Value)
	assert.Equal(t, "giantswarm/chart-operator:4.2.0", fixture.SpecContainer(t, spec, "chart-operator").Image)
}

func TestChartOperatorCredentials(t *testing.T) {
	r, err := fixture.RenderE(fixture.ChartOperator, proxytest.Values(fixture.CredentialValues(t, nil)))
	require.NoError(t, err)
	secretName := fixture.Release + "-proxy-credentials"
	assert.Equal(t, fixture.CredHTTP, string(proxytest.Get[corev1.Secret](t, r, secretName).Data["HTTP_PROXY"]))
	assert.Equal(t, append(fixture.SecretEnv(secretName, true), fixture.Val("TZ", "UTC")), operatorEnv(t, r))
	fixture.AssertNoCredentialsOutsideSecrets(t, r)
	// the Pod's record and its Secret's agree: proxykit audit finds it stale once the Secret moves on
	assert.Empty(t, rules.CheckStale(r.Manifests, rules.Now{}))
	record := fixture.Record(t, fixture.CredentialValues(t, nil))
	assert.Equal(t, record, proxytest.Get[corev1.Secret](t, r, secretName).Annotations[proxytest.AnnotationProxyConfig])
	assert.Equal(t, record, proxytest.Get[appsv1.Deployment](t, r, fixture.Release).Spec.Template.Annotations[proxytest.AnnotationProxyConfig])
}

func TestChartOperatorBadValues(t *testing.T) {
	cases := []struct{ name, values, want string }{
		{"bootstrap without an API server", `chartOperator: {bootstrap: {enabled: true}}`, "chartOperator.bootstrap.apiServerHost"},
		{"bootstrap never falls back to the Service ClusterIP", `cluster: {apiServer: 10.96.0.1}
chartOperator: {bootstrap: {enabled: true}}`, "chartOperator.bootstrap.apiServerHost is required"},
		{"bootstrap endpoint with a port", "proxy: {http: \"http://p:1\"}\ncluster: {serviceCIDRs: [10.96.0.0/16]}\nchartOperator: {bootstrap: {enabled: true, apiServerHost: \"api.example:6443:1\"}}", "chartOperator.bootstrap.apiServerHost: \"api.example:6443:1\" is not a host name"},
		// written into KUBERNETES_SERVICE_HOST, which client-go joins with the port itself
		{"bootstrap endpoint host:port, proxy off", `chartOperator: {bootstrap: {enabled: true, apiServerHost: "api.example:6443"}}`, `chartOperator.bootstrap.apiServerHost: "api.example:6443" is not a host name or an IP address`},
		{"bootstrap endpoint in brackets", `chartOperator: {bootstrap: {enabled: true, apiServerHost: "[fd00::1]"}}`, `"[fd00::1]" is not a host name or an IP address`},
		{"bootstrap endpoint with a wildcard", `chartOperator: {bootstrap: {enabled: true, apiServerHost: "*.corp.example"}}`, `"*.corp.example" is not a host name or an IP address`},
		{"port out of range", `chartOperator: {bootstrap: {apiServerPort: 70000}}`, "/chartOperator/bootstrap/apiServerPort"},
		{"env entry without name", `chartOperator: {env: [{value: x}]}`, "env source 1[0] has no name"},
		{"pull policy", `chartOperator: {image: {pullPolicy: Sometimes}}`, "/chartOperator/image/pullPolicy"},
		{"bad proxy URL from cluster.proxy", `cluster: {proxy: {https: "proxy:3128"}}`, "cluster.proxy.https"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { fixture.AssertFailsNaming(t, fixture.ChartOperator, tc.values, tc.want) })
	}
}

func TestChartOperatorAndCertManagerCarryTheTrust(t *testing.T) {
	ca, _ := fixture.NewCA(t, "corp")
	values := fixture.TrustValues(t, "proxy", ca)
	spec := operatorSpec(t, fixture.Render(t, fixture.ChartOperator, proxytest.Values(values)))
	op := fixture.SpecContainer(t, spec, "chart-operator")
	assert.Equal(t, fixture.TrustEnv, op.Env[6:10], "after the proxy tier")
	assert.Equal(t, "/etc/proxykit/ca", op.VolumeMounts[0].MountPath)
	assert.Equal(t, "proxykit-ca-bundle", spec.Volumes[0].ConfigMap.Name)

	for name, v := range map[string]string{"plain": values, "credentials": strings.Replace(values, "http://proxy.corp:3128", "http://u:pw@proxy.corp:3128", 1)} {
		t.Run("cert-manager values, "+name, func(t *testing.T) {
			var got struct {
				ExtraEnv     []corev1.EnvVar      `json:"extraEnv"`
				Volumes      []corev1.Volume      `json:"volumes"`
				VolumeMounts []corev1.VolumeMount `json:"volumeMounts"`
			}
			require.NoError(t, yaml.Unmarshal([]byte(fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(v)))["certManager"]), &got))
			assert.Equal(t, fixture.TrustEnv, got.ExtraEnv[len(got.ExtraEnv)-4:])
			assert.Equal(t, "proxykit-ca-bundle", got.Volumes[0].ConfigMap.Name)
			assert.Equal(t, "/etc/proxykit/ca", got.VolumeMounts[0].MountPath)
		})
	}
}

// operatorSpec is chart-operator's pod spec.
func operatorSpec(t *testing.T, r *proxytest.Manifests) corev1.PodSpec {
	t.Helper()
	return proxytest.Get[appsv1.Deployment](t, r, fixture.Release).Spec.Template.Spec
}
