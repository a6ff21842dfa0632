package tests

import (
	"fmt"
	"net/netip"
	neturl "net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

func TestBadInputFailsNamingTheKey(t *testing.T) {
	cases := []struct {
		name   string
		values string
		wants  []string
	}{
		{"proxy URL without scheme", `proxy: {http: "proxy.corp:3128"}`, []string{"proxy.http", "must start with http:// or https://"}},
		{"socks scheme", `proxy: {https: "socks5://proxy:1080"}`, []string{"proxy.https", "must start with http:// or https://"}},
		{"port out of range", `proxy: {https: "http://proxy:99999"}`, []string{"proxy.https", "the port is not a number between 1 and 65535"}},
		{"port zero", `proxy: {http: "http://proxy:0"}`, []string{"proxy.http", "the port is not a number between 1 and 65535"}},
		{"port not a number", `proxy: {http: "http://proxy:abc"}`, []string{"proxy.http", "the port is not a number"}},
		{"empty port", `proxy: {http: "http://proxy:"}`, []string{"proxy.http", "the port is not a number between 1 and 65535"}},
		{"URL with a path", `proxy: {http: "http://proxy:3128/some/path"}`, []string{"proxy.http", "is not a proxy URL"}},
		{"URL without host", `proxy: {http: "http://:3128"}`, []string{"proxy.http", "is not a proxy URL"}},
		{"bad URL named from cluster.proxy", `cluster: {proxy: {http: "proxy:3128"}}`, []string{"cluster.proxy.http"}},
		{"bad URL named from global.proxy", `global: {proxy: {https: "http://p:70000"}}`, []string{"global.proxy.https"}},
		{"IPv4 prefix over 32", `cluster: {podCIDRs: [10.0.0.0/33]}`, []string{"cluster.podCIDRs", `"10.0.0.0/33" is not a valid CIDR`}},
		{"IPv6 prefix over 128", `cluster: {serviceCIDRs: ["fd00::/129"]}`, []string{"cluster.serviceCIDRs", `"fd00::/129"`}},
		{"three-octet address", `cluster: {podCIDRs: "10.0.0/8"}`, []string{"cluster.podCIDRs", `"10.0.0/8"`}},
		{"octet over 255", `cluster: {podCIDRs: [10.0.256.0/24]}`, []string{"cluster.podCIDRs"}},
		{"bare address where a CIDR belongs", `cluster: {serviceCIDRs: [10.96.0.1]}`, []string{"cluster.serviceCIDRs", `"10.96.0.1"`}},
		{"a namespace that is no DNS label", `cluster: {namespaces: [security, "Vault_NS"]}`, []string{"cluster.namespaces", `"Vault_NS" is not a namespace name`}},
		{"bad CIDR among installation entries", `proxy: {http: "http://p:1", noProxy: "a.example,10.0.0.0/40"}`, []string{"proxy.noProxy", `"10.0.0.0/40"`}},
		{"whitespace inside an entry", `proxy: {http: "http://p:1", noProxy: ["a b.example"]}`, []string{"proxy.noProxy[0]", "whitespace"}},
		{"a domain with two trailing dots", `cluster: {domain: cluster.local..}`, []string{"cluster.domain", "is not a DNS domain"}},
		{"every IPv4 address as a pod network", `cluster: {podCIDRs: [0.0.0.0/0]}`, []string{"cluster.podCIDRs", `"0.0.0.0/0" covers every address`}},
		{"every IPv6 address as a service network", `cluster: {serviceCIDRs: ["::/0"]}`, []string{"cluster.serviceCIDRs", `"::/0" covers every address`}},
		{"every address among installation entries", `proxy: {http: "http://p:1", noProxy: "a.example,0.0.0.0/0"}`, []string{"proxy.noProxy", `"0.0.0.0/0" covers every address`}},
		{"env entry without a name in defaults.env", `defaults: {env: [{name: A, value: a}, {value: orphan}]}`, []string{"defaults.env[1] has no name", "orphan"}},
		{"env entry with an empty name in a source", `app: {env: [{name: "  ", value: x}]}`, []string{"env source 1[0] has no name"}},
		{"env entry without a name in the second source", `app: {extraEnv: [{value: x}]}`, []string{"env source 2[0] has no name"}},
		{"env name with =", `app: {env: [{name: "A=B", value: x}]}`, []string{"env source 1[0]", `"A=B" is not an environment variable name`}},
		{"env name not ASCII", `defaults: {env: [{name: "GRÜSSE", value: x}]}`, []string{"defaults.env[0]", "is not an environment variable name"}},
		{"env name with a newline", `app: {env: [{name: "A\nB", value: x}]}`, []string{"env source 1[0]", "is not an environment variable name"}},
		{"valueFrom with no source", `app: {env: [{name: A, valueFrom: {}}]}`, []string{"env source 1[0] (A)", "valueFrom must name exactly one of"}},
		{"valueFrom with two sources", `app: {env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}, secretKeyRef: {name: s, key: k}}}]}`, []string{"(A)", "got 2"}},
		{"valueFrom with an unknown source", `app: {env: [{name: A, valueFrom: {vaultRef: {path: x}}}]}`, []string{"(A)", "valueFrom.vaultRef is not a source"}},
		{"secretKeyRef without a name", `app: {env: [{name: A, valueFrom: {secretKeyRef: {key: k}}}]}`, []string{"(A)", "valueFrom.secretKeyRef.name is required"}},
		{"configMapKeyRef without a key", `defaults: {env: [{name: A, valueFrom: {configMapKeyRef: {name: c}}}]}`, []string{"(A)", "valueFrom.configMapKeyRef.key is required"}},
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
		t.Run(tc.name, func(t *testing.T) { fixture.AssertFailsNaming(t, fixture.Fixture, tc.values, tc.wants...) })
	}
}

func TestErrorMessagesHideCredentials(t *testing.T) {
	for _, values := range []string{
		`proxy: {http: "ftp://user:s3cr%40t@proxy:3128"}`,
		`proxy: {http: "http://user:s3cr%40t@proxy:3128/path"}`,
		`proxy: {https: "http://user:s3cr%40t@proxy:99999"}`,
	} {
		err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(values))
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
			prefix, parseErr := netip.ParsePrefix(c)
			_, renderErr := fixture.RenderE(fixture.Fixture, proxytest.Values(fmt.Sprintf("cluster: {podCIDRs: [%q]}", c)))
			if parseErr == nil && prefix.Bits() == 0 {
				// netip takes it; the library does not: it would bypass the proxy for every host
				require.Error(t, renderErr, "%q covers every address", c)
				assert.Contains(t, renderErr.Error(), "cluster.podCIDRs")
				assert.Contains(t, renderErr.Error(), "covers every address")
			} else if parseErr == nil {
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
		_, renderErr := fixture.RenderE(fixture.Fixture, proxytest.Values(fmt.Sprintf("proxy: {http: 'http://p:1'}\ncluster: {apiServer: %q, requireNetworks: false}", c)))
		if parseErr == nil {
			assert.NoError(t, renderErr, "netip accepts %q", c)
		} else if assert.Error(t, renderErr, "netip rejects %q", c) {
			assert.True(t, strings.Contains(renderErr.Error(), "cluster.apiServer"), renderErr.Error())
		}
	}
}

func TestStrictValuesFailNamingTheKey(t *testing.T) {
	cases := []struct {
		name   string
		values string
		wants  []string
	}{
		{"wildcard inside a noProxy entry", `proxy: {http: "http://p:1", noProxy: ["corp.*.example"]}`, []string{"proxy.noProxy", `"corp.*.example"`, "only a leading"}},
		{"trailing wildcard", `proxy: {http: "http://p:1", noProxy: "10.0.*"}`, []string{"proxy.noProxy", `"10.0.*"`}},
		{"two wildcards", `cluster: {proxy: {http: "http://p:1", noProxy: "*.*.example"}}`, []string{"cluster.proxy.noProxy", `"*.*.example"`}},
		{"a bare star bypasses everything", `proxy: {http: "http://p:1", noProxy: "a.example,*"}`, []string{"proxy.noProxy", "every host"}},
		{"Kyverno variable as a noProxy entry", `proxy: {http: "http://p:1", noProxy: ["{{request.object.metadata.name}}"]}`, []string{"proxy.noProxy", "is not a host name"}},
		{"Kyverno reference as a noProxy entry", `proxy: {http: "http://p:1", noProxy: ["$(./../metadata/name)"]}`, []string{"proxy.noProxy", `"$(./../metadata/name)"`}},
		{"Kyverno variable in the proxy host", `proxy: {http: "http://{{request.namespace}}.proxy:3128"}`, []string{"proxy.http", "is not a proxy URL"}},
		{"Kyverno reference in the proxy host", `global: {proxy: {https: "http://$(x).proxy:3128"}}`, []string{"global.proxy.https", "is not a proxy URL"}},
		{"quote in the proxy host", `proxy: {http: "http://proxy\":3128"}`, []string{"proxy.http", "is not a proxy URL"}},
		{"bracketed IPv6 with a bad address", `proxy: {http: "http://[fd00::g]:3128"}`, []string{"proxy.http", "is not a proxy URL"}},
		{"IPv6 proxy host without brackets", `proxy: {http: "http://fd00::1:3128"}`, []string{"proxy.http"}},
		{"noProxy entry with a bad port", `proxy: {http: "http://p:1", noProxy: "registry.local:99999"}`, []string{"proxy.noProxy", `port "99999"`}},
		{"noProxy entry with a bracketed bad address", `proxy: {http: "http://p:1", noProxy: "[fd00::x]"}`, []string{"proxy.noProxy", `"[fd00::x]"`}},
		{"existingSecret with upper case", `proxy: {existingSecret: Corp-Proxy}`, []string{"proxy.existingSecret", "not a valid Secret name"}},
		{"existingSecret with a quote", `proxy: {existingSecret: "corp\"proxy"}`, []string{"proxy.existingSecret", "not a valid Secret name"}},
		{"existingSecret with a Kyverno variable", `proxy: {existingSecret: "{{request.namespace}}"}`, []string{"proxy.existingSecret", "not a valid Secret name"}},
		{"requireNetworks is a string", `cluster: {requireNetworks: "no"}`, []string{"cluster.requireNetworks must be true or false"}},
		{"bad node CIDR", `cluster: {nodeCIDRs: [192.168.0.0/33]}`, []string{"cluster.nodeCIDRs", `"192.168.0.0/33"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fixture.AssertFailsNaming(t, fixture.Fixture, fixture.WithNetworks(tc.values), tc.wants...)
		})
	}
}

func TestControlCharactersFailNamingTheKey(t *testing.T) {
	// YAML escapes: \0 NUL, \x7f DEL, \N (U+0085) next line, a C1 control
	for _, c := range []struct{ name, escape, shown string }{{"NUL", `\0`, `\x00`}, {"DEL", `\x7f`, `\x7f`}, {"C1", `\N`, `\u0085`}} {
		cases := []struct{ where, values, key string }{
			{"proxy.http", `proxy: {http: "http://proxy:3128` + c.escape + `"}`, "proxy.http"},
			{"a password", `proxy: {https: "http://u:pa` + c.escape + `ss@proxy:3128"}`, "proxy.https"},
			{"a noProxy entry", `proxy: {http: "http://p:1", noProxy: ["a.example` + c.escape + `"]}`, "proxy.noProxy[0]"},
			{"cluster.proxy.noProxy", `cluster: {proxy: {http: "http://p:1", noProxy: "a` + c.escape + `.example"}}`, "cluster.proxy.noProxy"},
			{"cluster.apiServer", `cluster: {apiServer: "api` + c.escape + `.example"}`, "cluster.apiServer"},
			{"cluster.domain", `cluster: {domain: "cluster` + c.escape + `.local"}`, "cluster.domain"},
			{"a defaults.env value", `defaults: {env: [{name: A, value: ok}, {name: B, value: "x` + c.escape + `"}]}`, "defaults.env[1].value"},
			{"an env source value", `app: {extraEnv: [{name: B, value: "x` + c.escape + `y"}]}`, "env source 2[0].value"},
			{"an env name", `init: {env: [{name: "B` + c.escape + `", value: x}]}`, "env source 1[0].name"},
		}
		for _, tc := range cases {
			t.Run(c.name+"/"+tc.where, func(t *testing.T) {
				err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(fixture.WithNetworks(tc.values)))
				assert.Contains(t, err, tc.key)
				assert.NotContains(t, err, "pa"+c.shown, "the password is not shown")
				assertNoTemplateCrash(t, err)
			})
		}
	}
	t.Run("tab, newline and carriage return stay allowed in env values", func(t *testing.T) {
		r := fixture.Render(t, fixture.Fixture, proxytest.Values(`app: {env: [{name: SCRIPT, value: "a\tb\r\nc"}]}`))
		env := r.Container(t, "Deployment/"+fixture.Release+"-app", "app").Env
		assert.Equal(t, "a\tb\r\nc", fixture.EnvMap(env)["SCRIPT"].Value)
	})
}

func TestErrorMessagesNeverShowThePassword(t *testing.T) {
	const secret = "SECRETpw"
	for _, url := range []string{
		"http://u:" + secret + "@proxy corp:3128",     // a space in the host
		"http://u:" + secret + "@proxy:31:28",         // a stray colon
		"http://u:" + secret + "@proxy:99999",         // port out of range
		"http://u:" + secret + "@proxy:3128/path",     // a path
		"http://u:" + secret + "@:3128",               // no host
		"http://u:" + secret + "@[fd00::1:3128",       // unclosed bracket
		"ftp://u:" + secret + "@proxy:3128",           // scheme
		"http://u:" + secret + "@pro{{x}}y:3128",      // template text in the host
		"http://u:" + secret,                          // the "@host" forgotten
		"http://u:" + secret + " @proxy:3128",         // a space in the password
		"http://u:" + secret + "\x7f@proxy:3128",      // DEL in the password
		"http://u:p@ss:" + secret + "@proxy.corp:abc", // "@" in the password and a bad port
	} {
		for key, format := range map[string]string{"proxy.http": "proxy: {http: %q}", "cluster.proxy.https": "cluster: {proxy: {https: %q}}", "global.proxy.http": "global: {proxy: {http: %q}}"} {
			err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(fixture.WithNetworks(fmt.Sprintf(format, url))))
			assert.NotContains(t, err, secret, "the password leaked for %q", url)
			assert.Contains(t, err, key, "the message names the key")
			assertNoTemplateCrash(t, err)
		}
	}
}

// assertNoTemplateCrash: bad input surfaces as a message, never a Go template runtime error.
func assertNoTemplateCrash(t *testing.T, err string) {
	t.Helper()
	for _, marker := range fixture.CrashMarkers {
		assert.NotContains(t, err, marker, "a template crash instead of a message")
	}
}

// TestProxyURLUserInfoEveryClientReads: a user-info that Go, curl or Python would
// read differently fails, naming the key and saying to percent-encode, never
// showing the password; one that passes is read by Go to the same user and
// password the library wrote into the Secret.
func TestProxyURLUserInfoEveryClientReads(t *testing.T) {
	for _, password := range []string{"pa/ss", "pa#ss", "pa?ss", `pa"ss`, `pa\ss`, "pa@ss", "pässword", "pa\u200bss", "pa%zzss", "pa%2", "%C3%A4"} {
		t.Run("rejected "+password, func(t *testing.T) {
			values := fixture.ValuesYAML(t, map[string]any{"proxy": map[string]any{"http": "http://svc:" + password + "@proxy.corp:3128"}, "cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12"}})
			err := fixture.RenderError(t, fixture.Fixture, proxytest.Values(values))
			assert.Contains(t, err, "proxy.http")
			assert.Contains(t, err, "percent-encode")
			assert.NotContains(t, err, password)
		})
	}
	for _, password := range []string{"S3cr%40t&pass", "p%2Fss%23%3F%22%5C", "a-b.c_d~e!f$g&h'i(j)k*l+m,n;o=p:q"} {
		t.Run("accepted "+password, func(t *testing.T) {
			url := "http://svc:" + password + "@proxy.corp:3128"
			r := fixture.Render(t, fixture.Fixture, proxytest.Values(fixture.ValuesYAML(t, map[string]any{"proxy": map[string]any{"http": url}, "cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12"}})))
			stored := string(proxytest.Get[corev1.Secret](t, r, fixture.Release+"-proxy-credentials").Data["HTTP_PROXY"])
			assert.Equal(t, url, stored, "byte-exact in the Secret")
			parsed, err := neturl.Parse(stored)
			require.NoError(t, err)
			want, err := neturl.PathUnescape(password)
			require.NoError(t, err)
			got, _ := parsed.User.Password()
			assert.Equal(t, "proxy.corp:3128", parsed.Host)
			assert.Equal(t, want, got, "Go decodes the password the proxy receives")
		})
	}
}

// TestNoMessageEchoesAPassword: a password typed into the wrong key, or with one
// wrong character, never reaches a message, from the templates or the charts'
// JSON Schemas (which run before them).
func TestNoMessageEchoesAPassword(t *testing.T) {
	const secret = "S3cretPW"
	cases := []struct{ chart, name, values, key string }{
		{fixture.Fixture, "a proxy URL in proxy.noProxy", "proxy: {http: 'http://p:1', noProxy: ['http://u:S3cretPW@proxy.corp:3128']}", "proxy.noProxy"},
		{fixture.Fixture, "user-info as a noProxy entry", "proxy: {http: 'http://p:1', noProxy: 'u:S3cretPW@proxy.corp'}\ncluster: {serviceCIDRs: [10.96.0.0/12]}", "proxy.noProxy"},
		{fixture.Fixture, "a URL as a pod network", "cluster: {podCIDRs: ['http://u:S3cretPW@x/8']}", "cluster.podCIDRs"},
		{fixture.Fixture, "a URL as the API server", "cluster: {apiServer: 'http://u:S3cretPW@10.96.0.1'}", "cluster.apiServer"},
		{fixture.Fixture, "a URL as the domain", "cluster: {domain: 'u:S3cretPW@corp'}", "cluster.domain"},
		{fixture.Fixture, "a URL as proxy.existingSecret", "proxy: {existingSecret: 'http://u:S3cretPW@proxy.corp:3128'}", "proxy.existingSecret"},
		{fixture.ClusterProxy, "a URL as proxy.existingSecret, through the chart's schema", "clusterName: wc1\nproxy: {existingSecret: 'http://u:S3cretPW@proxy.corp:3128'}", "proxy.existingSecret"},
		{fixture.Fixture, "a / typed for the @", "proxy: {http: 'http://svc:S3cretPW/proxy.corp:3128'}", "proxy.http"},
		{fixture.Fixture, "the host forgotten: the password stands where the port goes", "proxy: {http: 'http://svc:98765432'}", "proxy.http"},
		{fixture.Fixture, "no scheme", "proxy: {http: 'svc:S3cretPW@proxy.corp:3128'}", "proxy.http"},
		{fixture.Fixture, "whitespace in an entry with user-info", "proxy: {http: 'http://p:1', noProxy: ['u:S3cret PW@proxy']}", "proxy.noProxy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := fixture.RenderError(t, tc.chart, proxytest.Values(tc.values))
			assert.Contains(t, err, tc.key)
			assert.NotContains(t, err, secret)
			assert.NotContains(t, err, "S3cret PW")
			assert.NotContains(t, err, "98765432")
		})
	}
}
