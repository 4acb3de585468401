package ui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// questionForm is a server's question (MCP elicitation, form mode) as a form.
type questionForm struct {
	form       *huh.Form
	message    []string // sanitized, at most maxMessageLines lines
	head       []string
	fields     []*formField
	pageStarts []int // the indexes of the fields that start a page
	accept     bool  // the answer to a question without fields.
	keys       questionKeys
	help       help.Model
	st         *styles
	// theme is read through themeFunc: huh keeps a field's first theme, so a restyle changes what it returns.
	theme  *huh.Styles
	width  int
	answer *mcp.ElicitResult // set once the person answered
}

type formField struct {
	api.ElicitField
	huh  huh.Field
	text string
	// choice indexes choices (or is noChoice); picks are a multi-select's.
	choices []any
	choice  int
	picks   []int
	offered int // lines of choices the field draws
}

// noChoice leaves an optional field out of the answer.
const noChoice = -1

// huh draws a page's every field and choice at each key, so a page is bounded,
// text is cut (saying so), and past maxFormFields a question is declined.
const (
	maxMessageLines = 6 // leaves the fields their room
	maxFormFields   = 32
	// a longer enum than fieldChoices is cut with "+N more".
	pageFields   = 6
	pageChoices  = 32
	fieldChoices = 24
	// maxTitleBytes bounds titles and labels.
	maxTitleBytes       = 80
	maxDescriptionBytes = 160
	maxDescriptionLines = 2
)

// CheckQuestion says why vq's form cannot ask e, nil when it can.
func CheckQuestion(e api.Elicitation) error {
	if len(e.Fields) > maxFormFields {
		return fmt.Errorf("it has %d fields, more than the %d a form asks", len(e.Fields), maxFormFields)
	}
	return nil
}

// Outcome is an answer's action as vq reports it.
func Outcome(action string) string {
	switch action {
	case api.ElicitAccept:
		return "accepted"
	case api.ElicitCancel:
		return "cancelled"
	}
	return "declined"
}

// QuestionLine is the message as one safe line; clipped before sanitizing so 20 MB costs what a short one does.
func QuestionLine(e api.Elicitation) string {
	return textsafe.Clip(textsafe.SanitizeLine(textsafe.Clip(e.Message, 4*maxTitleBytes)), maxTitleBytes)
}

// newQuestionForm builds the form of e, which CheckQuestion allowed.
func newQuestionForm(e api.Elicitation, st *styles) *questionForm {
	q := &questionForm{help: help.New(), theme: st.formTheme(), keys: questionKeys{
		Decline: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "decline")),
		Cancel:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel")),
	}}
	if msg := textsafe.Sanitize(textsafe.Clip(e.Message, maxMessageLines*textsafe.MaxLineBytes)); msg != "" {
		q.message = cutLines(strings.Split(msg, "\n"), maxMessageLines)
	}
	for _, f := range e.Fields {
		ff := &formField{ElicitField: f}
		ff.huh = ff.field(q.themeFunc())
		q.fields = append(q.fields, ff)
	}
	groups := q.pages()
	if len(groups) == 0 {
		q.accept = true
		accept := huh.NewConfirm()
		accept.WithTheme(q.themeFunc())
		groups = append(groups, huh.NewGroup(accept.Title("Accept?").Affirmative("Accept").Negative("Decline").Value(&q.accept)))
	}
	// esc and ctrl+c are the question's, so a select's filter is not offered.
	km := huh.NewDefaultKeyMap()
	km.Quit.SetEnabled(false)
	km.Select.Filter.SetEnabled(false)
	km.MultiSelect.Filter.SetEnabled(false)
	q.form = huh.NewForm(groups...).WithKeyMap(km).WithShowHelp(false)
	q.restyle(st)
	q.resize(defaultWidth, defaultHeight) // until the terminal tells its size
	return q
}

