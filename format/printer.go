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

// Printer is the one door through which vq writes outside the TUI: answers
// and documents on Out, and on ErrOut the lines vq says to a person, each
// in its style (an error, a warning, a hint, a note). Every line it writes
// on ErrOut is sanitized, whatever its caller did.
type Printer struct {
	Out, ErrOut io.Writer
	// Workflow, when set, is where vq gives GitHub Actions workflow
	// commands of its own on stdout: Out is a stream the runner reads,
	// guarded so that no server text forms one (textsafe.CommandGuard).
	Workflow io.Writer
	// Terminal: Out is a terminal, where a person reads (Options.Terminal).
	Terminal bool
	// Getenv supplies GITHUB_STEP_SUMMARY to the github format.
	Getenv func(string) string
	// Commands prints next actions as the commands that front their
	// tools; nil prints each as vq invoke.
	Commands CommandPrinter
}

// Response renders one answer as o asks (Render).
func (p Printer) Response(ctx context.Context, r *api.ToolResponse, o Options) error {
	o.Terminal, o.Getenv, o.Commands, o.Workflow = p.Terminal, p.Getenv, p.Commands, p.Workflow
	return Render(ctx, p.Out, p.ErrOut, r, o)
}

// Document writes v, a JSON document that is no ToolResponse (the
// exit-code table, the version, vq auth status), as o asks: JSON, or
// filtered by o.Query.
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

// JIRAComment writes a proof's JIRA comment byte for byte: no sanitizing
// and no added newline, so a pipe to the clipboard gets exactly what the
// server wrote (vq prove --markdown). To a stream a GitHub Actions runner
// reads, the comment stands between ::stop-commands:: and its token,
// fresh and random, on lines of their own: the runner obeys no command
// in it.
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

// CIAnswer writes a CI answer as vq ci call does: the JSON the server sent
// (terminal controls escaped), then a failure's error line.
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

// Text writes lines of vq's own on Out as they are (vq version, the
// sandbox's banner).
func (p Printer) Text(lines ...string) error {
	_, err := io.WriteString(p.Out, strings.Join(lines, "\n")+"\n")
	return err
}

// The lines vq says to a person on ErrOut, in one style: "error: " for a
// failure, "warning: " for what is off though vq carries on, "hint: " for
// what to do next, and no prefix for what vq is doing or did. A message of
// several lines keeps its lines; a hint of several lines is several hints.

// Error says that something failed.
func (p Printer) Error(msg string) { p.say("error: ", msg) }

// Warning says that something is off, though vq carries on.
func (p Printer) Warning(msg string) { p.say("warning: ", msg) }

// Hint says what to do next: the command that resumes, consents, saves.
func (p Printer) Hint(msg string) {
	for line := range strings.SplitSeq(msg, "\n") {
		p.say("hint: ", line)
	}
}

// Note says what vq is doing or did: a retry, a wait, a file saved, a
// person signed in.
func (p Printer) Note(msg string) { p.say("", msg) }

// Prompt asks a question and leaves the cursor after it for the answer.
func (p Printer) Prompt(question string) {
	io.WriteString(p.ErrOut, textsafe.Sanitize(question)+" ")
}

func (p Printer) say(prefix, msg string) {
	io.WriteString(p.ErrOut, prefix+textsafe.Sanitize(msg)+"\n")
}

// Sandbox writes vq sandbox's banner: where it listens, its API keys
// (token and description), and how to try it with the key tryKey.
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
