package rules

import (
	"fmt"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// RuleCredentialsBesideRelay: a container still reads the corporate proxy's
// credentials although the cluster has a relay that holds them.
const RuleCredentialsBesideRelay = "credentials-beside-relay"

// credentialsBesideRelay names the proxy URL variables that carry user-info,
// or come from a Secret (a proxy URL sits in a Secret only for its password),
// when the cluster's facts name a relay.
func credentialsBesideRelay(c *Context) string {
	if c.Cluster.Relay == "" {
		return ""
	}
	var carried []string
	for _, name := range manifest.ProxyVariables {
		if strings.EqualFold(name, "NO_PROXY") {
			continue
		}
		v, ok := c.Env.Vars[name]
		switch {
		case !ok:
		case v.Known() && manifest.HasUserInfo(v.Value):
			carried = append(carried, name)
		case strings.HasPrefix(v.From, "Secret/") && !v.Known():
			carried = append(carried, name+" (from "+v.From+")")
		}
	}
	if len(carried) == 0 {
		return ""
	}
	return fmt.Sprintf("%s read%s the corporate proxy's credentials%s although the cluster has a relay (%s) that holds them; give the container the relay's URL with no user or password (proxy.relay), so that no Pod holds the password",
		strings.Join(carried, ", "), verbS(len(carried)), c.Where, manifest.RedactUserInfo(c.Cluster.Relay))
}
