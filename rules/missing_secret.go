package rules

import (
	"fmt"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// RuleMissingSecret: a proxy variable reads an object (or a key) the manifests lack.
const RuleMissingSecret = "missing-secret"

func missingSecret(c *Context) string {
	var refs []string
	for _, name := range manifest.ProxyVariables {
		if v, ok := c.Env.Vars[name]; ok && v.Missing != "" {
			refs = append(refs, name+" reads "+v.Missing)
		}
	}
	for _, src := range c.Env.MissingSources {
		refs = append(refs, "envFrom reads "+src)
	}
	if len(refs) == 0 {
		return ""
	}
	return fmt.Sprintf("%s, which the manifests do not contain%s; render proxykit.proxy.secret in this chart, or create it in the Pod's namespace", strings.Join(refs, "; "), c.Where)
}
