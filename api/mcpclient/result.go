package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// toolResponseFromMCP maps a tools/call result to the contract: VisualQ's structuredContent is the
// ToolResponse; any other's raw result is the data, its content the blocks, first line the summary.
func toolResponseFromMCP(tool string, res *mcp.CallToolResult, raw, structured json.RawMessage, info toolInfo) *api.ToolResponse {
	if structured != nil {
		resp, err := api.DecodeToolResponse(structured)
		switch {
		case err == nil && resp.OK && res.IsError:
			return api.Contradicted(tool, "an MCP result with isError: true", false)
		case err == nil:
			if resp.Tool == "" {
				resp.Tool = tool
			}
			return resp
		case api.ClaimsToolResponse(structured):
			// No verdict to read, and the call may have been carried out.
			why := strings.TrimPrefix(err.Error(), "not a ToolResponse: ")
			r := api.ClientError(tool, api.CodeHTTPError, "the MCP result's structuredContent is a malformed ToolResponse ("+why+"): "+api.Snippet(structured), true)
			r.Failure.Unanswered = true
			return r
		}
	}
	if len(raw) == 0 {
		raw, _ = json.Marshal(res) // the SDK's own types: cannot fail
	}
	content := contentOf(res, structured)
	resp := api.ContentAnswer(tool, raw, content, summary(content))
	if res.IsError {
		text := text(content)
		if text == "" {
			text = resp.Summary
		}
		return classifyToolError(resp, text, info)
	}
	return resp
}

// structuredOf is the result's structuredContent, from raw when recorded, else the SDK's.
func structuredOf(res *mcp.CallToolResult, raw json.RawMessage) json.RawMessage {
	if len(raw) > 0 {
		var members struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if json.Unmarshal(raw, &members) == nil && string(members.StructuredContent) != "null" {
			return members.StructuredContent
		}
		return nil
	}
	if res.StructuredContent != nil {
		structured, _ := json.Marshal(res.StructuredContent) // decoded from JSON: encodes again
		return structured
	}
	return nil
}

// toolInfo is what tools/list said of a tool, for reading its errors.
type toolInfo struct {
	listed, known bool
	repeatable    bool // api.ReadOnlyTool
	taskRequired  bool // execution.taskSupport
}

// classifyToolError reads an isError result without a ToolResponse from its words; a tool_error is
// retried only for a read-only tool, as it may have come after a change.
func classifyToolError(resp *api.ToolResponse, text string, info toolInfo) *api.ToolResponse {
	code, recoverable := api.CodeToolError, true
	lower := strings.ToLower(text)
	switch {
	case info.listed && !info.known, unknownToolText(lower):
		code, recoverable = api.CodeNotFound, false
	case strings.HasPrefix(lower, `validating "arguments"`), strings.Contains(lower, "input validation error"),
		strings.Contains(lower, "invalid arguments"), strings.Contains(lower, "-32602"):
		code = api.CodeValidation
	default:
		if _, locked := api.ParseReadiness(text); locked {
			code = api.CodeProjectNotReady
		}
	}
	resp.OK, resp.Error, resp.Recoverable = false, &api.ToolError{Code: code, Message: text}, new(recoverable)
	resp.Failure.RepeatUnsafe = code == api.CodeToolError && !info.repeatable
	return resp
}

// unknownToolText reports "unknown tool x" or "tool x not found" (lower case).
func unknownToolText(lower string) bool {
	if strings.Contains(lower, "unknown tool") {
		return true
	}
	rest, ok := strings.CutPrefix(lower, "tool ")
	if !ok {
		if i := strings.Index(lower, ": tool "); i >= 0 {
			rest, ok = lower[i+len(": tool "):], true
		}
	}
	if !ok {
		return false
	}
	name, _, _ := strings.Cut(rest, " ")
	return strings.HasPrefix(rest[len(name):], " not found")
}

