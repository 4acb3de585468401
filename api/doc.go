// Package api owns the wire: the ToolResponse contract types, the invoke and
// MCP transports, retries, timeouts, credentials and request tracing.
//
// Everything a server can answer becomes one *ToolResponse here, so the rest
// of vq never sees HTTP. api must not import cmd, format, ui or sandbox.
package api
