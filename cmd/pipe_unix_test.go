//go:build unix

package cmd

import (
	"bytes"
	"os"
	"testing"
)

// vq --version into a pipe whose reader has already left ends as quietly
// as any command does (TestClosedPipeEndsQuietlyWithTheAnswersCode): exit
// 0 and nothing on stderr, not killed by SIGPIPE, though vq catches no
// signal for it.
func TestVersionIntoAClosedPipe(t *testing.T) {
	t.Parallel()
	for _, word := range []string{"--version", "-v"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd := vqCommand(t, "http://127.0.0.1:9", word)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = w, &stderr
		err = cmd.Run()
		w.Close()
		if code := cmd.ProcessState.ExitCode(); code != 0 || stderr.Len() != 0 {
			t.Errorf("vq %s into a closed pipe: exit %d (%v), stderr %q; want 0 and nothing", word, code, err, stderr.String())
		}
	}
}
