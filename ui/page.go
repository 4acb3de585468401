package ui

import (
	"slices"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// A page is one screen on the root's stack: answerPage, and over it confirmPage, filterPage,
// batchPage, and questionPage in front of all. Keys go to the page in front, other messages
// to the pages in view after the root took its part. docs/recipes.md says how to add one.
type page interface {
	help.KeyMap
	Init() tea.Cmd              // the first command, run as it opens
	Update(msg tea.Msg) tea.Cmd // a message the root routed to it
	View() []string             // its frame, which the root fits to the terminal
}

// An overlay is a page drawn in a part of the foot of the answer beneath it.
type overlay interface {
	page
	part() (footPart, []string)
}

// footPart is a part of an answer's foot that an overlay draws instead.
type footPart int

const (
	actionsPart  footPart = iota // the next actions: the consent dialog
	filterPart                   // the filter's line: the filter typed
	activityPart                 // the call in flight or status line: a batch's count
)

// ender is a page holding something running, which end stops when the session ends.
type ender interface {
	end()
}

// push opens p in front, beneath the server's questions, and returns its first command.
func (m *Model) push(p page) tea.Cmd {
	i := len(m.stack)
	if _, asking := m.front().(*questionPage); asking {
		i-- // there is one question page: p is another page
	}
	m.stack = slices.Insert(m.stack, i, p)
	return p.Init()
}

func (m *Model) close(p page) {
	if i := slices.Index(m.stack, p); i >= 0 {
		m.stack = slices.Delete(m.stack, i, i+1)
	}
}

func (m *Model) replace(old, p page) {
	if i := slices.Index(m.stack, old); i >= 0 {
		m.stack[i] = p
	}
}

// front is the page the keys go to; nil while the stack is empty.
func (m *Model) front() page {
	if len(m.stack) == 0 {
		return nil
	}
	return m.stack[len(m.stack)-1]
}

// top is the topmost answer page, nil before the first answer.
func (m *Model) top() *answerPage {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if a, ok := m.stack[i].(*answerPage); ok {
			return a
		}
	}
	return nil
}

// answers are the answer pages, bottom first: the breadcrumb's chain.
func (m *Model) answers() []*answerPage {
	answers := make([]*answerPage, 0, len(m.stack))
	for _, p := range m.stack {
		if a, ok := p.(*answerPage); ok {
			answers = append(answers, a)
		}
	}
	return answers
}

// chained reports whether an answer lies beneath a: Esc goes back to it.
func (m *Model) chained(a *answerPage) bool {
	for _, p := range m.stack {
		if p == page(a) {
			return false
		}
		if _, ok := p.(*answerPage); ok {
			return true
		}
	}
	return false
}

// pagesInView are the pages from the front back to the answer in view.
func (m *Model) pagesInView() []page {
	var pages []page
	for i := len(m.stack) - 1; i >= 0; i-- {
		pages = append(pages, m.stack[i])
		if _, ok := m.stack[i].(*answerPage); ok {
			break
		}
	}
	return pages
}

// overlayOn is the overlay open over answer a, nil when there is none.
func (m *Model) overlayOn(a *answerPage) overlay {
	i := slices.Index(m.stack, page(a))
	if i < 0 || i+1 >= len(m.stack) {
		return nil
	}
	o, _ := m.stack[i+1].(overlay)
	return o
}
