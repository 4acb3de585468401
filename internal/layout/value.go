package layout

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Node is a decoded JSON value that remembers the order of object keys, so
// fields and table columns appear in the order the server chose.
type Node struct {
	Kind jsontext.Kind
	// Text is the unescaped string or the number literal as sent.
	Text string
	// Keys and Values hold an object's members in order.
	Keys   []string
	Values []*Node
	// Items hold an array's elements.
	Items []*Node
}

// ParseNode decodes one JSON document. Invalid UTF-8 is accepted (and later
// shown as U+FFFD) because the text is the server's, not ours to reject.
func ParseNode(raw []byte) (*Node, error) {
	// A bytes.Buffer, not a bytes.Reader: jsontext then parses raw in
	// place instead of copying it into a buffer of its own.
	p := &parser{
		dec:   jsontext.NewDecoder(bytes.NewBuffer(raw), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)),
		names: map[string]string{},
		room:  len(raw)/2 + 1,
	}
	n, err := p.readNode(0)
	if err != nil {
		return nil, fmt.Errorf("data is not valid JSON: %w", err)
	}
	return n, nil
}

// valueNode is ParseNode for a value already read as valid JSON. The
// usual field value, a number or a plain string, is made here without a
// decoder, which costs more than such a field: a list laid out as fields
// has one for every member.
func valueNode(v jsontext.Value) (*Node, error) {
	switch k := v.Kind(); {
	case k == '0':
		return &Node{Kind: k, Text: string(v)}, nil
	case k == '"' && plainASCII(v[1:len(v)-1]):
		return &Node{Kind: k, Text: string(v[1 : len(v)-1])}, nil
	case k == 't' || k == 'f' || k == 'n':
		return &Node{Kind: k}, nil
	}
	return ParseNode(v)
}

// parser builds a Node tree. A large answer is mostly a list of records
// with the same few keys, so it shares one string per distinct key, sizes
// each record's members from the record before it, and allocates nodes in
// blocks rather than one by one.
type parser struct {
	dec   *jsontext.Decoder
	names map[string]string
	block []Node
	// room is at most how many nodes are still to come: every value but
	// the last takes two bytes or more, so a small document (a field's
	// value) gets a block no larger than it needs.
	room int
}

const nodeBlock = 256

func (p *parser) newNode(kind jsontext.Kind) *Node {
	if len(p.block) == 0 {
		p.block = make([]Node, max(1, min(nodeBlock, p.room)))
		p.room -= len(p.block)
	}
	n := &p.block[0]
	p.block = p.block[1:]
	n.Kind = kind
	return n
}

// readNode reads one value; members is how many an object probably has.
func (p *parser) readNode(members int) (*Node, error) {
	tok, err := p.dec.ReadToken()
	if err != nil {
		return nil, err
	}
	n := p.newNode(tok.Kind())
	switch n.Kind {
	case '"', '0':
		n.Text = tok.String()
	case '{':
		n.Keys = make([]string, 0, members)
		n.Values = make([]*Node, 0, members)
		for p.dec.PeekKind() != '}' {
			key, err := p.readName()
			if err != nil {
				return nil, err
			}
			n.Keys = append(n.Keys, key)
			v, err := p.readNode(0)
			if err != nil {
				return nil, err
			}
			n.Values = append(n.Values, v)
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return nil, err
		}
	case '[':
		members := 0
		for p.dec.PeekKind() != ']' {
			v, err := p.readNode(members)
			if err != nil {
				return nil, err
			}
			members = len(v.Keys)
			n.Items = append(n.Items, v)
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// readName reads an object member's name, shared with every earlier
// occurrence of the same plain name.
func (p *parser) readName() (string, error) {
	quoted, err := p.dec.ReadValue() // valid only until the next read
	if err != nil {
		return "", err
	}
	if quoted.Kind() != '"' {
		return "", fmt.Errorf("object member name is not a string: %s", quoted)
	}
	inner := quoted[1 : len(quoted)-1]
	if !plainASCII(inner) {
		// Escapes or non-ASCII: unquote as a token would (invalid UTF-8
		// becomes U+FFFD).
		name, _ := jsontext.AppendUnquote(nil, quoted)
		return string(name), nil
	}
	if name, ok := p.names[string(inner)]; ok {
		return name, nil
	}
	name := string(inner)
	p.names[name] = name
	return name, nil
}

// plainASCII reports string contents with no escape and no byte that
// unquoting could change.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Get is the member named key of an object, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil {
		return nil
	}
	for i, k := range n.Keys {
		if k == key {
			return n.Values[i]
		}
	}
	return nil
}

// IsScalar reports strings, numbers, booleans and null.
func (n *Node) IsScalar() bool {
	return n.Kind != '{' && n.Kind != '['
}

// String renders a value on one line: strings unquoted, scalars as sent,
// objects and arrays as compact JSON. It does not sanitize.
func (n *Node) String() string {
	switch n.Kind {
	case '"', '0':
		return n.Text
	case 't':
		return "true"
	case 'f':
		return "false"
	case 'n':
		return ""
	}
	var b strings.Builder
	n.writeJSON(&b)
	return b.String()
}

func (n *Node) writeJSON(b *strings.Builder) {
	switch n.Kind {
	case '"':
		q, _ := jsontext.AppendQuote(nil, n.Text)
		b.Write(q)
	case '{':
		b.WriteByte('{')
		for i, k := range n.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := jsontext.AppendQuote(nil, k)
			b.Write(q)
			b.WriteByte(':')
			n.Values[i].writeJSON(b)
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, it := range n.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			it.writeJSON(b)
		}
		b.WriteByte(']')
	case 'n':
		b.WriteString("null")
	default:
		b.WriteString(n.String())
	}
}
