package iostreams

import (
	"cmp"
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/visualq/vq/internal/textsafe"
	"golang.org/x/term"
)

// IOStreams are the standard streams with their terminal-ness (tests may pretend).
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY, OutTTY, ErrTTY bool

	// Under GitHub Actions Out and ErrOut are guarded: commands writes vq's own
	// workflow commands, stdout is the raw Out. Both nil without a guard.
	commands, stdout io.Writer

	// Documented: a program's document was written on Out; a failure needs no other.
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

// GuardCommands keeps server text from forming workflow commands on non-file stdout/stderr.
func (s *IOStreams) GuardCommands(getenv func(string) string) {
	if getenv("GITHUB_ACTIONS") != "true" {
		return
	}
	if !isRegularFile(s.Out) {
		g := textsafe.NewCommandGuard(s.Out)
		s.stdout, s.Out, s.commands = s.Out, g, g.Commands()
	}
	if !isRegularFile(s.ErrOut) {
		s.ErrOut = textsafe.NewCommandGuard(s.ErrOut)
	}
}

func isRegularFile(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode().IsRegular()
}

// RawOut is stdout unguarded, for bytes no log shows (vq mcp serve's stream).
func (s *IOStreams) RawOut() io.Writer { return cmp.Or(s.stdout, s.Out) }

// ClosedPipe reports a write to a reader that left: nothing of vq failed.
func ClosedPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
