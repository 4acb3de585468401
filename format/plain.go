package format

import (
	"bufio"
	"io"
	"strconv"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// Plain writes a response for a script or non-TUI terminal, server text sanitized: headline, summary, warnings, data
// and next actions as commands on out, a failure's error line on errOut.
func Plain(out, errOut io.Writer, r *api.ToolResponse, commands CommandPrinter) error {
	return plain(out, errOut, r, commands, false)
}

// plain is Plain; on a terminal its tables draw mismatch bars.
func plain(out, errOut io.Writer, r *api.ToolResponse, commands CommandPrinter, terminal bool) error {
	w := bufio.NewWriterSize(out, 64<<10)
	if r.Content != nil {
		if err := writeContent(w, r); err != nil {
			return err
		}
		for _, warn := range r.Warnings { // stdout is the server's
			io.WriteString(errOut, "warning: "+textsafe.SanitizeLine(warn)+"\n")
		}
		return finish(w, errOut, r)
	}
	summary := ""
	if r.ShowsSummary() {
		summary = r.Summary
	}
	l, err := layout.Response(r.Data, r.Members)
	if err != nil {
		return err
	}
	// The answer in words first: a run's verdict, else the summary marked by ok.
	headline, rest, _ := layout.Headline(r.OK, summary, r.Data, r.Members, l)
	if headline != "" {
		w.WriteString(textsafe.SanitizeLine(headline) + "\n")
	}
	layout.Text(w, rest, r.Warnings, l, terminal)
	writeNextActions(w, r.NextActions, commands)
	return finish(w, errOut, r)
}

// finish flushes w, then writes a failure's error line on errOut.
func finish(w *bufio.Writer, errOut io.Writer, r *api.ToolResponse) error {
	if err := w.Flush(); err != nil {
		return err
	}
	return WriteErrorLine(errOut, r)
}

// WriteErrorLine writes a failed response's ErrorLine on errOut.
func WriteErrorLine(errOut io.Writer, r *api.ToolResponse) error {
	if r.OK {
		return nil
	}
	_, err := io.WriteString(errOut, ErrorLine(r)+"\n")
	return err
}

// ErrorLine is a failed response's code, message, origin and exit, one line.
func ErrorLine(r *api.ToolResponse) string {
	msg := r.ErrorMessage()
	if origin := r.Failure.Origin; origin != "" {
		msg += " " + origin
	}
	return "error: " + textsafe.SanitizeLine(r.ErrorCode()) + ": " + textsafe.SanitizeLine(msg) + " (" + exitNote(r) + ")"
}

// exitNote ends an error line: "recoverable, exit 11".
func exitNote(r *api.ToolResponse) string {
	return exitcode.RecoverableText(r.IsRecoverable()) + ", exit " + itoa(exitcode.ForCode(r.ErrorCode(), r.IsRecoverable()))
}

// writeNextActions prints each next action as a command under its label, or a warning why none can.
func writeNextActions(w *bufio.Writer, actions []api.NextAction, commands CommandPrinter) {
	if len(actions) == 0 {
		return
	}
	w.WriteString("\nNext actions:\n")
	for _, a := range actions {
		w.WriteString("  # " + textsafe.SanitizeLine(a.Label) + "\n")
		line, why := ActionCommand(a, commands)
		if why == "" {
			w.WriteString("  " + line + "\n")
			continue
		}
		w.WriteString("  warning: not printed as a command: " + why + "\n")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
