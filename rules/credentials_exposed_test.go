package rules

import (
	"testing"
)

func TestRuleCredentialsExposed(t *testing.T) {
	checkCases(t, []ruleCase{
		// one finding for the container, one for the Pod object that holds the URL
		{"credentials in plain values", pod(plainEnv("http://u:pw@proxy:3128", goodNoProxy), ""),
			[]string{RuleCredentialsExposed, RuleCredentialsExposed}},
		{"credentials from a ConfigMap", pod("", "- configMapRef: {name: proxy-env}",
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: proxy-env}\ndata:\n  HTTP_PROXY: http://u:pw@proxy:3128\n  HTTPS_PROXY: http://u:pw@proxy:3128\n  NO_PROXY: "+goodNoProxy+"\n  http_proxy: http://u:pw@proxy:3128\n  https_proxy: http://u:pw@proxy:3128\n  no_proxy: "+goodNoProxy),
			[]string{RuleCredentialsExposed, RuleCredentialsExposed}},
		{"a ConfigMap holding a proxy URL with user-info", pod(plainEnv("http://proxy:3128", goodNoProxy), "",
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: leak}\ndata: {url: \"https://svc:s3cret@proxy.corp.example:3128\"}"), []string{RuleCredentialsExposed}},
	})
}
