// Command vq is the command-line client of VisualQ.
package main

import (
	"os"

	"github.com/visualq/vq/cmd"
)

func main() {
	startingHeap(32 << 20)
	os.Exit(cmd.Main())
}
