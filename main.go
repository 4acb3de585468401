// Command vq is the command-line client of VisualQ.
//
// Nothing vq is built from imports bench/: the benchmarks are not shipped.
// arch_test.go holds every package to the import rule its doc comment
// states.
package main

import (
	"os"

	"github.com/visualq/vq/cmd"
)

func main() {
	os.Exit(cmd.Main())
}
