package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/proxykit/proxykit/discover"
)

// An API server that accepts connections and never answers: discover and audit
// end with exit 2 in bounded time (each request is bounded: 30 s by default,
// --request-timeout here), never waiting without end.
func TestBlackholeClusterEndsInExit2(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		var held []net.Conn
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c) // read nothing, answer nothing
		}
	}()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://`+l.Addr().String()+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600))
	for _, args := range [][]string{
		{"discover", "--kubeconfig", kubeconfig, "--request-timeout", "2s"},
		{"audit", "--kubeconfig", kubeconfig, "--request-timeout", "2s", "-A"},
	} {
		began := time.Now()
		code, _, stderr := runCLI(t, "", args...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
		assert.Less(t, time.Since(began), 20*time.Second, "%v", args)
		assert.Contains(t, stderr, "the cluster does not answer", "%v", args)
	}
	// without the flag, each request is bounded all the same
	cmd := newDiscoverCmd(streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	assert.Equal(t, defaultRequestTimeout, cmd.Flags().Lookup("request-timeout").DefValue)
}

// A warning that carries a cluster object's line break stays a comment: the
// values file discover writes is YAML whatever the cluster holds.
func TestDiscoverValuesStayYAML(t *testing.T) {
	var out strings.Builder
	writeValues(&out, "https://127.0.0.1:6443", &discover.Result{
		Cluster:  discover.Facts{Domain: "cluster.local", PodCIDRs: []string{"10.244.0.0/16"}, Metadata: true},
		Sources:  map[string][]string{},
		Warnings: []string{"cluster.domain: A says evil\nsmuggled: key, B says cluster.local"},
	})
	var parsed struct{ Cluster map[string]any }
	require.NoError(t, yaml.UnmarshalStrict([]byte(out.String()), &parsed), out.String())
	assert.NotContains(t, parsed.Cluster, "smuggled")
	assert.Contains(t, out.String(), `# warning: cluster.domain: A says evil\nsmuggled: key, B says cluster.local`)
}
