package iostreams

import (
	"bufio"
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui"
	"golang.org/x/term"
)

// Terminal is what vq knows of the person at the other end of its
// streams, read once from the streams and the display flags: whether
// someone is there to answer, whether the TUI may open, what stderr can
// draw. Commands get their policies from it (Display, Consent); nothing
// else asks whether a stream is a terminal. It also holds what the
// terminal is busy with: the TUI session that asks a server's questions
// while it runs, the one question asked on stderr at a time, and the
// progress views drawn there.
type Terminal struct {
	// Print writes every byte vq shows outside the TUI.
	Print format.Printer

	io      *IOStreams
	getenv  func(string) string
	noColor bool

	// agent: the streams are an agent's MCP stream (vq mcp serve): nobody
	// is there, nothing is drawn, and vq consents to nothing.
	agent bool
	// person: stdin and stderr are terminals, so someone can answer a
	// question written on stderr; forms: and TERM draws a form there.
	person, forms bool
	// typing: stdin is a terminal, where a key is typed without echo;
	// errTerminal: stderr is one, where OSC 52 reaches the clipboard.
	typing, errTerminal bool
	// tui: stdin and stdout are terminals that draw, and --no-tui is off.
	tui bool
	// live: stderr draws progress in place, in colour profile profile.
	live    bool
	profile colorprofile.Profile

	// session carries a server's questions into the TUI while it runs.
	session ui.Asker
	// asking lets one question at a time be asked on stderr.
	asking sync.Mutex
	// drawing are the live progress views on stderr, which a form there
	// holds while it asks.
	drawing progressViews
	// pager takes stdout on a terminal while a command prints (pager.go).
	pager pager
}

// NewTerminal reads the streams and the display settings once: --no-tui
// (or VQ_NO_TUI), --no-color (or NO_COLOR), --no-pager, and the
// environment's TERM, colour and pager variables. Its Print prints next
// actions as vq invoke lines unless the caller sets Print.Commands.
func NewTerminal(streams *IOStreams, getenv func(string) string, noTUI, noColor, noPager bool) *Terminal {
	draws := getenv("TERM") != "dumb"
	profile := colorprofile.Env(ui.Environ(getenv))
	if noColor {
		profile = min(profile, colorprofile.ASCII)
	}
	out, errOut := &switchWriter{w: streams.Out}, &heldWriter{w: streams.ErrOut}
	return &Terminal{
		Print:       format.Printer{Out: out, ErrOut: errOut, Workflow: streams.commands, Terminal: streams.OutTTY, Getenv: getenv},
		pager:       pager{command: pagerCommand(getenv, noPager, streams.OutTTY && isTerminal(streams.Out)), out: out, errOut: errOut},
		io:          streams,
		getenv:      getenv,
		noColor:     noColor,
		person:      streams.InTTY && streams.ErrTTY,
		forms:       streams.InTTY && streams.ErrTTY && draws,
		typing:      streams.InTTY,
		errTerminal: streams.ErrTTY,
		tui:         streams.InTTY && streams.OutTTY && draws && !noTUI,
		live:        streams.ErrTTY && !noTUI && profile > colorprofile.NoTTY,
		profile:     profile,
	}
}

// NewAgentTerminal is the terminal of vq mcp serve: stdin and stdout
// carry the agent's MCP stream, which vq never reads or writes outside
// the MCP server, and stderr takes vq's lines and --debug traces.
func NewAgentTerminal(errOut io.Writer, getenv func(string) string) *Terminal {
	streams := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: errOut}
	return &Terminal{
		Print: format.Printer{Out: io.Discard, ErrOut: &heldWriter{w: errOut}, Getenv: getenv},
		io:    streams, getenv: getenv, agent: true, profile: colorprofile.NoTTY,
	}
}

// CanPrompt reports someone there to answer a question asked on stderr:
// stdin and stderr are terminals.
func (t *Terminal) CanPrompt() bool { return t.person }

// IsStdinTTY reports stdin a terminal, where a key is typed without echo.
func (t *Terminal) IsStdinTTY() bool { return t.typing }

// Streams are the streams the terminal was read from.
func (t *Terminal) Streams() *IOStreams { return t.io }

// isTerminal reports a stream that is a terminal device: what a pager
// is started for, rather than the terminal-ness tests give buffers.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Page sends the rest of the command's output on stdout through the
// pager, when the Display policy has one (a terminal, no --no-pager),
// until the command is done or ctx ends.
func (t *Terminal) Page(ctx context.Context) { t.pager.start(ctx, t.io.Out, t.getenv, t.Print.Warning) }

// EndPager ends the output to the pager and waits for the person to
// leave it: the command is done.
func (t *Terminal) EndPager() error { return t.pager.stop(t.io.Out) }

// Display is where a command's answers go.
type Display int

const (
	// DisplayPlain: text or a document on stdout, vq's lines on stderr.
	DisplayPlain Display = iota
	// DisplayTUI: the TUI, on a person's terminal.
	DisplayTUI
	// DisplayAgent: nowhere but the answer of an agent's MCP call (vq mcp
	// serve); vq's lines go to stderr.
	DisplayAgent
)

// Display is the display of a command: the TUI on a person's terminal
// unless its flags asked for output printed (for a program, a CI system
// or a file).
func (t *Terminal) Display(printed bool) Display {
	switch {
	case t.agent:
		return DisplayAgent
	case t.tui && !printed:
		return DisplayTUI
	}
	return DisplayPlain
}

