package cmd

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the process's standard streams with their terminal-ness,
// injected so that tests can pretend to be a terminal or a pipe.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY, OutTTY, ErrTTY bool

	// documented is set once a document for programs (--json, --jq, a CI
	// format) was written on Out: a failure after it needs no other.
	documented bool
}

// SystemIO is the real standard streams.
func SystemIO() *IOStreams {
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

// noteDocument records that a document for programs was written on Out.
func (s *IOStreams) noteDocument() { s.documented = true }
