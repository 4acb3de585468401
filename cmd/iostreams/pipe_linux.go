package iostreams

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// growPipe lets a pipe on out hold 1 MiB before the writer has to wait for
// the reader, instead of Linux's 64 KiB, when a large output is coming: an
// 8 MB answer then wakes the reader a few times rather than a hundred and
// more, which roughly halves the write (BENCHMARKS.md, "The pipe"). A
// file, a terminal, a larger pipe, or a user at their limit of pipe memory
// keep things as they were: the request is only a hint.
func growPipe(out io.Writer, size int) {
	f, ok := out.(*os.File)
	if !ok || size < pipeGrowMin {
		return
	}
	if c, err := f.SyscallConn(); err == nil {
		_ = c.Control(func(fd uintptr) {
			if held, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && held < pipeSize {
				_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize)
			}
		})
	}
}

// pipeSize is the capacity growPipe asks for (a pipe already larger is
// left as it is).
const pipeSize = 1 << 20

// pipeGrowMin is the output size from which growPipe asks for a larger
// pipe: four times the default, where the wake-ups start to cost.
const pipeGrowMin = 256 << 10
