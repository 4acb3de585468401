package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolResponseFromMCP maps a tools/call result to the contract. A VisualQ
// server puts the whole ToolResponse in structuredContent; any other server
// gets one built from its text content and isError. A failure that carries
// no structured error is the contract's unexpected error (tool_error, worth one
// retry), unless its text is the readiness lock, which is a refusal.
func toolResponseFromMCP(tool string, res *mcp.CallToolResult) *ToolResponse {
	var structured []byte
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			structured = b
			if resp, err := DecodeToolResponse(b); err == nil {
				if resp.Tool == "" {
					resp.Tool = tool
				}
				return resp
			}
		}
	}
	text := textContent(res.Content)
	resp := &ToolResponse{
		OK:          !res.IsError,
		Tool:        tool,
		Summary:     firstLine(text),
		Data:        json.RawMessage("null"),
		Warnings:    []string{},
		NextActions: []NextAction{},
	}
	if structured != nil {
		resp.Data = structured
	} else if !res.IsError && text != "" {
		resp.Data, _ = json.Marshal(map[string]string{"text": text})
	}
	if res.IsError {
		code := CodeToolError
		if _, ok := parseReadiness(text); ok {
			code = CodeProjectNotReady
		}
		resp.Error = &ToolError{Code: code, Message: text}
		resp.Recoverable = boolPtr(true)
	}
	return resp
}

func textContent(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok && t.Text != "" {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// mcpFailure maps what went wrong below the tool: a JSON-RPC error to the
// contract code it means, an HTTP failure to unauthorized, a wrong path, or
// http_error.
func (c *Client) mcpFailure(tool string, rec *httpRecord, err error) *ToolResponse {
	if rpcErr, ok := serverRPCError(err); ok {
		return rpcFailure(tool, rpcErr)
	}
	if err := rec.bodyError(); err != nil {
		return transportFailure(tool, c.MCPEndpoint(), 0, err)
	}
	status, challenge := rec.get()
	switch status {
	case http.StatusUnauthorized:
		return unauthorized(tool, challenge)
	case http.StatusTooManyRequests:
		r := ClientError(tool, CodeRateLimit, "rate limited (HTTP 429 from "+c.MCPEndpoint()+")", true)
		r.RetryAfterMs = rec.retryAfterMs()
		return r
	case http.StatusNotFound:
		return ClientError(tool, CodeHTTPError, fmt.Sprintf(
			"wrong path: the MCP server is at %s (got 404 from %s)", MCPPath, c.MCPEndpoint()), false)
	}
	if status != 0 {
		msg := fmt.Sprintf("HTTP %d %s from %s", status, http.StatusText(status), c.MCPEndpoint())
		if quoted := snippet(rec.failedBody()); quoted != "" {
			msg += ": " + quoted // when the SDK read it at all
		}
		return httpError(tool, c.MCPEndpoint(), status, msg)
	}
	if strings.Contains(err.Error(), "terminated without response") || errors.Is(err, mcp.ErrConnectionClosed) {
		return transportFailure(tool, c.MCPEndpoint(), 0, io.ErrUnexpectedEOF) // the connection was cut
	}
	return transportFailure(tool, c.MCPEndpoint(), 0, err)
}

// serverRPCError finds the JSON-RPC error object the server answered. The
// SDK also wraps its own transport failures as JSON-RPC errors (client
// closing -32003, server closing -32004, rejected by transport -32005):
// those are not the server's answer.
func serverRPCError(err error) (*jsonrpc.Error, bool) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return nil, false
	}
	switch rpcErr.Code {
	case -32003, -32004, -32005:
		return nil, false
	}
	return rpcErr, true
}

// rpcFailure maps a JSON-RPC error object to the contract: an unknown tool
// is not_found, bad arguments are a validation_error, anything else is the
// tool's unexpected error.
func rpcFailure(tool string, e *jsonrpc.Error) *ToolResponse {
	msg := e.Message
	switch {
	case e.Code == jsonrpc.CodeMethodNotFound,
		e.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(strings.ToLower(msg), "unknown tool"):
		return ClientError(tool, CodeNotFound, msg, false)
	case e.Code == jsonrpc.CodeInvalidParams:
		return ClientError(tool, CodeValidation, msg, true)
	}
	return ClientError(tool, CodeToolError, fmt.Sprintf("%s (JSON-RPC error %d)", msg, e.Code), true)
}
