//go:build integration

package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(RoleVar); role != "" {
		code, _ := PlayRole(role)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// A namespace has the addresses and names it was given, and its echo server
// tells a direct request from one a proxy carried (a Via header).
func TestNetnsEchoServer(t *testing.T) {
	out := Netns{Addrs: []string{"192.0.2.1"}, Hosts: "192.0.2.1 echo.test\n", EchoPorts: []string{"8080"}}.Run(t,
		`curl -s --noproxy '*' http://echo.test:8080/; curl -s --noproxy '*' -H 'Via: 1.1 proxy' http://192.0.2.1:8080/`)
	assert.Equal(t, "direct\nproxy\n", out[strings.Index(out, "direct"):])
}

// A daemon the script starts in a subshell, no job of its shell, ends with the
// script: before the namespace had its own PIDs, the relay suite's squids and
// KDC outlived every run.
func TestNetnsEndsTheDaemonsItsScriptStarted(t *testing.T) {
	marker := fmt.Sprintf("proxykit-netns-orphan-%d", os.Getpid())
	Netns{Addrs: []string{"192.0.2.1"}, EchoPorts: []string{"8080"}}.Run(t, fmt.Sprintf("( exec -a %s sleep 300 >/dev/null 2>&1 & )\nsleep 0.2", marker))
	require.Eventually(t, func() bool { return !runningWithArg0(marker) }, 5*time.Second, 50*time.Millisecond, "%s still runs", marker)
}

// runningWithArg0 says whether a process of the machine has arg0 as its first argument.
func runningWithArg0(arg0 string) bool {
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, file := range cmdlines {
		if b, err := os.ReadFile(file); err == nil && strings.HasPrefix(string(b), arg0+"\x00") {
			return true
		}
	}
	return false
}
