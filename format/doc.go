// Package format turns one api.ToolResponse into bytes for a script or a
// plain terminal: plain text, JSON, jq, the CI formats (Markdown, JUnit,
// GitHub workflow commands) and the files CI reads beside them (a JUnit
// report, GitHub step outputs), the proof report, the tool list, and next
// actions as shell command lines. It draws the arrangement internal/layout
// makes, makes server text safe with internal/textsafe and ends error lines
// with the exit code internal/exitcode gives.
//
// format may import api and the internal leaves; it must not import cmd,
// ui, completions or sandbox.
package format
