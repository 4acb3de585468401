package format

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// Proof is the result of a tracking_prove_jira_ticket job.
type Proof struct {
	Verdict  string
	Headline string
	Reasons  []string
	// Markdown is jiraMarkdown as sent; HasMarkdown tells empty from missing.
	Markdown    string
	HasMarkdown bool
	Warnings    []string
	NextActions []api.NextAction
	// NotRun says, in vq's words, why a job that ended before a verdict
	// has no headline; CommentCommand prints this proof's comment again.
	NotRun, CommentCommand string
}

type proofResult struct {
	ProofVerdict string `json:"proofVerdict"`
	ProofOutcome *struct {
		Headline string   `json:"headline"`
		Reasons  []string `json:"reasons"`
	} `json:"proofOutcome"`
	JiraMarkdown *string          `json:"jiraMarkdown"`
	Warnings     []string         `json:"warnings"`
	NextActions  []api.NextAction `json:"nextActions"`
}

// ParseProof reads the proof in data.result or data; ok is false for none. The
// response's own warnings and nextActions follow the proof's, without repeats.
func ParseProof(r *api.ToolResponse) (*Proof, bool) {
	raw := []byte(r.Data)
	if result := layout.Member(r.Data, r.Members, "result"); len(result) > 0 && string(result) != "null" {
		raw = result
	}
	var res proofResult
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // so suggested args keep their exact numbers
	if dec.Decode(&res) != nil || (res.ProofVerdict == "" && res.ProofOutcome == nil && res.JiraMarkdown == nil) {
		return nil, false
	}
	p := &Proof{Verdict: res.ProofVerdict}
	if o := res.ProofOutcome; o != nil {
		p.Headline, p.Reasons = o.Headline, o.Reasons
	}
	if res.JiraMarkdown != nil {
		p.Markdown, p.HasMarkdown = *res.JiraMarkdown, true
	}
	p.Warnings = appendNew(res.Warnings, r.Warnings, func(s string) string { return s })
	p.NextActions = appendNew(res.NextActions, r.NextActions, InvokeCommand)
	return p, true
}

// ProofAnswer is the proof an answer carries or, for a proof job (proofJob, or one whose next action proves
// again) that ended before a verdict, a proof not run saying why; ok is false otherwise.
func ProofAnswer(r *api.ToolResponse, proofJob bool) (*Proof, bool) {
	p, isProof := ParseProof(r)
	if isProof && p.Verdict != "" {
		return p, true
	}
	var job struct {
		Status string `json:"status"`
	}
	json.Unmarshal(r.Data, &job)
	ended := !r.OK && (job.Status == "failed" || job.Status == "cancelled")
	if !ended || !(proofJob || isProof || slices.ContainsFunc(r.NextActions, func(a api.NextAction) bool { return a.Tool == api.ToolProve })) {
		return p, isProof
	}
	if !isProof {
		p = &Proof{Warnings: r.Warnings, NextActions: r.NextActions}
	}
	why := r.ErrorMessage()
	if why == "" {
		why = "the proof job was " + job.Status
	}
	p.Verdict = "not run"
	p.NotRun = "the proof could not run: " + why
	p.Reasons = append([]string{"the proof job " + job.Status + " (" + r.ErrorCode() + ") before it reached a verdict"}, p.Reasons...)
	return p, true
}

// appendNew appends to a the items of b whose key is not already there.
func appendNew[T any](a, b []T, key func(T) string) []T {
	seen := make(map[string]bool, len(a)+len(b))
	out := make([]T, 0, len(a)+len(b))
	for _, it := range slices.Concat(a, b) {
		if k := key(it); !seen[k] {
			seen[k] = true
			out = append(out, it)
		}
	}
	return out
}

// WriteProof renders a proof in the contract's order, OUI/NON first and
// again last (else why it could not run first), sanitized (--markdown is byte-exact).
func WriteProof(out, errOut io.Writer, r *api.ToolResponse, p *Proof, commands CommandPrinter) error {
	w := bufio.NewWriter(out)
	headline := ""
	if p.Headline != "" {
		headline = "> " + textsafe.SanitizeLine(p.Headline) + "\n"
		w.WriteString(headline + "\n")
	} else if p.NotRun != "" {
		w.WriteString(textsafe.SanitizeLine(p.NotRun) + "\n\n")
	}
	verdict := p.Verdict
	if verdict == "" {
		verdict = "unknown"
	}
	w.WriteString("verdict: " + textsafe.SanitizeLine(verdict) + "\n")
	if len(p.Reasons) > 0 {
		w.WriteString("reasons:\n")
		for _, reason := range p.Reasons {
			w.WriteString("  - " + textsafe.SanitizeLine(reason) + "\n")
		}
	}
	for _, warn := range p.Warnings {
		w.WriteString("warning: " + textsafe.SanitizeLine(warn) + "\n")
	}
	if p.HasMarkdown {
		w.WriteString("\nJIRA comment (paste verbatim; --markdown prints it alone, --copy copies it):\n")
		md := textsafe.Sanitize(p.Markdown)
		w.WriteString(md)
		if !strings.HasSuffix(md, "\n") {
			w.WriteByte('\n')
		}
	}
	writeNextActions(w, p.NextActions, commands)
	if p.HasMarkdown && p.CommentCommand != "" {
		w.WriteString("\nThis proof's JIRA comment again, alone (no new proof):\n  " + p.CommentCommand + "\n")
	}
	if headline != "" {
		w.WriteString("\n" + headline)
	}
	return finish(w, errOut, r)
}
