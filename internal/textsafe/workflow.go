package textsafe

import (
	"bytes"
	"io"
	"sync"
)

// The GitHub Actions runner reads a step's stdout and stderr a line at a
// time (a line ends at LF or CR) for workflow commands: a line that starts
// with "::" once its leading whitespace is trimmed (::add-mask::,
// ::stop-commands::, ::error ...), and "##[" anywhere in a line, the older
// form (##[set-output name=x;]y).

// CommandGuard writes to a stream the runner reads so that nothing written
// through it forms a workflow command: a backslash goes before the second
// colon of a line's leading "::" (":\:"), and the bracket of "##[" becomes
// \u005b ("##\u005b"), visible in text and the same string in JSON, where
// "##[" can only stand inside a string (and no line starts with ':'). What
// the runner might trim or ignore counts as nothing between them: bytes of
// non-ASCII characters and control characters (":\u200b:" is guarded).
// It keeps where a line stands across writes, and costs a pass over each
// write, skipping to the next line end or '#'. Safe for concurrent use.
type CommandGuard struct {
	mu sync.Mutex
	w  io.Writer
	// lead: the line so far is whitespace only; colon: whitespace, then
	// one colon; hashes: the '#' just written (at most 2 counted).
	lead, colon bool
	hashes      int
}

func NewCommandGuard(w io.Writer) *CommandGuard { return &CommandGuard{w: w, lead: true} }

// Write writes p with each byte that would complete a workflow command
// escaped.
func (g *CommandGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var spots [8]int
	at := g.scan(p, spots[:0])
	if len(at) == 0 {
		return g.w.Write(p)
	}
	out := make([]byte, 0, len(p)+5*len(at))
	last := 0
	for _, i := range at {
		if p[i] == ':' {
			out = append(append(out, p[last:i]...), '\\', ':')
		} else {
			out = append(append(out, p[last:i]...), `\u005b`...)
		}
		last = i + 1
	}
	if _, err := g.w.Write(append(out, p[last:]...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Commands is where the commands vq itself gives go: to the guarded
// stream as they are, the guard reading them only to know where the line
// stands after them.
func (g *CommandGuard) Commands() io.Writer { return guardedCommands{g} }

type guardedCommands struct{ g *CommandGuard }

func (c guardedCommands) Write(p []byte) (int, error) {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	c.g.scan(p, nil)
	return c.g.w.Write(p)
}

// scan reads p on from the guard's state, appends to at the offsets of
// the bytes that would complete a command, and leaves the state where p
// ends.
func (g *CommandGuard) scan(p []byte, at []int) []int {
	hash, cr := -1, -1 // the next '#' and CR at or after i, once looked for
	for i := 0; i < len(p); i++ {
		if !g.lead && !g.colon && g.hashes == 0 {
			// Inside a line and after no '#': only a line end or a '#'
			// can matter.
			if hash < i {
				hash = nextByte(p, i, '#')
			}
			if cr < i {
				cr = nextByte(p, i, '\r')
			}
			if i = min(hash, cr, nextByte(p, i, '\n')); i == len(p) {
				break
			}
		}
		if g.step(p[i]) {
			at = append(at, i)
		}
	}
	return at
}

// step moves the state past c and reports whether c completes a command.
func (g *CommandGuard) step(c byte) bool {
	switch {
	case c == '\n' || c == '\r':
		g.lead, g.colon, g.hashes = true, false, 0
	case ignorable(c):
		// neither ends the leading whitespace nor breaks a run of '#'
	case c == ':' && g.colon, c == '[' && g.hashes == 2:
		g.lead, g.colon, g.hashes = false, false, 0
		return true
	case c == ':' && g.lead:
		g.lead, g.colon = false, true
	case c == '#':
		g.lead, g.colon, g.hashes = false, false, min(g.hashes+1, 2)
	case c == ' ' || c == '\t':
		g.colon, g.hashes = false, 0
	default:
		g.lead, g.colon, g.hashes = false, false, 0
	}
	return false
}

// ignorable reports a byte the runner may trim or ignore when it looks
// for a command: of a non-ASCII character, or a control character other
// than tab.
func ignorable(c byte) bool { return c >= 0x80 || c < ' ' && c != '\t' || c == 0x7f }

// nextByte is the offset of the first c in p at or after i, len(p) when
// there is none.
func nextByte(p []byte, i int, c byte) int {
	if j := bytes.IndexByte(p[i:], c); j >= 0 {
		return i + j
	}
	return len(p)
}
