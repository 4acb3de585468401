package ui

import (
	"context"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// Model is the root of the TUI: a stack of answer screens, the call in
// flight, and the confirm dialog. All I/O happens in commands that come back
// as typed messages; Update only changes state.
type Model struct {
	ctx        context.Context
	invoke     func(context.Context, api.Call) (*api.ToolResponse, error)
	writeTools func(string) bool
	fetch      func(ctx context.Context, link string, max int64) ([]byte, error)
	images     imageProtocol

	styles      styles
	keys        screenKeys
	confirmKeys confirmKeys
	help        help.Model
	spinner     spinner.Model

	stack         []*screen
	width, height int
	pending       *pending
	seq           int
	confirming    bool
	// status is a one-line note on what just happened (a cancelled call,
	// a browser that would not start).
	status string
	// done is set when the session ends: the frame drawn then stays in the
	// scrollback, without key help or selection.
	done bool
}

// pending is the call in flight.
type pending struct {
	seq     int
	call    api.Call
	crumb   string
	replace bool
	cancel  context.CancelFunc
}

// answerMsg is the answer to the call with that sequence number; answers to
// calls the person cancelled are dropped.
type answerMsg struct {
	seq  int
	resp *api.ToolResponse
	err  error
}

func newModel(ctx context.Context, opts Options, call api.Call, first *api.ToolResponse) *Model {
	m := &Model{
		ctx:         ctx,
		invoke:      opts.Invoke,
		writeTools:  opts.WriteTools,
		fetch:       opts.Fetch,
		images:      detectImageProtocol(opts.getenv()),
		styles:      newStyles(true),
		keys:        newScreenKeys(),
		confirmKeys: newConfirmKeys(),
		help:        help.New(),
		spinner:     spinner.New(spinner.WithSpinner(spinner.Dot)),
		width:       80,
		height:      24,
	}
	if m.writeTools == nil {
		m.writeTools = api.KnownWriteTool
	}
	m.applyStyles()
	m.help.SetWidth(m.width)
	m.stack = []*screen{newScreen(call, call.Tool, first)}
	m.confirming = m.top().needsConfirm()
	return m
}

func (m *Model) applyStyles() {
	m.help.Styles = m.styles.help
	m.spinner.Style = m.styles.spinner
}

func (m *Model) top() *screen { return m.stack[len(m.stack)-1] }

// Init asks the terminal for its background, to pick light or dark colours,
// and fetches the first screen's diff image when the terminal shows images.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, m.askImage())
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		s := m.top()
		s.scrollTo(s.offset, m.pageSize())
	case tea.BackgroundColorMsg:
		m.styles = newStyles(msg.IsDark())
		m.applyStyles()
	case spinner.TickMsg:
		if m.pending != nil {
			var cmd tea.Cmd
			m.spinner, cmd = m.spinner.Update(msg)
			return m, cmd
		}
	case answerMsg:
		return m, m.answer(msg)
	case imageMsg:
		return m, m.showImage(msg)
	case openedMsg:
		m.status = "opened the diff image in the browser"
		if msg.err != nil {
			m.status = "could not open the browser: " + textsafe.SanitizeLine(msg.err.Error()) + " (" + textsafe.SanitizeLine(msg.url) + ")"
		}
	case tea.KeyPressMsg:
		if m.confirming {
			return m, m.confirmKey(msg)
		}
		return m, m.screenKey(msg)
	}
	return m, nil
}

// activeKeys is the keymap of the current screen, with what does not apply
// there disabled.
func (m *Model) activeKeys() screenKeys {
	k := m.keys
	s := m.top()
	idle := m.pending == nil
	hasActions := len(s.resp.NextActions) > 0
	for _, b := range []*key.Binding{&k.Run, &k.RunNumber} {
		b.SetEnabled(idle && hasActions)
	}
	k.Focus.SetEnabled(idle && hasActions && s.lineCount() > 0)
	k.Back.SetEnabled(idle && len(m.stack) > 1)
	k.Rerun.SetEnabled(idle)
	k.Confirm.SetEnabled(idle && s.needsConfirm())
	k.Open.SetEnabled(idle && s.images.diff != "")
	k.Sort.SetEnabled(idle && !s.showRaw && s.data.sortable())
	k.Raw.SetEnabled(idle)
	k.CancelCall.SetEnabled(!idle)
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom} {
		b.SetEnabled(idle)
	}
	return k
}

