// Package textsafe makes server text safe to show: sanitizing, JSON escaping,
// shell quoting, display width and the workflow-command guard. It is a leaf.
package textsafe
