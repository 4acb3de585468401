// Package sandbox is a local, in-memory VisualQ-compatible server: the
// invoke endpoint (POST /api/mcp/v1/invoke) answering ToolResponses with the
// contract's HTTP statuses, seeded runs, scenarios, tracking plans and JIRA
// tickets, async jobs, rendered diff images, demo API keys with scope and plan
// gates, a per-key rate limiter, and faults on demand (latency, gateway 502s).
//
// `vq sandbox` and `vq demo` start it, and vq's tests use it as the real
// server. State lives per Server, so tests can run many side by side.
//
// Record and Replay serve something else on the same Server: a proxy in
// front of a real VisualQ server writing each exchange to files, and a
// server answering from those files alone (exchange.go says their form).
//
// sandbox speaks only the wire: it may import api (the contract types) and
// the internal leaves (internal/fixture generates its large runs); it must
// not import cmd, completions, format, ui or bench.
package sandbox
