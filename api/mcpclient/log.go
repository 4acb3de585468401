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

// offersLogging reports a session whose server declares logging, when
// --log-level asks for its logs.
func (c *Client) offersLogging(s *mcp.ClientSession) bool {
	res := s.InitializeResult()
	return c.opts.LogLevel != "" && res != nil && res.Capabilities != nil && res.Capabilities.Logging != nil
}

// setLogLevel sends --log-level to a server that offers logging, as
// logging/setLevel before revision 2026-07-28, which removed it: there
// the level travels in each request's _meta (logLevelInMeta).
func (c *Client) setLogLevel(ctx context.Context, session *mcp.ClientSession) {
	level := c.opts.LogLevel
	if !c.offersLogging(session) || newRevision(session) {
		return
	}
	if err := session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
		c.notify("the server refused --log-level " + level + ": " + err.Error())
	}
}

// onLog shows a server's notifications/message as vq's notices show (on
// stderr, sanitized by Notify), with its level and logger.
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

// logLevelInMeta is a sending middleware that puts --log-level in the
// _meta of every request of a 2026-07-28 session whose server offers
// logging (io.modelcontextprotocol/logLevel): a server of that revision
// logs only what a request asks for.
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
