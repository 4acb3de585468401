// Package cmdutil is what every command stands on: the Factory, the
// shared flags, the one Pipeline a call goes through, the table of task
// commands, and the helpers the commands share.
//
// cmdutil may import cmd/iostreams, api and its clients (api/mcpclient,
// api/account), format, ui, completions and the internal leaves; never
// cmd nor a command group, nor sandbox or bench.
package cmdutil
