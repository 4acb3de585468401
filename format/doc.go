// Package format turns an api.ToolResponse into bytes for a script or a plain terminal (text, JSON, jq,
// Markdown, JUnit, GitHub) and writes vq's other non-TUI text; Printer is the one door cmd writes through.
// format must not import cmd, ui, completions or sandbox.
package format
