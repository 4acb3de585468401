// Package cmdutil is what every command stands on: Factory, shared flags, the
// one Pipeline, the task command table, shared helpers.
//
// cmdutil may import cmd/iostreams, api and its clients (api/mcpclient,
// api/account), format, ui, completions and the internal leaves; never
// cmd nor a command group, nor sandbox or bench.
package cmdutil
