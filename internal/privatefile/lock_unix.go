//go:build !windows

package privatefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive lock on f, waiting for another holder.
func lockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX) }
