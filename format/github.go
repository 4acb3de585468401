package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// What GitHub shows of a step (errors and warnings each, summary bytes); vq writes no more.
const (
	maxAnnotations   = 10
	stepSummaryLimit = 1 << 20
)

// GitHub writes a response as workflow commands: ::error per failure and failed check (worst first),
// ::warning per warning or run not ended, ::notice for what GitHub would not show or, with no failure, the
// summary; the Markdown report (saved diff images linked) goes to stepSummary when set, cut to fit.
func GitHub(out io.Writer, r *api.ToolResponse, stepSummary string, commands CommandPrinter, saved Saved) error {
	var a annotations
	title := "vq " + r.Tool // an answer of no run is named by its call
	checks, hasChecks := layout.ChecksOf(r.Data)
	if hasChecks {
		title = runTitle(checks)
	}
	failed := !r.OK
	if !r.OK {
		a.add("error", title+": "+r.ErrorCode(), r.ErrorMessage())
	}
	if hasChecks {
		switch checks.Verdict() {
		case exitcode.RunError, exitcode.NoVerdict:
			a.add("error", title, withLinks(runVerdict(checks), "", webURL(checks.URL)))
		case exitcode.RunCancelled, exitcode.Pending:
			a.add("warning", title, withLinks(runVerdict(checks), "", webURL(checks.URL)))
		}
		annotateChecks(&a, title, checks)
		failed = failed || !checks.Complete() || checks.Failed > 0
	}
	for _, warn := range r.Warnings {
		a.add("warning", title, warn)
	}
	if a.dropped[0]+a.dropped[1] > 0 {
		a.notice(title, a.overflow(checks))
	}
	if !failed && r.Summary != "" {
		a.notice(title, r.Summary)
	}
	if _, err := io.WriteString(out, a.b.String()); err != nil {
		return err
	}
	if stepSummary == "" {
		return nil
	}
	return appendStepSummary(stepSummary, r, checks, commands, saved)
}

// annotateChecks adds an error for unnamed failures, then one per failed check.
func annotateChecks(a *annotations, title string, checks *layout.Checks) {
	if _, unnamed, _ := checks.Unlisted(); unnamed > 0 {
		hint := "not itemized here"
		if checks.RunID != "" {
			hint += "; run vq failures " + textsafe.ShellQuote(checks.RunID)
		}
		a.add("error", title, fmt.Sprintf("%d of %d checks failed (%s)", checks.Failed, checks.Total, hint))
	}
	worst := worstFailed(checks.Listed, a.room("error"))
	run := webURL(checks.URL)
	for _, ch := range worst {
		msg := ch.Scenario + " on " + ch.Viewport + " changed"
		if ch.HasMismatch {
			msg += ": " + ch.MismatchText() + " of pixels differ"
		}
		a.add("error", "Visual change: "+ch.Scenario+" ["+ch.Viewport+"]", withLinks(msg, webURL(ch.DiffURL), run))
	}
	a.dropped[0] += checks.ListedFailed() - len(worst)
}

func withLinks(msg, diff, run string) string {
	if links := linkLines(diff, run); links != "" {
		return msg + "\n" + strings.TrimSuffix(links, "\n")
	}
	return msg
}

// annotations keeps up to maxAnnotations errors and warnings; the rest are counted.
type annotations struct {
	b       strings.Builder
	written [2]int // errors, warnings
	dropped [2]int
}

func levelIndex(level string) int {
	if level == "error" {
		return 0
	}
	return 1
}

// room is how many more annotations of level GitHub would show.
func (a *annotations) room(level string) int {
	return maxAnnotations - a.written[levelIndex(level)]
}

func (a *annotations) add(level, title, message string) {
	i := levelIndex(level)
	if a.written[i] == maxAnnotations {
		a.dropped[i]++
		return
	}
	a.written[i]++
	annotate(&a.b, level, title, message)
}

func (a *annotations) notice(title, message string) { annotate(&a.b, "notice", title, message) }

