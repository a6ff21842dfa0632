package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

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

// With --fail-in-output (the Helm 4 plugin's), an error becomes a document
// Helm fails to read, whose error names it and the fix, with exit status 0:
// Helm 4 shows neither a plugin's standard error nor the output of one that
// fails. TestHelm4PluginShowsErrorsAndNotes runs the real Helm 4.
func TestInjectFailInOutput(t *testing.T) {
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: web}]\n"
	code, stdout, stderr := runCLI(t, deployment, "inject", "--fail-in-output", "--set", "proxy.http=http://user:Zq9secret@p:3128", "--set", "cluster.serviceCIDRs={10.96.0.0/12}", "-")
	assert.Equal(t, 0, code, stderr)
	var doc struct {
		Kind     []string
		Metadata struct{ Annotations map[string]string }
	}
	require.NoError(t, yaml.Unmarshal([]byte(stdout), &doc))
	assert.Equal(t, []string{"ProxykitInjectFailed"}, doc.Kind, "no object has a list for its kind: Helm always fails on it")
	msg := doc.Metadata.Annotations["postrenderer.helm.sh/postrender-filename"]
	assert.Contains(t, msg, "proxykit inject failed: ")
	assert.Contains(t, msg, "the release name is unknown")
	assert.Contains(t, msg, "pass --release NAME (to helm: --post-renderer-args --release --post-renderer-args NAME)")
	assert.Contains(t, stderr, "the release name is unknown")
	assert.NotContains(t, stdout+stderr, "Zq9secret")

	code, _, _ = runCLI(t, deployment, "inject", "--set", "proxy.http=http://user:Zq9secret@p:3128", "--set", "cluster.serviceCIDRs={10.96.0.0/12}", "-")
	assert.Equal(t, 2, code, "without the flag an error is an exit status")
}
