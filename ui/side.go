package ui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui/components/image"
)

// At sideWidth columns or more a list's selected check shows its diff beside the list: the row's
// action (a read) is sent once the cursor rests sideDelay on it, and its diff fetched as any
// screenshot is (the server's origin only, within the image budgets), all in the background.
const (
	sideWidth = 120
	sideDelay = 300 * time.Millisecond
)

// side is the selected row's diff beside the list.
type side struct {
	key, label string
	asked      bool
	shots      image.Model
	note       string // why there is no picture
}

type sideTickMsg struct {
	page *answerPage
	key  string
}

type sideAnswerMsg struct {
	page *answerPage
	key  string
	resp *api.ToolResponse
	err  error
}

// sideCall is the selected row's read, when the screen is wide enough to show its diff beside.
func (s *answerPage) sideCall() (api.Call, string, bool) {
	if s.m.width < sideWidth || s.m.done || s.m.fetch == nil || !s.rowMode() || s.selRow() < 0 {
		return api.Call{}, "", false
	}
	t, r := s.selTable(), s.selRow()
	tp := t.rowAction()
	if tp == nil || tp.write {
		return api.Call{}, "", false
	}
	return tp.call(t, r), tp.label(t, r), true
}

// followSide starts on the selected row's diff, once the cursor rests on it.
func (s *answerPage) followSide() tea.Cmd {
	call, label, ok := s.sideCall()
	if !ok {
		return nil
	}
	if k := call.Key(); s.side == nil || s.side.key != k {
		s.side = &side{key: k, label: label}
		return tea.Tick(sideDelay, func(time.Time) tea.Msg { return sideTickMsg{page: s, key: k} })
	}
	return nil
}

// sideUpdate handles the side's messages; ok is false for others.
func (s *answerPage) sideUpdate(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case sideTickMsg:
		call, _, wide := s.sideCall()
		if msg.page != s || !wide || s.side == nil || s.side.key != msg.key || s.side.asked {
			return nil, true
		}
		s.side.asked = true
		ctx, invoke := s.m.ctx, s.m.invoke
		return func() tea.Msg {
			resp, err := invoke(ctx, call)
			return sideAnswerMsg{page: s, key: msg.key, resp: resp, err: err}
		}, true
	case sideAnswerMsg:
		if msg.page != s || s.side == nil || s.side.key != msg.key {
			return nil, true
		}
		return s.side.answered(s.m, msg.resp, msg.err), true
	case image.Msg:
		if s.side != nil {
			w, h := s.sideSize()
			s.side.shots.Update(msg, image.None, w+1, 3*(h+1), s.m.styles.image)
		}
	}
	return nil, false
}

// sideSize is the side's width and the rows its picture may take.
func (s *answerPage) sideSize() (width, rows int) {
	return s.m.width * 2 / 5, max(s.paneFor(s.head(), s.foot(), s.m.height)-1, 3)
}

// beside puts the side to the right of the pane's lines.
func (s *answerPage) beside(pane []string) []string {
	if _, _, ok := s.sideCall(); !ok || s.side == nil {
		return pane
	}
	w, _ := s.sideSize()
	left := s.m.width - w - 3
	right := []string{s.m.styles.image.Label.Render("diff · " + textsafe.SanitizeLine(textsafe.Clip(s.side.label, textsafe.MaxLineBytes)))}
	switch {
	case s.side.note != "":
		right = append(right, s.m.styles.dim.Render(s.side.note))
	default:
		right = append(right, s.side.shots.View(true, w, s.m.styles.image)...)
	}
	for i := range pane {
		line := ansi.Truncate(pane[i], left, "…")
		if i < len(right) {
			line += strings.Repeat(" ", max(0, left-ansi.StringWidth(line))) + " │ " + right[i]
		}
		pane[i] = line
	}
	return pane
}

// answered takes the row's read: its diff is fetched, or the side says why there is none.
func (sd *side) answered(m *Model, resp *api.ToolResponse, err error) tea.Cmd {
	if err != nil || !resp.OK {
		sd.note = "no diff: the call failed"
		return nil
	}
	if l, err := layout.Response(resp.Data, resp.Members); err == nil {
		for _, f := range l.Fields {
			if f.Name == "diffImageUrl" {
				sd.shots = image.New([]layout.Field{f})
			}
		}
	}
	if _, has := sd.shots.Shown(); !has {
		sd.note = "no diff image"
	}
	return sd.shots.Ask(m.ctx, m.fetch, image.None)
}
