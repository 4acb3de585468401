package iostreams

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"

	"charm.land/huh/v2"
	"github.com/visualq/vq/internal/textsafe"
	"golang.org/x/term"
)

// Terminal reads block in the kernel beyond a signal's reach: each runs in a
// goroutine so Ctrl-C (ctx) ends the prompt at once, terminal restored.

// ReadLine reads one line, trimmed; EOF ends it like a newline.
func ReadLine(ctx context.Context, in *bufio.Reader) (string, error) {
	return await(ctx, func() (string, error) {
		line, err := in.ReadString('\n')
		if err == io.EOF {
			err = nil
		}
		return strings.TrimSpace(line), err
	}, nil)
}

// ReadSecret reads a line without echo from the terminal fd.
func ReadSecret(ctx context.Context, fd int) (string, error) {
	state, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	return await(ctx, func() (string, error) {
		b, err := term.ReadPassword(fd)
		return strings.TrimSpace(string(b)), err
	}, func() { _ = term.Restore(fd, state) })
}

// await returns read's answer, or ctx's error (after undo) once ctx ends; the
// abandoned read ends with the process.
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

// ReadLineHidingKey echoes a line only up to its first space or tab, so a
// pasted "URL KEY" never shows the key.
func ReadLineHidingKey(ctx context.Context, in io.Reader, fd int, echo io.Writer) (string, error) {
	state, err := term.MakeRaw(fd)
	if err != nil {
		return "", err
	}
	restore := func() { _ = term.Restore(fd, state) }
	line, err := await(ctx, func() (string, error) {
		defer restore()
		l := hiddenLine{echo: echo}
		b := make([]byte, 1)
		for {
			if _, err := io.ReadFull(in, b); err != nil {
				return string(l.line), err
			}
			if done, err := l.key(b[0]); done {
				return strings.TrimSpace(string(l.line)), err
			}
		}
	}, restore)
	if errors.Is(err, errInterrupted) {
		return "", context.Canceled
	}
	return line, err
}

// errInterrupted is Ctrl-C typed at a raw prompt.
var errInterrupted = errors.New("interrupted")

type hiddenLine struct {
	echo  io.Writer
	line  []byte
	shown int // bytes of line echoed
}

// key takes one typed byte; done says the line ended.
func (l *hiddenLine) key(c byte) (done bool, err error) {
	switch {
	case c == '\r' || c == '\n':
		io.WriteString(l.echo, "\r\n")
		return true, nil
	case c == 3: // Ctrl-C
		l.line = nil
		return true, errInterrupted
	case c == 4 && len(l.line) == 0: // Ctrl-D
		return true, io.EOF
	case c == 0x7f || c == 8:
		if len(l.line) > 0 {
			if l.shown == len(l.line) {
				io.WriteString(l.echo, "\b \b")
				l.shown--
			}
			l.line = l.line[:len(l.line)-1]
		}
	case c == ' ' || c == '\t' || c >= 0x20:
		if l.shown == len(l.line) && !strings.ContainsAny(string(l.line)+string(c), " \t") {
			l.echo.Write([]byte{c})
			l.shown++
		}
		l.line = append(l.line, c)
	}
	return false, nil
}

// Choose asks a person to pick one of options from a list on stderr.
func (t *Terminal) Choose(ctx context.Context, title string, options []string) (string, error) {
	defer t.drawing.hold()()
	var picked string
	choices := make([]huh.Option[string], len(options))
	for i, o := range options {
		choices[i] = huh.NewOption(textsafe.SanitizeLine(o), o)
	}
	pick := huh.NewSelect[string]().Title(textsafe.SanitizeLine(title)).Options(choices...).Value(&picked)
	err := huh.NewForm(huh.NewGroup(pick)).WithInput(t.io.In).WithOutput(t.io.ErrOut).RunWithContext(ctx)
	if errors.Is(err, huh.ErrUserAborted) {
		return "", context.Canceled
	}
	return picked, err
}
