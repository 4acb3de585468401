package cmd

import (
	"bufio"
	"context"
	"errors"
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

// readLineHidingKey reads one line from the terminal fd, echoing it only
// up to its first space or tab: a person who pastes "URL KEY" at the URL
// prompt never sees the key on the screen (nor does anyone behind them).
// Backspace edits; Ctrl-C ends it with ctx's error; Enter ends the line.
func readLineHidingKey(ctx context.Context, in io.Reader, fd int, echo io.Writer) (string, error) {
	state, err := term.MakeRaw(fd)
	if err != nil {
		return "", err
	}
	restore := func() { _ = term.Restore(fd, state) }
	interrupted := errors.New("interrupted")
	line, err := await(ctx, func() (string, error) {
		defer restore()
		var line []byte
		shown := 0 // how many bytes of line were echoed
		b := make([]byte, 1)
		for {
			if _, err := io.ReadFull(in, b); err != nil {
				return string(line), err
			}
			switch c := b[0]; {
			case c == '\r' || c == '\n':
				io.WriteString(echo, "\r\n")
				return strings.TrimSpace(string(line)), nil
			case c == 3: // Ctrl-C
				return "", interrupted
			case c == 4 && len(line) == 0: // Ctrl-D
				return "", io.EOF
			case c == 0x7f || c == 8:
				if len(line) > 0 {
					if shown == len(line) {
						io.WriteString(echo, "\b \b")
						shown--
					}
					line = line[:len(line)-1]
				}
			case c == ' ' || c == '\t' || c >= 0x20 && c != 0x7f:
				if shown == len(line) && !strings.ContainsAny(string(line)+string(c), " \t") {
					echo.Write(b)
					shown++
				}
				line = append(line, c)
			}
		}
	}, restore)
	if errors.Is(err, interrupted) {
		return "", context.Canceled
	}
	return line, err
}
