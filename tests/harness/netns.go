package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Netns is a private network namespace for one test: its own lo with the
// addresses the test names, its own /etc/hosts, and the test binary's echo
// server (PlayRole's echo-server) on the given ports. Only addresses inside
// it are used.
type Netns struct {
	Addrs     []string // IPv4 and IPv6 addresses put on lo
	Hosts     string   // /etc/hosts inside
	EchoPorts []string // ports the echo server listens on (all addresses)
	// RealRoot keeps the namespace's root the machine's root (no user
	// namespace), for daemons that switch to users of their own (squid, the KDC).
	RealRoot bool
}

// Run runs script (bash, after the namespace is set up and the echo server
// answers) and returns its output. Every process the script starts ends with
// it. The test binary must play PlayRole's roles (its TestMain).
func (n Netns) Run(t *testing.T, script string) string {
	t.Helper()
	for _, tool := range []string{"unshare", "ip", "curl"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "%s is missing: `make debian-packages` installs it", tool)
	}
	self, err := os.Executable()
	require.NoError(t, err)
	hosts := filepath.Join(t.TempDir(), "hosts")
	require.NoError(t, os.WriteFile(hosts, []byte(n.Hosts), 0o644))
	var b strings.Builder
	b.WriteString("set -e\nip link set lo up\n")
	for _, a := range n.Addrs {
		if strings.Contains(a, ":") {
			fmt.Fprintf(&b, "ip -6 addr add %s/128 dev lo nodad\n", a)
		} else {
			fmt.Fprintf(&b, "ip addr add %s/32 dev lo\n", a)
		}
	}
	fmt.Fprintf(&b, "mount --bind %q /etc/hosts\n", hosts)
	fmt.Fprintf(&b, "cd %q\n%s=echo-server %s=%s %q & echo_server=$!\n", t.TempDir(), RoleVar, EchoPortsVar, strings.Join(n.EchoPorts, ","), self)
	b.WriteString("trap 'kill $(jobs -p) 2>/dev/null' EXIT\n")
	fmt.Fprintf(&b, "for i in $(seq 100); do curl -q -s -o /dev/null --noproxy '*' http://127.0.0.1:%s/ && break; sleep 0.1; done\nset +e\n", n.EchoPorts[0])
	b.WriteString(script)
	b.WriteString("\nexit 0\n")
	// its own PID namespace too, whose processes the kernel ends with bash: daemons
	// a script starts in a subshell (squid, the KDC) are no jobs of it, and outlived it
	args := []string{"--map-root-user", "--net", "--mount", "--pid", "--fork", "--mount-proc", "bash", "-c", b.String()}
	if n.RealRoot {
		require.Zero(t, os.Geteuid(), "this test runs daemons that switch users (squid): run it as root, as CI does")
		args = args[1:]
	}
	out, err := exec.Command("unshare", args...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// WaitForPort is a bash loop that waits until a TCP port answers on host.
func WaitForPort(host string, port int) string {
	return fmt.Sprintf("for i in $(seq 100); do (exec 3<>/dev/tcp/%s/%d) 2>/dev/null && break; sleep 0.1; done\n", host, port)
}
