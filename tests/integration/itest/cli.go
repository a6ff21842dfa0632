//go:build integration

package itest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/proxykit/proxykit/tests/fixture"
)

var (
	proxykitOnce sync.Once
	proxykitBin  string
	proxykitErr  error
)

// CLIVar names a proxykit CLI built from the work tree with the flags below,
// which make test builds once for every area's test binary to share.
const CLIVar = "PROXYKIT_TEST_CLI"

// ProxykitCLI is the CLI built from the work tree: CLIVar's, or one built once
// per test binary.
func ProxykitCLI(t testing.TB) string {
	if bin := os.Getenv(CLIVar); bin != "" {
		return bin
	}
	proxykitOnce.Do(func() {
		dir, err := os.MkdirTemp("", "proxykit-cli")
		if err != nil {
			proxykitErr = err
			return
		}
		proxykitBin = filepath.Join(dir, "proxykit")
		// the flags of hack/krew.sh's release build: the test that builds the krew
		// archive then finds every package in the build cache
		cmd := exec.Command("go", "build", "-trimpath", "-o", proxykitBin, "./cmd/proxykit")
		cmd.Dir = fixture.Root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			proxykitErr = fmt.Errorf("go build ./cmd/proxykit: %v\n%s", err, out)
		}
	})
	require.NoError(t, proxykitErr)
	return proxykitBin
}

// cli runs the proxykit binary and returns its exit code, stdout and stderr.
func CLI(t testing.TB, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, out.String(), errOut.String()
}
