package format

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// Plain writes a response for a script or a non-TUI terminal: summary,
// warning: lines, data (a table for a record list, fields otherwise) and each
// next action as a ready-to-run command, all on out; for a failure, one
// error line on errOut. All server text is sanitized. commands prints the
// next actions that a task command fronts (nil: all as vq invoke).
func Plain(out, errOut io.Writer, r *api.ToolResponse, commands CommandPrinter) error {
	return plain(out, errOut, r, commands, false)
}

// plain is Plain; on a terminal (Options.Terminal) its tables draw
// mismatch bars.
func plain(out, errOut io.Writer, r *api.ToolResponse, commands CommandPrinter, terminal bool) error {
	w := bufio.NewWriterSize(out, 64<<10)
	if c, ok := r.Content(); ok {
		if err := writeContent(w, r, c); err != nil {
			return err
		}
		for _, warn := range r.Warnings { // stdout is the server's
			io.WriteString(errOut, "warning: "+textsafe.SanitizeLine(warn)+"\n")
		}
		return finish(w, errOut, r)
	}
	if layout.ShowsSummary(r.OK, r.Summary, r.ErrorMessage()) {
		w.WriteString(textsafe.Sanitize(r.Summary))
		w.WriteByte('\n')
	}
	for _, warn := range r.Warnings {
		w.WriteString("warning: " + textsafe.SanitizeLine(warn) + "\n")
	}
	if err := writeData(w, r, terminal); err != nil {
		return err
	}
	writeNextActions(w, r.NextActions, commands)
	return finish(w, errOut, r)
}

// finish flushes a plain rendering and, for a failure, writes the error
// line on errOut after it.
func finish(w *bufio.Writer, errOut io.Writer, r *api.ToolResponse) error {
	if err := w.Flush(); err != nil {
		return err
	}
	return WriteErrorLine(errOut, r)
}

// WriteErrorLine writes a failed response's ErrorLine on errOut (stderr);
// for a success it writes nothing.
func WriteErrorLine(errOut io.Writer, r *api.ToolResponse) error {
	if r.OK {
		return nil
	}
	_, err := io.WriteString(errOut, ErrorLine(r)+"\n")
	return err
}

// ErrorLine is the one-line account of a failed response, for stderr:
// its code, message, where it came from (Origin) and its exit.
func ErrorLine(r *api.ToolResponse) string {
	msg := r.ErrorMessage()
	if origin := r.Failure.Origin; origin != "" {
		msg += " " + origin
	}
	return "error: " + textsafe.SanitizeLine(r.ErrorCode()) + ": " + textsafe.SanitizeLine(msg) + " (" + exitNote(r) + ")"
}

// exitNote is the recoverable flag and the exit code of a failed
// response, as error lines end: "recoverable, exit 11".
func exitNote(r *api.ToolResponse) string {
	return exitcode.RecoverableText(r.IsRecoverable()) + ", exit " + itoa(exitcode.ForCode(r.ErrorCode(), r.IsRecoverable()))
}

// writeData prints the data's layout: aligned "key  value" fields, plain
// lines, then each record list as a table (titled and indented when it is
// a member of the data rather than the data itself), with mismatch bars
// when bars is set.
func writeData(w *bufio.Writer, r *api.ToolResponse, bars bool) error {
	l, err := layout.Response(r.Data, r.Members)
	if err != nil {
		return err
	}
	width := l.KeyWidth()
	for _, f := range l.Fields {
		w.WriteString(f.Key)
		if f.Value != "" {
			w.WriteString(strings.Repeat(" ", max(0, width-textsafe.DisplayWidth(f.Key))+2))
			w.WriteString(f.Value)
		}
		w.WriteByte('\n')
	}
	for _, line := range l.Lines {
		w.WriteString(line + "\n")
	}
	for _, t := range l.Tables {
		if t.Title == "" {
			t.WriteText(w, "", bars)
			continue
		}
		w.WriteString("\n" + t.Title + " (" + itoa(t.Count) + "):\n")
		t.WriteText(w, "  ", bars)
	}
	return nil
}

// writeNextActions prints each next action under its label as the command
// line that runs it; one that no command line may carry is described in
// words instead, after a warning.
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
