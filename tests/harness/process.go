package harness

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// FreePort asks the kernel for an unused loopback port.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// StartProcess starts a binary from bin/ whose output goes to a log file in
// dir, and returns its process ID. The process dies with the test binary
// (Pdeathsig), and t.Cleanup kills its whole process group, so nothing outlives
// the test, even when it fails.
func StartProcess(t testing.TB, dir, name string, args ...string) int {
	t.Helper()
	return StartProcessEnv(t, dir, nil, name, args...)
}

// StartProcessEnv is StartProcess with extra environment variables (KEY=value).
func StartProcessEnv(t testing.TB, dir string, env []string, name string, args ...string) int {
	t.Helper()
	require.True(t, hasBin(name), "bin/%s is missing: run `make tools`", name)
	logFile, err := os.Create(filepath.Join(dir, name+".log"))
	require.NoError(t, err)
	cmd := exec.Command(Bin(name), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	// a process that dies while the test runs fails it at once, with its log below,
	// instead of leaving the test to wait out every deadline that needed it
	var stopping atomic.Bool
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		if !stopping.Load() {
			t.Errorf("%s exited while the test ran: %v", name, err)
		}
		close(exited)
	}()
	t.Cleanup(func() {
		stopping.Store(true)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		logFile.Close()
		if t.Failed() {
			logTail(t, name, logFile.Name())
		}
	})
	return cmd.Process.Pid
}

// logTail logs the last 4,000 bytes a process wrote.
func logTail(t testing.TB, name, file string) {
	log, err := os.ReadFile(file)
	if err != nil || len(log) == 0 {
		return
	}
	if len(log) > 4000 {
		log = log[len(log)-4000:]
	}
	t.Logf("last output of %s:\n%s", name, log)
}
