// Package api owns the wire: the ToolResponse contract types, the invoke,
// CI and MCP transports, retries, timeouts, credentials and OAuth, the
// watch and readiness policies, and request tracing.
//
// Everything a server can answer becomes one *ToolResponse here, so the rest
// of vq never sees HTTP. api's messages say what happened; hints that name
// vq's commands, flags or environment variables are added by cmd, from the
// error code and the accessors a response carries for them.
//
// Imports: api imports nothing of vq above it, neither cmd, format, ui,
// completions, sandbox nor bench; only the leaf packages under internal/,
// which import no vq package above them.
package api
