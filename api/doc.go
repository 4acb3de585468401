// Package api owns the contract and the invoke transport: the ToolResponse
// types, the invoke and CI clients, the retries every call gets, the tool
// registry, and the watch and readiness policies. Everything a server
// answers becomes one *ToolResponse here, so the rest of vq never sees
// HTTP; hints naming vq's commands and flags are cmd's.
//
// Imports: only the leaf packages under internal/; never the MCP SDK, OAuth
// or the keyring (arch_test.go), so format and ui can read MCP answers
// (Tool, Content, Elicitation) without them.
package api
