package rules

import (
	"strings"
	"testing"
)

func TestRuleNoProxyRefused(t *testing.T) {
	// fabric8 runs on a JVM: an image that says so, JVM options, or java started
	jvm := func(doc string) string {
		return strings.Replace(doc, "image: x\n", "image: jenkins/jenkins:lts-jdk21\n", 1)
	}
	bracketFirst := plainEnv("http://proxy:3128", "[::1],"+goodNoProxy)
	checkCases(t, []ruleCase{
		{"the library's order: brackets last, svc first", jvm(pod(plainEnv("http://proxy:3128", goodNoProxy), "")), nil},
		{"a bracketed entry before anything matches the API server", jvm(pod(bracketFirst, "")), []string{RuleNoProxyRefused}},
		{"a wildcard of the container's own first", jvm(pod(plainEnv("http://proxy:3128", "*.corp.example,"+goodNoProxy), "")), []string{RuleNoProxyRefused}},
		{"JVM options show a JVM", pod(bracketFirst+"\n- {name: JAVA_OPTS, value: -Xmx1g}", ""), []string{RuleNoProxyRefused}},
		{"no JVM: no fabric8, no verdict", pod(bracketFirst, ""), nil},
		{"lower case only: fabric8 reads no proxy", jvm(pod(strings.NewReplacer("HTTP_PROXY,", "HTTP_PROXY_UNUSED,", "HTTPS_PROXY,", "HTTPS_PROXY_UNUSED,").Replace(bracketFirst), "")), []string{RuleMissingProxyEnv}},
	})
}
