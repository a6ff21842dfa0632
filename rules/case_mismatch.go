package rules

import (
	"fmt"
	"strings"

	"github.com/proxykit/proxykit/manifest"
)

// RuleCaseMismatch: a variable and its lower-case twin differ.
const RuleCaseMismatch = "case-mismatch"

func caseMismatch(c *Context) string {
	var mismatched []string
	for _, upper := range manifest.ProxyVariables[:3] {
		a, okA := c.Env.Vars[upper]
		b, okB := c.Env.Vars[strings.ToLower(upper)]
		if okA && okB && a.Known() && b.Known() && a.Value != b.Value {
			mismatched = append(mismatched, upper+" and "+strings.ToLower(upper))
		}
	}
	if len(mismatched) == 0 {
		return ""
	}
	return fmt.Sprintf("%s differ%s; clients disagree on which case they read: set both from one source", strings.Join(mismatched, ", "), c.Where)
}
