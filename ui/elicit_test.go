package ui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// cmdDeadline bounds the form driver's wait for one command. The form's
// own commands (moving between fields, submitting) answer at once: only a
// command that blocks, which the driver should have left out, reaches it.
const cmdDeadline = 30 * time.Second

// pressInForm feeds keys to q as a program would, running the commands it
// returns (the form moves between fields through them) and feeding their
// messages back.
func pressInForm(q *questionForm, keys ...string) {
	for _, k := range keys {
		settle(q.update, q.update(keyMsg(k)))
	}
}

// settle runs cmd and feeds its messages to update, and theirs, until
// none is left.
func settle(update func(tea.Msg) tea.Cmd, cmd tea.Cmd) {
	for _, msg := range runCmds(cmd) {
		settle(update, update(msg))
	}
}

// modelUpdate is m's Update as settle takes it.
func modelUpdate(m *Model) func(tea.Msg) tea.Cmd {
	return func(msg tea.Msg) tea.Cmd {
		_, cmd := m.Update(msg)
		return cmd
	}
}

// runCmds runs cmds at once and collects their messages in order, those
// of batches included. The cursor's blink is left out, by the package its
// command comes from: a timer, whose message would only start the next.
// Which commands run is decided by what they are, never by how soon they
// answer, so a loaded machine cannot drop the form's own.
func runCmds(cmds ...tea.Cmd) []tea.Msg {
	results := make([]chan tea.Msg, len(cmds))
	for i, cmd := range cmds {
		if cmd != nil && !strings.HasPrefix(cmdName(cmd), "charm.land/bubbles/v2/cursor.") {
			results[i] = make(chan tea.Msg, 1)
			go func() { results[i] <- cmd() }()
		}
	}
	deadline := time.NewTimer(cmdDeadline)
	defer deadline.Stop()
	var msgs []tea.Msg
	for i, ch := range results {
		if ch == nil {
			continue
		}
		var msg tea.Msg
		select {
		case msg = <-ch:
		case <-deadline.C:
			panic(fmt.Sprintf("the command %s blocks: leave it out of runCmds", cmdName(cmds[i])))
		}
		if batch, ok := msg.(tea.BatchMsg); ok {
			msgs = append(msgs, runCmds(batch...)...)
		} else if msg != nil {
			msgs = append(msgs, msg)
		}
	}
	return msgs
}

// cmdName is the name of cmd's function, its package's path first.
func cmdName(cmd tea.Cmd) string {
	return runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()).Name()
}

func formText(q *questionForm) string {
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.NoTTY}
	w.WriteString(strings.Join(q.lines(), "\n")) //nolint:errcheck
	return buf.String()
}

// signup is a question of every kind of field.
var signup = api.Elicitation{Message: "Tell us about the run", Fields: []api.ElicitField{
	{Name: "colour", Title: "Colour", Type: "string", Required: true, Enum: []string{"r", "g", "b"}, EnumNames: []string{"Red", "Green", "Blue"}},
	{Name: "count", Type: "integer", Default: float64(3)},
	{Name: "name", Title: "Your name", Description: "as on your badge", Type: "string", Required: true},
	{Name: "ratio", Type: "number"},
	{Name: "notify", Type: "boolean"},
}}

// openForm builds the form of e and opens it, its first field focused.
func openForm(e api.Elicitation) *questionForm {
	st := newStyles(true)
	q := newQuestionForm(e, &st)
	settle(q.update, q.form.Init())
	return q
}

func newSignup() *questionForm { return openForm(signup) }

// Every kind of field, answered with the keys a person presses: the
// values come back typed as the schema says, the defaults kept.
func TestQuestionIsAnsweredWithTypedValues(t *testing.T) {
	t.Parallel()
	q := newSignup()
	mustContain(t, formText(q), "The server asks", "Tell us about the run", "Colour (required)", "Red", "Green", "count", "Your name (required)", "as on your badge",
		"esc decline", "ctrl+c cancel")
	pressInForm(q, "down", "enter") // Green
	pressInForm(q, "enter")         // count keeps its default
	pressInForm(q, "A", "d", "a", "enter")
	pressInForm(q, "0", ".", "5", "enter")
	pressInForm(q, "down", "enter") // notify: past "(no answer)" to yes
	answer, ok := answered(q)
	want := map[string]any{"colour": "g", "count": int64(3), "name": "Ada", "ratio": 0.5, "notify": true}
	if !ok || answer.Action != api.ElicitAccept || !reflect.DeepEqual(answer.Content, want) {
		t.Fatalf("answer %+v (answered %v), want accept %v\n%s", answer, ok, want, formText(q))
	}
}

