package ui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// maxSummaryLines and maxWarnings keep the data its room (the rest counted).
const maxSummaryLines, maxWarnings = 3, 3

// lines are the screen's lines for a frame of that height (0: no limit).
func (s *answerPage) lines(height int) []string {
	head, foot := s.head(), s.foot()
	lines := append([]string{}, head...)
	if pane := s.paneFor(head, foot, height); pane > 0 {
		lines = append(lines, "")
		lines = append(lines, s.beside(s.pane(pane))...)
	}
	if s.footGap(foot) {
		lines = append(lines, "")
	}
	return append(lines, foot...)
}

func (s *answerPage) pageSize() int {
	rows := contentRows(s.lineCount(), s.paneFor(s.head(), s.foot(), s.m.height))
	_, _, content := s.window(rows)
	return max(content, 1)
}

// window is what a pane of rows lines shows, with the sticky header of the table it starts in.
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

// contentRows is the pane's content height; longer content gives a line to the position.
func contentRows(total, height int) int {
	if total > height && height > 1 {
		return height - 1
	}
	return height
}

// paneFor is what head and foot leave of height, one line kept free, at least one.
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

// footGap reports the blank above the foot: not over folded actions (80×24 keeps ten rows).
func (s *answerPage) footGap(foot []string) bool {
	return len(foot) > 0 && !s.foldActions()
}

// head is the answer in words first (a run's verdict, else the summary, by ok), the chain of screens
// when there is one, then the rest: the tool's name only on an error's detail line (v shows it always).
func (s *answerPage) head() []string {
	st := &s.m.styles
	r := s.resp
	badge := st.okBadge
	if !s.good {
		badge = st.errBadge
	}
	lines := []string{s.m.headerLine(badge.Render(textsafe.SanitizeLine(textsafe.Clip(s.headline, textsafe.MaxLineBytes))))}
	if crumbs := s.m.breadcrumb(); crumbs != "" {
		lines = append(lines, crumbs)
	}
	if s.rest != "" {
		lines = append(lines, s.wrap(textsafe.Sanitize(textsafe.Clip(s.rest, maxSummaryLines*textsafe.MaxLineBytes)))...)
	}
	for i, w := range r.Warnings {
		if i == maxWarnings-1 && len(r.Warnings) > maxWarnings {
			lines = append(lines, st.warning.Render("⚠ +"+strconv.Itoa(len(r.Warnings)-i)+" more warnings (w shows them all)"))
			break
		}
		lines = append(lines, st.warning.Render("⚠ warning: "+textsafe.SanitizeLine(textsafe.Clip(w, textsafe.MaxLineBytes))))
	}
	if !r.OK {
		code := textsafe.SanitizeLine(textsafe.Clip(r.ErrorCode(), textsafe.MaxLineBytes))
		if r.ShowsSummary() {
			lines = append(lines, s.wrap(textsafe.Sanitize(textsafe.Clip(r.ErrorMessage(), maxSummaryLines*textsafe.MaxLineBytes)))...)
		}
		exit := " · " + exitcode.RecoverableText(r.IsRecoverable()) + " · vq exits " + strconv.Itoa(exitcode.ForCode(r.ErrorCode(), r.IsRecoverable()))
		if origin := r.Failure.Origin; origin != "" {
			exit += " · " + textsafe.SanitizeLine(textsafe.Clip(strings.Trim(origin, "()"), textsafe.MaxLineBytes))
		}
		exit += " · " + textsafe.SanitizeLine(textsafe.Clip(r.Tool, textsafe.MaxLineBytes))
		lines = append(lines, s.wrap(st.errorCode.Render(code)+st.dim.Render(exit))...)
		if r.ErrorCode() == api.CodeRateLimit && r.RetryAfterMs > 0 {
			wait := time.Duration(r.RetryAfterMs) * time.Millisecond
			lines = append(lines, st.warning.Render("rate limited: wait "+wait.String()+" before calling again (r re-runs)"))
		}
	}
	return lines
}

func (s *answerPage) wrap(text string) []string { return wrapLines(text, s.m.width, maxSummaryLines) }

// wrapLines breaks text to width, keeping at most most lines (see cutLines).
func wrapLines(text string, width, most int) []string {
	lines := strings.Split(ansi.Wrap(text, width, ""), "\n")
	if len(lines) > most {
		lines = lines[:most]
		lines[most-1] = ansi.Truncate(lines[most-1], width-1, "") + "…"
	}
	return lines
}

