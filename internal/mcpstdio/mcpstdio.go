// Package mcpstdio is the stdio transport of vq mcp serve: newline-delimited
// JSON-RPC to the MCP Go SDK's server, with what the SDK's IOTransport lacks
// (it ends the session at a bad or oversized line and drops queued answers):
//
//   - A line that is not JSON is answered -32700, a non-request -32600, and
//     the session goes on; a line past MaxLine is read to its end unkept and
//     answered -32600 with its id when that stands in its first bytes.
//   - Every request read before the end of input is answered first.
//   - Ids are echoed byte for byte (the SDK turned 2^70 into -2^63, 1.5 into
//     1): the SDK gets an id of the transport's own per request.
//   - A request cancelled by notifications/cancelled is not answered.
//   - An error code is never 0 (the SDK's plain errors before initialize),
//     and server/discover lacking _meta is -32602, not -32601.
//
// Only refusals of lines the SDK never sees are written here; every other
// answer is the SDK's, re-addressed.
//
// mcpstdio is a leaf: it imports the standard library, the MCP SDK and
// jsontext, never a vq package outside internal/.
package mcpstdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLine bounds one message when Transport.MaxLine is zero (the SDK's default).
const DefaultMaxLine = mcp.DefaultMaxLineLength

// idPrefix is how much of an oversized line is kept to find its id (written before params).
const idPrefix = 4 << 10

// Transport is an mcp.Transport over In and Out.
type Transport struct {
	// In is read line by line; closing the connection closes it, ending a waiting read.
	In      io.ReadCloser
	Out     io.Writer // Out receives one line per message; writes are serialized.
	MaxLine int       // MaxLine bounds one message in bytes (zero: DefaultMaxLine).
}

// Connect implements mcp.Transport. It is called once.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxLine
	if limit <= 0 {
		limit = DefaultMaxLine
	}
	c := &conn{
		in: t.In, out: t.Out, limit: limit,
		incoming: make(chan jsonrpc.Message),
		ended:    make(chan error, 1),
		closed:   make(chan struct{}),
		pending:  map[int64]*request{},
		byKey:    map[string]int64{},
	}
	go c.readLoop()
	return c, nil
}

// request is a request read from the agent, not yet answered.
type request struct {
	id        []byte // as the agent wrote it
	key       string // the id's identity: cancellations name it
	method    string
	cancelled bool
}

type conn struct {
	in    io.ReadCloser
	out   io.Writer
	limit int

	incoming chan jsonrpc.Message
	ended    chan error // the end of the input, once every request is answered
	closed   chan struct{}
	close    sync.Once

	writeMu sync.Mutex

	mu      sync.Mutex
	seq     int64
	pending map[int64]*request // by the id handed to the SDK
	byKey   map[string]int64
	drained chan struct{} // closed once the input has ended and nothing is pending.
	// established: a request past initialize's preliminaries has been answered.
	established bool
}

func (c *conn) SessionID() string { return "" }

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case err := <-c.ended:
		c.ended <- err // every later Read ends the same way
		return nil, err
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *conn) Close() error {
	var err error
	c.close.Do(func() {
		close(c.closed)
		err = c.in.Close()
	})
	return err
}

// readLoop hands each request to the SDK (or refuses it) and reports the end of
// input once every request read has been answered.
func (c *conn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, over, err := c.readLine(r)
		c.take(line, over)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			c.end(err)
			return
		}
		select {
		case <-c.closed:
			return
		default:
		}
	}
}