// Optional fields left alone stay out of the answer: the schema's
// defaults apply to them.
func TestQuestionLeftAtItsDefaults(t *testing.T) {
	t.Parallel()
	q := newSignup()
	pressInForm(q, "enter", "enter", "X", "enter", "enter", "enter")
	answer, _ := answered(q)
	want := map[string]any{"colour": "r", "count": int64(3), "name": "X"}
	if answer.Action != api.ElicitAccept || !reflect.DeepEqual(answer.Content, want) {
		t.Fatalf("answer %+v, want accept %v", answer, want)
	}
}

// What is not a number of the field's kind, breaks the schema's bounds,
// or leaves a required field empty is refused under the field, and the
// form stays.
func TestQuestionRefusesWhatItCannotSend(t *testing.T) {
	t.Parallel()
	one, two := 1.0, 2
	for _, tc := range []struct {
		field api.ElicitField
		keys  []string
		says  string
	}{
		{api.ElicitField{Name: "count", Type: "integer"}, []string{"1", ".", "5", "enter"}, "not a whole number"},
		{api.ElicitField{Name: "ratio", Type: "number"}, []string{"a", "b", "c", "enter"}, "not a number"},
		{api.ElicitField{Name: "ratio", Type: "number"}, []string{"N", "a", "N", "enter"}, "not a number"},
		{api.ElicitField{Name: "name", Type: "string", Required: true}, []string{" ", "enter"}, "an answer is required"},
		{api.ElicitField{Name: "count", Type: "integer", Minimum: &one}, []string{"0", "enter"}, "at least 1"},
		{api.ElicitField{Name: "ratio", Type: "number", Maximum: &one}, []string{"1", ".", "5", "enter"}, "at most 1"},
		{api.ElicitField{Name: "code", Type: "string", MaxLength: &two}, []string{"a", "b", "ü", "enter"}, "at most 2 characters"},
	} {
		q := openForm(api.Elicitation{Fields: []api.ElicitField{tc.field}})
		pressInForm(q, tc.keys...)
		if answer, ok := answered(q); ok {
			t.Errorf("%s %q was sent: %+v", tc.field.Type, tc.keys, answer)
		}
		mustContain(t, formText(q), tc.says)
	}
	ten := 10.0
	q := openForm(api.Elicitation{Fields: []api.ElicitField{{Name: "count", Type: "integer", Minimum: &one, Maximum: &ten}}})
	pressInForm(q, "1", "0", "enter")
	if answer, _ := answered(q); answer.Content["count"] != int64(10) {
		t.Errorf("a bound itself was refused: %+v", answer)
	}
}

// Esc declines, ctrl+c cancels, from any field; nothing typed is sent.
func TestQuestionDeclinedOrCancelled(t *testing.T) {
	t.Parallel()
	for key, action := range map[string]string{"esc": api.ElicitDecline, "ctrl+c": api.ElicitCancel} {
		q := newSignup()
		pressInForm(q, "enter", "enter", "A", key)
		if answer, ok := answered(q); !ok || answer.Action != action || answer.Content != nil {
			t.Errorf("%s: answer %+v (answered %v), want %s", key, answer, ok, action)
		}
	}
}

// The server's text (message, titles, descriptions, choices, a default)
// is shown sanitized: its escape sequences never reach the terminal.
func TestQuestionShowsHostileTextSanitized(t *testing.T) {
	t.Parallel()
	const evil = "\x1b]0;pwned\x07\x1b[2Jevil\u202e"
	e := api.Elicitation{Message: "ask " + evil, Fields: []api.ElicitField{
		{Name: "pick", Title: "title " + evil, Description: "desc " + evil, Type: "string", Enum: []string{"a"}, EnumNames: []string{"choice " + evil}},
		{Name: "text", Type: "string", Default: "default " + evil},
	}}
	q := openForm(e)
	shown := textsafe.SanitizeLine(evil)
	for _, width := range []int{80, 30} {
		q.resize(width, 24)
		text := formText(q)
		if strings.ContainsAny(text, "\x1b\x07\u202e") {
			t.Errorf("the form at %d columns obeys the server's text: %q", width, text)
		}
		if width == 80 {
			mustContain(t, text, "ask "+shown, "title "+shown, "desc "+shown, "choice "+shown, "default "+shown)
		}
		for i, l := range strings.Split(text, "\n") {
			if w := textsafe.DisplayWidth(l); w > width {
				t.Errorf("line %d is %d columns wide at %d: %q", i, w, width, l)
			}
		}
	}
}

