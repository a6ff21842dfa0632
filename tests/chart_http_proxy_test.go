package tests

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

func TestHTTPProxyChartObjects(t *testing.T) {
	r, err := fixture.RenderE(fixture.HTTPProxy, proxytest.Values(fixture.HTTPProxyValues))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"ConfigMap/test", "Service/test", "DaemonSet/test"}, r.IDs())
	assert.Equal(t, map[string][]string{
		"templates/configmap.yaml": {"ConfigMap/test@proxykit-test"},
		"templates/service.yaml":   {"Service/test@proxykit-test"},
		"templates/daemonset.yaml": {"DaemonSet/test@proxykit-test"},
	}, objectsBySource(r))

	assert.Equal(t, `# tinyproxy.conf rendered by the http-proxy chart
Port 8888
Timeout 600
MaxClients 100
LogLevel Info
Allow 127.0.0.1
Allow ::1
Allow 10.244.0.0/16
Allow fd00:10:244::/56
Allow 192.168.10.0/24
Allow 198.51.100.7
ConnectPort 8443
`, fixture.TinyproxyConf(t, r))

	ds := proxytest.Get[appsv1.DaemonSet](t, r, fixture.Release)
	spec := ds.Spec.Template.Spec
	assert.True(t, spec.HostNetwork, "on the node's network, which has egress")
	assert.Equal(t, corev1.DNSDefault, spec.DNSPolicy, "the node's DNS")
	assert.Equal(t, map[string]string{"proxykit.io/egress": "true"}, spec.NodeSelector)
	c := fixture.SpecContainer(t, spec, "tinyproxy")
	assert.Equal(t, "registry.corp.example/tinyproxy:1.11.1", c.Image)
	assert.Equal(t, []string{"tinyproxy", "-d", "-c", "/etc/tinyproxy/tinyproxy.conf"}, c.Command)
	assert.Equal(t, int32(8888), c.Ports[0].ContainerPort)
	require.NotNil(t, c.ReadinessProbe)
	require.NotNil(t, c.LivenessProbe)
	assert.Equal(t, "proxy", c.ReadinessProbe.TCPSocket.Port.String())
	assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.True(t, *spec.SecurityContext.RunAsNonRoot)
	assert.Equal(t, fixture.Release, spec.Volumes[0].ConfigMap.Name)
	assert.NotEmpty(t, ds.Spec.Template.Annotations["checksum/config"], "a changed configuration rolls the Pods")

	svc := proxytest.Get[corev1.Service](t, r, fixture.Release)
	assert.Equal(t, []corev1.IPFamily{corev1.IPv6Protocol, corev1.IPv4Protocol}, svc.Spec.IPFamilies)
	assert.Equal(t, corev1.IPFamilyPolicyPreferDualStack, *svc.Spec.IPFamilyPolicy)
	assert.Equal(t, int32(8888), svc.Spec.Ports[0].Port)
	assert.Equal(t, ds.Spec.Template.Labels["app.kubernetes.io/name"], svc.Spec.Selector["app.kubernetes.io/name"])

	t.Run("IPv6 only", func(t *testing.T) {
		r := fixture.Render(t, fixture.HTTPProxy, proxytest.Values(strings.Replace(fixture.HTTPProxyValues, "tinyproxy: {", `tinyproxy: {listen: "::", `, 1)+"service: {ipFamilyPolicy: SingleStack, ipFamilies: [IPv6]}\n"))
		svc := proxytest.Get[corev1.Service](t, r, fixture.Release)
		assert.Equal(t, []corev1.IPFamily{corev1.IPv6Protocol}, svc.Spec.IPFamilies)
		assert.Contains(t, fixture.TinyproxyConf(t, r), "\nListen ::\n")
	})
}

