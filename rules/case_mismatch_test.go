package rules

import (
	"strings"
	"testing"
)

func TestRuleCaseMismatch(t *testing.T) {
	checkCases(t, []ruleCase{
		{"case mismatch", pod(strings.Replace(plainEnv("http://proxy:3128", goodNoProxy), `https_proxy, value: "http://proxy:3128"`, `https_proxy, value: "http://other:3128"`, 1), ""),
			[]string{RuleCaseMismatch}},
	})
}