// In the TUI a question takes the screen and the keys while it is asked,
// and its answer goes back; the screen underneath is kept.
func TestQuestionInTheTUI(t *testing.T) {
	t.Parallel()
	m := hostileModel(t, answerJSON(t, failuresAnswer("run_abc", 3)), 80, 24)
	q := &question{ctx: context.Background(), e: api.Elicitation{Message: "Approve all?\x1b[2J", Fields: []api.ElicitField{{Name: "sure", Type: "boolean", Required: true}}},
		reply: make(chan mcp.ElicitResult, 1)}
	m.Update(questionMsg{q}) // its commands blink the cursor and wait on the call: not run
	text := plainText(m)
	mustContain(t, text, "The server asks", "Approve all?", "sure (required)", "yes", "no", "esc decline")
	if strings.Contains(text, "failures (3)") || strings.Contains(screenText(t, m), "\x1b[2J") {
		t.Errorf("the question does not have the screen to itself, or obeys the server:\n%s", text)
	}
	m.Update(keyMsg("q")) // a key of the screen underneath: the form's now
	if p, asking := m.front().(*questionPage); !asking || len(p.queue) != 1 || m.done {
		t.Fatal("a key meant for the question reached the screen")
	}
	m.Update(keyMsg("esc"))
	if answer := <-q.reply; answer.Action != api.ElicitDecline {
		t.Errorf("answer %+v, want decline", answer)
	}
	mustContain(t, plainText(m), "failures (3)", "the server's question: declined")
}

// A question whose call ended leaves the screen, answered cancel; one
// that came while another was asked waits its turn.
func TestQuestionsWaitTheirTurnAndEndWithTheirCall(t *testing.T) {
	t.Parallel()
	m := hostileModel(t, answerJSON(t, failuresAnswer("run_abc", 3)), 80, 24)
	ctx, endCall := context.WithCancel(context.Background())
	first := &question{ctx: ctx, e: api.Elicitation{Message: "first"}, reply: make(chan mcp.ElicitResult, 1)}
	second := &question{ctx: context.Background(), e: api.Elicitation{Message: "second"}, reply: make(chan mcp.ElicitResult, 1)}
	m.Update(questionMsg{first})
	m.Update(questionMsg{second})
	mustContain(t, plainText(m), "first")
	endCall()
	m.Update(questionEndedMsg{first})
	if answer := <-first.reply; answer.Action != api.ElicitCancel {
		t.Errorf("the ended question was answered %+v", answer)
	}
	mustContain(t, plainText(m), "second")
	settle(modelUpdate(m), modelUpdate(m)(keyMsg("enter"))) // no fields: accept is asked, enter accepts
	if answer := <-second.reply; answer.Action != api.ElicitAccept || len(answer.Content) != 0 {
		t.Errorf("the second question was answered %+v", answer)
	}
}

// Asked through the Asker while the TUI waits for its first answer, as a
// server asks while it answers the call: the answer typed in the TUI is
// the call's.
func TestAskerBringsTheQuestionIntoTheSession(t *testing.T) {
	t.Parallel()
	var asker Asker
	if _, asked := asker.Ask(context.Background(), signup); asked || asker.Running() {
		t.Fatal("asked with no session running")
	}
	in, keys := io.Pipe()
	t.Cleanup(func() { keys.Close() })
	got := make(chan mcp.ElicitResult, 1)
	invoke := func(ctx context.Context, call api.Call) (*api.ToolResponse, error) {
		answer, asked := asker.Ask(ctx, api.Elicitation{Message: "How many?", Fields: []api.ElicitField{{Name: "n", Type: "integer", Required: true}}})
		if !asked {
			t.Error("the running session was not asked")
		}
		got <- answer
		return failuresResponse(t), nil
	}
	// seen tells when the question came and when the answer did, so that
	// the keys are typed into what is on screen.
	seen := make(chan tea.Msg, 2)
	probe := func(msg tea.Msg) {
		switch msg.(type) {
		case questionMsg, answerMsg:
			seen <- msg
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), Options{In: in, Out: io.Discard, Invoke: invoke, Getenv: func(string) string { return "" }, Asker: &asker, Probe: probe}, failuresCall, nil)
		done <- err
	}()
	<-seen
	if _, err := io.WriteString(keys, "42\r"); err != nil {
		t.Fatal(err)
	}
	if answer := <-got; answer.Action != api.ElicitAccept || answer.Content["n"] != int64(42) {
		t.Errorf("answer %+v, want accept n=42", answer)
	}
	<-seen
	if _, err := io.WriteString(keys, "q"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if asker.Running() {
		t.Error("the asker still points at the ended session")
	}
}