func (m *Model) screenKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.activeKeys()
	s := m.top()
	page := m.pageSize()
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.CancelCall):
		m.pending.cancel()
		m.pending = nil
		m.status = "call cancelled"
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
	case key.Matches(msg, k.Run):
		return m.runAction(s.cursor)
	case key.Matches(msg, k.RunNumber):
		if i := int(msg.String()[0] - '1'); i < len(s.resp.NextActions) {
			return m.runAction(i)
		}
	case key.Matches(msg, k.Back):
		m.stack = m.stack[:len(m.stack)-1]
		m.status = ""
	case key.Matches(msg, k.Rerun):
		return m.start(s.call, s.crumb, true)
	case key.Matches(msg, k.Confirm):
		m.confirming = true
	case key.Matches(msg, k.Open):
		return openInBrowser(s.images.diff)
	case key.Matches(msg, k.Sort):
		s.order = s.order.next()
	case key.Matches(msg, k.Raw):
		s.showRaw = !s.showRaw
		if s.showRaw && s.raw == nil {
			s.raw = rawLines(s.resp)
		}
		s.offset = 0
	case key.Matches(msg, k.Focus):
		s.focus = 1 - s.focus
	case key.Matches(msg, k.Up):
		if s.focus == focusActions {
			s.cursor = max(s.cursor-1, 0)
		} else {
			s.scrollTo(s.offset-1, page)
		}
	case key.Matches(msg, k.Down):
		if s.focus == focusActions {
			s.cursor = min(s.cursor+1, len(s.resp.NextActions)-1)
		} else {
			s.scrollTo(s.offset+1, page)
		}
	case key.Matches(msg, k.PageUp):
		s.scrollTo(s.offset-page, page)
	case key.Matches(msg, k.PageDown):
		s.scrollTo(s.offset+page, page)
	case key.Matches(msg, k.Top):
		s.scrollTo(0, page)
	case key.Matches(msg, k.Bottom):
		s.scrollTo(s.lineCount(), page)
	}
	return nil
}

func (m *Model) confirmKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.confirmKeys.Quit):
		return m.quit()
	case key.Matches(msg, m.confirmKeys.Yes):
		m.confirming = false
		s := m.top()
		return m.start(s.call.WithConfirm(), s.crumb, true)
	case key.Matches(msg, m.confirmKeys.No):
		m.confirming = false
		m.status = "not sent"
	}
	return nil
}

func (m *Model) runAction(i int) tea.Cmd {
	a := m.top().resp.NextActions[i]
	crumb := a.Label
	if crumb == "" {
		crumb = a.Tool
	}
	return m.start(a.Call(), crumb, false)
}

// start sends a call. Its answer pushes a new screen, or replaces the
// current one for a re-run or a confirmed resend, so that Esc never lands
// on a stale refusal.
func (m *Model) start(call api.Call, crumb string, replace bool) tea.Cmd {
	if m.pending != nil {
		m.pending.cancel()
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.seq++
	m.pending = &pending{seq: m.seq, call: call, crumb: crumb, replace: replace, cancel: cancel}
	m.status = ""
	invoke, seq := m.invoke, m.seq
	return tea.Batch(m.spinner.Tick, func() tea.Msg {
		resp, err := invoke(ctx, call)
		return answerMsg{seq: seq, resp: resp, err: err}
	})
}

func (m *Model) answer(msg answerMsg) tea.Cmd {
	p := m.pending
	if p == nil || msg.seq != p.seq {
		return nil
	}
	m.pending = nil
	p.cancel()
	if msg.err != nil {
		m.status = "call stopped: " + textsafe.SanitizeLine(msg.err.Error())
		return nil
	}
	s := newScreen(p.call, p.crumb, msg.resp)
	if p.replace {
		m.stack[len(m.stack)-1] = s
	} else {
		m.stack = append(m.stack, s)
	}
	m.confirming = s.needsConfirm()
	return m.askImage()
}

// askImage fetches the current screen's diff image once, when the terminal
// can show it.
func (m *Model) askImage() tea.Cmd {
	s := m.top()
	if m.images == noImages || m.fetch == nil || s.images.diff == "" || s.imageAsked {
		return nil
	}
	s.imageAsked = true
	return fetchImage(m.ctx, m.fetch, s.images.diff)
}

// showImage prints a fetched diff image above the screen, where it stays in
// the scrollback.
func (m *Model) showImage(msg imageMsg) tea.Cmd {
	if msg.url != m.top().images.diff {
		return nil // it arrived after the person left its screen
	}
	seq, err := "", msg.err
	if err == nil {
		seq, err = inlineImage(m.images, msg.png, min(m.width-1, 100), max(m.height/2, 4))
	}
	if err != nil {
		m.status = "diff image not shown: " + textsafe.SanitizeLine(err.Error())
		return nil
	}
	return tea.Println(seq)
}

func (m *Model) quit() tea.Cmd {
	if m.pending != nil {
		m.pending.cancel()
		m.pending = nil
	}
	m.confirming = false
	m.done = true
	return tea.Quit
}

// View implements tea.Model. It is inline, not the alternate screen, so the
// last frame stays in the scrollback after q.
func (m *Model) View() tea.View {
	return tea.NewView(m.frame(m.height))
}
