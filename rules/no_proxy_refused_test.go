package rules

import (
	"strings"
	"testing"
)

func TestRuleNoProxyRefused(t *testing.T) {
	checkCases(t, []ruleCase{
		{"the library's order: brackets last, svc first", pod(plainEnv("http://proxy:3128", goodNoProxy), ""), nil},
		{"a bracketed entry before anything matches the API server", pod(plainEnv("http://proxy:3128", "[::1],"+goodNoProxy), ""), []string{RuleNoProxyRefused}},
		{"a wildcard of the container's own first", pod(plainEnv("http://proxy:3128", "*.corp.example,"+goodNoProxy), ""), []string{RuleNoProxyRefused}},
		{"lower case only: fabric8 reads no proxy", pod(strings.NewReplacer("HTTP_PROXY,", "HTTP_PROXY_UNUSED,", "HTTPS_PROXY,", "HTTPS_PROXY_UNUSED,").Replace(plainEnv("http://proxy:3128", "[::1],"+goodNoProxy)), ""), []string{RuleMissingProxyEnv}},
	})
}