// readLine reads one line; past the bound it keeps only the first bytes and sets over.
func (c *conn) readLine(r *bufio.Reader) (line []byte, over bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case over:
		case len(line)+len(chunk) > c.limit+len("\r\n"):
			over = true
			line = append([]byte(nil), line[:min(len(line), idPrefix)]...)
		default:
			line = append(line, chunk...)
		}
		if over && len(line) < idPrefix {
			line = append(line, chunk[:min(len(chunk), idPrefix-len(line))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !over {
			line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			over = len(line) > c.limit
		}
		return line, over, err
	}
}

// take hands one line to the SDK, or answers it.
func (c *conn) take(line []byte, over bool) {
	if over {
		id, _, _ := scan(line)
		c.refuse(echoable(id), jsonrpc.CodeInvalidRequest, fmt.Sprintf("message of more than %d bytes: not read", c.limit))
		return
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	msg, refusal := c.decode(line)
	if refusal != nil {
		c.refuse(refusal.id, refusal.code, refusal.message)
		return
	}
	if msg == nil {
		return
	}
	select {
	case c.incoming <- msg:
	case <-c.closed:
	}
}

// refusal is the error answer to a line the SDK is not given.
type refusal struct {
	id      []byte // nil: null
	code    int64
	message string
}

// decode reads one message: a request gets the transport's own id, a
// cancellation the SDK's id of its request; nil, nil cancels nothing pending.
func (c *conn) decode(line []byte) (jsonrpc.Message, *refusal) {
	id, hasID, err := scan(line)
	switch {
	case errors.Is(err, errBatch):
		return nil, &refusal{code: jsonrpc.CodeInvalidRequest, message: "JSON-RPC batches are not served (MCP has none since 2025-06-18): send one message a line"}
	case errors.Is(err, errNotObject), errors.Is(err, jsontext.ErrDuplicateName):
		return nil, &refusal{code: jsonrpc.CodeInvalidRequest, message: "invalid request: " + err.Error()}
	case err != nil:
		return nil, &refusal{code: jsonrpc.CodeParseError, message: "parse error: " + err.Error()}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, &refusal{id: echoable(id), code: jsonrpc.CodeInvalidRequest, message: "invalid request: " + err.Error()}
	}
	req, ok := msg.(*jsonrpc.Request)
	switch {
	case !ok:
		return msg, nil // the agent's answer to a request of the SDK's, by the SDK's own id
	case !hasID:
		if req.Method != "notifications/cancelled" {
			return req, nil
		}
		if cancel := c.cancellation(req); cancel != nil {
			return cancel, nil
		}
		return nil, nil
	}
	key, ok := idKey(id)
	if !ok {
		return nil, &refusal{id: echoable(id), code: jsonrpc.CodeInvalidRequest, message: "invalid request: an id is a string or an integer"}
	}
	sdkID, fresh := c.register(id, key, req.Method)
	if !fresh {
		return nil, &refusal{id: id, code: jsonrpc.CodeInvalidRequest, message: "invalid request: id " + string(id) + " is already in use by a request not yet answered"}
	}
	req.ID = sdkID
	return req, nil
}

// register gives a request the SDK's id; fresh is false when the agent's id is pending.
func (c *conn) register(id []byte, key, method string) (jsonrpc.ID, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return jsonrpc.ID{}, false
	}
	c.seq++
	c.pending[c.seq] = &request{id: id, key: key, method: method}
	c.byKey[key] = c.seq
	sdkID, _ := jsonrpc.MakeID(float64(c.seq)) // a float64 is an id: cannot fail
	return sdkID, true
}

// cancellation marks the named request cancelled and returns the SDK's id for
// it; nil when no such request is pending.
func (c *conn) cancellation(req *jsonrpc.Request) *jsonrpc.Request {
	var params map[string]json.RawMessage
	if json.Unmarshal(req.Params, &params) != nil {
		return nil
	}
	key, ok := idKey(params["requestId"])
	if !ok {
		return nil
	}
	c.mu.Lock()
	sdkID, ok := c.byKey[key]
	if ok {
		c.pending[sdkID].cancelled = true
	}
	c.mu.Unlock()
	if !ok {
		return nil
	}
	params["requestId"] = json.RawMessage(strconv.FormatInt(sdkID, 10))
	req.Params, _ = json.Marshal(params) // raw members: cannot fail
	return req
}

// end reports the end of the input once nothing read is left unanswered.
func (c *conn) end(err error) {
	c.mu.Lock()
	c.drained = make(chan struct{})
	if len(c.pending) == 0 {
		close(c.drained)
	}
	drained := c.drained
	c.mu.Unlock()
	select {
	case <-drained:
		c.ended <- err
	case <-c.closed:
	}
}

// Write implements mcp.Connection: an answer goes out with the agent's id, or
// not at all when cancelled.
func (c *conn) Write(_ context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.encodeLine(msg)
	}
	sdkID, _ := resp.ID.Raw().(int64)
	c.mu.Lock()
	req := c.pending[sdkID]
	established := c.established
	c.mu.Unlock()
	if req == nil {
		return c.encodeLine(msg) // no request of the agent's: the SDK's own business
	}
	defer c.answered(sdkID)
	if req.cancelled {
		return nil
	}
	out := *resp
	out.Error = coded(out.Error, req.method, established)
	data, err := jsonrpc.EncodeMessage(&out)
	if err == nil {
		data, err = readdressed(data, sdkID, req.id)
	}
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.established = c.established || out.Error == nil && req.method != "ping" && req.method != "server/discover"
	// The agent may use the id again once it reads the answer.
	delete(c.byKey, req.key)
	c.mu.Unlock()
	return c.writeLine(data)
}