// Consent is the consent policy of a command with --yes set as yes, the
// display d and output for a program (structured) or a person: given by
// --yes; asked where a person is there to answer (the TUI's dialog, or a
// prompt on stderr when the output is for a person); else never, by vq: a
// script's calls and an agent's go as they are, and the server's confirm
// gate answers.
func (t *Terminal) Consent(yes bool, d Display, structured bool) ui.Consent {
	switch {
	case t.agent:
		return ui.ConsentNever
	case yes:
		return ui.ConsentGiven
	case d == DisplayTUI || t.person && !structured:
		return ui.ConsentAsk
	}
	return ui.ConsentNever
}

// YesNo asks a person a yes/no question on the terminal's prompt.
type YesNo func(ctx context.Context, question string) (bool, error)

// Prompter is how a person is asked yes or no outside the TUI (which
// asks in its own dialog): the y/N prompt on stderr when the output is
// for a person (not structured, for a program) who can answer it there,
// else nil: nobody to ask.
func (t *Terminal) Prompter(structured bool) YesNo {
	if !t.person || structured {
		return nil
	}
	return t.askYesNo
}

// askYesNo asks question on stderr; only y or yes is a yes.
func (t *Terminal) askYesNo(ctx context.Context, question string) (bool, error) {
	t.Print.Prompt(question + " [y/N]")
	line, err := ReadLine(ctx, bufio.NewReader(t.io.In))
	answer := strings.ToLower(line)
	return answer == "y" || answer == "yes", err
}

// Notices is where the client's notices go (a rate limit waited out, a
// retry, a server's log line), each held to one line: stderr, except
// where the TUI may open, whose frame a line would tear and whose screens
// show the outcome instead.
func (t *Terminal) Notices() func(string) {
	if t.tui {
		return nil
	}
	return func(msg string) { t.Print.Note(textsafe.SanitizeLine(msg)) }
}

// Tell shows a notice where the person sees it: in the TUI while it runs,
// else on stderr.
func (t *Terminal) Tell(msg string) {
	if !t.session.Tell(msg) {
		t.Print.Note(msg)
	}
}

// askForm asks a server's question with a form on stderr, one question at
// a time (the server may ask several at once, over concurrent calls), the
// progress views held meanwhile.
func (t *Terminal) askForm(ctx context.Context, e api.Elicitation) mcp.ElicitResult {
	t.asking.Lock()
	defer t.asking.Unlock()
	defer t.drawing.hold()()
	return ui.Elicit(ctx, ui.Options{In: t.io.In, Out: t.io.ErrOut, NoColor: t.noColor, Getenv: t.getenv}, e)
}

// TUIProbe is ui.Options.Probe for the TUIs this process opens: set only
// by tests, to make the TUI fail on cue.
var TUIProbe func(tea.Msg)

// TUIOptions connect a TUI session to this terminal; the caller adds the
// server's side.
func (t *Terminal) TUIOptions() ui.Options {
	return ui.Options{In: t.io.In, Out: t.io.Out, NoColor: t.noColor, Getenv: t.getenv, Probe: TUIProbe, Asker: &t.session}
}

// Progress starts the progress view of the jobs on stderr: live on a
// terminal that draws (unless --no-tui), else a line per change. end
// closes it.
func (t *Terminal) Progress(ids []string) (view *ui.JobProgress, end func()) {
	o := ui.ProgressOptions{Live: t.live, Profile: t.profile}
	if file, ok := t.io.ErrOut.(*os.File); ok && t.live {
		if w, _, err := term.GetSize(int(file.Fd())); err == nil {
			o.Width = w
		}
	}
	view = ui.NewJobProgress(t.io.ErrOut, ids, o)
	t.drawing.add(view)
	return view, func() {
		t.drawing.remove(view)
		view.Close()
	}
}

// CallProgress asks for the progress notifications of the calls made with
// the returned context and shows them in a progress view, under the
// tool's name, from the first one on: a call that reports no progress
// shows nothing. end closes the view.
func (t *Terminal) CallProgress(ctx context.Context, tool string) (_ context.Context, end func()) {
	var mu sync.Mutex
	var view *ui.JobProgress
	closeView := func() {}
	ended := false // a notification may come after the answer: dropped
	start := time.Now()
	ctx = api.WithProgress(ctx, func(u api.JobUpdate) {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		if view == nil {
			view, closeView = t.Progress([]string{tool})
		}
		u.JobID, u.Elapsed = tool, time.Since(start)
		view.Update(u)
	})
	return ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		ended = true
		closeView()
	}
}

// Clipboard is the terminal --copy may write OSC 52 to: stderr when it is
// one, else the controlling terminal.
func (t *Terminal) Clipboard() (io.WriteCloser, error) {
	if t.errTerminal {
		return nopCloser{t.io.ErrOut}, nil
	}
	return os.OpenFile("/dev/tty", os.O_WRONLY, 0)
}

// nopCloser is a writer vq does not own, such as stderr.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// progressViews are the live progress views drawn on stderr.
type progressViews struct {
	mu    sync.Mutex
	views []*ui.JobProgress
}

func (v *progressViews) add(p *ui.JobProgress) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.views = append(v.views, p)
}

func (v *progressViews) remove(p *ui.JobProgress) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.views = slices.DeleteFunc(v.views, func(q *ui.JobProgress) bool { return q == p })
}

// hold stops every view drawing until release.
func (v *progressViews) hold() (release func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	releases := make([]func(), 0, len(v.views))
	for _, p := range v.views {
		releases = append(releases, p.Hold())
	}
	return func() {
		for _, r := range releases {
			r()
		}
	}
}
