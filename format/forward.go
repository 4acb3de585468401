package format

import "github.com/visualq/vq/internal/textsafe"

// Forwarders for cmd until it calls the leaf packages itself.
var (
	Sanitize     = textsafe.Sanitize
	SanitizeLine = textsafe.SanitizeLine
	ShellQuote   = textsafe.ShellQuote
	WriteJSON    = textsafe.WriteJSON
)
