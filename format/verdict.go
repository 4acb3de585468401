package format

import (
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// RunVerdict is the error line of a CI run that did not pass: its one-line
// account (the server's run ID held to one line) and, for changes found,
// the command that accepts them. It is "" for a run that passed or has no
// verdict yet.
func RunVerdict(run api.CIRun) string {
	summary := textsafe.SanitizeLine(run.Summary())
	switch run.Status {
	case api.RunFailed:
		return summary + "; to accept the changes as the new baseline: vq approve " + textsafe.ShellQuote(run.RunID)
	case api.RunError, api.RunCancelled:
		return summary
	}
	return ""
}
