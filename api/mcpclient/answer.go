package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime/debug"
	"slices"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// A stdio server's answers are kept as the line read, indexed in the pass that validates them. The SDK
// copies each decoded value several times, so a tools/call answer reaches it without the texts and
// structuredContent vq takes from the line; a line vq cannot read plainly reaches the SDK as it came.

// span is where a value lies in the line it was read from.
type span struct{ start, end int }

func (s span) in(line []byte) []byte { return line[s.start:s.end:s.end] }

// callAnswer is a stdio server's answer to a request, as read.
type callAnswer struct {
	line          []byte
	result        span     // empty for an error
	members       []string // the result's member names
	structured    span
	hasStructured bool
	texts         []contentText
}

// contentText is a content block's text, or its embedded resource's.
type contentText struct {
	block    int
	resource bool
	span
}

// sdkMaxDepth is the nesting the SDK's decoder refuses past.
const sdkMaxDepth = 1000

// readAnswer indexes a JSON-RPC response line; false for any other, or one the SDK should judge.
func readAnswer(line []byte) (a callAnswer, id jsonrpc.ID, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(line))
	r := answerReader{dec: dec, a: callAnswer{line: line}}
	idValue, isRequest, err := r.message()
	if err != nil || isRequest || idValue == nil {
		return a, id, false
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return a, id, false
	}
	var v any
	if json.Unmarshal(idValue, &v) != nil {
		return a, id, false
	}
	if id, err = jsonrpc.MakeID(v); err != nil {
		return a, id, false
	}
	return r.a, id, true
}

// answerReader reads a message, indexing what callAnswer keeps.
type answerReader struct {
	dec *jsontext.Decoder
	a   callAnswer
}

func (r *answerReader) value() (span, error) {
	v, err := r.dec.ReadValue()
	end := int(r.dec.InputOffset())
	return span{end - len(v), end}, err
}

// message reads the message's members: its id, and whether it has a method.
func (r *answerReader) message() (idValue []byte, isRequest bool, err error) {
	_, err = r.object(func(name string) error {
		switch {
		case name == "id":
			s, err := r.value()
			idValue = s.in(r.a.line)
			return err
		case name == "method":
			isRequest = true
		case name == "result" && r.dec.PeekKind() == '{':
			s, err := r.object(r.resultMember)
			r.a.result = s
			return err
		case name == "result":
			s, err := r.value()
			r.a.result = s
			return err
		}
		return r.dec.SkipValue()
	})
	return idValue, isRequest, err
}

func (r *answerReader) resultMember(name string) error {
	r.a.members = append(r.a.members, name)
	switch {
	case name == "content" && r.dec.PeekKind() == '[':
		return r.content()
	case name == "structuredContent":
		s, err := r.value()
		// Nesting the SDK would refuse stays for it to see.
		if depth, _ := shape(s.in(r.a.line)); err == nil && depth+2 <= sdkMaxDepth {
			r.a.structured, r.a.hasStructured = s, true
		}
		return err
	}
	return r.dec.SkipValue()
}

func (r *answerReader) content() error {
	if _, err := r.dec.ReadToken(); err != nil {
		return err
	}
	for block := 0; r.dec.PeekKind() != ']'; block++ {
		if r.dec.PeekKind() != '{' {
			if err := r.dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if _, err := r.object(func(name string) error { return r.blockMember(block, name) }); err != nil {
			return err
		}
	}
	_, err := r.dec.ReadToken()
	return err
}

func (r *answerReader) blockMember(block int, name string) error {
	switch {
	case name == "text" && r.dec.PeekKind() == '"':
		return r.text(block, false)
	case name == "resource" && r.dec.PeekKind() == '{':
		_, err := r.object(func(name string) error {
			if name == "text" && r.dec.PeekKind() == '"' {
				return r.text(block, true)
			}
			return r.dec.SkipValue()
		})
		return err
	}
	return r.dec.SkipValue()
}

func (r *answerReader) text(block int, resource bool) error {
	s, err := r.value()
	r.a.texts = append(r.a.texts, contentText{block: block, resource: resource, span: s})
	return err
}

// object reads an object, calling member (which must read the value) with each name.
func (r *answerReader) object(member func(name string) error) (span, error) {
	if tok, err := r.dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return span{}, errors.Join(err, errors.New("not an object"))
	}
	start := int(r.dec.InputOffset()) - 1
	for r.dec.PeekKind() != '}' {
		name, err := r.dec.ReadToken()
		if err != nil {
			return span{}, err
		}
		if err := member(name.String()); err != nil {
			return span{}, err
		}
	}
	_, err := r.dec.ReadToken()
	return span{start, int(r.dec.InputOffset())}, err
}

