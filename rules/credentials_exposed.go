package rules

import (
	"fmt"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// RuleCredentialsExposed: a proxy URL with user-info outside a Secret.
const RuleCredentialsExposed = "credentials-exposed"

// credentialsExposed names the proxy variables that carry user-info in a plain
// value or from a ConfigMap.
func credentialsExposed(c *Context) string {
	var exposed []string
	for _, name := range manifest.ProxyVariables {
		v, ok := c.Env.Vars[name]
		switch {
		case !ok || v.Missing != "" || !manifest.HasUserInfo(v.Value):
		case v.From == "value":
			exposed = append(exposed, name+" (a plain value)")
		case strings.HasPrefix(v.From, "ConfigMap/"):
			exposed = append(exposed, name+" (from "+v.From+")")
		}
	}
	if len(exposed) == 0 {
		return ""
	}
	return fmt.Sprintf("%s hold%s a proxy URL with user-info%s; put it in a Secret and read it with secretKeyRef (the library does when a URL carries credentials)",
		strings.Join(exposed, ", "), verbS(len(exposed)), c.Where)
}

// credentialsOutsideSecrets finds URLs with user-info in any object that is not a Secret.
func credentialsOutsideSecrets(m *manifest.Manifests) []Finding {
	var out []Finding
	for _, o := range m.Objects {
		if o.Kind == "Secret" {
			continue
		}
		if text := fmt.Sprint(o.Content); manifest.UserInfoURL.MatchString(text) {
			out = append(out, Finding{Namespace: m.NamespaceOf(o), Object: o.ID(), Rule: RuleCredentialsExposed,
				Message: "holds a URL with user-info; proxy credentials belong in a Secret"})
		}
	}
	return out
}
