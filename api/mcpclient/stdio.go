package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// StdioScheme starts an --endpoint "stdio:CMD ARGS" that runs CMD and speaks MCP over its stdio.
const StdioScheme = "stdio:"

// StdioCommand splits a stdio: endpoint as a shell splits words (quotes,
// backslashes; no variables, globs or pipes); false when it names no command.
func StdioCommand(endpoint string) ([]string, bool) {
	rest, ok := strings.CutPrefix(endpoint, StdioScheme)
	if !ok {
		return nil, false
	}
	argv, err := splitWords(rest)
	if err != nil || len(argv) == 0 {
		return nil, false
	}
	return argv, true
}

// CheckStdioEndpoint says what is wrong with a stdio: endpoint.
func CheckStdioEndpoint(endpoint string) error {
	rest, _ := strings.CutPrefix(endpoint, StdioScheme)
	argv, err := splitWords(rest)
	if err != nil {
		return err
	}
	if len(argv) == 0 {
		return errors.New("names no command")
	}
	return nil
}

func splitWords(s string) ([]string, error) {
	var w words
	for _, r := range s {
		w.add(r)
	}
	if w.quote != 0 || w.escaped {
		return nil, fmt.Errorf("has an unterminated quote or escape")
	}
	w.end()
	return w.list, nil
}

// words splits a command line a rune at a time.
type words struct {
	list    []string
	word    strings.Builder
	inWord  bool
	quote   rune // the quote open, or 0
	escaped bool // a backslash came last
}

func (w *words) add(r rune) {
	switch {
	case w.escaped:
		w.word.WriteRune(r)
		w.escaped = false
	case r == '\\' && w.quote != '\'':
		w.escaped, w.inWord = true, true
	case w.quote != 0 && r == w.quote:
		w.quote = 0
	case w.quote != 0:
		w.word.WriteRune(r)
	case r == '\'' || r == '"':
		w.quote, w.inWord = r, true
	case r == ' ' || r == '\t' || r == '\n':
		w.end()
	default:
		w.word.WriteRune(r)
		w.inWord = true
	}
}

func (w *words) end() {
	if w.inWord {
		w.list = append(w.list, w.word.String())
		w.word.Reset()
		w.inWord = false
	}
}

// lineCap fails a line past limit with api.ErrBodyTooLarge, saying why; the SDK's own cap fails like a crash.
type lineCap struct {
	r     io.Reader
	limit int64
	line  int64  // bytes read since the last newline
	ended func() // told of the end of the output
}

func (l *lineCap) Read(p []byte) (int, error) {
	if l.line >= l.limit {
		return 0, api.BodyTooLarge(0, l.limit)
	}
	p = p[:min(int64(len(p)), l.limit-l.line)]
	n, err := l.r.Read(p)
	if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
		l.line = int64(n - i - 1)
	} else {
		l.line += int64(n)
	}
	if errors.Is(err, io.EOF) {
		l.ended()
	}
	return n, err
}

// recordingConn keeps stdio answers in their requests' records, as HTTP bodies are: the SDK decodes lossily.
type recordingConn struct {
	mcp.Connection
	limit   int64
	mu      sync.Mutex
	pending map[jsonrpc.ID]pendingRequest // until answered
}

type pendingRequest struct {
	rec    *httpRecord
	method string
	kept   bool // its answer was kept as read
}

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, isRequest := msg.(*jsonrpc.Request)
	rec, recorded := ctx.Value(httpRecordKey{}).(*httpRecord)
	if isRequest && recorded && req.IsCall() {
		c.mu.Lock()
		c.pending[req.ID] = pendingRequest{rec: rec, method: req.Method}
		c.mu.Unlock()
	}
	err := c.Connection.Write(ctx, msg)
	if isRequest && recorded && req.Method == "notifications/cancelled" {
		rec.cancelNoticeSent()
	}
	return err
}

// received records a line answering a recorded request and is the line the SDK reads (callAnswer.forSDK).
func (c *recordingConn) received(line []byte) []byte {
	answer, id, ok := readAnswer(line)
	if !ok {
		return line
	}
	c.mu.Lock()
	req, pending := c.pending[id]
	if pending {
		req.kept = true
		c.pending[id] = req
	}
	c.mu.Unlock()
	switch {
	case !pending:
		return line
	case req.method != "tools/call" || !slices.Contains(answer.members, "content"):
		// The SDK decodes it whole; vq reads only what the SDK drops.
		req.rec.keep(answer.asEncoded(), c.limit)
		return line
	}
	req.rec.keep(answer, c.limit)
	return answer.forSDK()
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if errors.Is(err, api.ErrBodyTooLarge) {
		// The session ends with the line: the calls waiting on it learn why.
		c.mu.Lock()
		for _, req := range c.pending {
			req.rec.fail(err)
		}
		c.mu.Unlock()
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "elicitation/create" {
		// Which call a question belongs to cannot be told: each record has it.
		if doc, encErr := jsonrpc.EncodeMessage(req); encErr == nil {
			c.mu.Lock()
			for _, pending := range c.pending {
				bodyRecorder{rec: pending.rec, limit: c.limit}.Write(doc)
			}
			c.mu.Unlock()
		}
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		req, pending := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		if pending && !req.kept {
			if doc, encErr := jsonrpc.EncodeMessage(resp); encErr == nil {
				bodyRecorder{rec: req.rec, limit: c.limit}.Write(doc)
			}
		}
	}
	return msg, err
}