// pages groups the fields by at most pageFields fields and pageChoices choices.
func (q *questionForm) pages() []*huh.Group {
	var groups []*huh.Group
	var page []huh.Field
	choices := 0
	for i, f := range q.fields {
		if len(page) == pageFields || (len(page) > 0 && choices+f.offered > pageChoices) {
			groups = append(groups, huh.NewGroup(page...))
			page, choices = nil, 0
		}
		if len(page) == 0 {
			q.pageStarts = append(q.pageStarts, i)
		}
		page = append(page, f.huh)
		choices += f.offered
	}
	if len(page) > 0 {
		groups = append(groups, huh.NewGroup(page...))
	}
	return groups
}

func cutLines(lines []string, most int) []string {
	if len(lines) > most {
		lines = lines[:most]
		lines[most-1] += "…"
	}
	return lines
}

// field is the form's field for f: a select for an enum or boolean, else a checked text input.
func (f *formField) field(theme huh.Theme) huh.Field {
	title, desc := f.texts()
	values, labels, more := f.offers()
	if more != "" {
		desc = strings.TrimPrefix(desc+"\n"+more, "\n")
	}
	f.offered = len(values) + 1 // and "(no answer)", or the title of a multi-select
	if len(values) == 0 {
		f.text = textsafe.SanitizeLine(textsafe.Clip(defaultText(f.Default), textsafe.MaxLineBytes))
		input := huh.NewInput()
		input.WithTheme(theme)
		return input.Title(title).Description(desc).Placeholder(placeholders[f.Type]).
			Value(&f.text).Validate(func(s string) error { _, err := f.parse(s); return err })
	}
	if f.Type == "array" {
		return f.multiSelect(theme, title, desc, values, labels)
	}
	var options []huh.Option[int]
	f.choice = noChoice
	if !f.Required && f.Default == nil {
		options = append(options, huh.NewOption("(no answer)", noChoice))
	}
	for i, v := range values {
		value := any(v)
		if f.Type == "boolean" {
			value = v == "true"
		}
		if f.choice == noChoice && f.Default != nil && fmt.Sprint(f.Default) == v {
			f.choice = i
		}
		options = append(options, huh.NewOption(textsafe.SanitizeLine(textsafe.Clip(labels[i], maxTitleBytes)), i))
		f.choices = append(f.choices, value)
	}
	if f.choice == noChoice && f.Required {
		f.choice = 0
	}
	sel := huh.NewSelect[int]()
	sel.WithTheme(theme)
	return sel.Title(title).Description(desc).Options(options...).Value(&f.choice).
		Height(min(len(options), selectRows) + 1 + descriptionHeight(desc))
}

func (f *formField) texts() (title, desc string) {
	title = textsafe.SanitizeLine(textsafe.Clip(cmp.Or(f.Title, f.Name), maxTitleBytes))
	if f.Required {
		title += " (required)"
	}
	desc = textsafe.Sanitize(textsafe.Clip(f.Description, maxDescriptionBytes))
	if desc != "" {
		desc = strings.Join(cutLines(strings.Split(desc, "\n"), maxDescriptionLines), "\n")
	}
	return title, desc
}

// offers are the values a select offers and their labels; more counts those cut.
func (f *formField) offers() (values, labels []string, more string) {
	values, labels = f.Enum, f.EnumNames
	if f.Type == "boolean" {
		values, labels = []string{"true", "false"}, []string{"yes", "no"}
	}
	if len(labels) != len(values) {
		labels = values
	}
	if len(values) > fieldChoices {
		more = fmt.Sprintf("+%d more not offered (the server sent %d)", len(values)-fieldChoices, len(values))
		values, labels = values[:fieldChoices], labels[:fieldChoices]
	}
	return values, labels, more
}

