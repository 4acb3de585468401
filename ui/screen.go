package ui

import (
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// focus is the pane the arrow keys move in.
type focus int

const (
	focusActions focus = iota
	focusData
)

// screen is one answer on the stack: the call that produced it, the answer,
// and where the person is looking in it.
type screen struct {
	call api.Call
	// crumb names the screen in the breadcrumb: the tool of the first call,
	// the label of the action that led here after that.
	crumb  string
	resp   *api.ToolResponse
	data   *dataView
	images imageURLs
	// raw holds the response as JSON lines once the raw view was asked for.
	raw     []string
	showRaw bool
	offset  int
	order   sortOrder
	cursor  int
	focus   focus
	// imageAsked is set once the inline diff image was requested, so that
	// popping back to the screen does not print it again.
	imageAsked bool
}

func newScreen(call api.Call, crumb string, resp *api.ToolResponse) *screen {
	s := &screen{call: call, crumb: textsafe.SanitizeLine(crumb), resp: resp}
	s.data, s.images = parseData(resp)
	if len(resp.NextActions) == 0 {
		s.focus = focusData
	}
	return s
}

// lineCount is the number of lines of the data pane's content.
func (s *screen) lineCount() int {
	if s.showRaw {
		return len(s.raw)
	}
	return s.data.total
}

// scrollTo moves the data pane so that it starts at line first, kept within
// the content for a pane of the given height.
func (s *screen) scrollTo(first, height int) {
	s.offset = max(0, min(first, s.lineCount()-height))
}

// needsConfirm reports a refusal that the confirm dialog can lift.
func (s *screen) needsConfirm() bool {
	return s.resp.ErrorCode() == api.CodeConfirmRequired
}

// actionable reports whether the screen offers the person anything to do
// beyond reading it: otherwise it is printed once and vq exits.
func (s *screen) actionable() bool {
	return len(s.resp.NextActions) > 0 || s.needsConfirm()
}