// answered forgets an answered request.
func (c *conn) answered(sdkID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if req, ok := c.pending[sdkID]; ok {
		if c.byKey[req.key] == sdkID {
			delete(c.byKey, req.key)
		}
		delete(c.pending, sdkID)
	}
	if c.drained != nil && len(c.pending) == 0 {
		select {
		case <-c.drained:
		default:
			close(c.drained)
		}
	}
}

// coded gives a plain error (code 0) -32600 before the session is established
// and -32603 after; server/discover refused as unknown lacked _meta (-32602).
func coded(err error, method string, established bool) error {
	if err == nil {
		return nil
	}
	var wire *jsonrpc.Error
	code := int64(0)
	if errors.As(err, &wire) {
		code = wire.Code
	}
	switch {
	case code == 0 && (!established || method == "initialize"):
		code = jsonrpc.CodeInvalidRequest
	case code == 0:
		code = jsonrpc.CodeInternalError
	case code == jsonrpc.CodeMethodNotFound && method == "server/discover":
		code = jsonrpc.CodeInvalidParams
	default:
		return err
	}
	out := &jsonrpc.Error{Code: code, Message: err.Error()}
	if wire != nil {
		out.Data = wire.Data
	}
	return out
}

// readdressed puts the agent's id in place of the SDK's ("jsonrpc" then "id" come first).
func readdressed(data []byte, sdkID int64, id []byte) ([]byte, error) {
	const head = `{"jsonrpc":"2.0","id":`
	rest, ok := bytes.CutPrefix(data, []byte(head+strconv.FormatInt(sdkID, 10)))
	if !ok || len(rest) == 0 || (rest[0] != ',' && rest[0] != '}') {
		return nil, fmt.Errorf("mcpstdio: unexpected encoding of an answer: %.40s", data)
	}
	out := make([]byte, 0, len(head)+len(id)+len(rest))
	out = append(append(append(out, head...), id...), rest...)
	return out, nil
}

// refuse writes the error answer to a line the SDK was not given.
func (c *conn) refuse(id []byte, code int64, message string) {
	if id == nil {
		id = []byte("null")
	}
	e, _ := json.Marshal(&jsonrpc.Error{Code: code, Message: message}) // a code and a string: cannot fail
	line := append(append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"error":`...), e...)
	_ = c.writeLine(append(line, '}'))
}

func (c *conn) encodeLine(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(data)
}

func (c *conn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

var (
	errBatch     = errors.New("a batch")
	errNotObject = errors.New("a message is a JSON object")
)

// scan checks line is one JSON object with unique names and returns its id as
// written (nil if none), even on a cut line when the id came before the cut.
func scan(line []byte) (id []byte, hasID bool, err error) {
	d := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowInvalidUTF8(true))
	switch d.PeekKind() {
	case '{':
	case '[':
		if err := d.SkipValue(); err != nil {
			return nil, false, err
		}
		return nil, false, errBatch
	default:
		if _, err := d.ReadValue(); err != nil {
			return nil, false, err
		}
		return nil, false, errNotObject
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, false, err
	}
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return id, hasID, err
		}
		if name.String() != "id" {
			if err := d.SkipValue(); err != nil {
				return id, hasID, err
			}
			continue
		}
		v, err := d.ReadValue()
		if err != nil {
			return id, hasID, err
		}
		id, hasID = bytes.Clone(v), true
	}
	if _, err := d.ReadToken(); err != nil {
		return id, hasID, err
	}
	if _, err := d.ReadToken(); !errors.Is(err, io.EOF) {
		return id, hasID, errors.New("data after the message")
	}
	return id, hasID, nil
}

// idKey identifies an id MCP allows: a string's decoded text, an integer's digits.
func idKey(id []byte) (string, bool) {
	switch {
	case len(id) == 0:
		return "", false
	case id[0] == '"':
		s, err := jsontext.AppendUnquote(nil, id)
		return "s" + string(s), err == nil
	case isInteger(id):
		return "n" + string(id), true
	}
	return "", false
}

// echoable is an id echoed in a refusal (a string or number); else null is.
func echoable(id []byte) []byte {
	if len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		return id
	}
	return nil
}

// isInteger reports JSON number text without fraction or exponent.
func isInteger(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("-"))
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
