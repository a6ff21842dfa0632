package tests

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// crashMarkers are Go template runtime errors: bad input must never surface as one.
var crashMarkers = []string{"nil pointer", "wrong type", "can't evaluate", "error calling", "index of", "invalid value"}

// assertFailsNaming renders chart with values that must fail with a message
// containing every want, and never with a template runtime error.
func assertFailsNaming(t *testing.T, chart, values string, wants ...string) {
	t.Helper()
	err := renderError(t, chart, values)
	for _, want := range wants {
		assert.Contains(t, err, want)
	}
	for _, marker := range crashMarkers {
		assert.NotContains(t, err, marker, "a template crash instead of a message")
	}
}

func TestBadInputFailsNamingTheKey(t *testing.T) {
	cases := []struct {
		name   string
		values string
		wants  []string
	}{
		{"proxy URL without scheme", `proxy: {http: "proxy.corp:3128"}`, []string{"proxy.http", "must start with http:// or https://"}},
		{"socks scheme", `proxy: {https: "socks5://proxy:1080"}`, []string{"proxy.https", "must start with http:// or https://"}},
		{"port out of range", `proxy: {https: "http://proxy:99999"}`, []string{"proxy.https", `port "99999"`}},
		{"port zero", `proxy: {http: "http://proxy:0"}`, []string{"proxy.http", `port "0"`}},
		{"port not a number", `proxy: {http: "http://proxy:abc"}`, []string{"proxy.http", "the port is not a number"}},
		{"empty port", `proxy: {http: "http://proxy:"}`, []string{"proxy.http", `port ""`}},
		{"URL with a path", `proxy: {http: "http://proxy:3128/some/path"}`, []string{"proxy.http", "is not a proxy URL"}},
		{"URL without host", `proxy: {http: "http://:3128"}`, []string{"proxy.http", "is not a proxy URL"}},
		{"bad URL named from cluster.proxy", `cluster: {proxy: {http: "proxy:3128"}}`, []string{"cluster.proxy.http"}},
		{"bad URL named from global.proxy", `global: {proxy: {https: "http://p:70000"}}`, []string{"global.proxy.https"}},
		{"IPv4 prefix over 32", `cluster: {podCIDRs: [10.0.0.0/33]}`, []string{"cluster.podCIDRs", `"10.0.0.0/33" is not a valid CIDR`}},
		{"IPv6 prefix over 128", `cluster: {serviceCIDRs: ["fd00::/129"]}`, []string{"cluster.serviceCIDRs", `"fd00::/129"`}},
		{"three-octet address", `cluster: {podCIDRs: "10.0.0/8"}`, []string{"cluster.podCIDRs", `"10.0.0/8"`}},
		{"octet over 255", `cluster: {podCIDRs: [10.0.256.0/24]}`, []string{"cluster.podCIDRs"}},
		{"bare address where a CIDR belongs", `cluster: {serviceCIDRs: [10.96.0.1]}`, []string{"cluster.serviceCIDRs", `"10.96.0.1"`}},
		{"bad CIDR among installation entries", `proxy: {http: "http://p:1", noProxy: "a.example,10.0.0.0/40"}`, []string{"proxy.noProxy", `"10.0.0.0/40"`}},
		{"whitespace inside an entry", `proxy: {http: "http://p:1", noProxy: ["a b.example"]}`, []string{"proxy.noProxy[0]", "whitespace"}},
		{"env entry without a name in defaults.env", `defaults: {env: [{name: A, value: a}, {value: orphan}]}`, []string{"defaults.env[1] has no name", "orphan"}},
		{"env entry with an empty name in a source", `app: {env: [{name: "  ", value: x}]}`, []string{"env source 1[0] has no name"}},
		{"env entry without a name in the second source", `app: {extraEnv: [{value: x}]}`, []string{"env source 2[0] has no name"}},
		{"env entry that is not a map", `app: {env: [A=b]}`, []string{"env source 1[0] must be an EnvVar map", "got string"}},
		{"env value that is a map", `app: {env: [{name: A, value: {x: 1}}]}`, []string{"env source 1[0] (A): value must be a string, number or boolean"}},
		{"env entry with value and valueFrom", `app: {env: [{name: A, value: x, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]}`, []string{"env source 1[0] (A) sets both value and valueFrom"}},
		{"valueFrom that is not a map", `app: {env: [{name: A, valueFrom: secret}]}`, []string{"(A): valueFrom must be a map"}},
		{"proxy is a string", `proxy: "http://proxy:3128"`, []string{"proxy must be a map, got string"}},
		{"cluster is a list", `cluster: [a]`, []string{"cluster must be a map, got slice"}},
		{"global.proxy is a string", `global: {proxy: "http://p:1"}`, []string{"global.proxy must be a map"}},
		{"defaults is a list", `defaults: [a]`, []string{"defaults must be a map"}},
		{"defaults.env is a string", `defaults: {env: "A=b"}`, []string{"defaults.env must be a list of EnvVars, got string"}},
		{"proxy.http is a number", `proxy: {http: 3128}`, []string{"proxy.http must be a string, got float64"}},
		{"proxy.noProxy is a number", `proxy: {http: "http://p:1", noProxy: 5}`, []string{"proxy.noProxy must be a list or a comma-separated string"}},
		{"noProxy entry is a number", `proxy: {http: "http://p:1", noProxy: [a.example, 5]}`, []string{"proxy.noProxy[1] must be a string"}},
		{"podCIDRs is a number", `cluster: {podCIDRs: 5}`, []string{"cluster.podCIDRs must be a list or a comma-separated string"}},
		{"lowercase is a string", `proxy: {lowercase: "yes"}`, []string{"proxy.lowercase must be true or false"}},
		{"metadataEndpoints is a string", `cluster: {metadataEndpoints: "no"}`, []string{"cluster.metadataEndpoints must be true or false"}},
		{"domain with a space", `cluster: {domain: "cluster local"}`, []string{"cluster.domain", "is not a DNS domain"}},
		{"domain is a list", `cluster: {domain: [a]}`, []string{"cluster.domain must be a string"}},
		{"API server as a URL", `cluster: {apiServer: "https://10.96.0.1:443"}`, []string{"cluster.apiServer", "without scheme or port"}},
		{"API server with a port", `cluster: {apiServer: "api.example.com:6443"}`, []string{"cluster.apiServer"}},
		{"API server with a bad IPv4", `cluster: {apiServer: "10.96.0.256"}`, []string{"cluster.apiServer"}},
		{"API server with a bad IPv6", `cluster: {apiServer: "fd00::1::2"}`, []string{"cluster.apiServer"}},
		{"existingSecret is a map", `proxy: {existingSecret: {name: x}}`, []string{"proxy.existingSecret must be a string"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assertFailsNaming(t, fixtureChart, tc.values, tc.wants...) })
	}
}

