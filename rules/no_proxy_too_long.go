package rules

import (
	"fmt"

	"github.com/proxykit/proxykit/manifest"
)

// RuleNoProxyTooLong: the container's NO_PROXY is longer than the budget
// (NoProxyBudget; by default what one environment string may hold).
const RuleNoProxyTooLong = "no-proxy-too-long"

// NoProxyBudget judges NO_PROXY against a length of budget characters instead
// of the kernel's limit for one environment string (MAX_ARG_STRLEN less
// "NO_PROXY=" and the NUL). Nodes take less: pam_env truncates a line at 1,023
// bytes, Ignition and older systemd at 2,048.
func NoProxyBudget(budget int) Option { return func(o *options) { o.noProxyBudget = budget } }

// kernelBudget is the longest NO_PROXY value one environment string holds
// (manifest.MaxEnvString, the library's proxykit.resolve.envStringLimit:
// TestEnvStringLimitIsTheLibrarys holds the two to one number).
func kernelBudget() int { return manifest.MaxEnvString - len("NO_PROXY=") - 1 }

func noProxyTooLong(c *Context) string {
	budget := c.noProxyBudget
	if budget <= 0 {
		budget = kernelBudget()
	}
	for _, name := range []string{"NO_PROXY", "no_proxy"} {
		v, ok := c.Env.Vars[name]
		if !ok || !v.Known() || len(v.Value) <= budget {
			continue
		}
		why := "the kernel refuses a longer environment string (MAX_ARG_STRLEN): the container does not start"
		if budget != kernelBudget() {
			why = "the budget asked for (pam_env truncates a line at 1,023 bytes, Ignition and older systemd at 2,048)"
		}
		return fmt.Sprintf("%s is %d characters, over %d: %s%s; use fewer, wider entries (a domain suffix such as .corp.example for many names, a CIDR for many addresses)",
			name, len(v.Value), budget, why, c.Where)
	}
	return ""
}
