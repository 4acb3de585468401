package format

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// StepOutput is one output of a GitHub Actions step.
type StepOutput struct{ Name, Value string }

// RunOutputs are a CI run's step outputs as it last stood (none if it never started) and vq's exit-code.
func RunOutputs(r *api.ToolResponse, exit int) []StepOutput {
	out := []StepOutput{{"run-id", ""}, {"url", ""}, {"status", ""}, {"failed", ""}, {"total", ""}, {"exit-code", strconv.Itoa(exit)}}
	if r == nil {
		return out
	}
	if c, ok := layout.ChecksOf(r.Data); ok && c.RunID != "" {
		out[0].Value = textsafe.SanitizeLine(c.RunID)
		if u, ok := textsafe.WebURL(c.URL); ok {
			out[1].Value = u.String()
		}
		out[2].Value = textsafe.SanitizeLine(c.Status)
		out[3].Value, out[4].Value = strconv.Itoa(c.Failed), strconv.Itoa(c.Total)
	}
	return out
}

// AppendStepOutputs appends outputs to $GITHUB_OUTPUT's file as GitHub documents for any value
// (name<<DELIMITER, value, DELIMITER), in one write, with a random delimiter that occurs in no name or
// value, so no value can end its own early or set another output.
func AppendStepOutputs(path string, outputs []StepOutput) error {
	delimiter := "ghadelimiter_" + rand.Text()
	var b strings.Builder
	for _, o := range outputs {
		if strings.Contains(o.Name, delimiter) || strings.Contains(o.Value, delimiter) {
			return errors.New("an output holds its delimiter")
		}
		b.WriteString(o.Name + "<<" + delimiter + "\n" + o.Value + "\n" + delimiter + "\n")
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_OUTPUT: %w", err)
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("GITHUB_OUTPUT: %w", err)
	}
	return nil
}
