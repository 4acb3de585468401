package layout

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Node is a decoded JSON value that keeps the server's order of object keys.
type Node struct {
	Kind   jsontext.Kind
	Text   string // unescaped string or number literal as sent
	Keys   []string
	Values []*Node
	Items  []*Node
}

// ParseNode decodes one JSON document, invalid UTF-8 as U+FFFD: the text is the server's, not ours to reject.
func ParseNode(raw []byte) (*Node, error) {
	p := &parser{
		dec:   newDecoder(raw),
		names: map[string]string{},
		room:  len(raw)/2 + 1,
	}
	n, err := p.readNode(0)
	if err != nil {
		return nil, fmt.Errorf("data is not valid JSON: %w", err)
	}
	return n, nil
}

// valueNode is ParseNode for a valid value; a scalar is made without a decoder, which costs more.
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

// parser builds a Node tree: one string per distinct key, records sized from the one before, nodes in blocks.
type parser struct {
	dec   *jsontext.Decoder
	names map[string]string
	block []Node
	room  int // bound on nodes to come (a value takes two bytes or more)
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

// readName reads a member name, shared with earlier occurrences of it.
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

// plainASCII reports string contents that unquoting leaves as they are.
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

// String renders a value on one line (objects as compact JSON), unsanitized.
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
