package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/manifest"
)

func TestRuleProxyBypassedForPublicHosts(t *testing.T) {
	checkCases(t, []ruleCase{
		{"NO_PROXY is *", pod(plainEnv("http://proxy:3128", "*"), ""), []string{RuleProxyBypassedForPublicHosts}}, // fabric8 would throw on "*", but no JVM runs here
		{"NO_PROXY bypasses everything by CIDR", pod(plainEnv("http://proxy:3128", goodNoProxy+",0.0.0.0/0"), ""), []string{RuleProxyBypassedForPublicHosts}},
		{"a corporate domain and a provider's suffix are no finding", pod(plainEnv("http://proxy:3128", goodNoProxy+",.corp.example,.googleapis.com,17.0.0.0/8"), ""), nil},
	})
}

// Every entry is judged, not four sample hosts: a public suffix or a wide public
// network anywhere in NO_PROXY is named.
func TestPublicEntriesAreNamed(t *testing.T) {
	for entry, named := range map[string]string{
		"io": "every host under io", ".dev": "every host under dev", "app": "every host under app", "co.uk": "every host under co.uk",
		"*.security": "every host under security", "128.0.0.0/1": "public addresses (128.0.0.0/1)", "2000::/3": "public addresses (2000::/3)",
	} {
		m, err := manifest.Parse(pod(plainEnv("http://proxy:3128", goodNoProxy+","+entry), ""))
		require.NoError(t, err)
		findings := Check(m, WithCluster(testCluster))
		if assert.Equal(t, []string{RuleProxyBypassedForPublicHosts}, rules(findings), entry) {
			assert.Contains(t, findings[0].Message, named, entry)
		}
	}
}
