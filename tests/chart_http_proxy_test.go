package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

var httpProxyChart = repoPath("charts", "http-proxy")

const httpProxyValues = `
image: {repository: registry.corp.example/tinyproxy, tag: "1.11.1"}
cluster:
  podCIDRs: [10.244.0.0/16, "fd00:10:244::/56"]
  nodeCIDRs: [192.168.10.0/24]
tinyproxy: {connectPorts: [8443], allow: ["198.51.100.7"]}
`

// tinyproxyConf is the rendered configuration, from the ConfigMap or the Secret.
func tinyproxyConf(t *testing.T, r *proxytest.Manifests) string {
	t.Helper()
	if has(r, "Secret", releaseName) {
		return string(proxytest.Get[corev1.Secret](t, r, releaseName).Data["tinyproxy.conf"])
	}
	return proxytest.Get[corev1.ConfigMap](t, r, releaseName).Data["tinyproxy.conf"]
}

func TestHTTPProxyChartObjects(t *testing.T) {
	r, err := renderCLI(t, httpProxyChart, httpProxyValues)
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
`, tinyproxyConf(t, r))

	ds := decodeStrict[appsv1.DaemonSet](t, find(t, r, "DaemonSet", releaseName))
	spec := ds.Spec.Template.Spec
	assert.True(t, spec.HostNetwork, "on the node's network, which has egress")
	assert.Equal(t, corev1.DNSDefault, spec.DNSPolicy, "the node's DNS")
	assert.Equal(t, map[string]string{"proxykit.io/egress": "true"}, spec.NodeSelector)
	c := container(t, spec, "tinyproxy")
	assert.Equal(t, "registry.corp.example/tinyproxy:1.11.1", c.Image)
	assert.Equal(t, []string{"tinyproxy", "-d", "-c", "/etc/tinyproxy/tinyproxy.conf"}, c.Command)
	assert.Equal(t, int32(8888), c.Ports[0].ContainerPort)
	require.NotNil(t, c.ReadinessProbe)
	require.NotNil(t, c.LivenessProbe)
	assert.Equal(t, "proxy", c.ReadinessProbe.TCPSocket.Port.String())
	assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.True(t, *spec.SecurityContext.RunAsNonRoot)
	assert.Equal(t, releaseName, spec.Volumes[0].ConfigMap.Name)
	assert.NotEmpty(t, ds.Spec.Template.Annotations["checksum/config"], "a changed configuration rolls the Pods")

	svc := decodeStrict[corev1.Service](t, find(t, r, "Service", releaseName))
	assert.Equal(t, []corev1.IPFamily{corev1.IPv6Protocol, corev1.IPv4Protocol}, svc.Spec.IPFamilies)
	assert.Equal(t, corev1.IPFamilyPolicyPreferDualStack, *svc.Spec.IPFamilyPolicy)
	assert.Equal(t, int32(8888), svc.Spec.Ports[0].Port)
	assert.Equal(t, ds.Spec.Template.Labels["app.kubernetes.io/name"], svc.Spec.Selector["app.kubernetes.io/name"])

	t.Run("IPv6 only", func(t *testing.T) {
		r := mustRenderSDK(t, httpProxyChart, strings.Replace(httpProxyValues, "tinyproxy: {", `tinyproxy: {listen: "::", `, 1)+"service: {ipFamilyPolicy: SingleStack, ipFamilies: [IPv6]}\n")
		svc := decodeStrict[corev1.Service](t, find(t, r, "Service", releaseName))
		assert.Equal(t, []corev1.IPFamily{corev1.IPv6Protocol}, svc.Spec.IPFamilies)
		assert.Contains(t, tinyproxyConf(t, r), "\nListen ::\n")
	})
}

func TestHTTPProxyUpstreamCredentialsStayInASecret(t *testing.T) {
	values := httpProxyValues + `upstream: {url: "http://egress:Pa55+w%rd@proxy.corp.example:3128", noUpstream: [.corp.example, 10.0.0.0/8]}` + "\n"
	r, err := renderCLI(t, httpProxyChart, values)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"Secret/test", "Service/test", "DaemonSet/test"}, r.IDs())
	conf := tinyproxyConf(t, r)
	assert.Contains(t, conf, "\nUpstream http egress:Pa55+w%rd@proxy.corp.example:3128\n", "byte for byte")
	assert.Contains(t, conf, "\nUpstream none \".cluster.local\"\nUpstream none \".corp.example\"\nUpstream none \"10.0.0.0/8\"\n")
	spec := decodeStrict[appsv1.DaemonSet](t, find(t, r, "DaemonSet", releaseName)).Spec.Template.Spec
	assert.Equal(t, releaseName, spec.Volumes[0].Secret.SecretName)
	for _, d := range r.Objects {
		if d.Kind != "Secret" {
			assert.NotContains(t, string(d.Raw), "Pa55", "%s %s holds the upstream password", d.Kind, d.Name)
		}
	}
	t.Run("without credentials the upstream stays in the ConfigMap", func(t *testing.T) {
		r := mustRenderSDK(t, httpProxyChart, httpProxyValues+`upstream: {url: "http://proxy.corp.example:3128"}`)
		assert.Contains(t, tinyproxyConf(t, r), "\nUpstream http proxy.corp.example:3128\n")
		assert.False(t, has(r, "Secret", releaseName))
	})
}

func TestHTTPProxyBadValues(t *testing.T) {
	cases := []struct{ name, values, want string }{
		{"no image", strings.Replace(httpProxyValues, "repository: registry.corp.example/tinyproxy", `repository: ""`, 1), "image.repository is required"},
		{"no network", "image: {repository: x}\n", "set cluster.podCIDRs and cluster.nodeCIDRs"},
		{"a bad allow entry", httpProxyValues + `tinyproxy: {allow: [corp.example]}`, `tinyproxy.allow[0]: "corp.example" is not an IP address or CIDR`},
		{"a bad allow CIDR", httpProxyValues + `tinyproxy: {allow: [10.0.0.0/40]}`, "tinyproxy.allow[0]"},
		{"no CONNECT ports", httpProxyValues + `tinyproxy: {connectPorts: []}`, "connectPorts"},
		{"a bad listen address", httpProxyValues + `tinyproxy: {listen: "0.0.0"}`, `tinyproxy.listen: "0.0.0" is not an IP address`},
		{"an https upstream", httpProxyValues + `upstream: {url: "https://proxy:3128"}`, "upstream.url: tinyproxy speaks plain HTTP"},
		{"an upstream without port", httpProxyValues + `upstream: {url: "http://proxy.corp.example"}`, "upstream.url: tinyproxy needs the upstream's port"},
		{"an @ in the upstream password", httpProxyValues + `upstream: {url: "http://u:pa@ss@proxy:3128"}`, "upstream.url: tinyproxy needs user:password@"},
		{"an upstream that is not a URL", httpProxyValues + `upstream: {url: "proxy:3128"}`, "upstream.url"},
		{"a typo under cluster", httpProxyValues + `cluster: {podCIDR: [10.0.0.0/8]}`, "podCIDR"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := renderError(t, httpProxyChart, tc.values)
			assert.Contains(t, err, tc.want)
			assert.NotContains(t, err, "pa@ss", "the password is never shown")
			assertNoTemplateCrash(t, err)
		})
	}
}

// TestHTTPProxyRunsTheRenderedConfig runs tinyproxy from Debian with the rendered
// tinyproxy.conf in a private network namespace: clients from the pod and node
// networks get through (plain HTTP and CONNECT), a client from elsewhere and a
// CONNECT to a port not listed are refused, and with an upstream the traffic
// goes through a second tinyproxy that requires the credentials.
func TestHTTPProxyRunsTheRenderedConfig(t *testing.T) {
	t.Parallel() // slow and independent: overlaps the other slow tests
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	render := func(port int, extra string) string {
		values := strings.Replace(httpProxyValues, "tinyproxy: {connectPorts: [8443],", fmt.Sprintf("tinyproxy: {port: %d, connectPorts: [8443],", port), 1) + extra
		return write(fmt.Sprintf("tinyproxy-%d.conf", port), tinyproxyConf(t, mustRenderSDK(t, httpProxyChart, values)))
	}
	direct := render(8888, "")
	upstream := render(8889, `upstream: {url: "http://egress:S3cret-pass@127.0.0.1:3129", noUpstream: [.corp.example]}`+"\n")
	wrongPassword := render(8890, `upstream: {url: "http://egress:wrong@127.0.0.1:3129"}`+"\n")
	upstreamLog := filepath.Join(dir, "upstream.log")
	// the corporate proxy the cluster's proxy chains to: it requires the credentials
	corporate := write("corporate.conf", fmt.Sprintf("Port 3129\nListen 127.0.0.1\nAllow 127.0.0.1\nBasicAuth egress S3cret-pass\nLogFile %q\nLogLevel Info\n", upstreamLog))

	// curl from a source address through a proxy; prints the CONNECT response code,
	// the HTTP code, and what the echo server answered (proxy, direct) or "-"
	via := func(name, source, proxy, url string, tunnel bool) string {
		p := ""
		if tunnel {
			p = "-p "
		}
		return fmt.Sprintf("codes=$(curl -q -s %s--max-time 5 --interface %s -x %s -o body -w '%%{http_connect} %%{http_code}' %q 2>/dev/null)\n"+
			"echo \"CASE %s $codes $(grep -xE 'proxy|direct' body || echo -)\"; rm -f body\n", p, source, proxy, url, name)
	}
	var script strings.Builder
	for _, conf := range []string{direct, upstream, wrongPassword, corporate} {
		fmt.Fprintf(&script, "tinyproxy -d -c %q >/dev/null 2>&1 &\n", conf)
	}
	for _, port := range []int{8888, 8889, 8890, 3129} {
		script.WriteString(waitForPort("127.0.0.1", port))
	}
	script.WriteString(via("pod-http", "10.244.0.5", "http://10.96.0.1:8888", "http://target.example:8080/", false))
	script.WriteString(via("pod6-http", "fd00:10:244::5", "http://[fd00:10:96::1]:8888", "http://target.example:8080/", false))
	script.WriteString(via("node-http", "192.168.10.7", "http://10.96.0.1:8888", "http://target.example:8080/", false))
	script.WriteString(via("allowed-extra", "198.51.100.7", "http://10.96.0.1:8888", "http://target.example:8080/", false))
	script.WriteString(via("outsider-http", "192.0.2.10", "http://10.96.0.1:8888", "http://target.example:8080/", false))
	script.WriteString(via("pod-connect", "10.244.0.5", "http://10.96.0.1:8888", "http://target.example:8443/", true))
	script.WriteString(via("pod-connect-other-port", "10.244.0.5", "http://10.96.0.1:8888", "http://target.example:8080/", true))
	script.WriteString(via("outsider-connect", "192.0.2.10", "http://10.96.0.1:8888", "http://target.example:8443/", true))
	script.WriteString(via("upstream-http", "10.244.0.5", "http://10.96.0.1:8889", "http://target.example:8080/", false))
	script.WriteString(via("upstream-connect", "10.244.0.5", "http://10.96.0.1:8889", "http://target.example:8443/", true))
	script.WriteString(via("no-upstream-for-cluster-names", "10.244.0.5", "http://10.96.0.1:8889", "http://web.shop.svc.cluster.local:8080/", false))
	script.WriteString(via("no-upstream-for-corp", "10.244.0.5", "http://10.96.0.1:8889", "http://git.corp.example:8080/", false))
	script.WriteString(via("upstream-wrong-password", "10.244.0.5", "http://10.96.0.1:8890", "http://target.example:8080/", false))
	fmt.Fprintf(&script, "echo \"UPSTREAM-REQUESTS $(grep -c 'Request (file descriptor' %q)\"\n", upstreamLog)

	out := netns{
		Addrs:     []string{"10.96.0.1", "10.96.0.11", "10.244.0.5", "192.168.10.7", "198.51.100.7", "192.0.2.10", "fd00:10:96::1", "fd00:10:244::5"},
		Hosts:     "127.0.0.1 localhost\n10.96.0.11 target.example web.shop.svc.cluster.local git.corp.example\n",
		EchoPorts: []string{"8080", "8443"},
	}.run(t, script.String())

	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^CASE (\S+) (.*)$`).FindAllStringSubmatch(out, -1) {
		got[m[1]] = strings.Join(strings.Fields(m[2]), " ")
	}
	// CONNECT code, HTTP code, answer; "proxy" means tinyproxy's Via header reached the server
	want := map[string]string{
		"pod-http":                      "000 200 proxy",
		"pod6-http":                     "000 200 proxy",
		"node-http":                     "000 200 proxy",
		"allowed-extra":                 "000 200 proxy",
		"outsider-http":                 "000 403 -",
		"pod-connect":                   "200 200 direct",
		"pod-connect-other-port":        "403 000 -",
		"outsider-connect":              "403 000 -",
		"upstream-http":                 "000 200 proxy",
		"upstream-connect":              "200 200 direct",
		"no-upstream-for-cluster-names": "000 200 proxy",
		"no-upstream-for-corp":          "000 200 proxy",
		"upstream-wrong-password":       "000 401 -", // tinyproxy's BasicAuth answers 401, and the chained proxy passes it on
	}
	for name, w := range want {
		assert.Equal(t, w, got[name], "%s:\n%s", name, out)
	}
	// the corporate proxy saw the chained requests only: plain HTTP, the tunnel, the wrong password
	assert.Contains(t, out, "UPSTREAM-REQUESTS 3", out)
}
