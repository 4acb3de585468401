package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
)

// loadingModel opens the TUI before the first answer, as Run does with
// no first response, at 80×24.
func loadingModel(t *testing.T, invoke func(context.Context, api.Call) (*api.ToolResponse, error)) *Model {
	t.Helper()
	m := newModel(context.Background(), Options{Invoke: invoke, Getenv: func(string) string { return "" }}, failuresCall, nil)
	update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

// TestFirstFrameIsASpinner: the first frame, before any answer, names the
// call with a spinner and the keys that work; the answer then opens the
// screen, at the same frame height.
func TestFirstFrameIsASpinner(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 3)
	m := loadingModel(t, s.client().Invoke)
	text := plainText(m)
	mustContain(t, text, "get_run_failures", "calling get_run_failures…", "esc cancel", "q quit")
	if n := len(s.received()); n != 0 {
		t.Fatalf("%d calls before Init", n)
	}
	before := strings.Count(m.View().Content, "\n")

	press(m, "j")
	mustContain(t, plainText(m), "(j ignored until the answer; esc cancels)")

	drain(m, m.Init())
	if calls := s.received(); len(calls) != 1 || calls[0].Tool != "get_run_failures" {
		t.Fatalf("calls = %+v, want the first call once", calls)
	}
	text = plainText(m)
	mustContain(t, text, "✗ 3 of 13 checks failed", "failures (3)")
	if strings.Contains(text, "calling") || strings.Contains(text, "ignored until") {
		t.Errorf("the spinner or the note stayed:\n%s", text)
	}
	if after := strings.Count(m.View().Content, "\n"); after != before {
		t.Errorf("the frame went from %d to %d lines", before+1, after+1)
	}
}

// TestFirstAnswerWithNothingToDoIsPrintedAfter: an answer without next
// actions ends the session at once, its frame left empty for Run to print
// the answer whole, as it does for a first answer it was given.
func TestFirstAnswerWithNothingToDoIsPrintedAfter(t *testing.T) {
	t.Parallel()
	resp := failuresResponse(t)
	resp.NextActions = nil
	m := loadingModel(t, func(context.Context, api.Call) (*api.ToolResponse, error) { return resp, nil })
	if quit := drain(m, m.Init()); !quit || !m.printAfter {
		t.Fatalf("quit %v, printAfter %v; want both", quit, m.printAfter)
	}
	if v := m.View().Content; v != "" {
		t.Errorf("final frame %q, want none", v)
	}
}

// TestFirstCallGivenUpOrFailed: esc or q before the answer cancels the
// call and ends the session as interrupted; an error ends it with that
// error.
func TestFirstCallGivenUpOrFailed(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"esc", "q", "ctrl+c"} {
		var sent context.Context
		m := loadingModel(t, func(ctx context.Context, _ api.Call) (*api.ToolResponse, error) { sent = ctx; return nil, ctx.Err() })
		init := m.Init()
		if quit := press(m, k); !quit || !errors.Is(m.firstErr, context.Canceled) {
			t.Errorf("%s: quit %v, firstErr %v", k, quit, m.firstErr)
		}
		drain(m, init) // the call's goroutine finds its context cancelled
		if sent == nil || sent.Err() == nil {
			t.Errorf("%s: the call's context is not cancelled", k)
		}
		if v := m.View().Content; v != "" {
			t.Errorf("%s: final frame %q, want none", k, v)
		}
	}

	boom := errors.New("connection refused")
	m := loadingModel(t, func(context.Context, api.Call) (*api.ToolResponse, error) { return nil, boom })
	if quit := drain(m, m.Init()); !quit || !errors.Is(m.firstErr, boom) {
		t.Errorf("failed call: quit %v, firstErr %v", quit, m.firstErr)
	}
}

// TestKeysWhileACallIsOutAreNamed: a key that does nothing while a
// chained call is out says so on the spinner line, until the answer.
func TestKeysWhileACallIsOutAreNamed(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 3)
	m := start(t, s, failuresCall)
	_, cmd := m.Update(keyMsg("enter")) // sent, not yet answered
	m.Update(keyMsg("j"))
	mustContain(t, plainText(m), "calling get_diff_stats…", "(j ignored until the answer; esc cancels)")
	drain(m, cmd)
	if text := plainText(m); strings.Contains(text, "ignored until") {
		t.Errorf("the note outlived the call:\n%s", text)
	}
}

// What vq tells of a call in flight (a sign-in again inside it) is shown
// under the call, sanitized, instead of written over the frame on stderr;
// the answer takes it away.
func TestNoticeOfTheCallInFlightIsShownUnderIt(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 3)
	m := loadingModel(t, s.client().Invoke)
	update(m, noticeMsg("https://mcp.example.com needs the scope mcp:write: signing in again.\nOpen this URL:\n  https://auth.example.com/authorize?x=1\x1b]0;owned\a"))
	text := plainText(m)
	mustContain(t, text, "calling get_run_failures…", "signing in again.", "Open this URL:", "https://auth.example.com/authorize?x=1")
	if strings.Contains(m.View().Content, "\x1b]0;") {
		t.Errorf("the notice's escape reached the terminal:\n%q", m.View().Content)
	}
	drain(m, m.Init())
	if text := plainText(m); strings.Contains(text, "signing in again") {
		t.Errorf("the notice outlived its call:\n%s", text)
	}
}
