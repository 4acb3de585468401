// Package api owns the contract and the invoke transport: the ToolResponse
// types and their index of an answer's JSON, the invoke and CI endpoints'
// clients, the retries every call gets whatever carries it, the tool
// registry, and the watch and readiness policies. It also holds what the
// renderers read of MCP answers (Tool, Content, Elicitation), off the SDK,
// which brings OAuth with it (arch_test.go), so that format and ui need
// not import the MCP client.
//
// Everything a server can answer becomes one *ToolResponse here, so the rest
// of vq never sees HTTP. api's messages say what happened; hints that name
// vq's commands, flags or environment variables are added by cmd, from the
// error code and the accessors a response carries for them.
//
// A call goes by a Transport: the invoke endpoint's, or package
// mcpclient's MCP session. Credentials, the config file and OAuth sign-in
// are package account's.
//
// Imports: api imports nothing of vq above it, neither cmd, format, ui,
// completions, sandbox, bench nor its own subpackages (mcpclient, account);
// only the leaf packages under internal/, which import no vq package above
// them. It imports neither the MCP SDK, OAuth nor the keyring.
package api
