// Package mcpclient is vq's MCP client: one session per Client (streamable
// HTTP, or a stdio: child process), which carries tool calls as an
// api.Transport and answers tools/list, resources and prompts; the
// mapping of MCP results, content and JSON-RPC errors onto api's
// ToolResponse; progress notifications, server logs and elicitation; and
// the OAuth bearer of the session, with its sign-in again (package
// account's) within the call it answers.
//
// Its Client embeds api's, so that the call pipeline holds one client
// whichever transport carries the calls.
//
// Imports: api, api/account and the leaves under internal/; none of cmd,
// format, ui, completions, sandbox or bench.
package mcpclient
