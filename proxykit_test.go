package proxykit

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func TestLibraryIsTheRepositoryChart(t *testing.T) {
	b, err := os.ReadFile("library/proxykit/Chart.yaml")
	require.NoError(t, err)
	var meta struct{ Version, Type string }
	require.NoError(t, yaml.Unmarshal(b, &meta))
	lib, err := Library()
	require.NoError(t, err)
	assert.Equal(t, meta.Version, LibraryVersion())
	assert.Equal(t, "library", lib.Metadata.Type)
	var names []string
	for _, f := range lib.Templates {
		names = append(names, f.Name)
	}
	assert.Contains(t, names, "templates/_noProxy.tpl")
}

// A call with a Value renders the helpers that take one (include HELPER
// VALUE): a string, a list or a map; any other value is refused.
func TestAskValue(t *testing.T) {
	got, err := Ask(nil, "", "", Call{Helper: "proxykit.noProxy.ipv4Range", Value: "10.96.0.0/12"},
		Call{Helper: "proxykit.java.nonProxyHosts", Value: `.svc,"quoted",10.0.0.0/8`})
	require.NoError(t, err)
	assert.Equal(t, "10.96.0.0-10.111.255.255", got["proxykit.noProxy.ipv4Range"])
	assert.Contains(t, got["proxykit.java.nonProxyHosts"], `|*.svc|\"quoted\"|`, "the value arrives as written, quotes and all")
	_, err = Ask(nil, "", "", Call{Helper: "proxykit.noProxy.ipv4Range", Value: 42})
	assert.EqualError(t, err, "proxykit: the value of proxykit.noProxy.ipv4Range: a int is neither a string nor a list or map")
	_, err = Ask(nil, "", "", Call{Helper: `proxykit.proxy.noProxy" . }}{{ "x`})
	assert.ErrorContains(t, err, "is not a proxykit helper name")
}

