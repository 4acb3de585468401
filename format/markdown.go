package format

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// Markdown writes a response as a pull request or ticket report: verdict, largest changes inline, checks
// as a table (or data fields), warnings and next steps as commands; server text is sanitized and escaped
// to read as text, and links are only web addresses.
// saved diff images are linked.
func Markdown(out io.Writer, r *api.ToolResponse, commands CommandPrinter, saved Saved) error {
	checks, _ := layout.ChecksOf(r.Data)
	return markdown(out, r, checks, commands, saved)
}

// markdown is Markdown with the checks already read (nil for none).
func markdown(out io.Writer, r *api.ToolResponse, checks *layout.Checks, commands CommandPrinter, saved Saved) error {
	w := bufio.NewWriter(out)
	hasChecks := checks != nil
	w.WriteString("### " + markdownHeadline(r, checks) + "\n\n")
	if r.ShowsSummary() {
		w.WriteString("**Summary:** " + mdText(r.Summary) + "\n\n")
	}
	if !r.OK {
		w.WriteString("**Error** `" + mdCode(r.ErrorCode()) + "`: " + mdText(r.ErrorMessage()) +
			" (" + exitNote(r) + ")\n\n")
	}
	if hasChecks {
		writeMarkdownChecks(w, checks, saved)
	}
	// One check (a diff) gets its details too; many are summed up by the table.
	if !hasChecks || len(checks.Listed) == 1 && checks.Total == 1 {
		if err := writeMarkdownData(w, r); err != nil {
			return err
		}
	}
	if len(r.Warnings) > 0 {
		w.WriteString("#### Warnings\n\n")
		for _, warn := range r.Warnings {
			w.WriteString("- " + mdText(warn) + "\n")
		}
		w.WriteString("\n")
	}
	if len(r.NextActions) > 0 {
		var cmds strings.Builder
		for _, a := range r.NextActions {
			line, why := ActionCommand(a, commands)
			if why != "" {
				line = "# not printed as a command: " + why
			}
			cmds.WriteString("# " + textsafe.SanitizeLine(a.Label) + "\n" + line + "\n")
		}
		fence := strings.Repeat("`", max(3, longestRun(cmds.String(), '`')+1))
		w.WriteString("#### Next steps\n\n" + fence + "sh\n" + cmds.String() + fence + "\n")
	}
	return w.Flush()
}

// markdownHeadline is an icon and the verdict of the run, the proof, or the call.
func markdownHeadline(r *api.ToolResponse, c *layout.Checks) string {
	tool := "vq " + mdText(r.Tool) + ": "
	if p, ok := ParseProof(r); ok && c == nil {
		icon, headline := "❌", p.Headline
		if r.OK && p.Verdict == "proven" {
			icon = "✅"
		}
		if headline == "" {
			headline = cmp.Or(p.Verdict, "no verdict")
		}
		return icon + " Proof: " + mdText(headline)
	}
	switch {
	case !r.OK:
		return "❌ " + tool + "error `" + mdCode(r.ErrorCode()) + "`"
	case c == nil:
		return "✅ " + tool + "ok"
	}
	icon := map[int]string{
		exitcode.OK:           "✅",
		exitcode.RunFailed:    "❌",
		exitcode.RunError:     "❌",
		exitcode.RunCancelled: "⚠️",
		exitcode.Pending:      "⏳",
		exitcode.NoVerdict:    "❓",
	}[c.Verdict()]
	return icon + " " + mdText(runTitle(c)) + ": " + mdText(c.Sentence("", "changed"))
}

// maxInlineImages bounds the inline diff images; each row still links its own.
const maxInlineImages = 10

func writeMarkdownChecks(w *bufio.Writer, c *layout.Checks, saved Saved) {
	run := ""
	if c.RunID != "" {
		run = "`" + mdCode(c.RunID) + "`"
		if u := webURL(c.URL); u != "" {
			run = "[" + run + "](" + u + ")"
		}
	}
	switch {
	case c.Total > 0:
		w.WriteString("**Checks:** " + itoa(c.Failed) + " failed of " + itoa(c.Total))
		if run != "" {
			w.WriteString(" in run " + run)
		}
		w.WriteString("\n\n")
	case run != "":
		w.WriteString("**Run:** " + run + "\n\n") // no counts yet
	}
	writeMarkdownImages(w, c.Listed)
	writeMarkdownCheckTable(w, c.Listed)
	writeMarkdownSaved(w, c.Listed, saved)
	if passed, failed, notRun := c.Unlisted(); passed+failed+notRun > 0 {
		w.WriteString("_Not itemized by the server: " + itoa(passed) + " passed, " + itoa(failed) + " failed")
		if notRun > 0 {
			w.WriteString(", " + itoa(notRun) + " not run")
		}
		w.WriteString("._\n\n")
	}
}