func (f *formField) multiSelect(theme huh.Theme, title, desc string, values, labels []string) huh.Field {
	picked, _ := f.Default.([]any)
	options := make([]huh.Option[int], 0, len(values))
	for i, v := range values {
		on := slices.ContainsFunc(picked, func(d any) bool { return fmt.Sprint(d) == v })
		options = append(options, huh.NewOption(textsafe.SanitizeLine(textsafe.Clip(labels[i], maxTitleBytes)), i).Selected(on))
		f.choices = append(f.choices, v)
	}
	least := f.MinItems
	if least == nil && f.Required {
		one := 1
		least = &one
	}
	// huh counts the title and description within the height.
	height := min(len(values), selectRows) + 1 + descriptionHeight(desc)
	field := huh.NewMultiSelect[int]()
	field.WithTheme(theme)
	field.Title(title).Description(desc).Options(options...).Filterable(false).Height(height).Value(&f.picks).
		Validate(func(picks []int) error {
			return inBounds(float64(len(picks)), asFloat(least), asFloat(f.MaxItems), " picked")
		})
	if f.MaxItems != nil && *f.MaxItems > 0 {
		field.Limit(*f.MaxItems)
	}
	return field
}

// selectRows bounds a select's height: without one huh measures every choice at each key.
const selectRows = 10

func descriptionHeight(desc string) int {
	if desc == "" {
		return 0
	}
	return strings.Count(desc, "\n") + 1
}

var placeholders = map[string]string{"number": "a number", "integer": "a whole number"}

// defaultText is a default as the input shows it (numbers without exponent).
func defaultText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// parse is the value typed as the answer carries it, nil for an optional field left empty.
func (f *formField) parse(s string) (any, error) {
	trimmed := strings.TrimSpace(s)
	if trimmed == "" {
		if f.Required {
			return nil, errors.New("an answer is required")
		}
		return nil, nil
	}
	switch f.Type {
	case "number":
		v, err := strconv.ParseFloat(trimmed, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, errors.New("not a number")
		}
		return v, inBounds(v, f.Minimum, f.Maximum, "")
	case "integer":
		v, err := strconv.ParseInt(trimmed, 10, 64)
		if err != nil {
			return nil, errors.New("not a whole number")
		}
		return v, inBounds(float64(v), f.Minimum, f.Maximum, "")
	}
	return s, inBounds(float64(utf8.RuneCountInString(s)), asFloat(f.MinLength), asFloat(f.MaxLength), " characters")
}

func inBounds(v float64, least, most *float64, unit string) error {
	switch {
	case least != nil && v < *least:
		return errors.New("at least " + strconv.FormatFloat(*least, 'f', -1, 64) + unit)
	case most != nil && v > *most:
		return errors.New("at most " + strconv.FormatFloat(*most, 'f', -1, 64) + unit)
	}
	return nil
}

func asFloat(n *int) *float64 {
	if n == nil {
		return nil
	}
	v := float64(*n)
	return &v
}

// value is the field's answer, !ok when it is left out.
func (f *formField) value() (v any, ok bool) {
	if f.Type == "array" {
		picked := make([]any, 0, len(f.picks))
		for _, i := range slices.Sorted(slices.Values(f.picks)) {
			picked = append(picked, f.choices[i])
		}
		return picked, len(picked) > 0 || f.Required
	}
	if f.choices != nil {
		if f.choice == noChoice {
			return nil, false
		}
		return f.choices[f.choice], true
	}
	v, err := f.parse(f.text)
	return v, err == nil && v != nil
}

// restyle draws the form in st (a terminal's background became known).
func (q *questionForm) restyle(st *styles) {
	q.st = st
	q.help.Styles = st.help
	q.theme = st.formTheme()
	q.form.WithTheme(q.themeFunc())
	q.wrapHead()
}

func (q *questionForm) themeFunc() huh.Theme {
	return huh.ThemeFunc(func(bool) *huh.Styles { return q.theme })
}

// resize fits the form into width×height; a size of 0 (no terminal) keeps the one it has.
func (q *questionForm) resize(width, height int) {
	if width <= 0 || height <= 0 {
		return
	}
	q.width = width
	q.help.SetWidth(width)
	q.wrapHead()
	room := height - len(q.head) - 2 - 2 - 1
	if len(q.pageStarts) > 1 {
		room-- // the page line
	}
	q.form.Update(tea.WindowSizeMsg{Width: width, Height: max(room, 3)})
}

