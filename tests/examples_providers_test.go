package tests

import (
	"encoding/base64"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// Every NO_PROXY proxykit writes starts with the loopback entries, wherever it
// lands: env values, JSON patches, CEL literals, Secrets, drop-ins.
var noProxyValue = regexp.MustCompile(`localhost,127\.0\.0\.1,::1,[^"'\s\\]+`)

// noProxyValues finds every NO_PROXY in a render, including inside Secret data.
func noProxyValues(r *proxytest.Manifests) []string {
	var found []string
	for _, d := range r.Objects {
		found = append(found, noProxyValue.FindAllString(string(d.Raw), -1)...)
		if d.Kind == "Secret" {
			for _, b64 := range regexp.MustCompile(`(?m)^  \S+: ([A-Za-z0-9+/=]{8,})$`).FindAllStringSubmatch(string(d.Raw), -1) {
				if raw, err := base64.StdEncoding.DecodeString(b64[1]); err == nil {
					found = append(found, noProxyValue.FindAllString(string(raw), -1)...)
				}
			}
		}
	}
	return found
}

// TestProviderValuesAgainstEveryChart renders each chart with each provider's
// values and judges every NO_PROXY it writes with Go's proxy selection.
func TestProviderValuesAgainstEveryChart(t *testing.T) {
	charts := map[string]string{
		"consumer-app":   fixture.ConsumerApp,
		"proxy-policies": fixture.ProxyPolicies,
		"cluster-proxy":  fixture.ClusterProxy,
		"chart-operator": fixture.ChartOperator,
	}
	for _, p := range fixture.Providers {
		values, err := os.ReadFile(fixture.Path("examples", "providers", p.File))
		require.NoError(t, err)
		for name, chart := range charts {
			t.Run(p.File+"/"+name, func(t *testing.T) {
				r := fixture.Render(t, chart, proxytest.Values(string(values)+"\nnative: {enabled: true, secretNamespaces: [apps]}\n"))
				found := noProxyValues(r)
				require.NotEmpty(t, found, "%s renders no NO_PROXY", name)
				for _, noProxy := range found {
					fixture.AssertProxySelection(t, noProxy, p.Bypass, append([]string{fixture.ExternalURL}, p.Proxied...))
				}
				if p.Credentials != "" {
					for _, d := range r.Objects {
						if d.Kind != "Secret" {
							assert.NotContains(t, string(d.Raw), p.Credentials, "%s %s carries the password", d.Kind, d.Name)
						}
					}
				}
			})
		}
	}
}
