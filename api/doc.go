// Package api owns the contract, transports, retries, registry and watches:
// every answer becomes a *ToolResponse, so the rest of vq never sees HTTP.
// It imports no MCP SDK, OAuth or keyring (arch_test.go).
package api
