package format

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// GitHub writes a response as GitHub Actions workflow commands: an ::error
// annotation per failed check and for a failed call, a ::warning per
// warning, and a ::notice with the summary when nothing failed. When
// stepSummary (the path in $GITHUB_STEP_SUMMARY) is set, the Markdown
// report is appended to it, so it shows on the run's summary page.
func GitHub(out io.Writer, r *api.ToolResponse, stepSummary string) error {
	var b strings.Builder
	title := "vq " + r.Tool
	failed := !r.OK
	if !r.OK {
		annotate(&b, "error", title+": "+r.ErrorCode(), r.ErrorMessage())
	}
	if checks, ok := layout.ChecksOf(r.Data); ok {
		for _, ch := range checks.Listed {
			if !ch.Failed {
				continue
			}
			msg := ch.Scenario + " on " + ch.Viewport + " changed"
			if ch.HasMismatch {
				msg += ": " + ch.MismatchText() + " of pixels differ"
			}
			annotate(&b, "error", "Visual change: "+ch.Scenario+" ["+ch.Viewport+"]", msg)
		}
		if _, unnamed := checks.Unlisted(); unnamed > 0 {
			hint := "not itemized here"
			if checks.RunID != "" {
				hint += "; run vq failures " + textsafe.ShellQuote(checks.RunID)
			}
			annotate(&b, "error", title, fmt.Sprintf("%d of %d checks failed (%s)", checks.Failed, checks.Total, hint))
		}
		failed = failed || checks.Failed > 0
	}
	for _, warn := range r.Warnings {
		annotate(&b, "warning", title, warn)
	}
	if !failed && r.Summary != "" {
		annotate(&b, "notice", title, r.Summary)
	}
	if _, err := io.WriteString(out, b.String()); err != nil {
		return err
	}
	if stepSummary == "" {
		return nil
	}
	return appendStepSummary(stepSummary, r)
}

func appendStepSummary(path string, r *api.ToolResponse) error {
	var report bytes.Buffer
	if err := Markdown(&report, r); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	_, err = f.Write(append(report.Bytes(), '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	return nil
}

// annotate writes one workflow command, ::level title=T::message, escaped
// as the runner reads it: in the message %, CR and LF; in a property also
// : and , (which would end the property).
func annotate(b *strings.Builder, level, title, message string) {
	b.WriteString("::" + level + " title=" + GitHubProperty(title) + "::" + GitHubData(message) + "\n")
}

var (
	ghData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// GitHubData escapes the message of a workflow command. Escaping comes
// before sanitizing, so line breaks survive as %0A while every other
// control character is removed.
func GitHubData(s string) string { return textsafe.SanitizeLine(ghData.Replace(s)) }

// GitHubProperty escapes a property value of a workflow command.
func GitHubProperty(s string) string { return textsafe.SanitizeLine(ghProperty.Replace(s)) }
