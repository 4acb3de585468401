package format

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// Proof is the result of a tracking_prove_jira_ticket job: its verdict,
// the outcome's headline and reasons, and the JIRA comment to paste.
type Proof struct {
	Verdict  string
	Headline string
	Reasons  []string
	// Markdown is jiraMarkdown exactly as the server sent it; HasMarkdown
	// tells an empty comment from a missing one.
	Markdown    string
	HasMarkdown bool
	Warnings    []string
	NextActions []api.NextAction
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

// ParseProof reads the proof a response carries: in data.result (the
// finished job's answer) or in data itself. ok is false when there is none,
// e.g. a job that broke before proving anything. The response's own
// warnings and nextActions follow the proof's, without repeats.
func ParseProof(r *api.ToolResponse) (*Proof, bool) {
	raw := []byte(r.Data)
	if result := r.DataField("result"); len(result) > 0 && string(result) != "null" {
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

// WriteProof renders a proof in the order the contract asks: the headline
// quoted (the OUI/NON a person must read first), the verdict, the reasons,
// the warnings, the JIRA markdown and the next actions as ready-to-run
// commands. A failed proof's error line goes to errOut. Server text is
// sanitized; vq prove --markdown is the byte-exact path.
func WriteProof(out, errOut io.Writer, r *api.ToolResponse, p *Proof) error {
	w := bufio.NewWriter(out)
	if p.Headline != "" {
		w.WriteString("> " + textsafe.SanitizeLine(p.Headline) + "\n\n")
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
	writeNextActions(w, p.NextActions)
	return finish(w, errOut, r)
}

// ClipboardSequence is the OSC 52 sequence asking a terminal to put text on
// the clipboard, which works over SSH. Inside tmux it is wrapped in tmux's
// passthrough (every ESC doubled) so that it reaches the outer terminal.
func ClipboardSequence(text string, tmux bool) string {
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
	if tmux {
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}
