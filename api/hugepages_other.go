//go:build !linux

package api

// bodyBuffer is an empty buffer for n bytes of answer.
func bodyBuffer(n int64) []byte { return make([]byte, 0, n) }
