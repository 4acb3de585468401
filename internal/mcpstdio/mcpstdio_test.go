package mcpstdio

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/testkit"
)

// session is an SDK server on the transport, driven line by line as a
// hostile client drives it.
type session struct {
	t       *testing.T
	in      *io.PipeWriter
	answers chan string
	done    chan error
	// release lets the calls of the tool "slow" answer; started gets a
	// value as each begins.
	release, started chan struct{}
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func serve(t *testing.T, maxLine int) *session {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	s := &session{t: t, answers: make(chan string, 100), done: make(chan error, 1), release: make(chan struct{}), started: make(chan struct{}, 100)}
	server.AddTool(&mcp.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.started <- struct{}{}
			select {
			case <-s.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s.in = inW
	go func() {
		s.done <- server.Run(context.Background(), &Transport{In: inR, Out: outW, MaxLine: maxLine})
		outW.Close()
	}()
	go func() {
		lines := bufio.NewScanner(outR)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			s.answers <- lines.Text()
		}
		close(s.answers)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			t.Error("the session did not end after its input did")
		}
	})
	return s
}

func (s *session) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			s.t.Fatal(err)
		}
	}
}

// next is the next line written, or "" after the session ended.
func (s *session) next() string {
	s.t.Helper()
	select {
	case a := <-s.answers:
		return a
	case <-time.After(10 * time.Second):
		s.t.Fatal("no answer")
		return ""
	}
}

// answer reads the next line as a JSON-RPC answer: its id as written and
// its error code (0 for a result).
func (s *session) answer() (id string, code int64) {
	s.t.Helper()
	line := s.next()
	var a struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		s.t.Fatalf("%v: %q", err, line)
	}
	if a.Error != nil {
		code = a.Error.Code
	}
	// The id's bytes as written: find them in the line itself.
	return rawID(s.t, line), code
}

// rawID is the id member of a line exactly as written.
func rawID(t *testing.T, line string) string {
	t.Helper()
	id, _, err := scan([]byte(line))
	if err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	return string(id)
}

func (s *session) expect(wantID string, wantCode int64) {
	s.t.Helper()
	if id, code := s.answer(); id != wantID || code != wantCode {
		s.t.Errorf("answer id %s code %d; want id %s code %d", id, code, wantID, wantCode)
	}
}

func TestHostileLinesAreAnsweredAndTheSessionGoesOn(t *testing.T) {
	t.Parallel()
	s := serve(t, 128<<10)
	s.send(initialize)
	s.expect("0", 0)
	cases := []struct {
		line, id string
		code     int64
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, "null", -32700},
		{`not json`, "null", -32700},
		{`{"jsonrpc":"2.0","id":10,"method":"ping","params":` + strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001) + "}", "null", -32700},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"} trailing`, "null", -32700},
		{`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, "null", -32600},
		{`"a string"`, "null", -32600},
		{`{"jsonrpc":"2.0","id":4,"id":5,"method":"ping"}`, "null", -32600},
		{`{"jsonrpc":"1.0","id":6,"method":"ping"}`, "6", -32600},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "1.5", -32600},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, "null", -32600},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null", -32600},
		{`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"` + strings.Repeat("x", 130<<10) + `"}}`, `"big"`, -32600},
		{`{"jsonrpc":"2.0","id":1180591620717411303424,"method":"ping"}`, "1180591620717411303424", 0},
		{`{"jsonrpc":"2.0", "id" : "a\u0062<\"" ,"method":"ping"}`, `"a\u0062<\""`, 0},
		{`{"jsonrpc":"2.0","id":-7,"method":"ping"}`, "-7", 0},
		{`{"jsonrpc":"2.0","id":8,"method":"no/such"}`, "8", -32601},
	}
	for _, c := range cases {
		s.send(c.line)
		if id, code := s.answer(); id != c.id || code != c.code {
			t.Errorf("%.60s: answered id %s code %d; want id %s code %d", c.line, id, code, c.id, c.code)
		}
	}
	// Blank lines are no messages.
	s.send("", "  ", `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	s.expect("9", 0)
}

func TestEveryRequestReadBeforeEOFIsAnswered(t *testing.T) {
	t.Parallel()
	s := serve(t, 0)
	close(s.release)
	var lines []string
	lines = append(lines, initialize, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	for i := 2; i < 50; i++ {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/call","params":{"name":"slow"}}`)
	}
	// Written at once, then the input ends: the last ones are still
	// queued when the reader sees EOF.
	if _, err := io.WriteString(s.in, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	s.in.Close()
	seen := map[string]bool{}
	for a := range s.answers {
		seen[rawID(t, a)] = true
	}
	if len(seen) != len(lines) {
		t.Errorf("%d answers to %d requests: %v", len(seen), len(lines), seen)
	}
}

func TestACancelledCallIsNotAnswered(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := serve(t, 0)
	s.send(initialize, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.expect("0", 0)
	s.send(`{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"name":"slow"}}`)
	testkit.Receive(t, ctx, s.started, "the call's start")
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c-1","reason":"user"}}`,
		// A cancellation of nothing pending is ignored.
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	s.expect("2", 0)
	s.in.Close()
	for a := range s.answers {
		t.Errorf("after the cancellation: %s", a)
	}
}

func TestAnIDInUseIsRefused(t *testing.T) {
	t.Parallel()
	s := serve(t, 0)
	s.send(initialize)
	s.expect("0", 0)
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	s.expect("5", -32600)
	close(s.release)
	s.expect("5", 0)
	// Once answered, the id may be used again.
	s.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	s.expect("5", 0)
}

func TestErrorCodesAreNeverZero(t *testing.T) {
	t.Parallel()
	s := serve(t, 0)
	// Before initialize, with a _meta that does not select the 2026-07-28
	// protocol: the SDK's refusal carried code 0.
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}}`)
	s.expect("1", -32600)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"server/discover"}`)
	s.expect("2", -32602)
	s.send(initialize)
	s.expect("0", 0)
	s.send(initialize)
	s.expect("0", -32600)
}

// FuzzLine: whatever a line holds, it is handed to the SDK or answered
// with one JSON-RPC error line whose id is null or the line's own id, byte
// for byte.
func FuzzLine(f *testing.F) {
	for _, seed := range []string{
		initialize, `{"jsonrpc":"2.0","id":1180591620717411303424,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"id":1,"id":2}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`, "\xff{", "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var out strings.Builder
		c := &conn{out: &out, limit: DefaultMaxLine, pending: map[int64]*request{}, byKey: map[string]int64{}, closed: make(chan struct{})}
		close(c.closed) // a message for the SDK is dropped, not waited on
		c.take(line, false)
		if out.Len() == 0 {
			return
		}
		answer := strings.TrimSuffix(out.String(), "\n")
		var a struct {
			ID    json.RawMessage `json:"id"`
			Error struct{ Code int64 }
		}
		if strings.Contains(answer, "\n") || json.Unmarshal([]byte(answer), &a) != nil || a.Error.Code == 0 {
			t.Fatalf("answer %q", answer)
		}
		if id, _, _ := scan(line); string(a.ID) != "null" && string(a.ID) != string(id) {
			t.Fatalf("answer id %s, the line's %s", a.ID, id)
		}
	})
}
