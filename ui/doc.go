// Package ui is vq's triage TUI: one answer per screen, chaining into the server's next
// actions, Esc going back. It renders inline, so the last screen stays in the scrollback.
// The root (model.go) owns a stack of pages (page.go); components under ui/components
// import nothing of ui. All styles are in styles.go.
//
// ui may import api and the internal leaves (layout, textsafe, exitcode);
// it must not import cmd, completions, format, sandbox or bench.
package ui
