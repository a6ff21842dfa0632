package rules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/manifest"
)

// upperOnly is the env of proxy.lowercase: false.
func upperOnly(http string) string {
	return "- {name: HTTP_PROXY, value: \"" + http + "\"}\n- {name: HTTPS_PROXY, value: \"" + http + "\"}\n- {name: NO_PROXY, value: \"" + goodNoProxy + "\"}"
}

// withImage gives pod's one container an image and args.
func withImage(doc, image, args string) string {
	doc = strings.Replace(doc, "      image: x\n", "      image: "+image+"\n", 1)
	if args != "" {
		doc = strings.Replace(doc, "      env:\n", "      args: "+args+"\n      env:\n", 1)
	}
	return doc
}

func TestRuleLowercaseRequired(t *testing.T) {
	checkCases(t, []ruleCase{
		{"upper case only, curl called", withImage(pod(upperOnly("http://proxy:3128"), ""), "alpine/curl:8", `["sh", "-c", "curl -fsS https://api.corp.example/x"]`),
			[]string{RuleLowercaseRequired, RuleMissingProxyEnv}},
		{"upper case only, nothing shows a lower-case reader", withImage(pod(upperOnly("http://proxy:3128"), ""), "registry/app:1", `["--port", "8080"]`),
			[]string{RuleMissingProxyEnv}},
		{"both cases, curl called", withImage(pod(plainEnv("http://proxy:3128", goodNoProxy), ""), "curlimages/curl:8", ""), nil},
	})
	m, err := manifest.Parse(withImage(pod(upperOnly("http://proxy:3128"), ""), "busybox:1.36", `["wget", "-qO-", "http://example.com"]`))
	require.NoError(t, err)
	for _, f := range Check(m, WithCluster(testCluster), ExpectVariables([]string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"})) {
		assert.Equal(t, RuleLowercaseRequired, f.Rule, "the values asked for upper case only: only this")
		assert.Contains(t, f.Message, "busybox-wget (its args call wget, BusyBox's in image busybox:1.36) reads only the lower-case http_proxy: it sends every http:// request directly")
	}
}
