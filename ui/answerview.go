package ui

import (
	"slices"
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

// lines are the screen's lines for a frame of that height (0: no limit,
// the one-shot print of a screen with nothing to act on).
func (s *answerPage) lines(height int) []string {
	head, foot := s.head(), s.foot()
	lines := append([]string{}, head...)
	if pane := s.paneFor(head, foot, height); pane > 0 {
		lines = append(lines, "")
		lines = append(lines, s.pane(pane)...)
	}
	if s.footGap(foot) {
		lines = append(lines, "")
	}
	return append(lines, foot...)
}

// pageSize is how many content lines the data pane shows in the current
// frame: the unit of scrolling.
func (s *answerPage) pageSize() int {
	rows := contentRows(s.lineCount(), s.paneFor(s.head(), s.foot(), s.m.height))
	_, _, content := s.window(rows)
	return max(content, 1)
}

// window is what a pane of rows lines shows from the screen's offset: the
// first line, how many content lines, and the header of the table the view
// starts inside (drawn above them, taking one of the rows) when the view
// starts below that header.
func (s *answerPage) window(rows int) (header string, first, content int) {
	total := s.lineCount()
	first = max(0, min(s.offset, total-rows))
	if s.view != viewData || rows < 2 {
		return "", first, rows
	}
	if _, sticky := s.data.stickyHeader(first, &s.m.styles, s.m.width); !sticky {
		return "", first, rows
	}
	content = rows - 1
	first = max(0, min(s.offset, total-content))
	if s.offset >= total-rows {
		first = max(0, total-content) // scrolled to the end: keep the last line in view
	}
	header, sticky := s.data.stickyHeader(first, &s.m.styles, s.m.width)
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
func (s *answerPage) paneFor(head, foot []string, height int) int {
	n := s.lineCount()
	if height <= 0 || n == 0 {
		return n
	}
	room := height - 1 - len(head) - 1 - len(foot)
	if s.footGap(foot) {
		room--
	}
	return min(n, max(room, 1))
}

// footGap reports the blank line between the data and the foot: not
// while rows have the focus, whose folded action line is separation
// enough, so that 80×24 keeps ten rows in view.
func (s *answerPage) footGap(foot []string) bool {
	return len(foot) > 0 && !s.foldActions()
}

// head is the breadcrumb, the badge line, the summary, warnings and, for a
// failure, the error with its exit code.
func (s *answerPage) head() []string {
	st := &s.m.styles
	lines := []string{s.m.headerLine(s.m.breadcrumb())}
	r := s.resp
	badge := st.okBadge.Render("✓ ok")
	if !r.OK {
		badge = st.errBadge.Render("✗ error")
	}
	lines = append(lines, badge+"  "+st.tool.Render(textsafe.SanitizeLine(clip(r.Tool, maxLineBytes))))
	if layout.ShowsSummary(r.OK, r.Summary, r.ErrorMessage()) {
		lines = append(lines, s.wrap(textsafe.Sanitize(clip(r.Summary, maxSummaryLines*maxLineBytes)))...)
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
		lines = append(lines, s.wrap(st.errorCode.Render(code)+": "+textsafe.Sanitize(clip(r.ErrorMessage(), maxSummaryLines*maxLineBytes)))...)
		exit := exitcode.RecoverableText(r.IsRecoverable()) + " · vq exits " + strconv.Itoa(exitcode.ForCode(r.ErrorCode(), r.IsRecoverable()))
		if origin := r.Failure.Origin; origin != "" {
			exit += " · " + textsafe.SanitizeLine(clip(strings.Trim(origin, "()"), maxLineBytes))
		}
		lines = append(lines, s.wrap(st.dim.Render(exit))...)
		if r.ErrorCode() == api.CodeRateLimit && r.RetryAfterMs > 0 {
			wait := time.Duration(r.RetryAfterMs) * time.Millisecond
			lines = append(lines, st.warning.Render("rate limited: wait "+wait.String()+" before calling again (r re-runs)"))
		}
	}
	return lines
}

// wrap breaks text to the width, keeping at most maxSummaryLines.
func (s *answerPage) wrap(text string) []string { return wrapLines(text, s.m.width, maxSummaryLines) }

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

// headerLine is the first line of a frame: left, and the server at the
// right when the width leaves room for both.
func (m *Model) headerLine(left string) string {
	gap := m.width - ansi.StringWidth(left) - textsafe.DisplayWidth(m.server)
	if m.server == "" || gap < 2 {
		return left
	}
	return left + strings.Repeat(" ", gap) + m.styles.dim.Render(m.server)
}

// breadcrumb is the chain of screens, cut from the left when it is too long
// so that the current screen always shows.
func (m *Model) breadcrumb() string {
	st := &m.styles
	sep := " › "
	parts := make([]string, 0, 4)
	width := 0
	for i := len(m.stack) - 1; i >= 0; i-- {
		a, ok := m.stack[i].(*answerPage)
		if !ok {
			continue
		}
		if len(parts) == 0 {
			parts, width = append(parts, st.crumbCurrent.Render(a.crumb)), textsafe.DisplayWidth(a.crumb)
			continue
		}
		w := textsafe.DisplayWidth(a.crumb) + len(sep)
		if width+w > m.width-2 {
			parts = append(parts, st.crumb.Render("…"))
			break
		}
		width += w
		parts = append(parts, st.crumb.Render(a.crumb))
	}
	slices.Reverse(parts)
	return strings.Join(parts, st.crumb.Render(sep))
}

// pane draws height lines of the data (or of the raw JSON) from the
// screen's offset: only these lines are ever rendered. When the content is
// longer, the last line says where the view is, in table rows when it
// shows a table.
func (s *answerPage) pane(height int) []string {
	st := &s.m.styles
	width := s.m.width
	total := s.lineCount()
	rows := contentRows(total, height)
	header, first, content := s.window(rows)
	lines := make([]string, 0, height)
	if header != "" {
		lines = append(lines, header)
	}
	selected := -1
	if s.rowMode() && !s.m.done && s.selRow() >= 0 {
		selected = s.data.rowLine(s.sec, s.pos)
	}
	gutter := func(t *table, pos int) string { return s.gutter(t, pos, false) }
	for i := first; i < first+content && i < total; i++ {
		switch {
		case s.view == viewRaw:
			lines = append(lines, textsafe.SanitizeLine(clip(s.raw[i], maxLineBytes)))
		case s.view == viewWarnings:
			lines = append(lines, st.warning.Render("⚠ "+textsafe.SanitizeLine(clip(s.resp.Warnings[i], maxLineBytes))))
		case i == selected:
			sc := s.data.sections[s.sec]
			line := sc.t.line(s.pos, st, width, s.gutter(sc.t, s.pos, true))
			lines = append(lines, st.selected.Render(ansi.Strip(line)))
		default:
			lines = append(lines, s.data.line(i, st, width, gutter))
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
func position(s *answerPage, first, end int) string {
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
func (s *answerPage) gutter(t *table, pos int, selected bool) string {
	if !t.actionable() {
		return ""
	}
	r := t.row(pos)
	g := []rune("   ")
	if selected {
		g[0] = '›'
	}
	if t.marked[r] && !s.m.done {
		g[1] = '●'
	}
	switch s.m.rowState(t, r) {
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
func (s *answerPage) foot() []string { return s.footLines(s.foldActions()) }

// minRows is how many table rows a frame keeps in view when it can: the
// next actions fold into one line rather than leave fewer.
const minRows = 10

// foldActions reports whether the next actions fold into one line: while
// rows have the focus and listing them would leave fewer than minRows
// rows in view (80×24 keeps ten).
func (s *answerPage) foldActions() bool {
	m := s.m
	if !s.rowMode() || m.done || len(s.resp.NextActions) == 0 || m.height <= 0 {
		return false
	}
	room := m.height - 1 - len(s.head()) - 2 - len(s.footLines(false))
	if room >= s.lineCount() {
		return false
	}
	before := s.data.sections[s.sec].header + 1 - s.offset // lines above the rows
	return room-1-max(before, 1) < minRows
}

// footLines are the foot's parts in order; the overlay open over the
// answer draws its own part (page.go), and the help line is the keys of
// whatever takes them.
func (s *answerPage) footLines(fold bool) []string {
	over := s.m.overlayOn(s)
	part, drawn := footPart(-1), []string(nil)
	if over != nil {
		part, drawn = over.part()
	}
	lines := s.imageLines()
	switch {
	case part == actionsPart:
		lines = append(lines, drawn...)
	case fold:
		lines = append(lines, s.m.styles.dim.Render(strconv.Itoa(len(s.resp.NextActions))+" next actions (tab shows them)"))
	default:
		lines = append(lines, s.actions()...)
	}
	if s.m.done {
		return lines
	}
	if part == filterPart {
		lines = append(lines, drawn...)
	} else if s.filter != "" {
		lines = append(lines, s.m.styles.dim.Render("filter "+strconv.Quote(s.filter)+": "+s.filterCount()))
	}
	activity := drawn
	if part != activityPart {
		activity = s.m.activityLines()
	}
	lines = append(lines, s.withMarks(activity)...)
	var keys help.KeyMap = s.keys()
	switch {
	case over != nil:
		keys = over
	case s.m.pending != nil:
		keys = s.m.callKeys()
	}
	// The full help (?) is several lines: each counts toward the frame.
	return append(lines, strings.Split(s.m.help.View(keys), "\n")...)
}

// imageLines are the shown screenshot's preview and its whole link,
// wrapped: a person can always read or select it, whatever the data pane
// scrolled to.
func (s *answerPage) imageLines() []string {
	cur, ok := s.shownShot()
	if !ok {
		return nil
	}
	lines := append([]string{}, s.shots.preview...)
	if !s.m.done {
		st := &s.m.styles
		keys := "o opens it, y copies it"
		if shots := s.images.shots(); len(shots) > 1 {
			keys += ", i shows the " + shots[(s.shots.shown+1)%len(shots)].name
		}
		lines = append(lines, st.fieldKey.Render(cur.name+" image")+st.dim.Render("  ("+keys+")"))
		lines = append(lines, strings.Split(ansi.Hardwrap(clip(cur.link, maxLineBytes), max(s.m.width-1, 20), false), "\n")...)
	}
	return lines
}

// activityLines are the call in flight, else the last batch's report,
// else the status line.
func (m *Model) activityLines() []string {
	switch {
	case m.pending != nil:
		return append([]string{m.callingLine()}, m.pendingNote()...)
	case len(m.report) > 0:
		lines := make([]string, 0, len(m.report))
		for _, l := range m.report {
			lines = append(lines, m.styles.dim.Render(clip(l, maxLineBytes)))
		}
		return lines
	case m.status != "":
		return []string{m.styles.dim.Render(clip(m.status, maxLineBytes))}
	}
	return nil
}

// withMarks puts the count of the marks before the first of the
// activity lines (the status line, the call in flight, a batch's
// progress), or on a line of its own: whenever rows are marked, the foot
// says how many.
func (s *answerPage) withMarks(activity []string) []string {
	note := s.marksNote()
	if note == "" {
		return activity
	}
	st := &s.m.styles
	if len(activity) == 0 {
		return []string{st.dim.Render(note)}
	}
	lines := append([]string{st.dim.Render(note+" · ") + activity[0]}, activity[1:]...)
	return lines
}

// filterCount is how many rows the filter shows: "12 of 350", summed
// over the screen's tables.
func (s *answerPage) filterCount() string {
	shown, all := 0, 0
	for _, t := range s.data.tables {
		shown += t.len()
		all += len(t.t.Rows)
	}
	return strconv.Itoa(shown) + " of " + strconv.Itoa(all)
}

// actions lists the next actions: number, label, tool and a write mark. A
// long list shows a window around the selection.
func (s *answerPage) actions() []string {
	m := s.m
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
