package ui

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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

// maxWarnings bounds the warning lines the same way; the rest are
// counted on the last.
const maxWarnings = 3

// maxLineBytes bounds each piece of server text drawn on one line, before
// it is measured or sanitized: a frame then costs the same for a 20 MB
// summary or cell as for a short one. No terminal line is this wide.
const maxLineBytes = 4096

// clip cuts s to at most n bytes, at a rune's start, marking the cut with
// an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// frame draws the current screen in at most height lines; height 0 means
// no limit (the one-shot print of a screen with nothing to act on).
func (m *Model) frame(height int) string {
	var lines []string
	switch {
	case len(m.questions) > 0:
		lines = m.questions[0].form.lines()
	case m.loading():
		lines = m.loadingLines()
	default:
		lines = m.screenLines(height)
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

// screenLines are the current screen's lines for a frame of that height.
func (m *Model) screenLines(height int) []string {
	s := m.top()
	head, foot := m.head(s), m.foot(s)
	lines := append([]string{}, head...)
	if pane := m.paneFor(s, head, foot, height); pane > 0 {
		lines = append(lines, "")
		lines = append(lines, m.pane(s, pane)...)
	}
	if m.footGap(s, foot) {
		lines = append(lines, "")
	}
	return append(lines, foot...)
}

// loadingLines are the frame before the first answer: the call and a
// spinner, from the first frame on, so that a slow server shows vq at
// work rather than a blank terminal.
func (m *Model) loadingLines() []string {
	if m.pending == nil {
		return nil // given up: the session is ending
	}
	lines := []string{m.styles.crumbCurrent.Render(textsafe.SanitizeLine(clip(m.pending.crumb, maxLineBytes))), "", m.callingLine()}
	lines = append(lines, m.pendingNote()...)
	return append(lines, "", m.help.View(m.loadingKeys))
}

// pendingNote are the lines of what vq tells of the call in flight.
func (m *Model) pendingNote() []string {
	lines := make([]string, 0, len(m.pending.note))
	for _, l := range m.pending.note {
		lines = append(lines, m.styles.dim.Render("  "+textsafe.SanitizeLine(clip(l, maxLineBytes))))
	}
	return lines
}

// callingLine is the spinner line of the call in flight.
func (m *Model) callingLine() string {
	return m.spinner.View() + " calling " + textsafe.SanitizeLine(clip(m.pending.call.Tool, maxLineBytes)) + "…" +
		m.ignoredNote("the answer", "esc cancels")
}

// ignoredNote names the last key pressed while vq was busy, which did
// nothing: until when, and what does work meanwhile.
func (m *Model) ignoredNote(until, instead string) string {
	if m.ignored == "" {
		return ""
	}
	return m.styles.dim.Render("  (" + textsafe.SanitizeLine(clip(m.ignored, maxLineBytes)) + " ignored until " + until + "; " + instead + ")")
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
	if s.view != viewData || rows < 2 {
		return "", first, rows
	}
	if _, sticky := s.data.stickyHeader(first, &m.styles, m.width); !sticky {
		return "", first, rows
	}
	content = rows - 1
	first = max(0, min(s.offset, total-content))
	if s.offset >= total-rows {
		first = max(0, total-content) // scrolled to the end: keep the last line in view
	}
	header, sticky := s.data.stickyHeader(first, &m.styles, m.width)
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
	if m.footGap(s, foot) {
		room--
	}
	return min(n, max(room, 1))
}

// footGap reports the blank line between the data and the foot: not
// while rows have the focus, whose folded action line is separation
// enough, so that 80×24 keeps ten rows in view.
func (m *Model) footGap(s *screen, foot []string) bool {
	return len(foot) > 0 && !m.foldActions(s)
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
	lines = append(lines, badge+"  "+st.tool.Render(textsafe.SanitizeLine(clip(r.Tool, maxLineBytes))))
	if layout.ShowsSummary(r.OK, r.Summary, r.ErrorMessage()) {
		lines = append(lines, m.wrap(textsafe.Sanitize(clip(r.Summary, maxSummaryLines*maxLineBytes)))...)
	}
	for i, w := range r.Warnings {
		if i == maxWarnings-1 && len(r.Warnings) > maxWarnings {
			lines = append(lines, st.warning.Render("⚠ +"+strconv.Itoa(len(r.Warnings)-i)+" more warnings (w shows them all)"))
			break
		}
		lines = append(lines, st.warning.Render("⚠ warning: "+textsafe.SanitizeLine(clip(w, maxLineBytes))))
	}
	if !r.OK {
		code := textsafe.SanitizeLine(clip(r.ErrorCode(), maxLineBytes))
		lines = append(lines, m.wrap(st.errorCode.Render(code)+": "+textsafe.Sanitize(clip(r.ErrorMessage(), maxSummaryLines*maxLineBytes)))...)
		lines = append(lines, st.dim.Render(exitcode.RecoverableText(r.IsRecoverable())+" · vq exits "+strconv.Itoa(exitcode.ForCode(r.ErrorCode(), r.IsRecoverable()))))
		if r.ErrorCode() == api.CodeRateLimit && r.RetryAfterMs > 0 {
			wait := time.Duration(r.RetryAfterMs) * time.Millisecond
			lines = append(lines, st.warning.Render("rate limited: wait "+wait.String()+" before calling again (r re-runs)"))
		}
	}
	return lines
}

// wrap breaks text to the width, keeping at most maxSummaryLines.
func (m *Model) wrap(text string) []string { return wrapLines(text, m.width, maxSummaryLines) }

// wrapLines breaks text to width, keeping at most most lines, the last
// marked with an ellipsis when some were left out.
func wrapLines(text string, width, most int) []string {
	lines := strings.Split(ansi.Wrap(text, width, ""), "\n")
	if len(lines) > most {
		lines = lines[:most]
		lines[most-1] = ansi.Truncate(lines[most-1], width-1, "") + "…"
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
// longer, the last line says where the view is, in table rows when it
// shows a table.
func (m *Model) pane(s *screen, height int) []string {
	st := &m.styles
	total := s.lineCount()
	rows := contentRows(total, height)
	header, first, content := m.window(s, rows)
	lines := make([]string, 0, height)
	if header != "" {
		lines = append(lines, header)
	}
	selected := -1
	if s.rowMode() && !m.done && s.selRow() >= 0 {
		selected = s.data.rowLine(s.sec, s.pos)
	}
	gutter := func(t *table, pos int) string { return m.gutter(t, pos, false) }
	for i := first; i < first+content && i < total; i++ {
		switch {
		case s.view == viewRaw:
			lines = append(lines, textsafe.SanitizeLine(clip(s.raw[i], maxLineBytes)))
		case s.view == viewWarnings:
			lines = append(lines, st.warning.Render("⚠ "+textsafe.SanitizeLine(clip(s.resp.Warnings[i], maxLineBytes))))
		case i == selected:
			sc := s.data.sections[s.sec]
			line := sc.t.line(s.pos, st, m.width, m.gutter(sc.t, s.pos, true))
			lines = append(lines, st.selected.Render(ansi.Strip(line)))
		default:
			lines = append(lines, s.data.line(i, st, m.width, gutter))
		}
	}
	if rows < height {
		end := min(first+content, total)
		lines = append(lines, st.dim.Render(position(s, first, end)))
	}
	return lines
}

// position says which part of the content shows: table rows when the
// view ends inside a table, lines otherwise.
func position(s *screen, first, end int) string {
	if s.view == viewData {
		if sec, last, ok := s.data.rowAt(end - 1); ok {
			from := 0
			if fsec, fpos, ok := s.data.rowAt(first); ok && fsec == sec {
				from = fpos
			}
			return "rows " + strconv.Itoa(from+1) + "–" + strconv.Itoa(last+1) + " of " + strconv.Itoa(s.data.sections[sec].t.len())
		}
	}
	return "lines " + strconv.Itoa(first+1) + "–" + strconv.Itoa(end) + " of " + strconv.Itoa(s.lineCount())
}

// gutter is the start of an actionable table's row: the selection, the
// mark and what this session's writes did to it.
func (m *Model) gutter(t *table, pos int, selected bool) string {
	if !t.actionable() {
		return ""
	}
	r := t.row(pos)
	g := []rune("   ")
	if selected {
		g[0] = '›'
	}
	if t.marked[r] && !m.done {
		g[1] = '●'
	}
	switch m.rowState(t, r) {
	case reviewPending:
		g[2] = '…'
	case reviewDone:
		g[2] = '✓'
	case reviewRefused:
		g[2] = '✗'
	}
	return string(g)
}

// foot is the image link and preview, the next actions (or the consent
// dialog), the filter, a batch's progress or report, the status line and
// the help line.
func (m *Model) foot(s *screen) []string { return m.footLines(s, m.foldActions(s)) }

// minRows is how many table rows a frame keeps in view when it can: the
// next actions fold into one line rather than leave fewer.
const minRows = 10

// foldActions reports whether the next actions fold into one line: while
// rows have the focus and listing them would leave fewer than minRows
// rows in view (80×24 keeps ten).
func (m *Model) foldActions(s *screen) bool {
	if !s.rowMode() || m.done || len(s.resp.NextActions) == 0 || m.height <= 0 {
		return false
	}
	room := m.height - 1 - len(m.head(s)) - 2 - len(m.footLines(s, false))
	if room >= s.lineCount() {
		return false
	}
	before := s.data.sections[s.sec].header + 1 - s.offset // lines above the rows
	return room-1-max(before, 1) < minRows
}

func (m *Model) footLines(s *screen, fold bool) []string {
	st := &m.styles
	var lines []string
	if s.images.diff != "" {
		lines = append(lines, s.preview...)
		if !m.done {
			// The whole link, wrapped: a person can always read or select
			// it, whatever the data pane scrolled to.
			lines = append(lines, st.fieldKey.Render("diff image")+st.dim.Render("  (o opens it, y copies it)"))
			lines = append(lines, strings.Split(ansi.Hardwrap(clip(s.images.diff, maxLineBytes), max(m.width-1, 20), false), "\n")...)
		}
	}
	switch {
	case m.dialog != nil:
		lines = append(lines, m.dialogLines(s)...)
	case fold:
		lines = append(lines, st.dim.Render(strconv.Itoa(len(s.resp.NextActions))+" next actions (tab shows them)"))
	default:
		lines = append(lines, m.actions(s)...)
	}
	if m.done {
		return lines
	}
	switch {
	case m.filtering:
		lines = append(lines, m.input.View()+st.dim.Render("  "+m.filterCount(s)))
	case s.filter != "":
		lines = append(lines, st.dim.Render("filter "+strconv.Quote(s.filter)+": "+m.filterCount(s)))
	}
	switch {
	case m.batch != nil:
		b := m.batch
		line := m.spinner.View() + " " + textsafe.SanitizeLine(b.tool) + ": " + strconv.Itoa(b.finished) + " of " + strconv.Itoa(b.total) + " answered"
		if b.refused > 0 {
			line += ", " + strconv.Itoa(b.refused) + " refused"
		}
		if b.stopped {
			line += " · stopping (nothing more is sent)"
		}
		line += m.ignoredNote("it ends", "ctrl+c stops it")
		lines = append(lines, line)
	case m.pending != nil:
		lines = append(append(lines, m.callingLine()), m.pendingNote()...)
	case len(m.report) > 0:
		for _, l := range m.report {
			lines = append(lines, st.dim.Render(clip(l, maxLineBytes)))
		}
	case m.status != "":
		lines = append(lines, st.dim.Render(clip(m.status, maxLineBytes)))
	}
	var keys help.KeyMap = m.activeKeys()
	switch {
	case m.dialog != nil:
		keys = m.confirmKeys
	case m.filtering:
		keys = m.filterKeys
	}
	// The full help (?) is several lines: each counts toward the frame.
	lines = append(lines, strings.Split(m.help.View(keys), "\n")...)
	return lines
}

// filterCount is how many rows the filter shows: "12 of 350", summed
// over the screen's tables, and how many are marked.
func (m *Model) filterCount(s *screen) string {
	shown, all, marked := 0, 0, 0
	for _, t := range s.data.tables {
		shown += t.len()
		all += len(t.t.Rows)
		marked += len(t.marked)
	}
	text := strconv.Itoa(shown) + " of " + strconv.Itoa(all)
	if marked > 0 {
		text += " · " + strconv.Itoa(marked) + " marked"
	}
	return text
}

// actions lists the next actions: number, label, tool and a write mark. A
// long list shows a window around the selection.
func (m *Model) actions(s *screen) []string {
	st := &m.styles
	acts := s.resp.NextActions
	if len(acts) == 0 {
		return nil
	}
	labelWidth := min(s.labelWidth, m.width/2)
	show := min(len(acts), max(3, m.height/4))
	first := max(0, min(s.cursor-show/2, len(acts)-show))
	lines := []string{st.sectionTitle.Render("Next actions")}
	for i := first; i < first+show; i++ {
		a := acts[i]
		number := " "
		if i < 9 {
			number = strconv.Itoa(i + 1)
		}
		line := number + "  " + fit(s.labels[i], labelWidth, false) + "  " + textsafe.SanitizeLine(clip(a.Tool, maxLineBytes))
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

// dialogLines asks for consent, naming the tool and what would be sent:
// the arguments of one call, or the count and the first rows of a batch.
func (m *Model) dialogLines(s *screen) []string {
	st := &m.styles
	d := m.dialog
	tool, calls, question := s.call.Tool, []api.Call{s.call}, "Send it again with confirm: true? [y/N]"
	if !d.resend {
		tool, calls, question = d.tool, d.calls, "Send it with confirm: true? [y/N]"
	}
	body := []string{st.writeBadge.Render(textsafe.SanitizeLine(tool)) + " changes your project and needs your consent."}
	if d.table == nil {
		args, err := json.Marshal(calls[0].Args)
		if err != nil {
			args = []byte(err.Error())
		}
		body = append(body, "args "+textsafe.SanitizeLine(string(args)))
	} else {
		n := strconv.Itoa(len(calls))
		body = append(body, n+" calls, one per marked row:")
		for _, name := range d.names[:min(len(d.names), maxDialogRows)] {
			body = append(body, "  "+textsafe.SanitizeLine(name))
		}
		if len(d.names) > maxDialogRows {
			body = append(body, "  … and "+strconv.Itoa(len(d.names)-maxDialogRows)+" more")
		}
		question = "Send all " + n + " with confirm: true? [y/N]"
	}
	body = append(body, question)
	inner := max(m.width-4, 20)
	for i, l := range body {
		body[i] = ansi.Truncate(l, inner, "…")
	}
	return strings.Split(st.dialog.Render(strings.Join(body, "\n")), "\n")
}

// maxDialogRows is how many rows a batch's dialog names.
const maxDialogRows = 3
