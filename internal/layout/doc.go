// Package layout arranges a tool answer's data for display, the one
// arrangement plain text, Markdown and the TUI all draw: scalar fields
// with dotted keys, plain lines, record lists as tables (streamed from the
// answer's bytes, or decoded into a Table), ordered JSON nodes, and the
// check results of a run with their verdict (a row of exitcode's table).
//
// layout is a leaf: it imports the standard library, third-party modules
// and other leaves (textsafe, exitcode) only, never a vq package outside
// internal/.
package layout