// overflow says how many annotations were left out and where they all are.
func (a *annotations) overflow(checks *layout.Checks) string {
	var parts []string
	if n := a.dropped[0]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d more %s", n, layout.Plural(n, "error", "errors")))
	}
	if n := a.dropped[1]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d more %s", n, layout.Plural(n, "warning", "warnings")))
	}
	msg := strings.Join(parts, " and ") + fmt.Sprintf(" not annotated (GitHub shows %d of each per step)", maxAnnotations)
	var where []string
	if checks != nil {
		if run := webURL(checks.URL); run != "" {
			where = append(where, run)
		}
		if checks.RunID != "" {
			where = append(where, "vq failures "+textsafe.ShellQuote(checks.RunID))
		}
	}
	where = append(where, "the job's step summary")
	return msg + "; all of them: " + strings.Join(where, ", ")
}

// appendStepSummary appends the Markdown report cut at a line to what GitHub shows, noting where the rest is.
func appendStepSummary(path string, r *api.ToolResponse, checks *layout.Checks, commands CommandPrinter, saved Saved) error {
	used := int64(0)
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
		used = info.Size()
	}
	note := summaryCutNote(checks)
	report := &cappedBuffer{limit: int(max(0, stepSummaryLimit-used-int64(len(note))-1))}
	if err := markdown(report, r, checks, commands, saved); err != nil && !errors.Is(err, errSummaryFull) {
		return err
	}
	text := append(report.buf, '\n')
	if report.full {
		text = append(cutAtLine(report.buf), note...)
	}
	if int64(len(text)) > stepSummaryLimit-used {
		return nil // an earlier step filled the summary: there is no room even to say so
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	_, err = f.Write(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	return nil
}

// summaryCutNote is the line that ends a cut step summary.
func summaryCutNote(checks *layout.Checks) string {
	where := ""
	if checks != nil {
		if run := webURL(checks.URL); run != "" {
			where += " on [the run's page](" + run + ")"
		}
		if checks.RunID != "" {
			if where != "" {
				where += " or"
			}
			where += " with `vq failures " + mdCode(textsafe.ShellQuote(checks.RunID)) + "`"
		}
	}
	if where == "" {
		where = " in the job's log"
	}
	return "\n_Report cut here: GitHub shows 1 MiB of a step's summary. The rest is" + where + "._\n"
}

// cutAtLine cuts md after its last whole line and before an unclosed fence.
func cutAtLine(md []byte) []byte {
	md = md[:bytes.LastIndexByte(md, '\n')+1]
	fence, fenceAt, at := "", 0, 0
	for line := range bytes.Lines(md) {
		text := bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case fence == "" && bytes.HasPrefix(text, []byte("```")):
			fence, fenceAt = string(text[:len(text)-len(bytes.TrimLeft(text, "`"))]), at
		case fence != "" && string(text) == fence:
			fence = ""
		}
		at += len(line)
	}
	if fence != "" {
		return md[:fenceAt]
	}
	return md
}

var errSummaryFull = errors.New("step summary full")

// cappedBuffer keeps the first limit bytes and refuses the rest.
type cappedBuffer struct {
	buf   []byte
	limit int
	full  bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.limit - len(c.buf); len(p) > room {
		c.buf = append(c.buf, p[:room]...)
		c.full = true
		return room, errSummaryFull
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

// annotate writes ::level title=T::message, escaped as the runner reads it
// (a property also escapes : and ,); "##[", the older form, is broken in both.
func annotate(b *strings.Builder, level, title, message string) {
	b.WriteString("::" + level + " title=" + GitHubProperty(title) + "::" + GitHubData(message) + "\n")
}

var (
	ghData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", "##[", `##\u005b`)
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C", "##[", `##\u005b`)
)

// GitHubData escapes a workflow command's message before sanitizing: line breaks survive as %0A, controls go.
func GitHubData(s string) string { return textsafe.SanitizeLine(ghData.Replace(s)) }

// GitHubProperty escapes a property value of a workflow command.
func GitHubProperty(s string) string { return textsafe.SanitizeLine(ghProperty.Replace(s)) }
