package cmd

import (
	"bufio"
	"context"
	"io"
	"strings"

	"golang.org/x/term"
)

// The terminal reads of prompts block in the kernel, where a signal cannot
// reach them: each runs in a goroutine so that Ctrl-C (ctx) ends the prompt
// at once, with the terminal as it was, and vq exits 130.

// readLine reads one line, trimmed; EOF ends it like a newline.
func readLine(ctx context.Context, in *bufio.Reader) (string, error) {
	return await(ctx, func() (string, error) {
		line, err := in.ReadString('\n')
		if err == io.EOF {
			err = nil
		}
		return strings.TrimSpace(line), err
	}, nil)
}

// readSecret reads a line without echo from the terminal fd.
func readSecret(ctx context.Context, fd int) (string, error) {
	state, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	return await(ctx, func() (string, error) {
		b, err := term.ReadPassword(fd)
		return strings.TrimSpace(string(b)), err
	}, func() { _ = term.Restore(fd, state) })
}

// await runs read and returns its answer, or ctx's error (after undo, when
// given) as soon as ctx ends; the abandoned read ends with the process.
func await(ctx context.Context, read func() (string, error), undo func()) (string, error) {
	type answer struct {
		s   string
		err error
	}
	done := make(chan answer, 1)
	go func() {
		s, err := read()
		done <- answer{s, err}
	}()
	select {
	case a := <-done:
		return a.s, a.err
	case <-ctx.Done():
		if undo != nil {
			undo()
		}
		return "", ctx.Err()
	}
}
