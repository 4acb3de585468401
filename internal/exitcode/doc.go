// Package exitcode is vq's exit-code table and the errors commands return
// to exit through it: a usage mistake, a fixed code with a message, a tool
// answer that failed and was already shown. Of is the one place where an
// error becomes an exit code.
//
// The table names the contract's error codes as strings; a test in api
// holds every code api knows to a row of its own.
//
// exitcode is a leaf: it imports the standard library only, never a vq
// package outside internal/.
package exitcode
