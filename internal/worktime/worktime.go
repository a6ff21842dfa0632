// Package worktime measures the CPU time this process has used: the work a
// test bounds ("a hostile stream is refused in bounded time"). Wall time also
// counts every other process of a loaded machine: make test runs the packages
// beside the integration suites on two cores, and a wall-time bound failed there
// for work that took a third of it.
package worktime

import (
	"syscall"
	"time"
)

// Used is the user and system CPU time of the process so far, all its threads.
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