// writeMarkdownCheckTable is the listed checks as a table, diff links when any.
func writeMarkdownCheckTable(w *bufio.Writer, listed []layout.Check) {
	if len(listed) == 0 {
		return
	}
	links := slices.ContainsFunc(listed, func(ch layout.Check) bool { return webURL(ch.DiffURL) != "" })
	w.WriteString("| Scenario | Viewport | Mismatch | Result |")
	if links {
		w.WriteString(" Diff |")
	}
	w.WriteString("\n|---|---|---:|---|")
	if links {
		w.WriteString("---|")
	}
	w.WriteString("\n")
	bars := false
	for _, ch := range listed {
		mismatch, result := ch.MismatchText(), "passed"
		if ch.HasMismatch {
			mismatch += " " + strings.TrimRight(layout.MismatchBar(ch.Mismatch), " ")
			bars = true
		}
		if ch.Failed {
			result = "failed"
		}
		w.WriteString("| " + mdText(ch.Scenario) + " | " + mdText(ch.Viewport) + " | " + mismatch + " | " + result + " |")
		if links {
			if u := webURL(ch.DiffURL); u != "" {
				w.WriteString(" [diff](" + u + ")")
			}
			w.WriteString(" |")
		}
		w.WriteString("\n")
	}
	w.WriteString("\n")
	if bars {
		w.WriteString("_Mismatch " + layout.MismatchLegend + "._\n\n")
	}
}

// writeMarkdownSaved links the diff images saved (--save-dir), in the checks' order.
func writeMarkdownSaved(w *bufio.Writer, listed []layout.Check, saved Saved) {
	if len(saved) == 0 {
		return
	}
	w.WriteString("#### Saved diff images\n\n")
	for i, ch := range listed {
		if path, ok := saved[i]; ok {
			w.WriteString("- [" + mdText(ch.Scenario) + " on " + mdText(ch.Viewport) + "](" + urlEscaper.Replace(textsafe.SanitizeLine(path)) + ")\n")
		}
	}
	w.WriteString("\n")
}

// writeMarkdownImages shows the diff images of the largest changes inline.
func writeMarkdownImages(w *bufio.Writer, listed []layout.Check) {
	heading := "#### Largest changes\n\n"
	for _, ch := range worstFailed(listed, maxInlineImages) {
		u := webURL(ch.DiffURL)
		if u == "" {
			continue
		}
		w.WriteString(heading)
		heading = ""
		name := mdText(ch.Scenario) + " on " + mdText(ch.Viewport)
		w.WriteString("**" + name + "**")
		if ch.HasMismatch {
			w.WriteString(": " + ch.MismatchText())
		}
		w.WriteString("\n\n![diff of " + name + "](" + u + ")\n\n")
	}
}

// writeMarkdownData shows data's fields, plain lines and record lists.
func writeMarkdownData(w *bufio.Writer, r *api.ToolResponse) error {
	l, err := layout.Response(r.Data, r.Members)
	if err != nil {
		return err
	}
	fields := &layout.Table{Columns: []string{"Field", "Value"}}
	for _, f := range l.Fields {
		fields.Rows = append(fields.Rows, []string{f.Key, f.Value})
	}
	writeMarkdownTable(w, fields)
	for _, line := range l.Lines {
		w.WriteString(mdText(line) + "\n\n")
	}
	for _, t := range l.Tables {
		if t.Title != "" {
			w.WriteString("**" + mdText(t.Title) + "** (" + itoa(t.Count) + ")\n\n")
		}
		table := t.Table()
		writeMarkdownTable(w, table)
		if note := layout.MoreColumnsNote(table.More); note != "" {
			w.WriteString("_" + mdText(note) + "_\n\n")
		}
	}
	return nil
}

func writeMarkdownTable(w *bufio.Writer, t *layout.Table) {
	if len(t.Rows) == 0 {
		return
	}
	w.WriteString("|")
	for _, c := range t.Columns {
		w.WriteString(" " + mdText(c) + " |")
	}
	w.WriteString("\n|")
	for i := range t.Columns {
		if i < len(t.Numeric) && t.Numeric[i] {
			w.WriteString("---:|") // numbers right-aligned, as in plain text
		} else {
			w.WriteString("---|")
		}
	}
	w.WriteString("\n")
	for _, row := range t.Rows {
		w.WriteString("|")
		for _, cell := range row {
			w.WriteString(" " + mdText(cell) + " |")
		}
		w.WriteString("\n")
	}
	w.WriteString("\n")
}

// mdEscaper makes server text inert in Markdown; "@" gets a word joiner so "@team" notifies no one.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "|", `\|`, "~", `\~`, "#", `\#`,
	"@", "@\u2060",
)

// mdText is server text as one line of inline Markdown, a start that would open a list ("- ", "1. ") escaped.
func mdText(s string) string {
	s = mdEscaper.Replace(textsafe.SanitizeLine(s))
	if s != "" && strings.IndexByte("-+=", s[0]) >= 0 {
		return `\` + s
	}
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits > 0 && digits < len(s) && (s[digits] == '.' || s[digits] == ')') && (digits+1 == len(s) || s[digits+1] == ' ') {
		return s[:digits] + `\` + s[digits:]
	}
	return s
}

// mdCode is text for a `code span`, where escapes do not work: ` becomes '.
func mdCode(s string) string { return strings.ReplaceAll(textsafe.SanitizeLine(s), "`", "'") }

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
