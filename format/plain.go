package format

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
	"github.com/visualq/vq/api"
)

// Plain writes a response for a script or a non-TUI terminal: summary,
// warning: lines, data (a table for a record list, fields otherwise) and each
// next action as a ready-to-run command, all on out; for a failure, one
// error line on errOut. All server text is sanitized.
func Plain(out, errOut io.Writer, r *api.ToolResponse) error {
	w := bufio.NewWriterSize(out, 64<<10)
	if r.Summary != "" && (r.OK || r.Summary != r.ErrorMessage()) {
		w.WriteString(Sanitize(r.Summary))
		w.WriteByte('\n')
	}
	for _, warn := range r.Warnings {
		w.WriteString("warning: " + SanitizeLine(warn) + "\n")
	}
	if err := writeData(w, r.Data); err != nil {
		return err
	}
	writeNextActions(w, r.NextActions)
	if err := w.Flush(); err != nil {
		return err
	}
	if !r.OK {
		_, err := io.WriteString(errOut, ErrorLine(r)+"\n")
		return err
	}
	return nil
}

// ErrorLine is the one-line account of a failed response, for stderr.
func ErrorLine(r *api.ToolResponse) string {
	return "error: " + SanitizeLine(r.ErrorCode()) + ": " + SanitizeLine(r.ErrorMessage()) + " (" + RecoverableText(r) + ", exit " + itoa(ForResponse(r)) + ")"
}

// RecoverableText says whether trying other arguments may help.
func RecoverableText(r *api.ToolResponse) string {
	if r.IsRecoverable() {
		return "recoverable"
	}
	return "not recoverable"
}

func writeData(w *bufio.Writer, raw []byte) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	n, err := ParseNode(raw)
	if err != nil {
		return err
	}
	switch {
	case n.IsRecordList():
		writeTable(w, NewTable(n), "")
	case n.Kind == '{':
		writeObject(w, n)
	case n.Kind == '[':
		for _, it := range n.Items {
			w.WriteString(SanitizeLine(it.String()) + "\n")
		}
	default:
		w.WriteString(Sanitize(n.String()) + "\n")
	}
	return nil
}

// writeObject prints scalar and nested fields as aligned "key  value" lines
// (nested objects flattened to dotted keys), then each record list it holds
// as its own titled table.
func writeObject(w *bufio.Writer, n *Node) {
	var keys, values []string
	var tables []string
	var tableNodes []*Node
	var flatten func(prefix string, n *Node)
	flatten = func(prefix string, n *Node) {
		for i, k := range n.Keys {
			v := n.Values[i]
			name := prefix + k
			switch {
			case v.IsRecordList():
				tables = append(tables, name)
				tableNodes = append(tableNodes, v)
			case v.Kind == '{' && len(v.Keys) > 0:
				flatten(name+".", v)
			default:
				keys = append(keys, SanitizeLine(name))
				values = append(values, SanitizeLine(v.String()))
			}
		}
	}
	flatten("", n)
	width := 0
	for _, k := range keys {
		width = max(width, displayWidth(k))
	}
	for i, k := range keys {
		w.WriteString(k)
		if values[i] != "" {
			pad(w, width-displayWidth(k)+2)
			w.WriteString(values[i])
		}
		w.WriteByte('\n')
	}
	for i, name := range tables {
		w.WriteString("\n" + SanitizeLine(name) + " (" + itoa(len(tableNodes[i].Items)) + "):\n")
		writeTable(w, NewTable(tableNodes[i]), "  ")
	}
}

func writeTable(w *bufio.Writer, t *Table, indent string) {
	widths := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		widths[i] = displayWidth(c)
	}
	for _, row := range t.Rows {
		for i, cell := range row {
			widths[i] = max(widths[i], displayWidth(cell))
		}
	}
	writeRow := func(cells []string, header bool) {
		w.WriteString(indent)
		last := len(cells) - 1
		for i, cell := range cells {
			gap := widths[i] - displayWidth(cell)
			if t.Numeric[i] && !header {
				pad(w, gap)
				w.WriteString(cell)
			} else {
				w.WriteString(cell)
				if i < last {
					pad(w, gap)
				}
			}
			if i < last {
				w.WriteString("  ")
			}
		}
		w.WriteByte('\n')
	}
	writeRow(t.Columns, true)
	for _, row := range t.Rows {
		writeRow(row, false)
	}
}

func writeNextActions(w *bufio.Writer, actions []api.NextAction) {
	if len(actions) == 0 {
		return
	}
	w.WriteString("\nNext actions:\n")
	for _, a := range actions {
		w.WriteString("  # " + SanitizeLine(a.Label) + "\n")
		w.WriteString("  " + InvokeCommand(a) + "\n")
	}
}

const spaces = "                                                                "

func pad(w *bufio.Writer, n int) {
	for n > 0 {
		k := min(n, len(spaces))
		w.WriteString(spaces[:k])
		n -= k
	}
}

// displayWidth is the terminal width of sanitized text.
func displayWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return runewidth.StringWidth(s)
		}
	}
	return len(s)
}

func itoa(n int) string { return strconv.Itoa(n) }
