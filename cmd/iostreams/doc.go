// Package iostreams is what vq knows of the person at the other end of
// its streams: the standard streams (IOStreams) and the Terminal read from
// them once, which gives each command its Display and Consent policies,
// asks the line, secret and yes/no prompts and a server's questions (a
// form), draws the progress views on stderr, runs the pager and reaches a
// terminal's clipboard.
//
// iostreams may import api, format, ui and the internal leaves; nothing of
// cmd (cmd, cmd/cmdutil, a command group), nor api/mcpclient, api/account,
// completions, sandbox or bench.
package iostreams
