// Package account keeps what vq knows of the user's accounts with servers
// and how it signs in to them: the config file (one entry per server),
// API keys in the OS keyring or the file, OAuth tokens in their store,
// the OAuth 2.1 sign-in (vq auth login --oauth) and the sign-in again an
// MCP transport asks for when a server refuses its token (Credential).
//
// Imports: api and the leaves under internal/; neither the MCP client
// (api/mcpclient, which uses this package's Credential) nor cmd, format,
// ui, completions, sandbox or bench.
package account
