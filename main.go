// Command vq is the command-line client of VisualQ.
package main

import (
	"os"

	"github.com/visualq/vq/cmd"
)

func main() {
	os.Exit(cmd.Main())
}