// shape is how deep valid JSON nests, and whether it has no whitespace.
func shape(doc []byte) (depth int, compact bool) {
	var scan api.JSONScan
	level := 0
	compact = true
	for _, c := range doc {
		structure, space := scan.Next(c)
		switch {
		case space:
			compact = false
		case !structure:
		case c == '{' || c == '[':
			level++
			depth = max(depth, level)
		case c == '}' || c == ']':
			level--
		}
	}
	return depth, compact
}

// asEncoded is the answer compacted, as the SDK encodes a message.
func (a callAnswer) asEncoded() callAnswer {
	if _, compact := shape(bytes.TrimRight(a.line, " \t\r\n")); compact {
		return a
	}
	var line bytes.Buffer
	if json.Compact(&line, a.line) != nil {
		return a // validated as read: cannot happen
	}
	if encoded, _, ok := readAnswer(line.Bytes()); ok {
		return encoded
	}
	return a
}

// structuredContent is the result's structuredContent compacted; false when the SDK was given it.
func (a *callAnswer) structuredContent() (json.RawMessage, bool) {
	if !a.hasStructured {
		return nil, false
	}
	doc := a.structured.in(a.line)
	if string(doc) == "null" {
		return nil, true
	}
	if _, compact := shape(doc); compact {
		return doc, true
	}
	var encoded bytes.Buffer
	if json.Compact(&encoded, doc) != nil {
		return nil, false // validated as read: cannot happen
	}
	return encoded.Bytes(), true
}

// forSDK is the line with texts as "" and structuredContent as null.
func (a *callAnswer) forSDK() []byte {
	if len(a.texts) == 0 && !a.hasStructured {
		return a.line
	}
	type cut struct {
		span
		with string
	}
	cuts := make([]cut, 0, len(a.texts)+1)
	for _, t := range a.texts {
		cuts = append(cuts, cut{t.span, `""`})
	}
	if a.hasStructured {
		cuts = append(cuts, cut{a.structured, "null"})
	}
	slices.SortFunc(cuts, func(x, y cut) int { return x.start - y.start })
	size := len(a.line)
	for _, c := range cuts {
		size -= c.end - c.start - len(c.with)
	}
	out := make([]byte, 0, size)
	at := 0
	for _, c := range cuts {
		out = append(append(out, a.line[at:c.start]...), c.with...)
		at = c.end
	}
	return append(out, a.line[at:]...)
}

// restoreTexts gives res the texts the SDK was not given, where it kept the block type.
func (a *callAnswer) restoreTexts(res *mcp.CallToolResult) {
	for _, t := range a.texts {
		if t.block >= len(res.Content) {
			continue
		}
		var into *string
		switch c := res.Content[t.block].(type) {
		case *mcp.TextContent:
			if !t.resource {
				into = &c.Text
			}
		case *mcp.EmbeddedResource:
			if t.resource && c.Resource != nil {
				into = &c.Resource.Text
			}
		}
		if into == nil {
			continue
		}
		if text, err := unquote(t.in(a.line)); err == nil { // validated as read
			*into = text
		}
	}
}

// unquote decodes into one buffer never rewritten: a text may be most of a 64 MiB line; no second copy.
func unquote(s []byte) (string, error) {
	b, err := jsontext.AppendUnquote(make([]byte, 0, len(s)), s)
	return unsafe.String(unsafe.SliceData(b), len(b)), err
}

// answerLines is a stdio server's output as the SDK reads it, a line at a time, each recorded first.
type answerLines struct {
	lines *bufio.Reader
	conn  *recordingConn
	next  []byte // what the SDK has yet to read of the line
	err   error  // what ended the output, once next is read
}

// collectPast is the line size past which gathered pieces are freed before its (large) text is made.
const collectPast = 8 << 20

func (l *answerLines) Read(p []byte) (int, error) {
	for len(l.next) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		line, err := l.lines.ReadBytes('\n')
		switch {
		case err == nil || errors.Is(err, io.EOF):
			if len(line) > collectPast {
				debug.FreeOSMemory()
			}
			l.next, l.err = l.conn.received(line), err
		default:
			// A cut line: the SDK learns why, not a part of it.
			return 0, err
		}
	}
	n := copy(p, l.next)
	l.next = l.next[n:]
	return n, nil
}
