package api

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioScheme starts an --endpoint that names a command instead of a URL:
// "stdio:CMD ARGS" runs CMD as a child process and speaks MCP over its
// stdin and stdout.
const StdioScheme = "stdio:"

// StdioCommand splits a stdio: endpoint into the command and its
// arguments, as a shell splits words (single and double quotes, backslash
// escapes) but without running one: no variables, globs or pipes. false
// when the endpoint is not a stdio: one, or names no command.
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

// CheckStdioEndpoint says what is wrong with a stdio: endpoint, nil when it
// names a command.
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
	var words []string
	var word strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			word.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("has an unterminated quote or escape")
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// stdioGrace is how long a stdio server may take to exit once its stdin is
// closed, before it is sent SIGTERM (and then killed).
const stdioGrace = 2 * time.Second

// stdioTransport starts nothing yet: the SDK starts the command on Connect
// and ends it on Close (stdin closed, then SIGTERM, then kill). The
// child's stderr goes to StdioStderr (vq's stderr under --debug).
func (c *Client) stdioTransport(argv []string) (mcp.Transport, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("cannot start the stdio server: %w", err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stderr = c.opts.StdioStderr
	return recordingTransport{Transport: &mcp.CommandTransport{Command: cmd, TerminateDuration: stdioGrace}, limit: c.opts.MaxBodyBytes}, nil
}

// recordingTransport keeps a stdio server's answers as mcpRoundTripper
// keeps HTTP bodies: the SDK decodes results lossily (structuredContent's
// key order, members it does not know), so the answer to each request
// sent with an httpRecord in its context is appended to that record, up to
// limit bytes.
type recordingTransport struct {
	mcp.Transport
	limit int64
}

func (t recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: conn, limit: t.limit, pending: map[jsonrpc.ID]*httpRecord{}}, nil
}

type recordingConn struct {
	mcp.Connection
	limit   int64
	mu      sync.Mutex
	pending map[jsonrpc.ID]*httpRecord // request id → its record, until answered
}

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if rec, ok := ctx.Value(httpRecordKey{}).(*httpRecord); ok {
			c.mu.Lock()
			c.pending[req.ID] = rec
			c.mu.Unlock()
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		rec := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		if doc, encErr := jsonrpc.EncodeMessage(resp); rec != nil && encErr == nil {
			bodyRecorder{rec: rec, limit: c.limit}.Write(doc)
		}
	}
	return msg, err
}
