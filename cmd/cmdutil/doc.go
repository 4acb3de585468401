// Package cmdutil is what every command stands on: the Factory of lazy
// dependencies (the Terminal, the settings resolved from the flags, the
// environment and the config file, the server's client), the shared flags
// and the sets of them a command takes, the one Pipeline a call goes
// through (consent, send, wait, show, the error that carries the exit
// code), the table of task commands, and the argument, hint and
// completion helpers the commands share.
//
// cmdutil may import cmd/iostreams, api and its clients (api/mcpclient,
// api/account), format, ui, completions and the internal leaves; never
// cmd nor a command group, nor sandbox or bench.
package cmdutil
