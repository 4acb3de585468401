// Package format turns one api.ToolResponse into bytes for a script or a
// plain terminal (text, JSON, jq, and the CI formats) and owns the exit-code
// table every command exits through. It also holds the one sanitizer that
// makes server text safe for a terminal.
//
// format may import api; it must not import cmd or ui.
package format
