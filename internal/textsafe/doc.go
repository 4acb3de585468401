// Package textsafe makes text from a server safe to show: the sanitizer
// that strips what a terminal would obey or hide, JSON escaping of the same
// characters, POSIX shell quoting that stays exact and displayable, the
// display width the TUI and plain tables align by, and the guard that keeps
// it from forming GitHub Actions workflow commands on vq's output.
//
// textsafe is a leaf: it imports the standard library and third-party
// modules only, never a vq package outside internal/.
package textsafe
