// Package layout arranges a tool answer's data for text, Markdown and the TUI, and reads a run's checks
// and verdict. It is a leaf: it imports no vq package outside internal/.
package layout
