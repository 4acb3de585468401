package api

// What vq's MCP client, its OAuth sign-in and a VisualQ server's MCP
// endpoint (the sandbox's) agree on, besides MCPPath: kept here, where
// all of them can read it without importing the MCP client.

// MCPProtocolVersion is the newest MCP revision vq asks for: the SDK opens
// it with server/discover and, when the server does not speak it, falls
// back to initialize with the newest earlier revision, whose answer names
// the revision the server speaks (2025-06-18, 2025-03-26 still work).
const MCPProtocolVersion = "2026-07-28"

// The _meta keys of a tools/call that carry vq's --project and
// --environment, which the invoke transport sends beside the tool name: a
// general MCP server ignores unknown _meta keys, while unknown arguments
// could fail its schema.
const (
	MetaProject     = "visualq/project"
	MetaEnvironment = "visualq/environment"
)
