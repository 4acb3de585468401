//go:build unix

package ui

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system: a
// benchmark on a shared machine reports it beside the wall time, which
// waits on the others.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
