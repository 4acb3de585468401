// Package mcpclient is vq's MCP client: one session per Client (streamable HTTP or a stdio: child) carrying
// tool calls as an api.Transport; its Client embeds api's, so the call pipeline holds one client.
//
// Imports: api, api/account and the leaves under internal/; none of cmd,
// format, ui, completions, sandbox or bench.
package mcpclient
