package format

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// Printer is vq's one door outside the TUI: answers on Out, lines to a person on ErrOut, always sanitized.
type Printer struct {
	Out, ErrOut io.Writer
	// Workflow, when set, takes vq's own workflow commands: Out is then a
	// runner-read stream guarded so no server text forms one.
	Workflow io.Writer
	Terminal bool                // see Options
	Getenv   func(string) string // see Options
	Commands CommandPrinter      // see Options
}

// Response renders one answer as o asks (Render).
func (p Printer) Response(ctx context.Context, r *api.ToolResponse, o Options) error {
	o.Terminal, o.Getenv, o.Commands, o.Workflow = p.Terminal, p.Getenv, p.Commands, p.Workflow
	return Render(ctx, p.Out, p.ErrOut, r, o)
}

// Document writes v, a JSON document that is no ToolResponse, as o asks.
func (p Printer) Document(ctx context.Context, v any, o Options) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	o.Terminal = p.Terminal
	return WriteDocument(ctx, p.Out, doc, o)
}

// Proof writes a proof as vq prove shows it (WriteProof).
func (p Printer) Proof(r *api.ToolResponse, proof *Proof) error {
	return WriteProof(p.Out, p.ErrOut, r, proof, p.Commands)
}

// JIRAComment writes a proof's JIRA comment byte for byte (vq prove --markdown); to a runner-read stream
// it stands between ::stop-commands:: and a fresh random token, so the runner obeys no command in it.
func (p Printer) JIRAComment(markdown string) error {
	if p.Workflow == nil {
		_, err := io.WriteString(p.Out, markdown)
		return err
	}
	token := rand.Text()
	if !strings.HasSuffix(markdown, "\n") {
		markdown += "\n"
	}
	_, err := io.WriteString(p.Workflow, "::stop-commands::"+token+"\n"+markdown+"::"+token+"::\n")
	return err
}

// CIAnswer writes the JSON sent (terminal controls escaped), then the error line.
func (p Printer) CIAnswer(r *api.ToolResponse) error {
	if string(r.Data) != "null" {
		if err := textsafe.WriteJSON(p.Out, r.Data, p.Terminal); err != nil {
			return err
		}
	}
	return WriteErrorLine(p.ErrOut, r)
}

// Heading writes the line that heads one of several answers on Out.
func (p Printer) Heading(title string) error {
	_, err := io.WriteString(p.Out, "== "+textsafe.SanitizeLine(title)+" ==\n")
	return err
}

// Text writes lines of vq's own on Out as they are.
func (p Printer) Text(lines ...string) error {
	_, err := io.WriteString(p.Out, strings.Join(lines, "\n")+"\n")
	return err
}

// Error says that something failed.
func (p Printer) Error(msg string) { p.say("error: ", msg) }

// Warning says that something is off, though vq carries on.
func (p Printer) Warning(msg string) { p.say("warning: ", msg) }

// Hint says what to do next, one hint: line per line.
func (p Printer) Hint(msg string) {
	for line := range strings.SplitSeq(msg, "\n") {
		p.say("hint: ", line)
	}
}

// Note says what vq is doing or did, unprefixed.
func (p Printer) Note(msg string) { p.say("", msg) }

// Prompt asks a question and leaves the cursor after it for the answer.
func (p Printer) Prompt(question string) {
	io.WriteString(p.ErrOut, textsafe.Sanitize(question)+" ")
}

func (p Printer) say(prefix, msg string) {
	io.WriteString(p.ErrOut, prefix+textsafe.Sanitize(msg)+"\n")
}

// Sandbox writes vq sandbox's banner: its URL, API keys and how to try tryKey.
func (p Printer) Sandbox(url string, keys [][2]string, tryKey string) error {
	var b strings.Builder
	b.WriteString("VisualQ sandbox listening on " + url + "\n\nAPI keys:\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-14s %s\n", k[0], k[1])
	}
	b.WriteString("\nTry it:\n  export VQ_BASE_URL=" + url + " VQ_API_KEY=" + tryKey + "\n  vq failures run_abc\n\nCtrl-C stops the sandbox.\n")
	_, err := io.WriteString(p.Out, b.String())
	return err
}