func (m *Model) headerLine(left string) string {
	gap := m.width - ansi.StringWidth(left) - textsafe.DisplayWidth(m.server)
	if m.server == "" || gap < 2 {
		return left
	}
	return left + strings.Repeat(" ", gap) + m.styles.dim.Render(m.server)
}

// breadcrumb is the chain of screens, cut from the left so the current one shows; "" for one screen.
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
	if len(parts) < 2 {
		return ""
	}
	slices.Reverse(parts)
	return strings.Join(parts, st.crumb.Render(sep))
}

// pane draws only the height lines of the data (or JSON) in view.
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
			lines = append(lines, textsafe.SanitizeLine(textsafe.Clip(s.raw[i], textsafe.MaxLineBytes)))
		case s.view == viewWarnings:
			lines = append(lines, st.warning.Render("⚠ "+textsafe.SanitizeLine(textsafe.Clip(s.resp.Warnings[i], textsafe.MaxLineBytes))))
		case i == selected:
			sc := s.data.sections[s.sec]
			line := sc.t.Line(s.pos, st.table, width, s.gutter(sc.t, s.pos, true))
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

func position(s *answerPage, first, end int) string {
	if s.view == viewData {
		if sec, last, ok := s.data.rowAt(end - 1); ok {
			from := 0
			if fsec, fpos, ok := s.data.rowAt(first); ok && fsec == sec {
				from = fpos
			}
			return "rows " + strconv.Itoa(from+1) + "–" + strconv.Itoa(last+1) + " of " + strconv.Itoa(s.data.sections[sec].t.Len())
		}
	}
	return "lines " + strconv.Itoa(first+1) + "–" + strconv.Itoa(end) + " of " + strconv.Itoa(s.lineCount())
}

func (s *answerPage) gutter(t *table, pos int, selected bool) string {
	if !t.actionable() {
		return ""
	}
	r := t.Row(pos)
	g := []rune("   ")
	if selected {
		g[0] = '›'
	}
	if t.Marked[r] && !s.m.done {
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

func (s *answerPage) foot() []string { return s.footLines(s.foldActions()) }

const minRows = 10

// foldActions reports whether listing the actions would leave fewer than minRows rows.
func (s *answerPage) foldActions() bool {
	m := s.m
	if !s.rowMode() || m.done || len(s.listed) == 0 || m.height <= 0 {
		return false
	}
	room := m.height - 1 - len(s.head()) - 2 - len(s.footLines(false))
	if room >= s.lineCount() {
		return false
	}
	before := s.data.sections[s.sec].header + 1 - s.offset // lines above the rows
	return room-1-max(before, 1) < minRows
}

// footLines are the foot's parts in order; an open overlay draws its own.
func (s *answerPage) footLines(fold bool) []string {
	over := s.m.overlayOn(s)
	part, drawn := footPart(-1), []string(nil)
	if over != nil {
		part, drawn = over.part()
	}
	lines := s.shots.View(s.m.done, s.m.width, s.m.styles.image)
	switch {
	case part == actionsPart:
		lines = append(lines, drawn...)
	case fold:
		lines = append(lines, s.actions.Folded(s.m.styles.actions))
	default:
		lines = append(lines, s.actions.View(s.m.styles.actions, s.m.width, s.m.height, s.focus == focusActions, s.m.done)...)
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
	return append(lines, s.m.keybar.View(keys)...)
}

// activityLines are the call in flight, else the batch report, else the status.
func (m *Model) activityLines() []string {
	switch {
	case m.pending != nil:
		return append([]string{m.callingLine()}, m.pendingNote()...)
	case len(m.report) > 0:
		lines := make([]string, 0, len(m.report))
		for _, l := range m.report {
			lines = append(lines, m.styles.dim.Render(textsafe.Clip(l, textsafe.MaxLineBytes)))
		}
		return lines
	case m.status != "":
		return []string{m.styles.dim.Render(textsafe.Clip(m.status, textsafe.MaxLineBytes))}
	}
	return nil
}

func (s *answerPage) withMarks(activity []string) []string {
	note := s.marksNote()
	if note == "" {
		return activity
	}
	st := &s.m.styles
	if len(activity) == 0 {
		return []string{st.dim.Render(note)}
	}
	return append([]string{st.dim.Render(note+" · ") + activity[0]}, activity[1:]...)
}

func (s *answerPage) filterCount() string {
	shown := 0
	for _, t := range s.data.tables {
		shown += t.Len()
	}
	return strconv.Itoa(shown) + " of " + strconv.Itoa(s.data.rows())
}
