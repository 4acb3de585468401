// Package cmd is vq's command tree: cobra commands that parse flags into an
// Options struct each and hand their calls to the one Pipeline (cmdutil),
// which sends them through api and gives the one ToolResponse to format
// (scripts) or ui (people). Commands stay thin; execute and Main are the
// one place where errors become exit codes.
//
// cmd may import cmd/cmdutil, cmd/iostreams, api, format, ui, completions,
// sandbox and the internal leaves; nothing imports cmd but vq's main
// package and cmd/gendocs, and cmd imports nothing of bench.
package cmd
