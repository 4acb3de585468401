package ui

import (
	"cmp"
	"context"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/visualq/vq/api"
	"golang.org/x/term"
)

// Options connect the TUI to the terminal and to the server.
type Options struct {
	// In and Out are the terminal.
	In  io.Reader
	Out io.Writer
	// Invoke sends one call; at run time it is the command's pipeline.
	Invoke func(ctx context.Context, call api.Call) (*api.ToolResponse, error)
	// Consent is the command's consent policy for the writes the person
	// asks for: asked in the session's dialog, given by --yes, or (the
	// zero value) never, and nothing is sent.
	Consent Consent
	NoColor bool // NoColor drops colours (NO_COLOR, --no-color); bold and reverse stay.
	// WriteTools reports tools that change a project, marked in the action
	// list. Nil means api.KnownWriteTool.
	WriteTools func(tool string) bool
	// Fetch downloads a screenshot link, at most max bytes; at run time
	// the api client's FetchPublic from the VisualQ server, which fetches
	// nothing on another server (the screen says where the image is, and
	// o opens it). Nil shows no images.
	Fetch func(ctx context.Context, link string, max int64) ([]byte, error)
	// Getenv reads the environment for terminal detection (image
	// protocols) and $BROWSER. Nil means os.Getenv.
	Getenv func(string) string
	// Open shows a link in a browser (o). Nil means $BROWSER, else the
	// desktop's opener.
	Open func(url string) error
	// Probe, when set, sees every message before the TUI handles it, in
	// the same guard: tests use it to make the TUI fail on cue.
	Probe func(tea.Msg)
	// Server names the server the calls go to (host[:port] and profile),
	// shown at the right of the header line; "" shows none.
	Server string
	// Asker, when set, brings the server's questions into the session
	// while it runs: the TUI asks them, as it owns the terminal.
	Asker *Asker
}

func (o Options) opener() func(string) error {
	if o.Open != nil {
		return o.Open
	}
	return openWith(o.getenv())
}

func (o Options) getenv() func(string) string {
	if o.Getenv == nil {
		return os.Getenv
	}
	return o.Getenv
}

// Environ is the part of the environment that decides colours and the
// terminal's kind, from getenv: what colorprofile and bubbletea read.
func Environ(getenv func(string) string) []string {
	var env []string
	for _, k := range []string{"TERM", "COLORTERM", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Run shows first, the answer to call, and lets the person chain through
// its next actions until they quit. With first nil, the TUI opens at once
// and sends call itself through opts.Invoke, showing a spinner until the
// answer comes. It returns the last answer shown, whose exit code is the
// session's; with none (the first call failed or was given up) the error
// says why. A screen that offers nothing to act on is printed once,
// without waiting for a key. A panic in the TUI restores the terminal and
// comes back as an *exitcode.PanicError.
func Run(ctx context.Context, opts Options, call api.Call, first *api.ToolResponse) (*api.ToolResponse, error) {
	m := newModel(ctx, opts, call, first)
	if !m.loading() && !m.top().actionable() {
		return first, printOnce(opts, m)
	}
	pctx, kill := context.WithCancel(ctx)
	defer kill()
	g := &guard{m: m, probe: opts.Probe, kill: kill}
	p := tea.NewProgram(g, opts.programOptions(pctx)...)
	defer opts.Asker.attach(p)()
	_, err := p.Run()
	switch {
	case g.panicked() != nil:
		return nil, g.panicked()
	case m.loading():
		return nil, cmp.Or(err, m.firstErr, context.Canceled)
	case m.printAfter:
		return m.exitAnswer(), printOnce(opts, m)
	}
	return m.exitAnswer(), err
}

// programOptions connect a program to the terminal of o until ctx ends.
func (o Options) programOptions(ctx context.Context) []tea.ProgramOption {
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Out),
		tea.WithEnvironment(Environ(o.getenv()))}
	if o.NoColor {
		popts = append(popts, tea.WithColorProfile(colorprofile.ASCII))
	}
	return popts
}

// printOnce writes the screen as its final frame, all of its data, in the
// colours the output supports.
func printOnce(opts Options, m *Model) error {
	w := colorprofile.NewWriter(opts.Out, Environ(opts.getenv()))
	if opts.NoColor {
		w.Profile = min(w.Profile, colorprofile.ASCII) // never more styling than the output takes
	}
	if m.width <= 0 {
		m.width = defaultWidth // an output that is no terminal reported none
	}
	if f, ok := opts.Out.(interface{ Fd() uintptr }); ok {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
			m.width = width
		}
	}
	m.done = true
	_, err := io.WriteString(w, m.fit(m.top().lines(0), 0)+"\n")
	return err
}
