package api

// MCPProtocolVersion is the newest MCP revision vq asks for; the SDK falls
// back to an earlier one the server speaks.
const MCPProtocolVersion = "2026-07-28"

// The _meta keys that carry --project and --environment on a tools/call:
// unknown _meta keys are ignored where unknown arguments could fail a schema.
const (
	MetaProject     = "visualq/project"
	MetaEnvironment = "visualq/environment"
)