func TestPinnedKubeVersionIsGoMods(t *testing.T) {
	b, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s+k8s\.io/client-go v0\.(\d+)\.`).FindSubmatch(b)
	require.NotNil(t, m, "go.mod requires k8s.io/client-go")
	assert.Equal(t, "v1."+string(m[1])+".0", pinnedKubeVersion, "keep pinnedKubeVersion at the Kubernetes version of go.mod's client-go")
	assert.Equal(t, pinnedKubeVersion, DefaultKubeVersion(), "a test binary records no dependencies: the pinned version")
}

// Ask renders several helpers in one render, each output under its name; two
// calls of one helper with other arguments are told apart by Name.
func TestAsk(t *testing.T) {
	values := map[string]any{"proxy": map[string]any{"http": "http://proxy:3128"}, "cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12", "metadataEndpoints": false}}
	got, err := Ask(values, "shop", "apps",
		Call{Helper: "proxykit.proxy.enabled"},
		Call{Helper: "proxykit.proxy.noProxy"},
		Call{Helper: "proxykit.proxy.noProxy", Name: "with a Service", Args: map[string]any{"extra": "web"}},
		Call{Helper: "proxykit.proxy.secretName"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"proxykit.proxy.enabled":    "true",
		"proxykit.proxy.noProxy":    "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.96.0.0/12,[::1]",
		"with a Service":            "localhost,127.0.0.1,::1,cluster.local,.cluster.local,cluster.local.,.cluster.local.,svc,.svc,kubernetes,kubernetes.default,kubernetes.default.svc,10.96.0.0/12,web,[::1]",
		"proxykit.proxy.secretName": "shop-proxy-credentials",
	}, got)
	one, err := Ask(values, "", "", Call{Helper: "proxykit.proxy.noProxy"})
	require.NoError(t, err)
	assert.Equal(t, got["proxykit.proxy.noProxy"], one["proxykit.proxy.noProxy"], "one call or four, one answer")

	_, err = Ask(map[string]any{"cluster": map[string]any{"podCIDRs": "10.0.0.0/33"}}, "", "", Call{Helper: "proxykit.proxy.noProxy"})
	assert.EqualError(t, err, `proxykit: cluster.podCIDRs: "10.0.0.0/33" is not a valid CIDR (want e.g. 10.244.0.0/16 or fd00::/108)`)
	_, err = Ask(nil, "", "", Call{Helper: "{{ evil }}"})
	assert.ErrorContains(t, err, "is not a proxykit helper name")
}

// Join hands a call the answers of earlier calls of the same Ask as one
// argument: the Services' NO_PROXY forms of two namespaces into the env's
// noProxy, before its own entries, in one render that gives what two renders
// gave; a name no earlier call has, or a Join on a Value call, is refused.
func TestAskJoin(t *testing.T) {
	values := map[string]any{"proxy": map[string]any{"http": "http://proxy:3128"}, "cluster": map[string]any{"serviceCIDRs": "10.96.0.0/12", "metadataEndpoints": false}}
	hosts := func(ns string, services ...string) Call {
		return Call{Helper: "proxykit.proxy.serviceHosts", Name: ns, Args: map[string]any{"services": services, "namespace": ns}}
	}
	joined, err := Ask(values, "", "", hosts("shop", "web"), hosts("empty"), hosts("jobs", "db"),
		Call{Helper: "proxykit.proxy.noProxy", Name: "joined", Args: map[string]any{"extra": "legacy.corp"}, Join: map[string][]string{"extra": {"shop", "empty", "jobs"}}})
	require.NoError(t, err)
	twice, err := Ask(values, "", "", Call{Helper: "proxykit.proxy.noProxy", Args: map[string]any{"extra": joined["shop"] + "," + joined["jobs"] + ",legacy.corp"}})
	require.NoError(t, err)
	assert.Equal(t, "web,web.shop,web.shop.svc", joined["shop"])
	assert.Empty(t, joined["empty"], "an empty answer adds no empty entry")
	assert.Equal(t, twice["proxykit.proxy.noProxy"], joined["joined"], "one render, as two gave")
	assert.Contains(t, joined["joined"], ",web,web.shop,web.shop.svc,db,db.jobs,db.jobs.svc,legacy.corp,")

	_, err = Ask(values, "", "", Call{Helper: "proxykit.proxy.noProxy", Join: map[string][]string{"extra": {"later"}}}, hosts("later", "web"))
	assert.EqualError(t, err, `proxykit: proxykit.proxy.noProxy: Join["extra"] names "later", which no earlier call of this Ask is`)
	_, err = Ask(values, "", "", hosts("shop", "web"), Call{Helper: "proxykit.proxy.noProxy", Args: map[string]any{"extra": []string{"x"}}, Join: map[string][]string{"extra": {"shop"}}})
	assert.ErrorContains(t, err, `Join["extra"] needs Args["extra"] to be a string`)
	_, err = Ask(values, "", "", hosts("shop", "web"), Call{Helper: "proxykit.noProxy.ipv4Range", Value: "10.0.0.0/8", Join: map[string][]string{"x": {"shop"}}})
	assert.ErrorContains(t, err, "Join takes arguments")
}

// Ask's outputs are told apart by a separator no helper writes: values that
// carry it are refused by the library's checks, or make Ask fail; an answer
// is never given under another call's name.
func TestAskSeparatorCannotBeForged(t *testing.T) {
	forged := "a" + answerMark + "b"
	for name, c := range map[string]struct {
		values map[string]any
		call   Call
	}{
		"proxy.noProxy":        {map[string]any{"proxy": map[string]any{"http": "http://p:3128", "noProxy": forged}, "cluster": map[string]any{"requireNetworks": false}}, Call{Helper: "proxykit.proxy.noProxy"}},
		"a call's noProxy":     {map[string]any{"proxy": map[string]any{"http": "http://p:3128"}, "cluster": map[string]any{"requireNetworks": false}}, Call{Helper: "proxykit.proxy.env", Args: map[string]any{"noProxy": forged}}},
		"proxy.existingSecret": {map[string]any{"proxy": map[string]any{"existingSecret": forged}}, Call{Helper: "proxykit.proxy.secretName"}},
		"cluster.domain":       {map[string]any{"cluster": map[string]any{"domain": forged}}, Call{Helper: "proxykit.cluster.facts"}},
		"a password":           {map[string]any{"proxy": map[string]any{"http": "http://u:" + forged + "@p:3128"}, "cluster": map[string]any{"requireNetworks": false}}, Call{Helper: "proxykit.proxy.envValues"}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Ask(c.values, "", "", c.call, Call{Helper: "proxykit.proxy.enabled"})
			if err == nil {
				assert.NotContains(t, got[c.call.name()], answerMark)
				assert.Contains(t, []string{"true", ""}, got["proxykit.proxy.enabled"], "the other answer is whole")
			} else {
				assert.NotContains(t, err.Error(), "\x00")
				t.Logf("refused: %v", err)
			}
		})
	}
}
