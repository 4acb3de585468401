//go:build !windows

package privatefile

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading without waiting for a FIFO's
// writer, which an ordinary open of a FIFO does, for ever.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