// mcpFailure maps what went wrong below the tool to the contract.
func (c *Client) mcpFailure(tool string, rec *httpRecord, err error) *api.ToolResponse {
	if rpcErr, ok := serverRPCError(err); ok {
		return rpcFailure(tool, rpcErr)
	}
	if resp, ok := c.repeatedFailure(tool, err); ok {
		return resp
	}
	rec.mu.Lock()
	bodyErr, status, challenge, retryAfter := rec.bodyErr, rec.status, rec.wwwAuthenticate, rec.retryAfter
	failedBody := bytes.Clone(rec.body.Bytes()[min(rec.failedAt, rec.body.Len()):])
	rec.mu.Unlock()
	if bodyErr != nil {
		return api.TransportFailure(tool, c.MCPEndpoint(), 0, bodyErr)
	}
	switch status {
	case http.StatusUnauthorized:
		return api.Unauthorized(tool, challenge)
	case http.StatusTooManyRequests:
		return api.RateLimited(tool, c.MCPEndpoint(), retryAfter)
	case http.StatusForbidden:
		if scope, ok := api.InsufficientScope(challenge); ok {
			return api.ScopeDenied(tool, c.MCPEndpoint(), scope)
		}
	case http.StatusNotFound:
		if c.opts.Endpoint == "" {
			return api.ClientError(tool, api.CodeHTTPError, fmt.Sprintf(
				"wrong path: the MCP server is at %s (got 404 from %s)", api.MCPPath, c.MCPEndpoint()), false)
		}
		// A server of another make: VisualQ's path means nothing there.
		r := api.HTTPFailure(tool, c.MCPEndpoint(), status,
			"HTTP 404 Not Found (vq speaks MCP over streamable HTTP, not the legacy HTTP+SSE transport)")
		r.Recoverable = new(false) // no arguments make a wrong URL right
		return r
	}
	if status != 0 {
		msg := fmt.Sprintf("HTTP %d %s from %s", status, http.StatusText(status), c.MCPEndpoint())
		if quoted := api.Snippet(failedBody); quoted != "" {
			msg += ": " + quoted // when the SDK read it at all
		}
		return api.HTTPFailure(tool, c.MCPEndpoint(), status, msg)
	}
	if strings.Contains(err.Error(), "terminated without response") || errors.Is(err, mcp.ErrConnectionClosed) {
		return api.TransportFailure(tool, c.MCPEndpoint(), 0, io.ErrUnexpectedEOF) // the connection was cut
	}
	return api.TransportFailure(tool, c.MCPEndpoint(), 0, err)
}

// repeatedFailure is the answer to a failure vq found that a retry would repeat.
func (c *Client) repeatedFailure(tool string, err error) (*api.ToolResponse, bool) {
	var start *StdioStartError
	var asked *askedAgainError
	var r *api.ToolResponse
	switch {
	case errors.As(err, &start):
		r = api.ClientError(tool, api.CodeServerConfig, start.Error(), false)
	case isNotOffered(err):
		r = api.ClientError(tool, api.CodeToolError, err.Error(), false)
	case errors.As(err, &asked):
		r = api.ClientError(tool, api.CodeToolError, asked.Error()+"; vq answers a question once per call", false)
	case errors.Is(err, errEndlessList):
		return api.ClientError(tool, api.CodeHTTPError, fmt.Sprintf("%v (from %s)", err, c.MCPEndpoint()), false), true
	default:
		return nil, false
	}
	r.Failure.RepeatUnsafe = true
	return r, true
}

// serverRPCError finds the server's JSON-RPC error; the SDK's own -32003..-32005 transport failures are not.
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

// rpcFailure maps a JSON-RPC error object to the contract.
func rpcFailure(tool string, e *jsonrpc.Error) *api.ToolResponse {
	msg := e.Message
	switch {
	case e.Code == jsonrpc.CodeMethodNotFound,
		e.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(strings.ToLower(msg), "unknown tool"):
		return api.ClientError(tool, api.CodeNotFound, msg, false)
	case e.Code == jsonrpc.CodeInvalidParams:
		return api.ClientError(tool, api.CodeValidation, msg, true)
	case e.Code == mcp.CodeMissingRequiredClientCapabilities:
		// Asking again gets the same refusal.
		r := api.ClientError(tool, api.CodeToolError, msg+": vq offers no sampling or roots (a command line, not an agent host)", false)
		r.Failure.RepeatUnsafe = true
		return r
	}
	// After the server had the call: it may have been carried out.
	r := api.ClientError(tool, api.CodeToolError, fmt.Sprintf("%s (JSON-RPC error %d)", msg, e.Code), true)
	r.Failure.Unanswered = true
	return r
}
