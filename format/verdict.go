package format

import (
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// Verdict writes on ErrOut the verdict of a CI run that did not pass: its
// one-line account (the server's run ID held to one line), a verdict and
// no error of vq's, and for changes found the hint of the command that
// accepts them. A run that passed or has no verdict yet writes nothing.
func (p Printer) Verdict(run *layout.Checks) {
	switch run.Verdict() {
	case exitcode.RunFailed:
		p.Note(textsafe.SanitizeLine(run.Summary()))
		p.Hint("to accept the changes as the new baseline: vq approve " + textsafe.ShellQuote(run.RunID))
	case exitcode.RunError, exitcode.RunCancelled:
		p.Note(textsafe.SanitizeLine(run.Summary()))
	}
}
