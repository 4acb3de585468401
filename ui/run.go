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
	In  io.Reader
	Out io.Writer
	// Invoke sends one call; at run time it is the command's pipeline.
	Invoke func(ctx context.Context, call api.Call) (*api.ToolResponse, error)
	// Consent is the command's consent policy; the zero value never sends a write.
	Consent Consent
	NoColor bool // NoColor drops colours (NO_COLOR, --no-color); bold and reverse stay.
	// WriteTools reports tools that write; nil means api.KnownWriteTool.
	WriteTools func(tool string) bool
	// Fetch downloads a screenshot, at most max bytes, from the VisualQ server only; nil shows none.
	Fetch func(ctx context.Context, link string, max int64) ([]byte, error)
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Open shows a link in a browser (o); nil means $BROWSER, else the desktop opener.
	Open func(url string) error
	// Probe sees every message first, in the guard: tests make the TUI fail with it.
	Probe func(tea.Msg)
	// Server (host[:port] and profile) shows at the right of the header line.
	Server string
	// Asker brings the server's questions into the session, which owns the terminal.
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

// Environ is the environment colorprofile and bubbletea read, from getenv.
func Environ(getenv func(string) string) []string {
	var env []string
	for _, k := range []string{"TERM", "COLORTERM", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Run shows first (nil: sends call) and chains through next actions until quit, returning the last
// answer shown or why not; a screen with nothing to act on prints once; a panic is an *exitcode.PanicError.
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

func (o Options) programOptions(ctx context.Context) []tea.ProgramOption {
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Out),
		tea.WithEnvironment(Environ(o.getenv()))}
	if o.NoColor {
		popts = append(popts, tea.WithColorProfile(colorprofile.ASCII))
	}
	return popts
}

// printOnce writes the screen as its final frame, all of its data.
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
