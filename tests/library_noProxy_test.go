package tests

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

func TestNoProxyComposition(t *testing.T) {
	cases := []struct {
		name   string
		values string
		want   string
	}{
		{
			name:   "proxy off: no NO_PROXY",
			values: `cluster: {podCIDRs: [10.244.0.0/16]}`,
			want:   "",
		},
		{
			name:   "fixed order: loopback, domain, svc, pods, services, API server, metadata",
			values: fixture.PlainProxy,
			want:   fixture.NoProxyPlain,
		},
		{
			name: "dual stack CIDRs as comma strings, custom domain given with a trailing dot",
			values: `
proxy: {https: "http://proxy:3128"}
cluster:
  domain: k8s.internal.
  podCIDRs: "10.244.0.0/16, fd00:10:244::/56"
  serviceCIDRs: "10.96.0.0/12,fd00:10:96::/112"
  apiServer: "[fd00:10:96::1]"
`,
			want: "localhost,127.0.0.1,::1,k8s.internal,.k8s.internal,k8s.internal.,.k8s.internal.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.244.0.0/16,fd00:10:244::/56,10.96.0.0/12,fd00:10:96::/112,fd00:10:96::1,169.254.169.254,metadata.google.internal,168.63.129.16,169.254.170.23,fd00:ec2::254,fd00:ec2::23,[::1],[fd00:10:96::1],[fd00:ec2::254],[fd00:ec2::23]",
		},
		{
			name: "metadata endpoints switched off; API server given as a name",
			values: `
proxy: {http: "http://proxy:3128"}
cluster: {metadataEndpoints: false, apiServer: api.mgmt.example.com, requireNetworks: false}
`,
			want: "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,api.mgmt.example.com,[::1]",
		},
		{
			name: "installation entries: trimmed, wildcards as leading dots, first occurrence kept",
			values: `
proxy:
  http: http://proxy:3128
  noProxy: " .corp.example , *.corp.example,registry.local,,10.0.0.0/8, registry.local ,svc,localhost"
cluster: {metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,corp.example,.corp.example,registry.local,10.0.0.0/8,[::1]",
		},
		{
			name: "installation entries as a list",
			values: `
proxy:
  http: http://proxy:3128
  noProxy: ["*.corp.example", " 192.168.0.0/16 "]
cluster: {metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,corp.example,.corp.example,192.168.0.0/16,[::1]",
		},
		{
			name: "node CIDRs after the service CIDRs, before the API server; metadata of AWS, GCP and Azure",
			values: `
proxy: {http: "http://proxy:3128"}
cluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12], nodeCIDRs: "192.168.10.0/24, fd00:192::/64", apiServer: 10.96.0.1}
`,
			want: "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.244.0.0/16,10.96.0.0/12,192.168.10.0/24,fd00:192::/64,10.96.0.1,169.254.169.254,metadata.google.internal,168.63.129.16,169.254.170.23,fd00:ec2::254,fd00:ec2::23,[::1],[fd00:ec2::254],[fd00:ec2::23]",
		},
		{
			name: "IPv6 addresses bare and bracketed, wherever they come from; with a port as written",
			values: `
proxy: {http: "http://proxy:3128", noProxy: ["fd00:1::53", "[FD00:1::54]", "[fd00:1::55]:5000", "::1"]}
cluster: {serviceCIDRs: ["fd00:10:96::/112"], apiServer: "[fd00:10:96::1]", metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,fd00:10:96::/112,fd00:10:96::1,fd00:1::53,fd00:1::54,[::1],[fd00:10:96::1],[fd00:1::53],[fd00:1::54],[fd00:1::55]:5000",
		},
		{
			name: "list items holding commas are split like the string form",
			values: `
proxy: {http: "http://proxy:3128", noProxy: ["a.example,b.example", " c.example , *.d.example", "10.0.0.0/8,"]}
cluster: {metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,a.example,b.example,c.example,d.example,.d.example,10.0.0.0/8,[::1]",
		},
		{
			name: "host names with ports, underscores and trailing dots are kept as written",
			values: `
proxy: {http: "http://proxy:3128", noProxy: "registry.local:5000,my_host.corp,svc.corp.example.,10.1.2.3:8443"}
cluster: {serviceCIDRs: [10.96.0.0/12], metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.96.0.0/12,registry.local:5000,my_host.corp,svc.corp.example.,10.1.2.3:8443,[::1]",
		},
		{
			name: "a CIDR listed twice across pods and services appears once",
			values: `
proxy: {http: "http://proxy:3128"}
cluster: {podCIDRs: [10.0.0.0/8], serviceCIDRs: [10.0.0.0/8], metadataEndpoints: false}
`,
			want: "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.0.0.0/8,[::1]",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := fixture.Render(t, fixture.Fixture, proxytest.Values(tc.values))
			h := fixture.Helpers(t, r)
			assert.Equal(t, tc.want, h["noProxy"])
			assert.Equal(t, tc.want, proxytest.Get[corev1.ConfigMap](t, r, fixture.Release+"-no-proxy").Data["NO_PROXY"])
			assert.NotContains(t, h["noProxy"], " ", "NO_PROXY has no spaces")
		})
	}
}

// TestNoProxyCoverage judges the rendered NO_PROXY with Go's own proxy selection.
func TestNoProxyCoverage(t *testing.T) {
	values := `
proxy:
  http: http://proxy.corp:3128
  https: http://proxy.corp:3128
  noProxy: "*.corp.example,registry.internal:5000"
cluster:
  podCIDRs: [10.244.0.0/16, "fd00:10:244::/56"]
  serviceCIDRs: [10.96.0.0/12]
  apiServer: 10.96.0.1
`
	noProxy := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(values)))["noProxy"]

	bypass := []string{
		"http://x.svc.cluster.local.", // trailing dot, as resolv.conf search paths produce
		"http://prometheus.monitoring.svc.cluster.local:9090",
		"https://kubernetes.default.svc",          // short service name
		"http://10.244.3.7:9100/metrics",          // pod IP, scraped by Prometheus
		"https://10.96.0.1:443",                   // API server ClusterIP
		"http://10.100.5.5",                       // another service IP
		"http://[fd00:10:244::1234]:8080",         // IPv6 pod
		"http://169.254.169.254/latest/meta-data", // cloud metadata
		"http://metadata.google.internal/computeMetadata/v1",
		"http://localhost:8080", "http://127.0.0.1", "http://[::1]:80",
		"https://git.corp.example",           // from *.corp.example
		"https://registry.internal:5000/v2/", // host:port entry, on that port
	}
	proxied := []string{
		"https://api.github.com",
		"http://example.com",
		"http://10.245.0.1",                  // just outside the pod CIDR
		"http://10.112.0.1",                  // just outside the service CIDR
		"http://[fd00:10:245::1]",            // outside the IPv6 pod CIDR
		"https://cluster.local.evil.example", // the cluster domain only as a suffix label
		"https://corp.example.com",
		"https://registry.internal:443", // the bypass names port 5000 only
	}
	fixture.AssertProxySelection(t, noProxy, bypass, proxied)

}

// AWS's IPv6 instance metadata endpoint and EKS Pod Identity's agent (IPv4 and
// IPv6, where Pods that use Pod Identity fetch their credentials) are bypassed
// with the others, every IPv6 address bare and bracketed.
func TestMetadataEndpointsIncludeAWSIPv6AndPodIdentity(t *testing.T) {
	with := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy)))["noProxy"]
	for _, entry := range []string{"fd00:ec2::254", "[fd00:ec2::254]", "169.254.170.23", "fd00:ec2::23", "[fd00:ec2::23]"} {
		assert.Contains(t, strings.Split(with, ","), entry)
	}
	fixture.AssertProxySelection(t, with, []string{"http://[fd00:ec2::254]/latest/meta-data/", "http://169.254.170.23/v1/credentials", "http://[fd00:ec2::23]/v1/credentials"},
		[]string{fixture.ExternalURL})
	without := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+"\ncluster: {serviceCIDRs: [10.96.0.0/12], metadataEndpoints: false}\n")))["noProxy"]
	assert.NotContains(t, without, "fd00:ec2::254")
	assert.NotContains(t, without, "169.254.170.23")
	assert.NotContains(t, without, "fd00:ec2::23")
}

// TestAddressesAreWrittenAsNetipPrintsThem: curl, wget and urllib compare an
// address as text, so each address and CIDR is written in the canonical form
// (net/netip's, IPv4-mapped addresses as IPv4, CIDRs without host bits), wherever
// it comes from.
func TestAddressesAreWrittenAsNetipPrintsThem(t *testing.T) {
	addresses := []string{
		"fd00:10:96:0:0:0:0:1", "fd00:10:96::0001", "FD00:10:96::1", "::ffff:10.96.0.1", "0:0:0:0:0:0:0:1",
		"2001:db8:0:0:1:0:0:1", "2001:0db8:0000:0000:0000:ff00:0042:8329", "1:0:0:2:0:0:0:3", "1:2:3:4:5:6:7:8",
		"::1.2.3.4", "64:ff9b::192.0.2.33", "fd00::", "::", "10.96.0.1",
	}
	for _, a := range addresses {
		t.Run("apiServer "+a, func(t *testing.T) {
			want := netip.MustParseAddr(a).Unmap().String()
			noProxy := strings.Split(fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(
				fmt.Sprintf("proxy: {http: 'http://p:1', noProxy: [%q]}\ncluster: {serviceCIDRs: [10.96.0.0/12], apiServer: %q}", a, a))))["noProxy"], ",")
			assert.Contains(t, noProxy, want, "the API server")
			assert.NotContains(t, noProxy[len(noProxy)-1], "::0", "no zero group written out")
			if strings.Contains(want, ":") {
				assert.Contains(t, noProxy, "["+want+"]")
			}
			if want != a {
				assert.NotContains(t, noProxy, a, "the form as written is not listed")
			}
		})
	}
	cidrs := []string{"10.96.0.1/12", "10.244.1.0/16", "192.168.10.77/25", "10.0.0.0/8", "172.31.255.255/20",
		"fd00:10:244:0:0:0:0:5/56", "FD00:10:96::1/112", "2001:db8:abcd:ef12::1/35", "fd00::1/128", "10.1.2.3/32"}
	for _, c := range cidrs {
		t.Run("podCIDR "+c, func(t *testing.T) {
			want := netip.MustParsePrefix(c).Masked().String()
			h := fixture.Helpers(t, fixture.Render(t, fixture.Fixture, proxytest.Values(fmt.Sprintf("proxy: {http: 'http://p:1', noProxy: [%q]}\ncluster: {podCIDRs: [%q]}", c, c))))
			assert.Contains(t, strings.Split(h["noProxy"], ","), want)
			var facts struct{ PodCIDRs []string }
			require.NoError(t, json.Unmarshal([]byte(h["clusterFacts"]), &facts))
			assert.Equal(t, []string{want}, facts.PodCIDRs, "the facts proxytest judges with")
		})
	}
}

// TestIPv4Range: the range Node's http module reads for each IPv4 CIDR, checked
// against net/netip's first and last address of the prefix, at every prefix
// length and on an address with host bits set; anything else gives nothing.
func TestIPv4Range(t *testing.T) {
	for bits := 0; bits <= 32; bits++ {
		cidr := fmt.Sprintf("10.117.200.9/%d", bits)
		p := netip.MustParsePrefix(cidr).Masked()
		last := p.Addr().As4()
		for i := range last {
			if hostBits := 32 - bits - 8*(3-i); hostBits > 0 {
				last[i] |= byte(1<<min(hostBits, 8) - 1)
			}
		}
		got := fixture.Include(t, nil, proxykit.Call{Helper: "proxykit.noProxy.ipv4Range", Value: cidr})
		assert.Equal(t, p.Addr().String()+"-"+netip.AddrFrom4(last).String(), got, cidr)
	}
	for _, notIPv4 := range []string{"fd00::/8", "10.0.0.0/33", "10.0.0.0", "example.com", "10.0.0.0/8/8"} {
		got := fixture.Include(t, nil, proxykit.Call{Helper: "proxykit.noProxy.ipv4Range", Value: notIPv4})
		assert.Empty(t, got, notIPv4)
	}
}

// The fabric8 Kubernetes client throws on the first NO_PROXY entry outside
// [0-9A-Za-z./:-] it reaches before a match (issue 34): in every composition the
// library writes (IPv4, IPv6, dual-stack, entries of the installation and of a
// call, node forms), every bracketed entry comes after all the others, and
// every other entry is made of fabric8's characters.
func TestNoProxyOrderFabric8Accepts(t *testing.T) {
	fabric8 := regexp.MustCompile(`^[0-9A-Za-z./:-]+$`)
	for name, values := range map[string]string{
		"IPv4":       fixture.PlainProxy,
		"IPv6":       "proxy: {http: http://proxy:3128, noProxy: ['fd00::9', '[fd00::8]:5000', .corp.example]}\ncluster: {podCIDRs: ['fd00:10:244::/56'], serviceCIDRs: ['fd00:10:96::/112'], apiServer: 'fd00:10:96::1'}\n",
		"dual-stack": fixture.PlainProxy + "cluster: {podCIDRs: [10.244.0.0/16, 'fd00:10:244::/56'], serviceCIDRs: [10.96.0.0/12, 'fd00:10:96::/112']}\n",
		"node forms": fixture.PlainProxy + "global: {proxy: {runtimes: [node]}}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12, 'fd00:10:96::/112'], apiServer: 'fd00:10:96::1'}\n",
	} {
		t.Run(name, func(t *testing.T) {
			m := fixture.Render(t, fixture.Fixture, proxytest.Values(values+"caller: {services: [api]}\n"))
			for _, c := range m.Containers() {
				noProxy := m.Environment(c)["NO_PROXY"]
				if noProxy == "" {
					continue
				}
				brackets := false
				for _, entry := range strings.Split(noProxy, ",") {
					if strings.HasPrefix(entry, "[") {
						brackets = true
						continue
					}
					assert.False(t, brackets, "%s: %s comes after a bracketed entry: %s", c.Name, entry, noProxy)
					assert.Regexp(t, fabric8, entry, "%s: fabric8 refuses %q", c.Name, entry)
				}
			}
		})
	}
}

// proxykit.noProxy.forFabric8 leaves out exactly the bracketed entries, in
// order; proxykit.proxy.fabric8Env gives proxykit.proxy.env's both cases that
// NO_PROXY and changes nothing else, and leaves a NO_PROXY the Secret holds as
// it is.
func TestNoProxyForFabric8(t *testing.T) {
	got := fixture.Include(t, nil, proxykit.Call{Helper: "proxykit.noProxy.forFabric8", Value: "localhost,::1,[::1],fd00::1,[fd00::1]:5000,.corp.example"})
	assert.Equal(t, "localhost,::1,fd00::1,.corp.example", got)

	var values map[string]any
	require.NoError(t, yaml.Unmarshal([]byte("proxy: {http: http://proxy:3128, noProxy: '[fd00::8]:5000'}\ncluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12], apiServer: 'fd00:10:96::1'}\n"), &values))
	answers, err := proxykit.Ask(values, "", "", proxykit.Call{Helper: "proxykit.proxy.env"},
		proxykit.Call{Helper: "proxykit.proxy.fabric8Env", Name: "fabric8", Join: map[string][]string{"env": {"proxykit.proxy.env"}}})
	require.NoError(t, err)
	var all, fabric8 []corev1.EnvVar
	require.NoError(t, yaml.Unmarshal([]byte(answers["proxykit.proxy.env"]), &all))
	require.NoError(t, yaml.Unmarshal([]byte(answers["fabric8"]), &fabric8))
	require.Len(t, fabric8, len(all))
	for i, e := range all {
		if e.Name != "NO_PROXY" && e.Name != "no_proxy" {
			assert.Equal(t, e, fabric8[i])
			continue
		}
		assert.Contains(t, e.Value, ",[fd00:10:96::1]")
		assert.Equal(t, fixture.Fabric8Env(all)[i], fabric8[i], "%s: the bracketed entries left out, nothing else", e.Name)
	}

	credentials := fixture.CredentialValues(t, nil)
	require.NoError(t, yaml.Unmarshal([]byte(credentials), &values))
	answers, err = proxykit.Ask(values, "shop", "", proxykit.Call{Helper: "proxykit.proxy.env"},
		proxykit.Call{Helper: "proxykit.proxy.fabric8Env", Name: "fabric8", Join: map[string][]string{"env": {"proxykit.proxy.env"}}})
	require.NoError(t, err)
	assert.Equal(t, answers["proxykit.proxy.env"], answers["fabric8"], "a NO_PROXY from the Secret is read as it is")
}

// Every client family reaches the cluster directly on the library's NO_PROXY:
// the API server by every name and by its address, a Service by every name its
// Pods call it (the FQDN with and without the trailing dot), for each judged
// client and for fabric8 (the API server only: it calls nothing else), decided
// by package noproxy's models, which the real-client suite holds to the real
// programs. BusyBox's wget reads no NO_PROXY at all; a Pod IP by address goes
// through the proxy for the clients without CIDR support (.NET among them),
// which no list of names can change.
func TestNoProxyEveryFamilyReachesTheCluster(t *testing.T) {
	m := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.PlainProxy+"cluster: {podCIDRs: [10.244.0.0/16], serviceCIDRs: [10.96.0.0/12], apiServer: 10.96.0.1}\ncaller: {services: [api]}\n"))
	env := m.Environment(m.Container(t, "Deployment/"+fixture.Release+"-caller", "generate-env"))
	require.NotEmpty(t, env["NO_PROXY"])
	apiServer := []string{"https://kubernetes", "https://kubernetes.default", "https://kubernetes.default.svc", "https://kubernetes.default.svc.cluster.local",
		"https://kubernetes.default.svc.cluster.local.", "https://10.96.0.1:443"}
	services := []string{"http://api:8080", "http://api." + fixture.Namespace + ":8080", "http://api." + fixture.Namespace + ".svc:8080",
		"http://api." + fixture.Namespace + ".svc.cluster.local:8080", "http://api." + fixture.Namespace + ".svc.cluster.local.:8080"}
	for _, client := range append(slices.Clone(noproxy.Clients), noproxy.Fabric8) {
		targets := apiServer
		if client != noproxy.Fabric8 {
			targets = append(slices.Clone(apiServer), services...)
		}
		for _, target := range targets {
			if client == noproxy.Java || slices.Contains(noproxy.NodeClients, client) {
				continue // their own variables: runtimes java and node, which TestNoProxyModelsMatchRealClients runs
			}
			d, err := noproxy.Decide(client, target, noproxy.Env(env))
			require.NoError(t, err)
			assert.Empty(t, d.Refused, "%s %s", client, target)
			assert.True(t, d.Direct, "%s sends %s through the proxy on NO_PROXY=%s", client, target, env["NO_PROXY"])
		}
	}
}
