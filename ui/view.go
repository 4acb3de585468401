package ui

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// maxSummaryLines bounds a long summary or error message so the data keeps
// its room on a small terminal.
const maxSummaryLines = 3

// frame draws the current screen in at most height lines; height 0 means
// no limit (the one-shot print of a screen with nothing to act on).
func (m *Model) frame(height int) string {
	s := m.top()
	head, foot := m.head(s), m.foot(s)
	lines := append([]string{}, head...)
	if pane := m.paneFor(s, head, foot, height); pane > 0 {
		lines = append(lines, "")
		lines = append(lines, m.pane(s, pane)...)
	}
	if len(foot) > 0 {
		lines = append(lines, "")
		lines = append(lines, foot...)
	}
	// Never taller than the terminal: a taller frame scrolls it, and the
	// renderer's redraws then pile copies into the scrollback.
	if height > 1 && len(lines) > height-1 {
		lines = lines[:height-1]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "…")
	}
	// Every frame of a session has the same height: the inline renderer
	// redraws a frame whose height changed from scratch, and terminals such
	// as tmux then push the old frame into the scrollback, next to the last
	// screen. The final frame, without the help line, so ends in a blank
	// line, which the renderer erases on exit.
	for height > 0 && len(lines) < height-1 {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// pageSize is how many content lines the data pane shows in the current
// frame: the unit of scrolling.
func (m *Model) pageSize() int {
	s := m.top()
	rows := contentRows(s.lineCount(), m.paneFor(s, m.head(s), m.foot(s), m.height))
	_, _, content := m.window(s, rows)
	return max(content, 1)
}

// window is what a pane of rows lines shows from the screen's offset: the
// first line, how many content lines, and the header of the table the view
// starts inside (drawn above them, taking one of the rows) when the view
// starts below that header.
func (m *Model) window(s *screen, rows int) (header string, first, content int) {
	total := s.lineCount()
	first = max(0, min(s.offset, total-rows))
	if s.showRaw || rows < 2 {
		return "", first, rows
	}
	if _, sticky := s.data.stickyHeader(first, &m.styles, s.order); !sticky {
		return "", first, rows
	}
	content = rows - 1
	first = max(0, min(s.offset, total-content))
	if s.offset >= total-rows {
		first = max(0, total-content) // scrolled to the end: keep the last line in view
	}
	header, sticky := s.data.stickyHeader(first, &m.styles, s.order)
	if !sticky {
		return "", first, rows
	}
	return header, first, content
}

// contentRows is the part of a pane of that height left for content: a
// longer content gives its last line to the scroll position.
func contentRows(total, height int) int {
	if total > height && height > 1 {
		return height - 1
	}
	return height
}

// paneFor gives the data pane what the head and foot leave of height (one
// line stays free so that the inline frame never scrolls the terminal),
// at least one line, and no more than the content needs.
func (m *Model) paneFor(s *screen, head, foot []string, height int) int {
	n := s.lineCount()
	if height <= 0 || n == 0 {
		return n
	}
	room := height - 1 - len(head) - 1 - len(foot)
	if len(foot) > 0 {
		room--
	}
	return min(n, max(room, 1))
}

// head is the breadcrumb, the badge line, the summary, warnings and, for a
// failure, the error with its exit code.
func (m *Model) head(s *screen) []string {
	st := &m.styles
	lines := []string{m.breadcrumb()}
	r := s.resp
	badge := st.okBadge.Render("✓ ok")
	if !r.OK {
		badge = st.errBadge.Render("✗ error")
	}
	lines = append(lines, badge+"  "+st.tool.Render(textsafe.SanitizeLine(r.Tool)))
	if layout.ShowsSummary(r.OK, r.Summary, r.ErrorMessage()) {
		lines = append(lines, m.wrap(textsafe.Sanitize(r.Summary))...)
	}
	for _, w := range r.Warnings {
		lines = append(lines, st.warning.Render("⚠ warning: "+textsafe.SanitizeLine(w)))
	}
	if !r.OK {
		lines = append(lines, m.wrap(st.errorCode.Render(textsafe.SanitizeLine(r.ErrorCode()))+": "+textsafe.Sanitize(r.ErrorMessage()))...)
		lines = append(lines, st.dim.Render(exitcode.RecoverableText(r.IsRecoverable())+" · vq exits "+strconv.Itoa(exitcode.ForCode(r.ErrorCode(), r.IsRecoverable()))))
		if r.ErrorCode() == api.CodeRateLimit && r.RetryAfterMs > 0 {
			wait := time.Duration(r.RetryAfterMs) * time.Millisecond
			lines = append(lines, st.warning.Render("rate limited: wait "+wait.String()+" before calling again (r re-runs)"))
		}
	}
	return lines
}

// wrap breaks text to the width, keeping at most maxSummaryLines.
func (m *Model) wrap(text string) []string {
	lines := strings.Split(ansi.Wrap(text, m.width, ""), "\n")
	if len(lines) > maxSummaryLines {
		lines = lines[:maxSummaryLines]
		lines[maxSummaryLines-1] = ansi.Truncate(lines[maxSummaryLines-1], m.width-1, "") + "…"
	}
	return lines
}

// breadcrumb is the chain of screens, cut from the left when it is too long
// so that the current screen always shows.
func (m *Model) breadcrumb() string {
	st := &m.styles
	sep := " › "
	last := len(m.stack) - 1
	current := st.crumbCurrent.Render(m.stack[last].crumb)
	width := textsafe.DisplayWidth(m.stack[last].crumb)
	parts := []string{current}
	for i := last - 1; i >= 0; i-- {
		w := textsafe.DisplayWidth(m.stack[i].crumb) + len(sep)
		if width+w > m.width-2 {
			parts = append(parts, st.crumb.Render("…"))
			break
		}
		width += w
		parts = append(parts, st.crumb.Render(m.stack[i].crumb))
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, st.crumb.Render(sep))
}

// pane draws height lines of the data (or of the raw JSON) from the
// screen's offset: only these lines are ever rendered. When the content is
// longer, the last line says where the view is.
func (m *Model) pane(s *screen, height int) []string {
	st := &m.styles
	total := s.lineCount()
	rows := contentRows(total, height)
	header, first, content := m.window(s, rows)
	lines := make([]string, 0, height)
	if header != "" {
		lines = append(lines, header)
	}
	for i := first; i < first+content && i < total; i++ {
		if s.showRaw {
			lines = append(lines, s.raw[i])
		} else {
			lines = append(lines, s.data.line(i, st, s.order))
		}
	}
	if rows < height {
		end := min(first+content, total)
		lines = append(lines, st.dim.Render("lines "+strconv.Itoa(first+1)+"–"+strconv.Itoa(end)+" of "+strconv.Itoa(total)))
	}
	return lines
}

// foot is the image link, the next actions (or the confirm dialog), the
// status line and the help line.
func (m *Model) foot(s *screen) []string {
	st := &m.styles
	var lines []string
	if s.images.diff != "" && !m.done {
		lines = append(lines, st.fieldKey.Render("diff image ")+s.images.diff+st.dim.Render("  (o opens it)"))
	}
	if m.confirming {
		lines = append(lines, m.dialog(s)...)
	} else {
		lines = append(lines, m.actions(s)...)
	}
	if m.done {
		return lines
	}
	switch {
	case m.pending != nil:
		lines = append(lines, m.spinner.View()+" calling "+textsafe.SanitizeLine(m.pending.call.Tool)+"…")
	case m.status != "":
		lines = append(lines, st.dim.Render(m.status))
	}
	var keys help.KeyMap = m.activeKeys()
	if m.confirming {
		keys = m.confirmKeys
	}
	// The full help (?) is several lines: each counts toward the frame.
	lines = append(lines, strings.Split(m.help.View(keys), "\n")...)
	return lines
}

// actions lists the next actions: number, label, tool and a write mark. A
// long list shows a window around the selection.
func (m *Model) actions(s *screen) []string {
	st := &m.styles
	acts := s.resp.NextActions
	if len(acts) == 0 {
		return nil
	}
	labelWidth := 0
	for _, a := range acts {
		labelWidth = max(labelWidth, textsafe.DisplayWidth(textsafe.SanitizeLine(a.Label)))
	}
	labelWidth = min(labelWidth, m.width/2)
	show := min(len(acts), max(3, m.height/4))
	first := max(0, min(s.cursor-show/2, len(acts)-show))
	lines := []string{st.sectionTitle.Render("Next actions")}
	for i := first; i < first+show; i++ {
		a := acts[i]
		number := " "
		if i < 9 {
			number = strconv.Itoa(i + 1)
		}
		line := number + "  " + fit(textsafe.SanitizeLine(a.Label), labelWidth, false) + "  " + textsafe.SanitizeLine(a.Tool)
		if m.writeTools(a.Tool) {
			line += "  " + st.writeBadge.Render("[write]")
		}
		switch {
		case m.done:
			line = "  " + line
		case i == s.cursor && s.focus == focusActions:
			line = st.selected.Render("› " + line)
		case i == s.cursor:
			line = "› " + line
		default:
			line = "  " + line
		}
		lines = append(lines, line)
	}
	if show < len(acts) {
		lines = append(lines, st.dim.Render("  "+strconv.Itoa(len(acts)-show)+" more (↑/↓)"))
	}
	return lines
}

// dialog asks whether to resend a refused write call with confirm: true,
// naming the tool and the arguments that would be sent.
func (m *Model) dialog(s *screen) []string {
	st := &m.styles
	args, err := json.Marshal(s.call.Args)
	if err != nil {
		args = []byte(err.Error())
	}
	inner := max(m.width-4, 20)
	body := []string{
		st.writeBadge.Render(textsafe.SanitizeLine(s.call.Tool)) + " changes your project and needs your consent.",
		"args " + textsafe.SanitizeLine(string(args)),
		"Send it again with confirm: true? [y/N]",
	}
	for i, l := range body {
		body[i] = ansi.Truncate(l, inner, "…")
	}
	return strings.Split(st.dialog.Render(strings.Join(body, "\n")), "\n")
}
