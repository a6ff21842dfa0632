package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/cluster"
	"github.com/proxykit/proxykit/proxytest"
	"github.com/proxykit/proxykit/tests/fixture"
)

// An entry that sends public hosts around the proxy is refused from values,
// naming the key: a public suffix of the ICANN section (every name under it is
// someone else's) and a network wider than one holder's block.
func TestNoProxyRefusesPublicSuffixes(t *testing.T) {
	for entry, want := range map[string]string{
		"com": "is a public suffix", ".io": "is a public suffix", "app": "is a public suffix", "co.uk": "is a public suffix",
		"*.dev": "is a public suffix", "io:443": "is a public suffix", "security": "is a public suffix", "CO.UK.": "is a public suffix",
		"128.0.0.0/1": "holds public addresses", "8.0.0.0/7": "holds public addresses", "2000::/3": "holds public addresses",
	} {
		t.Run(entry, func(t *testing.T) {
			values := "proxy: {http: \"http://proxy.corp:3128\", noProxy: [\".corp.example\", \"" + entry + "\"]}\ncluster: {podCIDRs: [10.244.0.0/16]}\n"
			fixture.AssertFailsNaming(t, fixture.Fixture, values, "proxy.noProxy", want)
			_, public := cluster.Public(entry)
			assert.True(t, public, "Go's cluster.Public agrees")
		})
	}
	// a provider's suffix is kept (a cloud's endpoints bypassed on purpose), as are
	// corporate domains, one holder's network and private space however wide
	kept := []string{"github.io", ".googleapis.com", ".s3.us-east-1.amazonaws.com", ".corp.example", "internal", "17.0.0.0/8", "fd00::/8", "fc00::/7", "2001:db8::/32"}
	m := fixture.Render(t, fixture.Fixture, proxytest.Values("proxy: {http: \"http://proxy.corp:3128\", noProxy: \""+strings.Join(kept, ",")+"\"}\ncluster: {podCIDRs: [10.244.0.0/16]}\n"))
	for _, c := range m.Containers() {
		noProxy := m.Environment(c)["NO_PROXY"]
		for _, entry := range kept {
			assert.Contains(t, ","+noProxy+",", ","+entry+",")
		}
		break
	}
}

// The library's table and Go's publicsuffix give one verdict: every name the
// table holds, and names of every kind around them.
func TestPublicSuffixLibraryAgreesWithGo(t *testing.T) {
	names := []string{"com", "io", "app", "dev", "security", "co.uk", "com.au", "ck", "foo.ck", "www.ck", "github.io", "vercel.app",
		"herokuapp.com", "svc", "cluster.local", "local", "internal", "kubernetes", "example.com", "googleapis.com", "aichi.jp", "kawasaki.jp", "x.kawasaki.jp"}
	table := fixture.Include(t, nil, proxykit.Call{Helper: "proxykit.noProxy.publicSuffixes"})
	var rules map[string]string
	require.NoError(t, json.Unmarshal([]byte(table), &rules))
	assert.Greater(t, len(rules), 7000)
	for rule := range rules {
		name := strings.TrimPrefix(strings.TrimPrefix(rule, "*."), "!")
		if strings.HasPrefix(rule, "*.") {
			name = "x." + name
		}
		names = append(names, name)
	}
	out := fixture.Include(t, nil, proxykit.Call{Helper: "proxykit.noProxy.publicSuffix", Args: map[string]any{"names": names}})
	answers := map[string]string{}
	require.NoError(t, json.Unmarshal([]byte(out), &answers))
	words := map[cluster.Suffix]string{cluster.SuffixNone: "", cluster.SuffixICANN: "icann", cluster.SuffixPrivate: "private"}
	bars := fixture.Include(t, nil, proxykit.Call{Helper: "proxykit.noProxy.icannSuffixes"})
	for _, name := range names {
		assert.Equal(t, words[cluster.PublicSuffix(name)], answers[name], name)
		assert.Equal(t, cluster.PublicSuffix(name) == cluster.SuffixICANN, barsHold(bars, name), "icannSuffixes: %s", name)
	}
}

// barsHold is the lookup the policies' engines make in
// proxykit.noProxy.icannSuffixes, written as its doc comment says.
func barsHold(bars, name string) bool {
	has := func(rule string) bool { return strings.Contains(bars, "|"+rule+"|") }
	_, parent, ok := strings.Cut(name, ".")
	if !ok {
		return has(name) || has("*."+name)
	}
	return has(name) || has("*."+parent) && !has("!"+name)
}
