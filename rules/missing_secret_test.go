package rules

import (
	"strings"
	"testing"
)

func TestRuleMissingSecret(t *testing.T) {
	checkCases(t, []ruleCase{
		{"secretKeyRef into a missing Secret and a missing key", pod(strings.Join([]string{
			"- {name: HTTP_PROXY, valueFrom: {secretKeyRef: {name: gone, key: HTTP_PROXY}}}",
			"- {name: HTTPS_PROXY, valueFrom: {secretKeyRef: {name: proxy, key: HTTPS_PROXY}}}"}, "\n")+"\n"+
			"- {name: NO_PROXY, value: \""+goodNoProxy+"\"}\n- {name: http_proxy, value: \"http://p:1\"}\n- {name: https_proxy, value: \"http://p:1\"}\n- {name: no_proxy, value: \""+goodNoProxy+"\"}", "", secretDoc),
			[]string{RuleMissingSecret}},
		{"envFrom a missing Secret", pod(plainEnv("http://proxy:3128", goodNoProxy), "- secretRef: {name: gone}"), []string{RuleMissingSecret}},
	})
}
