// Package exitcode is vq's exit-code table and the errors commands return
// to exit through it; Of is the one place where an error becomes an exit
// code. It is a leaf: the standard library only.
package exitcode
