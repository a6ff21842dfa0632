package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/proxykit/proxykit/discover"
)

// A package error names its Options field; the command names the flag that sets it.
func TestInjectNamesTheFlag(t *testing.T) {
	service := "apiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec:\n  ports: [{port: 8080}]\n"
	t.Setenv("HELM_NAMESPACE", "")
	code, _, stderr := runCLI(t, service, "inject", "--set", "proxy.http=http://p:3128", "--set", "cluster.serviceCIDRs={10.96.0.0/12}", "-")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "pass -n NAMESPACE (to helm: --post-renderer-args -n --post-renderer-args NAMESPACE) or set HELM_NAMESPACE")
	assert.NotContains(t, stderr, "Options.")

	assert.EqualError(t, flagError(&discover.OptionError{Option: "CAPICluster", Message: `"wc1" is not NAMESPACE/NAME`}), `--capi-cluster: "wc1" is not NAMESPACE/NAME`)
}
