// MCP deprecates logging as of revision 2026-07-28 (SEP-2577) but servers
// of every earlier revision still log, and the SDK still supports it.
//
//lint:file-ignore SA1019 vq shows the logs of servers that send them.

package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// handleLogs routes a server's notifications/message to onLog.
func (c *Client) handleLogs(opts *mcp.ClientOptions) { opts.LoggingMessageHandler = c.onLog }

// setLogLevel sends --log-level to a server that offers logging.
func (c *Client) setLogLevel(ctx context.Context, session *mcp.ClientSession) {
	level := c.opts.LogLevel
	if level == "" || session.InitializeResult().Capabilities.Logging == nil {
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
