//go:build integration

package itest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/harness"
)

// InterceptNetns is the namespace of the intercepting-proxy tests: the TLS echo
// server's address, named secure.example.
var InterceptNetns = harness.Netns{Addrs: []string{"10.96.0.30"}, Hosts: "127.0.0.1 localhost\n10.96.0.30 secure.example\n", EchoPorts: []string{"8080"}}

// InterceptingProxy is the start of an InterceptNetns script: the TLS echo server
// on secure.example:8443 and, in front of it, mitmproxy on 127.0.0.1:8081 signing
// with ca (key its private key; the log in dir/mitmdump.log), both answering.
func InterceptingProxy(t *testing.T, dir, ca, key string) string {
	t.Helper()
	_, err := exec.LookPath("mitmdump")
	require.NoError(t, err, "mitmdump is missing: `make debian-packages` installs mitmproxy")
	confdir := filepath.Join(dir, "mitmproxy")
	require.NoError(t, os.MkdirAll(confdir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(confdir, "mitmproxy-ca.pem"), []byte(key+ca), 0o600))
	self, err := os.Executable()
	require.NoError(t, err)
	return fmt.Sprintf("%s=tls-echo-server %q &\n", harness.RoleVar, self) +
		fmt.Sprintf("mitmdump -q --listen-host 127.0.0.1 --listen-port 8081 --set confdir=%q --set ssl_insecure=true >%q 2>&1 &\n", confdir, filepath.Join(dir, "mitmdump.log")) +
		harness.WaitForPort("127.0.0.1", 8081) + harness.WaitForPort("10.96.0.30", 8443)
}
