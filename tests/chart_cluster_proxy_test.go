package tests

import (
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

var clusterProxyChart = repoPath("charts", "cluster-proxy")

const clusterProxyPlain = `
clusterName: wc1
proxy:
  http: http://proxy.corp.example:3128
  https: http://proxy.corp.example:3129
  noProxy: [.corp.example]
cluster:
  podCIDRs: [10.244.0.0/16, "fd00:10:244::/56"]
  serviceCIDRs: [10.96.0.0/12]
  apiServer: 10.96.0.1
`

// clusterValues is the YAML document in the cluster-values Secret.
type clusterValues struct {
	Cluster struct {
		Proxy proxyConfig `json:"proxy"`
	} `json:"cluster"`
	Proxy      proxyConfig     `json:"proxy"`
	HTTPProxy  string          `json:"http_proxy"`
	HTTPSProxy string          `json:"https_proxy"`
	NoProxy    string          `json:"no_proxy"`
	ExtraEnv   []corev1.EnvVar `json:"extraEnv"`
}

type proxyConfig struct {
	HTTP    string `json:"http"`
	HTTPS   string `json:"https"`
	NoProxy string `json:"noProxy"`
}

func decodeClusterValues(t *testing.T, s corev1.Secret) clusterValues {
	t.Helper()
	var v clusterValues
	require.NoError(t, yamlUnmarshalStrict(string(s.Data["values"]), &v), "key values:\n%s", s.Data["values"])
	return v
}

// assertCoversCluster checks a NO_PROXY against the destinations of clusterProxyPlain.
func assertCoversCluster(t *testing.T, noProxy string) {
	t.Helper()
	assertProxySelection(t, noProxy, []string{
		"http://10.244.1.5:8080", "http://[fd00:10:244::5]:8080", "http://10.100.0.10", "https://10.96.0.1",
		"https://kubernetes.default.svc.cluster.local.", "http://web.shop.svc", "https://git.corp.example",
	}, []string{externalURL})
}

func TestClusterProxyPlain(t *testing.T) {
	r, err := renderCLI(t, clusterProxyChart, clusterProxyPlain)
	require.NoError(t, err)

	values := decodeClusterValues(t, proxytest.Get[corev1.Secret](t, r, "wc1-cluster-values"))
	assert.Equal(t, "http://proxy.corp.example:3128", values.Cluster.Proxy.HTTP)
	assert.Equal(t, "http://proxy.corp.example:3129", values.Cluster.Proxy.HTTPS)
	assert.Equal(t, values.Cluster.Proxy, values.Proxy, "proxy.* carries the same as cluster.proxy.*")
	assert.Equal(t, values.Cluster.Proxy.HTTP, values.HTTPProxy)
	assert.Equal(t, values.Cluster.Proxy.HTTPS, values.HTTPSProxy)
	assert.Equal(t, values.Cluster.Proxy.NoProxy, values.NoProxy)
	assertCoversCluster(t, values.NoProxy)

	var certManager map[string]any
	require.NoError(t, yamlUnmarshal(string(proxytest.Get[corev1.Secret](t, r, "wc1-cluster-values").Data["certManagerValues"]), &certManager))
	assert.Equal(t, []string{"http_proxy", "https_proxy", "no_proxy"}, sortedKeys(certManager), "only keys cert-manager's schema allows")

	systemd := proxytest.Get[corev1.Secret](t, r, "wc1-systemd-proxy")
	assert.Equal(t, namespace, systemd.Namespace)
	for _, key := range []string{"containerdProxy", "kubeletProxy"} {
		names, env := parseDropIn(t, string(systemd.Data[key]))
		assert.Len(t, names, 6, key)
		assert.Equal(t, "http://proxy.corp.example:3128", env["HTTP_PROXY"])
		assert.Equal(t, values.NoProxy, env["NO_PROXY"], "the drop-in carries the full per-cluster NO_PROXY")
		assert.Equal(t, values.NoProxy, env["no_proxy"])
		assertCoversCluster(t, env["NO_PROXY"])
	}

	envFrom := proxytest.Get[corev1.ConfigMap](t, r, "proxy-env")
	assert.Equal(t, map[string]string{
		"HTTP_PROXY": "http://proxy.corp.example:3128", "http_proxy": "http://proxy.corp.example:3128",
		"HTTPS_PROXY": "http://proxy.corp.example:3129", "https_proxy": "http://proxy.corp.example:3129",
		"NO_PROXY": values.NoProxy, "no_proxy": values.NoProxy,
	}, envFrom.Data)

	assert.False(t, has(r, "Secret", releaseName+"-proxy-credentials"), "no credentials, no proxy Secret")
	assert.Empty(t, strings.TrimSpace(sourceText(r, "templates/proxy-secret.yaml")))
}

func TestClusterProxyCredentials(t *testing.T) {
	r, err := renderCLI(t, clusterProxyChart, credentialValues(t, map[string]any{"clusterName": "mgmt"}))
	require.NoError(t, err)
	secretName := releaseName + "-proxy-credentials"

	values := decodeClusterValues(t, proxytest.Get[corev1.Secret](t, r, "mgmt-cluster-values"))
	assert.Equal(t, credHTTP, values.Cluster.Proxy.HTTP, "byte-exact inside the Secret")
	assert.Equal(t, credHTTPS, values.Proxy.HTTPS)
	assert.Empty(t, values.HTTPProxy, "cert-manager would write the URL into a plain env value")
	assert.Equal(t, secretEnv(secretName, true), values.ExtraEnv)

	for _, key := range []string{"containerdProxy", "kubeletProxy"} {
		_, env := parseDropIn(t, string(proxytest.Get[corev1.Secret](t, r, "mgmt-systemd-proxy").Data[key]))
		assert.Equal(t, credHTTP, env["HTTP_PROXY"], "%s: systemd unquotes to the exact URL", key)
		assert.Equal(t, credHTTPS, env["https_proxy"])
	}
	assert.Contains(t, string(proxytest.Get[corev1.Secret](t, r, "mgmt-systemd-proxy").Data["kubeletProxy"]), "Zq%%40w%%&", "% doubled for systemd")

	envFrom := proxytest.Get[corev1.Secret](t, r, "proxy-env")
	assert.Equal(t, credHTTP, string(envFrom.Data["HTTP_PROXY"]))
	assert.Equal(t, credHTTPS, string(envFrom.Data["https_proxy"]))

	// the secretKeyRefs in extraEnv resolve in the release namespace and in cert-manager's
	var namespaces []string
	for _, d := range r.Objects {
		if d.Kind == "Secret" && d.Name == secretName {
			s := decodeStrict[corev1.Secret](t, d)
			assert.Equal(t, credHTTPS, string(s.Data["HTTPS_PROXY"]))
			namespaces = append(namespaces, s.Namespace)
		}
	}
	assert.ElementsMatch(t, []string{namespace, "kube-system"}, namespaces)
	assertNoCredentialsOutsideSecrets(t, r)
}

func TestClusterProxySwitches(t *testing.T) {
	r := mustRenderSDK(t, clusterProxyChart, clusterProxyPlain+`
clusterValues: {enabled: false}
systemd: {enabled: false}
envFrom: {enabled: true, name: corp-proxy-env}
`)
	assert.Equal(t, []string{"ConfigMap/corp-proxy-env"}, r.IDs())

	off := mustRenderSDK(t, clusterProxyChart, "clusterName: wc1\n")
	assert.Equal(t, []string{"Secret/wc1-cluster-values"}, off.IDs(), "without a proxy only the (empty) cluster values remain")
	assert.Equal(t, proxyConfig{}, decodeClusterValues(t, proxytest.Get[corev1.Secret](t, off, "wc1-cluster-values")).Proxy)
}

func TestClusterProxyBadValues(t *testing.T) {
	cases := []struct{ name, values, want string }{
		{"clusterName missing", `proxy: {http: "http://p:1"}`, "clusterName"},
		{"clusterName not a DNS label", `clusterName: WC_1`, "/clusterName"},
		{"proxy URL without scheme", "clusterName: wc1\nproxy: {http: p:3128}", "proxy.http"},
		{"pod CIDR out of range", "clusterName: wc1\nproxy: {http: 'http://p:1'}\ncluster: {podCIDRs: [10.0.0.0/33]}", "cluster.podCIDRs"},
		{"lowercase not a boolean", "clusterName: wc1\nproxy: {lowercase: 'no'}", "/proxy/lowercase"},
		{"envFrom name not a DNS name", "clusterName: wc1\nenvFrom: {name: Proxy_Env}", "/envFrom/name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assertFailsNaming(t, clusterProxyChart, tc.values, tc.want) })
	}
}
