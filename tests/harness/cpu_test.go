package harness

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCPUTimeCountsABusyProcess: a shell that spins for a while has used CPU time,
// and Settle returns once it has stopped.
func TestCPUTimeCountsABusyProcess(t *testing.T) {
	// builtins only: a child's time would count for the shell only once waited for
	busy := exec.Command("sh", "-c", "i=0; while [ $i -lt 1500000 ]; do i=$((i+1)); done; sleep 30")
	require.NoError(t, busy.Start())
	t.Cleanup(func() { _ = busy.Process.Kill(); _ = busy.Wait() })
	pid := busy.Process.Pid
	// on a loaded machine the shell gets a share of a core: wait for its CPU time,
	// not for a wall time in which it may have had little
	for deadline := time.Now().Add(10 * time.Second); CPUTime(pid) <= 200*time.Millisecond && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	require.Greater(t, CPUTime(pid), 200*time.Millisecond, "a spinning shell uses CPU")
	began := time.Now()
	Settle(t, 10*time.Second, pid)
	require.GreaterOrEqual(t, time.Since(began), 300*time.Millisecond, "Settle waits while the shell spins")
	require.Less(t, time.Since(began), 8*time.Second, "Settle returns once the shell sleeps")
	require.Less(t, CPUTime(os.Getpid()+1<<22), time.Duration(1), "a process that does not exist counts nothing")
}
