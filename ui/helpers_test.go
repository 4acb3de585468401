package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
)

// received is one call the test server got.
type received struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// server is a VisualQ invoke endpoint answering from per-tool handlers
// (an unknown tool is not_found), recording every call it receives.
type server struct{ *testkit.Server }

// answer is a handler's reply: an HTTP status and a ToolResponse body.
type answer struct {
	status int
	body   any
}

func newServer(t testing.TB, tools map[string]func(args map[string]any) answer) *server {
	t.Helper()
	return &server{testkit.NewServer(t, func(c testkit.Call) testkit.Reply {
		if c.Path != "/api/mcp/v1/invoke" {
			return testkit.Answer(http.StatusNotFound, "404 page not found\n")
		}
		if c.Body == nil {
			return testkit.Answer(http.StatusBadRequest, "the body is not a JSON object\n")
		}
		h, ok := tools[c.Tool]
		if !ok {
			h = func(map[string]any) answer {
				return answer{404, failure(c.Tool, "not_found", "unknown tool", false)}
			}
		}
		a := h(c.Args)
		body, err := json.Marshal(a.body)
		if err != nil {
			t.Errorf("answer of %s: %v", c.Tool, err)
		}
		return testkit.Reply{Status: a.status, Header: map[string]string{"Content-Type": "application/json"}, Body: string(body) + "\n"}
	})}
}

func (s *server) received() []received {
	var calls []received
	for _, c := range s.Calls() {
		if c.Path == "/api/mcp/v1/invoke" && c.Body != nil {
			calls = append(calls, received{Tool: c.Tool, Args: c.Args})
		}
	}
	return calls
}

func (s *server) client() *api.Client {
	return api.New(api.Options{BaseURL: s.URL, APIKey: "test-key", NoRetry: true})
}

func success(tool, summary string, data any, next ...api.NextAction) map[string]any {
	if next == nil {
		next = []api.NextAction{}
	}
	return map[string]any{"ok": true, "tool": tool, "summary": summary, "data": data, "warnings": []string{}, "nextActions": next}
}

func failure(tool, code, message string, recoverable bool) map[string]any {
	return map[string]any{
		"ok": false, "tool": tool, "summary": message, "data": nil, "warnings": []string{}, "nextActions": []any{},
		"error": map[string]any{"code": code, "message": message}, "recoverable": recoverable,
	}
}

// failuresAnswer is get_run_failures with n failures and an inspect action
// for each of the first five.
func failuresAnswer(runID string, n int) map[string]any {
	failures := make([]map[string]any, n)
	var next []api.NextAction
	for i := range failures {
		label := fmt.Sprintf("Page %d", i+1)
		failures[i] = map[string]any{"scenarioLabel": label, "viewport": "desktop", "mismatchPercent": float64((i*37)%1000) / 100}
		if i < 5 {
			next = append(next, api.NextAction{Label: "Inspect " + label + " desktop", Tool: "get_diff_stats",
				Args: map[string]any{"runId": runID, "scenarioLabel": label, "viewport": "desktop"}})
		}
	}
	return success("get_run_failures", fmt.Sprintf("%d of %d checks failed.", n, n+10),
		map[string]any{"runId": runID, "failed": n, "total": n + 10, "failures": failures}, next...)
}

// diffAnswer is get_diff_stats; its image links point nowhere, as the
// tests that fetch images serve their own.
func diffAnswer(args map[string]any) map[string]any {
	run, label := args["runId"], args["scenarioLabel"]
	images := fmt.Sprintf("http://vq.test/images/%s/%s/", run, label)
	return success("get_diff_stats", fmt.Sprintf("%s on desktop: 4200 pixels changed (4.2%%).", label),
		map[string]any{
			"runId": run, "scenarioLabel": label, "viewport": "desktop", "changedPixels": 4200,
			"mismatchPercent": 4.2, "regions": []map[string]any{{"x": 10, "y": 20, "width": 300, "height": 40}},
			"baselineImageUrl": images + "baseline.png", "testImageUrl": images + "test.png", "diffImageUrl": images + "diff.png",
		},
		api.NextAction{Label: fmt.Sprintf("Approve %s desktop", label), Tool: "approve_vrt_results", Args: map[string]any{"runId": run, "scenarioLabel": label, "viewport": "desktop"}},
		api.NextAction{Label: fmt.Sprintf("Back to the failures of %s", run), Tool: "get_run_failures", Args: map[string]any{"runId": run}},
	)
}

