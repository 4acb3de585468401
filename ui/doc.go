// Package ui is vq's triage TUI: one answer per screen (summary, warnings,
// data as fields or a scrollable table, next actions), chaining into the
// actions the server suggests, with Esc going back along the chain. It is
// built on the Charm v2 line (bubbletea, lipgloss, bubbles) and renders
// inline, so the last screen stays in the scrollback. A server's question
// (MCP elicitation) is asked with a form (huh), inside the TUI or on a
// terminal of its own.
//
// The root model (model.go) routes the messages and owns a stack of
// pages, each in a file of its own: page.go lists them and says how a
// message reaches one, and docs/recipes.md how to add one. The answer
// page composes the components under ui/components (table, fields,
// actions, image, progress, keybar), which import nothing of ui. All
// styles are in styles.go.
//
// ui may import api and the internal leaves (layout, textsafe, exitcode);
// it must not import cmd, completions, format, sandbox or bench.
package ui
