package format

import (
	"bytes"
	"fmt"
	"strings"

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
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	n, err := readNode(dec)
	if err != nil {
		return nil, fmt.Errorf("data is not valid JSON: %w", err)
	}
	return n, nil
}

func readNode(dec *jsontext.Decoder) (*Node, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	n := &Node{Kind: tok.Kind()}
	switch n.Kind {
	case '"', '0':
		n.Text = tok.String()
	case '{':
		for dec.PeekKind() != '}' {
			key, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			// A token is valid only until the next read: take the name now.
			n.Keys = append(n.Keys, key.String())
			v, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.Values = append(n.Values, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
	case '[':
		for dec.PeekKind() != ']' {
			v, err := readNode(dec)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
	}
	return n, nil
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

// IsRecordList reports a non-empty array whose elements are all objects:
// data that reads best as a table.
func (n *Node) IsRecordList() bool {
	if n == nil || n.Kind != '[' || len(n.Items) == 0 {
		return false
	}
	for _, it := range n.Items {
		if it.Kind != '{' {
			return false
		}
	}
	return true
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
