package ui

import (
	"context"
	"maps"
	"slices"
	"strings"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui/components/image"
	"github.com/visualq/vq/ui/components/keybar"
	"github.com/visualq/vq/ui/components/progress"
)

// Model is the root of the TUI: the page stack, the call in flight, what pages share.
type Model struct {
	ctx         context.Context
	invoke      func(context.Context, api.Call) (*api.ToolResponse, error)
	writePolicy Consent // Options.Consent
	writeTools  func(string) bool
	fetch       image.Fetch
	open        func(string) error
	getenv      func(string) string
	images      image.Protocol
	server      string // Options.Server, sanitized

	styles  styles
	keybar  keybar.Model
	spinner spinner.Model
	callBar progress.Bar // the call in flight's

	stack         []page // the one in front last
	width, height int
	pending       *pending
	seq           int
	// reviewed is what each write did, by api.Call.Key; failedWrites feed exitAnswer.
	reviewed     map[string]reviewState
	failedWrites map[string]*api.ToolResponse
	// status and report (a batch's summary) show until the next key.
	status  string
	report  []string
	ignored string // the last key pressed while busy
	// first is the session's first command; printAfter an answer to print after the program.
	first      tea.Cmd
	firstErr   error
	printAfter bool
	done       bool // the session ended: the last frame has no key help
}

type reviewState int

const (
	reviewNone reviewState = iota
	reviewPending
	reviewDone
	reviewRefused
)

const callBarWidth = 20

// defaultWidth and defaultHeight hold until the terminal tells its size.
const defaultWidth, defaultHeight = 80, 24

// newModel builds the model on the first answer, or with first nil on the call Init sends.
func newModel(ctx context.Context, opts Options, call api.Call, first *api.ToolResponse) *Model {
	m := &Model{
		ctx:          ctx,
		invoke:       opts.Invoke,
		writePolicy:  opts.Consent,
		writeTools:   opts.WriteTools,
		fetch:        opts.Fetch,
		open:         opts.opener(),
		getenv:       opts.getenv(),
		images:       image.Detect(opts.getenv()),
		server:       textsafe.SanitizeLine(textsafe.Clip(opts.Server, textsafe.MaxLineBytes)),
		styles:       newStyles(true),
		keybar:       keybar.New(),
		spinner:      spinner.New(spinner.WithSpinner(spinner.Dot)),
		reviewed:     map[string]reviewState{},
		failedWrites: map[string]*api.ToolResponse{},
		width:        defaultWidth,
		height:       defaultHeight,
	}
	if m.writeTools == nil {
		m.writeTools = api.KnownWriteTool
	}
	m.restyle()
	m.keybar.SetWidth(m.width)
	if first == nil {
		m.first = m.start(call, rootCrumb(call), pushAnswer, nil)
		return m
	}
	a := newAnswerPage(m, call, rootCrumb(call), first)
	m.stack = []page{a}
	if a.needsConfirm() {
		m.first = m.consent(a.resendIntent())
	}
	return m
}

// rootCrumb names the first screen in words: its run, else what its tool gets.
func rootCrumb(call api.Call) string {
	if id, ok := call.Args["runId"].(string); ok && id != "" {
		return id
	}
	return strings.ReplaceAll(strings.TrimPrefix(call.Tool, "get_"), "_", " ")
}

func (m *Model) restyle() {
	m.keybar.SetStyles(m.styles.help)
	m.spinner.Style = m.styles.spinner
	m.callBar = progress.New(callBarWidth, m.styles.accent)
}

// Init asks the terminal's background and sends the first call or image fetch.
func (m *Model) Init() tea.Cmd {
	if m.loading() {
		return tea.Batch(tea.RequestBackgroundColor, m.first)
	}
	return tea.Batch(tea.RequestBackgroundColor, m.top().askImage(), m.first)
}

func (m *Model) loading() bool { return m.top() == nil }

