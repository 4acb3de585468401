package textsafe

import (
	"bytes"
	"io"
	"sync"
)

// The runner reads workflow commands from lines (ending at LF or CR) that
// start with "::" after whitespace, and from "##[" anywhere in a line.

// CommandGuard writes to a runner-read stream so nothing forms a workflow
// command: a line's leading "::" becomes ":\:" and "##[" becomes "##\u005b"
// (the same string in JSON). Bytes the runner might ignore (non-ASCII,
// controls) count as nothing between them. Safe for concurrent use.
type CommandGuard struct {
	mu sync.Mutex
	w  io.Writer
	// lead: the line so far is whitespace only; colon: whitespace, then
	// one colon; hashes: the '#' just written (at most 2 counted).
	lead, colon bool
	hashes      int
}

func NewCommandGuard(w io.Writer) *CommandGuard { return &CommandGuard{w: w, lead: true} }

// Write writes p, escaping each byte that would complete a workflow command.
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

// Commands writes vq's own commands unguarded, tracking where the line stands.
func (g *CommandGuard) Commands() io.Writer { return guardedCommands{g} }

type guardedCommands struct{ g *CommandGuard }

func (c guardedCommands) Write(p []byte) (int, error) {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	c.g.scan(p, nil)
	return c.g.w.Write(p)
}

// scan appends to at the offsets in p of bytes that would complete a command.
func (g *CommandGuard) scan(p []byte, at []int) []int {
	hash, cr := -1, -1 // the next '#' and CR at or after i, once looked for
	for i := 0; i < len(p); i++ {
		if !g.lead && !g.colon && g.hashes == 0 {
			// Inside a line, after no '#': only a line end or '#' matters.
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

// ignorable reports a byte the runner may ignore: non-ASCII, or a control but tab.
func ignorable(c byte) bool { return c >= 0x80 || c < ' ' && c != '\t' || c == 0x7f }

// nextByte is the offset of the first c in p[i:], len(p) for none.
func nextByte(p []byte, i int, c byte) int {
	if j := bytes.IndexByte(p[i:], c); j >= 0 {
		return i + j
	}
	return len(p)
}