func TestErrorMessagesHideCredentials(t *testing.T) {
	for _, values := range []string{
		`proxy: {http: "ftp://user:s3cr%40t@proxy:3128"}`,
		`proxy: {http: "http://user:s3cr%40t@proxy:3128/path"}`,
		`proxy: {https: "http://user:s3cr%40t@proxy:99999"}`,
	} {
		err := renderError(t, fixtureChart, values)
		assert.NotContains(t, err, "s3cr", "the password leaked into: %s", err)
	}
}

// TestCIDRValidationAgreesWithNetip checks the template's CIDR parser against
// net/netip on addresses chosen to hit every branch.
func TestCIDRValidationAgreesWithNetip(t *testing.T) {
	candidates := []string{
		"10.0.0.0/8", "10.0.0.0/0", "10.0.0.0/32", "10.0.0.0/33", "10.0.0.1/8", "0.0.0.0/0",
		"255.255.255.255/32", "256.0.0.0/8", "10.0.0/8", "10.0.0.0.0/8", "10.0.0.0", "10.0.0.0/",
		"010.0.0.0/8", "10.0.0.0/08", "10.0.0.0/-1", "10.0.0.0/8/8", "a.b.c.d/8", "10.0.0.0 /8",
		"fd00::/8", "fd00::/128", "fd00::/129", "::/0", "::1/128", "::/128", "fd00:10:244::/56",
		"2001:db8:0:0:0:0:0:1/64", "2001:db8:0:0:0:0:0:0:1/64", "2001:db8:0:0:0:0:1/64",
		"2001:db8::0:0:0:0:0:1/64", "2001:db8::0:0:0:0:1/64", "1:2:3:4:5:6:7::/64", "::2:3:4:5:6:7:8/64",
		"1::2::3/64", "1:::2/64", ":1::2/64", "1::2:/64", "12345::/16", "fg00::/8", "FD00::/8",
		"::ffff:10.0.0.1/128", "::ffff:10.0.0.256/128", "1:2:3:4:5:6:10.0.0.1/128",
		"1:2:3:4:5:6:7:10.0.0.1/128", "10.0.0.1::/64", "fe80::1%eth0/64", "fd00::/012", "[fd00::]/8",
	}
	for _, c := range candidates {
		t.Run(c, func(t *testing.T) {
			_, parseErr := netip.ParsePrefix(c)
			_, renderErr := renderSDK(t, fixtureChart, fmt.Sprintf("cluster: {podCIDRs: [%q]}", c))
			if parseErr == nil {
				assert.NoError(t, renderErr, "netip accepts %q", c)
			} else if assert.Error(t, renderErr, "netip rejects %q: %v", c, parseErr) {
				assert.Contains(t, renderErr.Error(), "cluster.podCIDRs")
			}
		})
	}
}

// TestAPIServerAddressAgreesWithNetip: anything with a colon must be a valid IPv6 address.
func TestAPIServerAddressAgreesWithNetip(t *testing.T) {
	for _, c := range []string{"fd00::1", "::1", "2001:db8::10:0:0:1", "fd00:::1", "fd00::1::1", "1:2:3:4:5:6:7:8:9", "::ffff:10.96.0.1", "gd00::1"} {
		_, parseErr := netip.ParseAddr(c)
		_, renderErr := renderSDK(t, fixtureChart, fmt.Sprintf("proxy: {http: 'http://p:1'}\ncluster: {apiServer: %q, requireNetworks: false}", c))
		if parseErr == nil {
			assert.NoError(t, renderErr, "netip accepts %q", c)
		} else if assert.Error(t, renderErr, "netip rejects %q", c) {
			assert.True(t, strings.Contains(renderErr.Error(), "cluster.apiServer"), renderErr.Error())
		}
	}
}
