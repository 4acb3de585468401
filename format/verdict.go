package format

import (
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// Verdict writes on ErrOut the verdict of a CI run that did not pass: its
// one-line account (the server's run ID held to one line), a verdict and
// no error of vq's, and for changes found the hint of the command that
// accepts them. A run that passed or has no verdict yet writes nothing.
func (p Printer) Verdict(run api.CIRun) {
	switch run.Status {
	case api.RunFailed, api.RunError, api.RunCancelled:
		p.Note(textsafe.SanitizeLine(run.Summary()))
	}
	if run.Status == api.RunFailed {
		p.Hint("to accept the changes as the new baseline: vq approve " + textsafe.ShellQuote(run.RunID))
	}
}
