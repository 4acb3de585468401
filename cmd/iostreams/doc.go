// Package iostreams is what vq knows of the person at the other end of
// its streams: the standard streams and the Terminal read from them once.
//
// iostreams may import api, format, ui and the internal leaves; nothing of
// cmd (cmd, cmd/cmdutil, a command group), nor api/mcpclient, api/account,
// completions, sandbox or bench.
package iostreams
