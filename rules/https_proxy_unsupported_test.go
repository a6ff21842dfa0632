package rules

import "testing"

func TestRuleHTTPSProxyUnsupported(t *testing.T) {
	checkCases(t, []ruleCase{
		{"an https:// proxy and a .NET image", withImage(pod(plainEnv("https://proxy:3129", goodNoProxy), ""), "mcr.microsoft.com/dotnet/aspnet:9.0", ""),
			[]string{RuleHTTPSProxyUnsupported}},
		{"an https:// proxy and BusyBox's wget", withImage(pod(plainEnv("https://proxy:3129", goodNoProxy), ""), "busybox:1.36", `["sh", "-c", "wget -qO- http://example.com"]`),
			[]string{RuleHTTPSProxyUnsupported}},
		{"an https:// proxy, nothing shows a client that cannot use it", withImage(pod(plainEnv("https://proxy:3129", goodNoProxy), ""), "registry/app:1", ""), nil},
		{"an http:// proxy and a .NET image", withImage(pod(plainEnv("http://proxy:3128", goodNoProxy), ""), "mcr.microsoft.com/dotnet/aspnet:9.0", ""), nil},
	})
}
