package format

import (
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// Verdict writes on ErrOut the account of a CI run that did not pass and the hint accepting its changes.
func (p Printer) Verdict(run *layout.Checks) {
	switch run.Verdict() {
	case exitcode.RunFailed:
		p.Note(textsafe.SanitizeLine(run.Summary()))
		p.Hint("to accept the changes as the new baseline: vq approve " + textsafe.ShellQuote(run.RunID))
	case exitcode.RunError, exitcode.RunCancelled:
		p.Note(textsafe.SanitizeLine(run.Summary()))
	}
}
