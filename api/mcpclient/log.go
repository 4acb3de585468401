// MCP deprecates logging as of revision 2026-07-28 (SEP-2577) but servers
// of every earlier revision still log, and the SDK still supports it.
//
//lint:file-ignore SA1019 vq shows the logs of servers that send them.

package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

func (c *Client) handleLogs(opts *mcp.ClientOptions) { opts.LoggingMessageHandler = c.onLog }

// offersLogging reports --log-level and a server that declares logging.
func (c *Client) offersLogging(s *mcp.ClientSession) bool {
	res := s.InitializeResult()
	return c.opts.LogLevel != "" && res != nil && res.Capabilities != nil && res.Capabilities.Logging != nil
}

// setLogLevel sends logging/setLevel before 2026-07-28, which moved it to _meta.
func (c *Client) setLogLevel(ctx context.Context, session *mcp.ClientSession) {
	level := c.opts.LogLevel
	if !c.offersLogging(session) || newRevision(session) {
		return
	}
	if err := session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
		c.notify("the server refused --log-level " + level + ": " + err.Error())
	}
}

// onLog shows a server's notifications/message through Notify (which sanitizes).
func (c *Client) onLog(_ context.Context, req *mcp.LoggingMessageRequest) {
	p := req.Params
	if p == nil {
		return
	}
	text, ok := p.Data.(string)
	if !ok {
		b, _ := json.Marshal(p.Data) // decoded from JSON: encodes again
		text = string(b)
	}
	from := "server"
	if p.Logger != "" {
		from += " " + p.Logger
	}
	c.notify(fmt.Sprintf("%s [%s]: %s", from, p.Level, text))
}

// logLevelInMeta puts --log-level in each request's _meta: 2026-07-28 servers log only what a request asks.
func (c *Client) logLevelInMeta(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		s, ok := req.GetSession().(*mcp.ClientSession)
		if p := req.GetParams(); ok && !nilParams(p) && !strings.HasPrefix(method, "notifications/") &&
			newRevision(s) && c.offersLogging(s) {
			meta := p.GetMeta()
			if meta == nil {
				meta = map[string]any{}
			}
			meta[mcp.MetaKeyLogLevel] = c.opts.LogLevel
			p.SetMeta(meta)
		}
		return next(ctx, method, req)
	}
}

// newRevision reports a session of revision 2026-07-28 or later.
func newRevision(s *mcp.ClientSession) bool {
	res := s.InitializeResult()
	return res != nil && res.ProtocolVersion >= api.MCPProtocolVersion
}
