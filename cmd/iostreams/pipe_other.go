//go:build !linux

package iostreams

import "io"

// growPipe only acts on Linux, the one system whose pipes can grow.
func growPipe(io.Writer, int) {}
