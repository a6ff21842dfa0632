package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/discover"
	"github.com/proxykit/proxykit/manifest"
)

// Every string from the cluster reaches the values file as data, never as
// structure: sources and warnings with line breaks of every kind YAML knows
// stay in their comment, and a kubeconfig's user-info is never printed.
func TestDiscoverValuesHoldClusterTextAsData(t *testing.T) {
	hostile := []string{"\nproxy:\n  http: http://evil.example:3128", "\r\nproxy: {http: http://evil.example:3128}",
		"\u2028proxy: {http: http://evil.example:3128}", "\u2029proxy: {noProxy: [\"*\"]}", "\u0085proxy: {http: http://evil.example:3128}"}
	for _, text := range hostile {
		res := &discover.Result{
			Cluster: discover.Facts{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1", Metadata: true,
				Namespaces: []string{"security"}},
			Sources:  map[string][]string{"podCIDRs": {"Node n1 (aws" + text + ")"}, "metadataEndpoints": {"Node n" + text}, "namespaces": {"Namespaces" + text}},
			Warnings: []string{"a warning" + text},
		}
		var out bytes.Buffer
		writeValues(&out, "https://admin:s3cret@api.example:6443"+text, res)
		var parsed map[string]any
		require.NoError(t, yaml.Unmarshal(out.Bytes(), &parsed), "%s", out.String())
		assert.Equal(t, []string{"cluster"}, keys(parsed), "%q: only the cluster key:\n%s", text, out.String())
		cluster := parsed["cluster"].(map[string]any)
		assert.Equal(t, []any{"10.244.0.0/16"}, cluster["podCIDRs"])
		assert.Equal(t, []any{"security"}, cluster["namespaces"])
		assert.NotContains(t, out.String(), "s3cret")
		assert.Contains(t, out.String(), "https://***@api.example:6443")
		assert.True(t, strings.HasSuffix(out.String(), "\n"), "the file ends with a newline")
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A kubeconfig whose server URL carries user-info: no command prints it, in
// the header of the values file or in the error of a cluster that does not answer.
func TestKubeconfigUserInfoIsNeverPrinted(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://admin:s3cret@127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {}}]
current-context: c
`), 0o600))
	for _, args := range [][]string{{"discover"}, {"discover", "-o", "json"}, {"audit", "-A"}} {
		var stdout, stderr bytes.Buffer
		code := run(append(args, "--kubeconfig", kubeconfig, "--request-timeout", "2s"), strings.NewReader(""), &stdout, &stderr)
		assert.Equal(t, 2, code, "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "https://***@127.0.0.1:1", "%v names the server", args)
		assert.NotContains(t, stdout.String()+stderr.String(), "s3cret", "%v", args)
	}
}

// A relay discover found is proxy.relay in the values file, which the library
// then reads back as the same relay.
func TestDiscoverValuesNameTheRelay(t *testing.T) {
	res := &discover.Result{
		Cluster: discover.Facts{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, ServiceCIDRs: []string{"10.96.0.0/12"}, APIServer: "10.96.0.1", Metadata: true,
			Relay: "http://relay.proxy-relay.svc.cluster.local:3128"},
		Sources: map[string][]string{"relay": {"Service proxy-relay/relay\nproxy: {http: http://evil.example:3128}"}},
	}
	var out bytes.Buffer
	writeValues(&out, "https://api.example:6443", res)
	var parsed map[string]any
	require.NoError(t, yaml.Unmarshal(out.Bytes(), &parsed), "%s", out.String())
	assert.ElementsMatch(t, []string{"cluster", "proxy"}, keys(parsed))
	assert.Equal(t, map[string]any{"relay": "http://relay.proxy-relay.svc.cluster.local:3128"}, parsed["proxy"])
	facts, err := manifest.ClusterFromValues(parsed)
	require.NoError(t, err)
	assert.Equal(t, res.Cluster.Relay, facts.Relay, "the library reads the relay back")
}
