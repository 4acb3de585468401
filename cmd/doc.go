// Package cmd is vq's command tree: cobra commands that parse flags into an
// Options struct each, call api, and hand the one ToolResponse to format
// (scripts) or ui (people). Commands stay thin; Main is the one place where
// errors become exit codes.
//
// cmd may import api, format, ui and sandbox; nothing imports cmd.
package cmd
