package rules

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit"
	"github.com/proxykit/proxykit/manifest"
)

func TestRuleNoProxyTooLong(t *testing.T) {
	long := goodNoProxy + strings.Repeat(",host.corp.example", 8000) // about 150,000 characters
	checkCases(t, []ruleCase{
		{"over the kernel's limit", pod(plainEnv("http://proxy:3128", long), ""), []string{RuleNoProxyTooLong}},
		{"the library's list", pod(plainEnv("http://proxy:3128", goodNoProxy), ""), nil},
	})
	assert.Equal(t, 131072-len("NO_PROXY=")-1, kernelBudget(), "the library's MAX_ARG_STRLEN less the name and the NUL")

	// a budget for the nodes' consumers
	m, err := manifest.Parse(pod(plainEnv("http://proxy:3128", goodNoProxy), ""))
	require.NoError(t, err)
	findings := Check(m, WithCluster(testCluster), NoProxyBudget(100))
	require.Len(t, findings, 1)
	assert.Equal(t, RuleNoProxyTooLong, findings[0].Rule)
	assert.Contains(t, findings[0].Message, "NO_PROXY is "+strconv.Itoa(len(goodNoProxy))+" characters, over 100: the budget asked for")
}

// The kernel's limit for one environment string is one number: the library's,
// which its templates check NO_PROXY against, and the Go packages'.
func TestEnvStringLimitIsTheLibrarys(t *testing.T) {
	out, err := proxykit.Ask(nil, "", "", proxykit.Call{Helper: "proxykit.resolve.envStringLimit"})
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(manifest.MaxEnvString), out["proxykit.resolve.envStringLimit"])
}