// triageServer answers failures, diffs and a write tool that wants consent.
func triageServer(t testing.TB, failures int) *server {
	return newServer(t, map[string]func(map[string]any) answer{
		"get_run_failures": func(args map[string]any) answer {
			return answer{200, failuresAnswer(fmt.Sprint(args["runId"]), failures)}
		},
		"get_diff_stats": func(args map[string]any) answer { return answer{200, diffAnswer(args)} },
		"approve_vrt_results": func(args map[string]any) answer {
			if args["confirm"] != true {
				return answer{400, failure("approve_vrt_results", "confirm_required", "confirm must be true to execute write tool approve_vrt_results", true)}
			}
			return answer{200, success("approve_vrt_results", "Approved 1 check.", map[string]any{"approved": 1})}
		},
		"slow_tool": func(map[string]any) answer {
			r := failure("slow_tool", "rate_limit", "too many calls", true)
			r["retryAfterMs"] = 1500
			return answer{429, r}
		},
	})
}

// start calls the server for the first answer and builds the model on it,
// as Run does, at 80×24.
func start(t testing.TB, s *server, call api.Call) *Model {
	t.Helper()
	return startWith(t, s.client(), call)
}

// startWith is start with the calls sent by client.
func startWith(t testing.TB, client *api.Client, call api.Call) *Model {
	t.Helper()
	first, err := client.Invoke(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	m := startModel(t, Options{Invoke: client.Invoke, Getenv: func(string) string { return "" }}, call, first)
	update(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

// startModel builds the model as Run does on a person's terminal: the
// person is asked for consent in the session's dialog.
func startModel(t testing.TB, opts Options, call api.Call, first *api.ToolResponse) *Model {
	t.Helper()
	s := &session{sent: make(chan tea.Msg, 8)}
	// The session ends with the test, as Run's does when it quits: a
	// question still asked (a dialog the test left open) ends unanswered.
	t.Cleanup(s.asker.attach(s))
	opts.Asker = &s.asker
	opts.Consent = ConsentAsk
	m := newModel(context.Background(), opts, call, first)
	sessions.Store(m, s)
	t.Cleanup(func() { sessions.Delete(m) })
	drain(m, m.first)
	return m
}

// session plays the program around a model (see startModel): what its
// Asker brings in.
type session struct {
	asker Asker
	sent  chan tea.Msg
}

func (s *session) Send(msg tea.Msg) { s.sent <- msg }

// sessions are the sessions of the models startModel built.
var sessions sync.Map

func sessionOf(m *Model) *session {
	s, _ := sessions.Load(m)
	sess, _ := s.(*session)
	return sess
}

// update feeds one message and then runs the commands it returns, feeding
// their messages back, as the program would, until nothing is left.
// Spinner ticks are not fed (they only repeat), and a quit is reported.
func update(m *Model, msg tea.Msg) (quit bool) {
	_, cmd := m.Update(msg)
	return drain(m, cmd)
}

func drain(m *Model, cmd tea.Cmd) (quit bool) {
	if cmd == nil {
		return false
	}
	return handle(m, run(m, cmd))
}

func handle(m *Model, msg tea.Msg) (quit bool) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			quit = drain(m, c) || quit
		}
		return quit
	case tea.QuitMsg:
		return true
	case spinner.TickMsg, nil:
		return false
	default:
		return update(m, msg)
	}
}

// run runs cmd and returns its message; what the asker brings in
// meanwhile is fed as it comes.
func run(m *Model, cmd tea.Cmd) tea.Msg {
	s := sessionOf(m)
	if s == nil {
		return cmd()
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	return s.wait(m, done)
}

// wait is the message done brings; what the asker brings in meanwhile
// is fed as it comes.
func (s *session) wait(m *Model, done chan tea.Msg) tea.Msg {
	for {
		select {
		case msg := <-done:
			return msg
		case msg := <-s.sent:
			update(m, msg)
		}
	}
}

// press sends one key by the name help and key bindings use.
func press(m *Model, keys ...string) (quit bool) {
	for _, k := range keys {
		quit = update(m, keyMsg(k)) || quit
	}
	return quit
}

func keyMsg(k string) tea.KeyPressMsg {
	special := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "backspace": tea.KeyBackspace, "tab": tea.KeyTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"home": tea.KeyHome, "end": tea.KeyEnd,
	}
	if code, ok := special[k]; ok {
		return tea.KeyPressMsg{Code: code}
	}
	if k == "space" {
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	if k == "ctrl+c" {
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
}

// screenText is the frame as a NO_COLOR terminal shows it: the ASCII
// profile keeps bold, underline and reverse and drops colours.
func screenText(t *testing.T, m *Model) string {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.ASCII}
	if _, err := w.WriteString(m.View().Content); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// plainText is the frame without any escape sequence, for assertions.
func plainText(m *Model) string {
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.NoTTY}
	w.WriteString(m.View().Content) //nolint:errcheck
	return buf.String()
}

func mustContain(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("screen lacks %q:\n%s", w, text)
		}
	}
}

// dialogOf is the consent dialog in front, nil when there is none.
func dialogOf(m *Model) *confirmPage {
	d, _ := m.front().(*confirmPage)
	return d
}

// batchOf is the batch being sent, nil when there is none.
func batchOf(m *Model) *batchPage {
	b, _ := m.front().(*batchPage)
	return b
}