// Update routes msg (see page).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case noticeMsg:
		m.notice(string(msg))
		return m, nil
	case questionMsg:
		return m, m.ask(msg.q)
	case questionEndedMsg:
		return m, m.questionEnded(msg.q)
	case questionRefusedMsg:
		m.status = string(msg)
		return m, nil
	case tea.KeyPressMsg, tea.PasteMsg:
		return m, m.key(msg)
	}
	cmd := m.global(msg)
	var cmds []tea.Cmd
	for _, p := range m.pagesInView() {
		cmds = append(cmds, p.Update(msg))
	}
	return m, tea.Batch(append(cmds, cmd)...)
}

func (m *Model) global(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.keybar.SetWidth(msg.Width)
	case tea.BackgroundColorMsg:
		m.styles = newStyles(msg.IsDark())
		m.restyle()
	case spinner.TickMsg:
		if m.loading() || m.busy() {
			var cmd tea.Cmd
			m.spinner, cmd = m.spinner.Update(msg)
			return cmd
		}
	case answerMsg:
		return m.answered(msg)
	case progressMsg:
		return m.progressed(msg)
	}
	return nil
}

// key routes a key or paste: to the question, else the call in flight, else the page in front.
func (m *Model) key(msg tea.Msg) tea.Cmd {
	front := m.front()
	if _, asking := front.(*questionPage); !asking {
		k, isKey := msg.(tea.KeyPressMsg)
		switch {
		case !isKey:
			return nil // a paste goes to a question's field only
		case m.loading():
			return m.loadingKey(k)
		case m.pending != nil:
			return m.busyKey(k, m.callKeys(), m.cancelCall)
		}
	}
	return front.Update(msg)
}

// notice shows a line under the call in flight, else as the status line.
func (m *Model) notice(msg string) {
	if m.pending != nil {
		m.pending.note = strings.Split(msg, "\n")
		return
	}
	m.status = textsafe.SanitizeLine(msg)
}

// quit ends the session, giving up what runs; the last answer is the final frame.
func (m *Model) quit() tea.Cmd {
	if m.pending != nil {
		m.pending.cancel()
		m.pending = nil
	}
	answers := make([]page, 0, len(m.stack))
	for _, p := range m.stack {
		if e, ok := p.(ender); ok {
			e.end()
		}
		if a, ok := p.(*answerPage); ok {
			answers = append(answers, a)
		}
	}
	m.stack = answers
	m.done = true
	return tea.Quit
}

// staleAnswers marks every answer stale after a write, to fetch again on return.
func (m *Model) staleAnswers() {
	for _, a := range m.answers() {
		a.stale = true
	}
}

func (m *Model) rowState(t *table, r int) reviewState {
	tp := t.writeAction()
	if tp == nil || len(m.reviewed) == 0 {
		return reviewNone
	}
	return m.reviewed[tp.call(t, r).Key()]
}

// View is inline, not the alternate screen, so the last frame stays in the scrollback.
func (m *Model) View() tea.View {
	if m.done && (m.loading() || m.printAfter) {
		// An answer to print is printed after the program, whole.
		return tea.NewView("")
	}
	var lines []string
	if front := m.front(); front != nil {
		lines = front.View()
	} else {
		lines = m.loadingLines()
	}
	return tea.NewView(m.fit(lines, m.height))
}

// fit makes a frame for a terminal height lines tall (0: no limit).
func (m *Model) fit(lines []string, height int) string {
	// A frame taller than the terminal piles copies into the scrollback.
	if height > 1 && len(lines) > height-1 {
		lines = lines[:height-1]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "…")
	}
	// Frames keep one height: a height change redraws from scratch, which tmux pushes into
	// the scrollback. The final frame so ends in a blank line, erased on exit.
	for height > 0 && len(lines) < height-1 {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// review records what a write call did; a later answer to it replaces both.
func (m *Model) review(k string, state reviewState, resp *api.ToolResponse) {
	m.reviewed[k] = state
	if state == reviewRefused && resp != nil {
		m.failedWrites[k] = resp
	} else {
		delete(m.failedWrites, k)
	}
}

// exitAnswer is the last answer shown, or a failed write's: a session in which a write failed never exits 0.
func (m *Model) exitAnswer() *api.ToolResponse {
	last := m.top().resp
	if !last.OK || len(m.failedWrites) == 0 {
		return last
	}
	return m.failedWrites[slices.Min(slices.Collect(maps.Keys(m.failedWrites)))]
}
