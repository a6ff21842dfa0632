//go:build integration

package clients

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/tests/harness"
	"github.com/proxykit/proxykit/tests/integration/itest"
)

// realGRPCTargets are host:port targets of the gRPC server inside the namespace.
var realGRPCTargets = []string{
	"127.0.0.1:50051", "localhost:50051", "10.96.0.1:50051", "10.244.3.7:50051", "[fd00:10:96::1]:50051",
	"web.shop.svc.cluster.local:50051", "api.corp.example:50051", "corp.example:50051", "badcorp.example:50051",
	"registry.local:50051",
}

// buildGRPCClients builds testdata/grpcgo twice: with the current grpc-go
// (go.mod) and with grpc-go 1.70 (go170.mod), both pinned by their go.sum.
func buildGRPCClients(t *testing.T) (current, v170 string) {
	dir := t.TempDir()
	current, v170 = filepath.Join(dir, "grpc-go"), filepath.Join(dir, "grpc-go170")
	for bin, modfile := range map[string]string{current: "go.mod", v170: "go170.mod"} {
		cmd := exec.Command("go", "build", "-modfile="+modfile, "-o", bin, ".")
		cmd.Dir = itest.Testdata("grpcgo")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go build -modfile=%s: %s", modfile, out)
	}
	return current, v170
}

// TestGRPCModelsMatchRealClients runs gRPC's two implementations through a real
// tinyproxy (HTTP CONNECT) inside a private network namespace: C-core (Debian's
// python3-grpcio), the current grpc-go, and grpc-go 1.70, each calling the
// standard health service of a grpc-go server on every target, with the
// variables each reads in both cases and the library's NO_PROXY among the
// lists; package noproxy predicts every call, and tinyproxy's log counts the
// proxied ones.
func TestGRPCModelsMatchRealClients(t *testing.T) {
	harness.Parallel(t)
	_, err := exec.LookPath("tinyproxy")
	require.NoError(t, err, "tinyproxy is missing: `make debian-packages` installs it")
	out, err := exec.Command("/usr/bin/python3", "-c", "import grpc").CombinedOutput()
	require.NoError(t, err, "python3-grpcio is missing: `make debian-packages` installs it: %s", out)
	grpcGo, grpcGo170 := buildGRPCClients(t)
	pyClient, err := filepath.Abs(itest.Testdata("python", "grpc_client.py"))
	require.NoError(t, err)
	dir := t.TempDir()
	proxyLog := filepath.Join(dir, "tinyproxy.log")
	conf := filepath.Join(dir, "tinyproxy.conf")
	require.NoError(t, os.WriteFile(conf, []byte(fmt.Sprintf("Port 3128\nListen 127.0.0.1\nTimeout 10\nLogFile %q\nLogLevel Info\nMaxClients 50\nAllow 127.0.0.1\n", proxyLog)), 0o644))

	type batch struct {
		client noproxy.Client
		mode   string
		env    map[string]string
	}
	const proxy = "http://127.0.0.1:3128"
	var batches []batch
	for _, c := range grpcClients {
		for i, np := range realClientNoProxy(t) {
			batches = append(batches, batch{c, fmt.Sprintf("lower %d", i), map[string]string{"http_proxy": proxy, "https_proxy": proxy, "no_proxy": np}})
			batches = append(batches, batch{c, fmt.Sprintf("upper %d", i), map[string]string{"HTTP_PROXY": proxy, "HTTPS_PROXY": proxy, "NO_PROXY": np}})
		}
	}
	np := realClientNoProxy(t)[0]
	batches = append(batches,
		batch{noproxy.GRPCCore, "grpc_proxy", map[string]string{"grpc_proxy": proxy, "https_proxy": "http://127.0.0.1:1", "no_grpc_proxy": np, "no_proxy": "*"}},
		batch{noproxy.GRPCCore, "https:// proxy", map[string]string{"http_proxy": "https://127.0.0.1:3128"}},
	)

	var script strings.Builder
	fmt.Fprintf(&script, "tinyproxy -d -c %q &\n%s", conf, harness.WaitForPort("127.0.0.1", 3128))
	fmt.Fprintf(&script, "%q serve '[::]:50051' &\n%s", grpcGo, harness.WaitForPort("127.0.0.1", 50051))
	targets := strings.Join(realGRPCTargets, " ")
	for i, b := range batches {
		var env []string
		for k, v := range b.env {
			env = append(env, fmt.Sprintf("%s=%q", k, v))
		}
		vars := "env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin " + strings.Join(env, " ")
		fmt.Fprintf(&script, "echo '=== %d'\n", i)
		switch b.client {
		case noproxy.GRPCCore:
			fmt.Fprintf(&script, "%s /usr/bin/python3 %q %q %s\n", vars, pyClient, proxyLog, targets)
		case noproxy.GRPCGo:
			fmt.Fprintf(&script, "%s %q %q %s\n", vars, grpcGo, proxyLog, targets)
		default:
			fmt.Fprintf(&script, "%s %q %q %s\n", vars, grpcGo170, proxyLog, targets)
		}
	}
	output := harness.Netns{
		Addrs:     []string{"10.96.0.1", "10.96.0.10", "10.96.0.11", "10.244.3.7", "fd00:10:96::1", "fd00:10:244::5"},
		Hosts:     realClientHosts,
		EchoPorts: []string{"8080"},
	}.Run(t, script.String())

	results := batchResults(output)
	seen := tally{}
	for i, b := range batches {
		got := results[i]
		require.Len(t, got, len(realGRPCTargets), "%s, %s:\n%s", b.client, b.mode, output)
		for j, target := range realGRPCTargets {
			d, err := noproxy.Decide(b.client, target, noproxy.Env(b.env), noproxy.ResolvedTo(hostsAddr[targetHost(t, "http://"+target)]))
			require.NoError(t, err)
			want := map[bool]string{true: "direct", false: "proxy"}[d.Direct]
			assert.Equal(t, want, got[j], "%s (%s) %s with %v: the model says %s (entry %q), the real client went %s", b.client, b.mode, target, b.env, want, d.Entry, got[j])
			seen.add(b.client, got[j])
		}
	}
	seen.assertBothWays(t, grpcClients)
	t.Logf("calls per client and outcome: %v", seen)
}