// update hands msg to the form, first taking esc and ctrl+c.
func (q *questionForm) update(msg tea.Msg) tea.Cmd {
	if q.answer != nil {
		return nil
	}
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, q.keys.Decline):
			q.answer = &mcp.ElicitResult{Action: api.ElicitDecline}
			return nil
		case key.Matches(k, q.keys.Cancel):
			q.answer = &mcp.ElicitResult{Action: api.ElicitCancel}
			return nil
		}
	}
	_, cmd := q.form.Update(msg)
	if q.form.State == huh.StateCompleted {
		q.answer = q.submitted()
		return nil
	}
	return cmd
}

func (q *questionForm) submitted() *mcp.ElicitResult {
	if len(q.fields) == 0 && !q.accept {
		return &mcp.ElicitResult{Action: api.ElicitDecline}
	}
	content := map[string]any{}
	for _, f := range q.fields {
		if v, ok := f.value(); ok {
			content[f.Name] = v
		}
	}
	return &mcp.ElicitResult{Action: api.ElicitAccept, Content: content}
}

// wrapHead wraps the title and message once per width and style, not per key.
func (q *questionForm) wrapHead() {
	lines := []string{q.st.writeBadge.Render("The server asks")}
	for _, l := range q.message {
		lines = append(lines, wrapLines(l, q.width, maxMessageLines)...)
	}
	q.head = append(lines[:min(len(lines), 1+maxMessageLines)], "")
}

// lines are the form's frame, no wider than the terminal.
func (q *questionForm) lines() []string {
	lines := append([]string{}, q.head...)
	if page := q.pageLine(); page != "" {
		lines = append(lines, q.st.dim.Render(page))
	}
	lines = append(lines, strings.Split(q.form.View(), "\n")...)
	lines = append(lines, "", q.help.ShortHelpView(q.ShortHelp()))
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, q.width, "…")
	}
	return lines
}

// pageLine says which page is in view, "" for a form of one page.
func (q *questionForm) pageLine() string {
	if len(q.pageStarts) < 2 {
		return ""
	}
	focused := slices.IndexFunc(q.fields, func(f *formField) bool { return f.huh == q.form.GetFocusedField() })
	page := 0
	for page+1 < len(q.pageStarts) && q.pageStarts[page+1] <= focused {
		page++
	}
	return fmt.Sprintf("page %d of %d (enter moves on, shift+tab back)", page+1, len(q.pageStarts))
}

// questionKeys are the two ways of not answering.
type questionKeys struct {
	Decline, Cancel key.Binding
}

// ShortHelp says how not to answer, then the focused field's keys.
func (q *questionForm) ShortHelp() []key.Binding {
	return append([]key.Binding{q.keys.Decline, q.keys.Cancel}, q.form.KeyBinds()...)
}

func (q *questionForm) FullHelp() [][]key.Binding { return [][]key.Binding{q.ShortHelp()} }

// Elicit asks a question inline on opts.Out (stderr: stdout stays the answer).
// ctx ending cancels; a form that cannot run declines.
func Elicit(ctx context.Context, opts Options, e api.Elicitation) mcp.ElicitResult {
	s := &questionSession{st: newStyles(true)}
	s.form = newQuestionForm(e, &s.st)
	if _, err := tea.NewProgram(s, opts.programOptions(ctx)...).Run(); err != nil && ctx.Err() == nil {
		return mcp.ElicitResult{Action: api.ElicitDecline}
	}
	if s.form.answer != nil {
		return *s.form.answer
	}
	return mcp.ElicitResult{Action: api.ElicitCancel}
}

type questionSession struct {
	form *questionForm
	st   styles
}

func (s *questionSession) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, s.form.form.Init())
}

func (s *questionSession) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.BackgroundColorMsg:
		s.st = newStyles(msg.IsDark())
		s.form.restyle(&s.st)
	case tea.WindowSizeMsg:
		s.form.resize(msg.Width, msg.Height)
		return s, nil
	}
	cmd := s.form.update(msg)
	if s.form.answer != nil {
		return s, tea.Quit
	}
	return s, cmd
}

// View is nothing once answered: the caller reports the answer.
func (s *questionSession) View() tea.View {
	if s.form.answer != nil {
		return tea.NewView("")
	}
	return tea.NewView(strings.Join(s.form.lines(), "\n"))
}
