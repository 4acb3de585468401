// Package api owns the wire: the ToolResponse contract types, the invoke and
// MCP transports, retries, timeouts, credentials and request tracing.
//
// Everything a server can answer becomes one *ToolResponse here, so the rest
// of vq never sees HTTP.
//
// api may import the internal leaves; it must not import cmd, completions,
// format, sandbox, ui or bench.
package api
