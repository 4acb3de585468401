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

// Terminal is what vq knows of the person at its streams, read once; only it
// says whether a stream is a terminal (Display, Consent).
type Terminal struct {
	Print format.Printer // every byte vq shows outside the TUI

	io      *IOStreams
	getenv  func(string) string
	noColor bool

	// agent: the streams are vq mcp serve's: nothing drawn, no consent given.
	agent bool
	// person: stdin and stderr are terminals; forms: and TERM draws.
	person, forms bool
	// typing: stdin is a terminal; errTerminal: stderr is one (OSC 52).
	typing, errTerminal bool
	tui                 bool
	live                bool // stderr draws progress in place
	profile             colorprofile.Profile

	session ui.Asker   // a server's questions into the running TUI
	asking  sync.Mutex // one question at a time on stderr
	// drawing are the progress views on stderr, which a form holds.
	drawing progressViews
	pager   pager
}

// NewTerminal reads the streams and display settings once; Print prints next
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

// NewAgentTerminal is vq mcp serve's: stdin/stdout are the agent's MCP stream.
func NewAgentTerminal(errOut io.Writer, getenv func(string) string) *Terminal {
	streams := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: errOut}
	return &Terminal{
		Print: format.Printer{Out: io.Discard, ErrOut: &heldWriter{w: errOut}, Getenv: getenv},
		io:    streams, getenv: getenv, agent: true, profile: colorprofile.NoTTY,
	}
}

// CanPrompt reports someone there to answer a question on stderr.
func (t *Terminal) CanPrompt() bool { return t.person }

// IsStdinTTY reports stdin a terminal.
func (t *Terminal) IsStdinTTY() bool { return t.typing }

// Streams are the streams the terminal was read from.
func (t *Terminal) Streams() *IOStreams { return t.io }

// isTerminal reports a real terminal device (tests' buffers are not): for the pager.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Page pipes the rest of stdout through the pager until done or ctx ends.
func (t *Terminal) Page(ctx context.Context) { t.pager.start(ctx, t.io.Out, t.getenv, t.Print.Warning) }

// EndPager ends the output to the pager and waits for the person to leave it.
func (t *Terminal) EndPager() error { return t.pager.stop(t.io.Out) }

// Display is where a command's answers go.
type Display int

const (
	DisplayPlain Display = iota
	DisplayTUI
	DisplayAgent // only the answer of an agent's MCP call (vq mcp serve)
)

// Display is the TUI on a person's terminal unless flags ask for printed output.
func (t *Terminal) Display(printed bool) Display {
	switch {
	case t.agent:
		return DisplayAgent
	case t.tui && !printed:
		return DisplayTUI
	}
	return DisplayPlain
}

// Consent is --yes, else asked where a person is there, else never: the
// server's confirm gate answers scripts and agents.
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

// Prompter is the y/N prompt on stderr outside the TUI; nil with nobody to ask.
func (t *Terminal) Prompter(structured bool) YesNo {
	if !t.person || structured {
		return nil
	}
	return t.askYesNo
}

func (t *Terminal) askYesNo(ctx context.Context, question string) (bool, error) {
	t.Print.Prompt(question + " [y/N]")
	line, err := ReadLine(ctx, bufio.NewReader(t.io.In))
	answer := strings.ToLower(line)
	return answer == "y" || answer == "yes", err
}

// Notices is where one-line client notices go: stderr, never where the TUI opens.
func (t *Terminal) Notices() func(string) {
	if t.tui {
		return nil
	}
	return func(msg string) { t.Print.Note(textsafe.SanitizeLine(msg)) }
}

// Tell shows a notice in the TUI while it runs, else on stderr.
func (t *Terminal) Tell(msg string) {
	if !t.session.Tell(msg) {
		t.Print.Note(msg)
	}
}

// askForm asks on stderr one at a time (concurrent calls), progress held.
func (t *Terminal) askForm(ctx context.Context, e api.Elicitation) mcp.ElicitResult {
	t.asking.Lock()
	defer t.asking.Unlock()
	defer t.drawing.hold()()
	return ui.Elicit(ctx, ui.Options{In: t.io.In, Out: t.io.ErrOut, NoColor: t.noColor, Getenv: t.getenv}, e)
}

// TUIProbe is ui.Options.Probe, set only by tests to fail the TUI on cue.
var TUIProbe func(tea.Msg)

// TUIOptions connect a TUI session to this terminal.
func (t *Terminal) TUIOptions() ui.Options {
	return ui.Options{In: t.io.In, Out: t.io.Out, NoColor: t.noColor, Getenv: t.getenv, Probe: TUIProbe, Asker: &t.session}
}

// Progress starts the jobs' progress view on stderr: live, else a line per change.
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

// CallProgress shows progress notifications of calls made with the returned ctx.
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

// Clipboard is where --copy writes OSC 52: stderr if a terminal, else the tty.
func (t *Terminal) Clipboard() (io.WriteCloser, error) {
	if t.errTerminal {
		return nopCloser{t.io.ErrOut}, nil
	}
	return os.OpenFile("/dev/tty", os.O_WRONLY, 0)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

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
