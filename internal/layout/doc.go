// Package layout arranges a tool answer's data for plain text, Markdown and
// the TUI, and reads a run's check results and verdict. It is a leaf: it
// imports no vq package outside internal/.
package layout