func TestHTTPProxyUpstreamCredentialsStayInASecret(t *testing.T) {
	values := fixture.HTTPProxyValues + `upstream: {url: "http://egress:Pa55+w%rd@proxy.corp.example:3128", noUpstream: [.corp.example, 10.0.0.0/8]}` + "\n"
	r, err := fixture.RenderE(fixture.HTTPProxy, proxytest.Values(values))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"Secret/test", "Service/test", "DaemonSet/test"}, r.IDs())
	conf := fixture.TinyproxyConf(t, r)
	assert.Contains(t, conf, "\nUpstream http egress:Pa55+w%rd@proxy.corp.example:3128\n", "byte for byte")
	assert.Contains(t, conf, "\nUpstream none \".cluster.local\"\nUpstream none \".corp.example\"\nUpstream none \"10.0.0.0/8\"\n")
	spec := proxytest.Get[appsv1.DaemonSet](t, r, fixture.Release).Spec.Template.Spec
	assert.Equal(t, fixture.Release, spec.Volumes[0].Secret.SecretName)
	for _, d := range r.Objects {
		if d.Kind != "Secret" {
			assert.NotContains(t, string(d.Raw), "Pa55", "%s %s holds the upstream password", d.Kind, d.Name)
		}
	}
	t.Run("without credentials the upstream stays in the ConfigMap", func(t *testing.T) {
		r := fixture.Render(t, fixture.HTTPProxy, proxytest.Values(fixture.HTTPProxyValues+`upstream: {url: "http://proxy.corp.example:3128"}`))
		assert.Contains(t, fixture.TinyproxyConf(t, r), "\nUpstream http proxy.corp.example:3128\n")
		assert.Nil(t, r.Find("Secret", fixture.Release))
	})
}

func TestHTTPProxyBadValues(t *testing.T) {
	cases := []struct{ name, values, want string }{
		{"no image", strings.Replace(fixture.HTTPProxyValues, "repository: registry.corp.example/tinyproxy", `repository: ""`, 1), "image.repository is required"},
		{"no network", "image: {repository: x}\n", "set cluster.podCIDRs and cluster.nodeCIDRs"},
		{"a bad allow entry", fixture.HTTPProxyValues + `tinyproxy: {allow: [corp.example]}`, `tinyproxy.allow[0]: "corp.example" is not an IP address or CIDR`},
		{"a bad allow CIDR", fixture.HTTPProxyValues + `tinyproxy: {allow: [10.0.0.0/40]}`, "tinyproxy.allow[0]"},
		{"every address allowed: an open proxy", fixture.HTTPProxyValues + `tinyproxy: {allow: [0.0.0.0/0]}`, `tinyproxy.allow[0]: "0.0.0.0/0" covers every address`},
		{"every IPv6 address allowed", fixture.HTTPProxyValues + `tinyproxy: {allow: ["::/0"]}`, `tinyproxy.allow[0]: "::/0" covers every address`},
		{"no CONNECT ports", fixture.HTTPProxyValues + `tinyproxy: {connectPorts: []}`, "connectPorts"},
		{"a bad listen address", fixture.HTTPProxyValues + `tinyproxy: {listen: "0.0.0"}`, `tinyproxy.listen: "0.0.0" is not an IP address`},
		{"an https upstream", fixture.HTTPProxyValues + `upstream: {url: "https://proxy:3128"}`, "upstream.url: tinyproxy speaks plain HTTP"},
		{"an upstream without port", fixture.HTTPProxyValues + `upstream: {url: "http://proxy.corp.example"}`, "upstream.url: tinyproxy needs the upstream's port"},
		{"an @ in the upstream password", fixture.HTTPProxyValues + `upstream: {url: "http://u:pa@ss@proxy:3128"}`, "upstream.url: tinyproxy needs user:password@"},
		{"an upstream that is not a URL", fixture.HTTPProxyValues + `upstream: {url: "proxy:3128"}`, "upstream.url"},
		{"a typo under cluster", fixture.HTTPProxyValues + `cluster: {podCIDR: [10.0.0.0/8]}`, "podCIDR"},
		{"every destination without the upstream", fixture.HTTPProxyValues + `upstream: {url: "http://proxy:3128", noUpstream: ["*"]}`, `upstream.noUpstream[0]: "*" is no site`},
		{"an empty site", fixture.HTTPProxyValues + `upstream: {url: "http://proxy:3128", noUpstream: [.corp.example, ""]}`, `upstream.noUpstream[1]: "" is no site`},
		{"a site with a blank", fixture.HTTPProxyValues + `upstream: {url: "http://proxy:3128", noUpstream: [a b.example]}`, `upstream.noUpstream[0]: "a b.example" is not a host name`},
		{"a bad CIDR site", fixture.HTTPProxyValues + `upstream: {url: "http://proxy:3128", noUpstream: [10.0.0.0/33]}`, `upstream.noUpstream[0]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := fixture.RenderError(t, fixture.HTTPProxy, proxytest.Values(tc.values))
			assert.Contains(t, err, tc.want)
			assert.NotContains(t, err, "pa@ss", "the password is never shown")
			assertNoTemplateCrash(t, err)
		})
	}
}
