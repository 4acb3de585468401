package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/privatefile"
)

// maxExchangeFile bounds a file of a recording, as vq bounds an answer.
const maxExchangeFile = api.MaxBodyBytes

// Replay serves the recording in dir (written by Record): each request
// gets the recorded answer of a request of the same meaning (exchange.go),
// same-meaning requests the answers in the order they were recorded, the
// last repeating; any API key is accepted, links point at the replaying
// server, and a request the recording does not hold is refused, never
// guessed at nor sent anywhere.
func Replay(opts Options, dir string) (*Server, error) {
	rp, err := loadRecording(dir)
	if err != nil {
		return nil, err
	}
	return proxyServer(opts, rp).listen()
}

type replayer struct {
	mu      sync.Mutex
	answers map[string]*answers // by request meaning
}

// answers are the recorded answers of one meaning and the next to give.
type answers struct {
	list     []message
	binaries [][]byte
	next     int
}

// exchangeFiles are the exchanges of a recording's directory in their
// order: by number, then name.
func exchangeFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".json") && !e.IsDir() {
			names = append(names, name)
		}
	}
	number := func(name string) int {
		n, _ := strconv.Atoi(name[:len(name)-len(strings.TrimLeft(name, "0123456789"))])
		return n
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := number(a) - number(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return names, err
}

func loadRecording(dir string) (*replayer, error) {
	names, err := exchangeFiles(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &exitcode.UsageError{Reason: "--replay " + dir + ": no such directory", Hint: "record one with: vq sandbox --record DIR --upstream URL"}
	case err != nil:
		return nil, &exitcode.UsageError{Reason: "--replay " + err.Error()}
	case len(names) == 0:
		return nil, &exitcode.UsageError{Reason: "--replay " + dir + " holds no exchange (the NNNN-*.json files vq sandbox --record writes)",
			Hint: "record one with: vq sandbox --record DIR --upstream URL"}
	}
	rp := &replayer{answers: map[string]*answers{}}
	for _, name := range names {
		x, binary, err := readExchange(dir, name)
		if err != nil {
			return nil, &exitcode.UsageError{Reason: "--replay: " + filepath.Join(dir, name) + ": " + err.Error()}
		}
		key := meaning(x.Request.Method, x.Request.URL, x.Request.body(nil)).key
		a := rp.answers[key]
		if a == nil {
			a = &answers{}
			rp.answers[key] = a
		}
		a.list, a.binaries = append(a.list, x.Response), append(a.binaries, binary)
	}
	return rp, nil
}

// readExchange reads one exchange file and the binary body it names.
func readExchange(dir, name string) (exchange, []byte, error) {
	var x exchange
	b, err := privatefile.Read(filepath.Join(dir, name), maxExchangeFile)
	if err != nil {
		return x, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		return x, nil, fmt.Errorf("not an exchange: %w", err)
	}
	if x.Request.Method == "" || x.Request.URL == "" || x.Response.Status < 100 || x.Response.Status > 999 {
		return x, nil, errors.New("not an exchange: it needs request.method, request.url and response.status")
	}
	if x.Response.File == "" {
		return x, nil, nil
	}
	if filepath.Base(x.Response.File) != x.Response.File || x.Response.File == ".." {
		return x, nil, fmt.Errorf("response.file %q is not a file beside it", x.Response.File)
	}
	binary, err := privatefile.Read(filepath.Join(dir, x.Response.File), maxExchangeFile)
	return x, binary, err
}

func (rp *replayer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == api.MCPPath {
		// No stream of the server's own messages: a replay sends none.
		w.Header().Set("Allow", "POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	own := baseURL(r)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxInvokeBody))
	if err != nil {
		failure("", refuse(api.CodeValidation, "request body is larger than %d bytes", maxInvokeBody)).write(w)
		return
	}
	// The key is not scrubbed: any key is accepted, "any" too, and a
	// request holds none.
	recorded := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(own), []byte(recordedBase)) }
	asked := meaning(r.Method, string(recorded([]byte(r.URL.RequestURI()))), recorded(body))
	m, binary, ok := rp.next(asked.key)
	if !ok {
		refuseUnrecorded(w, asked)
		return
	}
	for name, values := range m.Header {
		for _, v := range values {
			w.Header().Add(name, strings.ReplaceAll(v, recordedBase, own))
		}
	}
	if asked.mcp {
		m = rebound(m, asked)
	}
	out := m.body(binary)
	if binary == nil {
		out = bytes.ReplaceAll(out, []byte(recordedBase), []byte(own))
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(m.Status)
	w.Write(out) //nolint:errcheck // the client went away; nothing to do.
}

// next is the answer due for a meaning: the recorded ones in order, then
// the last again.
func (rp *replayer) next(key string) (message, []byte, bool) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	a, ok := rp.answers[key]
	if !ok {
		return message{}, nil, false
	}
	i := min(a.next, len(a.list)-1)
	a.next++
	return a.list[i], a.binaries[i], true
}

// refuseUnrecorded answers a request the recording does not hold: a
// validation_error for the invoke and CI endpoints (and anything else), a
// JSON-RPC error for an MCP request. An MCP notification has no answer to
// refuse.
func refuseUnrecorded(w http.ResponseWriter, asked request) {
	msg := asked.what + " was not recorded: this replay answers only the requests its recording holds"
	switch {
	case asked.mcp && asked.id == nil:
		w.WriteHeader(http.StatusAccepted)
	case asked.mcp:
		reply{status: http.StatusOK, body: mustEncode(map[string]any{"jsonrpc": "2.0", "id": asked.id,
			"error": map[string]any{"code": jsonrpc.CodeInvalidParams, "message": msg}})}.write(w)
	default:
		failure(asked.tool, refuse(api.CodeValidation, "%s", msg)).write(w)
	}
}

// rebound is a recorded MCP answer for this request: its JSON-RPC answer
// with the request's id, its progress notifications with the request's
// progress token.
func rebound(m message, asked request) message {
	if m.JSON != nil {
		m.JSON = rebind(m.JSON, asked)
	}
	events := make([]event, len(m.Events))
	for i, e := range m.Events {
		if e.Data != nil {
			e.Data = rebind(e.Data, asked)
		}
		events[i] = e
	}
	if m.Events != nil {
		m.Events = events
	}
	return m
}

func rebind(data json.RawMessage, asked request) json.RawMessage {
	var msg map[string]json.RawMessage
	if json.Unmarshal(data, &msg) != nil {
		return data
	}
	_, result := msg["result"]
	_, failed := msg["error"]
	if (result || failed) && asked.id != nil {
		msg["id"] = asked.id
	}
	var params map[string]json.RawMessage
	if unquote(msg["method"]) == "notifications/progress" && asked.progressToken != nil && json.Unmarshal(msg["params"], &params) == nil {
		params["progressToken"] = asked.progressToken
		msg["params"] = mustEncode(params)
	}
	return mustEncode(msg)
}