// On a terminal of its own the question is a program of its own: typed
// and submitted, or ended by its context (the call is over) as cancel.
func TestElicitOnATerminal(t *testing.T) {
	t.Parallel()
	e := api.Elicitation{Message: "Name?", Fields: []api.ElicitField{{Name: "name", Type: "string", Required: true}}}
	opts := Options{In: strings.NewReader("Ada\r"), Out: io.Discard, Getenv: func(string) string { return "" }}
	if answer := Elicit(context.Background(), opts, e); answer.Action != api.ElicitAccept || answer.Content["name"] != "Ada" {
		t.Errorf("typed: %+v", answer)
	}
	in, keep := io.Pipe()
	t.Cleanup(func() { keep.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	opts.In = in
	if answer := Elicit(ctx, opts, e); answer.Action != api.ElicitCancel {
		t.Errorf("after its call ended: %+v", answer)
	}
}

// A tall question on a small terminal scrolls its fields and keeps the
// help line, a field's error shown or not.
func TestQuestionFitsASmallTerminal(t *testing.T) {
	t.Parallel()
	m := hostileModel(t, answerJSON(t, failuresAnswer("run_abc", 3)), 60, 14)
	q := &question{ctx: context.Background(), e: signup, reply: make(chan mcp.ElicitResult, 1)}
	m.Update(questionMsg{q})
	for _, keys := range [][]string{nil, {"enter", "x", "enter"}} {
		for _, k := range keys {
			settle(modelUpdate(m), modelUpdate(m)(keyMsg(k)))
		}
		text := strings.TrimRight(checkBounded(t, m), "\n")
		if lines := strings.Split(text, "\n"); !strings.Contains(lines[len(lines)-1], "esc decline") {
			t.Errorf("after %q the help line is gone:\n%s", keys, text)
		}
	}
	mustContain(t, plainText(m), "not a whole number")
}

// An array of choices is a multi-select: x picks, the default's choices
// are picked at first, the answer lists the picks in the schema's order,
// and its bounds are held.
func TestQuestionPicksSeveral(t *testing.T) {
	t.Parallel()
	two := 2
	tags := api.ElicitField{Name: "tags", Title: "Tags", Type: "array", Required: true, Enum: []string{"a", "b", "c"},
		EnumNames: []string{"Alpha", "Beta", "Gamma"}, MaxItems: &two, Default: []any{"b"}}
	q := openForm(api.Elicitation{Fields: []api.ElicitField{tags}})
	mustContain(t, formText(q), "Tags (required)", "Alpha", "Beta", "Gamma")
	pressInForm(q, "up", "x", "enter") // Alpha too (the cursor starts on the first picked)
	answer, ok := answered(q)
	if want := []any{"a", "b"}; !ok || answer.Action != api.ElicitAccept || !reflect.DeepEqual(answer.Content["tags"], want) {
		t.Fatalf("answer %+v (answered %v), want tags %v\n%s", answer, ok, want, formText(q))
	}

	// None picked of a required multi-select is refused; an optional one
	// left empty stays out of the answer.
	tags.Default = nil
	q = openForm(api.Elicitation{Fields: []api.ElicitField{tags}})
	pressInForm(q, "enter")
	if answer, ok := answered(q); ok {
		t.Errorf("nothing picked was sent: %+v", answer)
	}
	mustContain(t, formText(q), "at least 1 picked")
	tags.Required = false
	q = openForm(api.Elicitation{Fields: []api.ElicitField{tags}})
	pressInForm(q, "enter")
	if answer, ok := answered(q); !ok || len(answer.Content) != 0 {
		t.Errorf("an optional multi-select left empty: %+v (answered %v)", answer, ok)
	}
}

// answered is the form's answer, once the person gave one.
func answered(q *questionForm) (mcp.ElicitResult, bool) {
	if q.answer == nil {
		return mcp.ElicitResult{}, false
	}
	return *q.answer, true
}
