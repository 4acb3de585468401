package iostreams

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/term"
)

// IOStreams are the process's standard streams with their terminal-ness,
// injected so that tests can pretend to be a terminal or a pipe.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY, OutTTY, ErrTTY bool

	// Documented is set once a document for programs (--json, --jq, a CI
	// format) was written on Out: a failure after it needs no other.
	Documented bool
}

// System is the real standard streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// PrepareOutput tells the streams that about size bytes are coming on Out,
// so that a pipe there can make room for them (see growPipe).
func (s *IOStreams) PrepareOutput(size int) { growPipe(s.Out, size) }

// ClosedPipe reports a write to a reader that left: nothing of vq failed.
func ClosedPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
