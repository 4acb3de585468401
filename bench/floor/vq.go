//go:build vqfloor

package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/visualq/vq/cmd"
)

// With -tags vqfloor the floor is vq's own binary doing nothing of vq's:
// all of vq is linked ("vq ARGS…" runs it), so its packages' inits and its
// size are paid as vq pays them, and "post URL" catches SIGINT and SIGTERM
// as every vq call must (an interrupted call exits 130 or 143 with its
// message). What vq's command path adds (the command line, the settings,
// the answer's index, the output) is vq's own cost over this floor.
func init() {
	runVQ = cmd.Main
	catchSignals = func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-ch
			os.Exit(130)
		}()
	}
}
