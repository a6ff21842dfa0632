package rules

import (
	"testing"
)

func TestRuleProxyBypassedForPublicHosts(t *testing.T) {
	checkCases(t, []ruleCase{
		{"NO_PROXY is *", pod(plainEnv("http://proxy:3128", "*"), ""), []string{RuleNoProxyRefused, RuleProxyBypassedForPublicHosts}}, // and fabric8 throws on "*"
		{"NO_PROXY bypasses everything by CIDR", pod(plainEnv("http://proxy:3128", goodNoProxy+",0.0.0.0/0"), ""), []string{RuleProxyBypassedForPublicHosts}},
	})
}
