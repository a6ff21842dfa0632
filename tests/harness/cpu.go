package harness

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// userHZ is the unit of /proc/PID/stat's CPU times: USER_HZ, 100 on every
// architecture Linux runs the suites on.
const userHZ = 100

// CPUTime is the user and system CPU time the processes have used so far, from
// /proc/PID/stat (all their threads); a process that has gone counts nothing.
func CPUTime(pids ...int) time.Duration {
	var ticks int
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// the command name, field 2, may hold spaces: the fields counted from after its ")"
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 13 {
			continue
		}
		utime, _ := strconv.Atoi(fields[11])
		stime, _ := strconv.Atoi(fields[12])
		ticks += utime + stime
	}
	return time.Duration(ticks) * time.Second / userHZ
}

// Settle waits until the processes together use less than a tenth of a core over
// a third of a second, or fails after timeout: what they still do after a change
// (a policy compiled once installed, its status written back) is then done, and
// what a measurement after it sees is their steady state.
func Settle(t testing.TB, timeout time.Duration, pids ...int) {
	t.Helper()
	const window = time.Second / 3
	deadline := time.Now().Add(timeout)
	for {
		before := CPUTime(pids...)
		time.Sleep(window)
		used := CPUTime(pids...) - before
		if used < window/10 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the processes %v still used %v of CPU in %v after %v", pids, used, window, timeout)
		}
	}
}
