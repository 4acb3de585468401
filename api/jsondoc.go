package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/visualq/vq/internal/layout"
)

// members is a JSON object's top-level members, each value a view into the
// document: an 8 MB answer costs one scan, not a decode per question.
type members layout.Members

// splitObject returns doc's top-level members, accepting what encoding/json
// does (bad UTF-8, duplicates) so no answer is hidden.
func splitObject(doc []byte) (members, error) {
	top, _, err := indexObject(bytes.NewBuffer(doc), "")
	if err != nil {
		return members{}, err
	}
	return top.in(doc), nil
}

// objectIndex holds offsets, so it is made while the document arrives.
type objectIndex struct {
	start, end int64
	names      []string
	values     []span
}

type span struct{ start, end int64 }

// in is the index as views of doc, capped so an append never writes into it.
func (x objectIndex) in(doc []byte) members {
	m := members{Names: x.names, Values: make([][]byte, len(x.values))}
	for i, v := range x.values {
		m.Values[i] = doc[v.start:v.end:v.end]
	}
	return m
}

// indexObject indexes one JSON object from r and, in the same pass, its
// object member inner.
func indexObject(r io.Reader, inner string) (top objectIndex, nested *objectIndex, err error) {
	dec := jsontext.NewDecoder(r, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	if top, nested, err = readObject(dec, inner); err != nil {
		return top, nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return top, nil, errors.New("trailing data after the JSON object")
	}
	return top, nested, nil
}

func readObject(dec *jsontext.Decoder, inner string) (x objectIndex, nested *objectIndex, err error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return x, nil, err
	}
	if tok.Kind() != '{' {
		return x, nil, fmt.Errorf("a JSON %s, not an object", tok.Kind())
	}
	x.start = dec.InputOffset() - 1
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return x, nil, err
		}
		x.names = append(x.names, name.String())
		var value span
		if inner != "" && x.names[len(x.names)-1] == inner && dec.PeekKind() == '{' {
			var sub objectIndex
			if sub, _, err = readObject(dec, ""); err != nil {
				return x, nil, err
			}
			nested, value = &sub, span{sub.start, sub.end}
		} else if value, err = skipValue(dec); err != nil {
			return x, nil, err
		}
		x.values = append(x.values, value)
	}
	if _, err := dec.ReadToken(); err != nil {
		return x, nil, err
	}
	x.end = dec.InputOffset()
	return x, nested, nil
}

// skipValue reads arrays an element at a time: never a whole 100k list held.
func skipValue(dec *jsontext.Decoder) (span, error) {
	if dec.PeekKind() != '[' {
		v, err := dec.ReadValue()
		end := dec.InputOffset()
		return span{end - int64(len(v)), end}, err
	}
	if _, err := dec.ReadToken(); err != nil {
		return span{}, err
	}
	start := dec.InputOffset() - 1
	for dec.PeekKind() != ']' {
		if _, err := dec.ReadValue(); err != nil {
			return span{}, err
		}
	}
	_, err := dec.ReadToken()
	return span{start, dec.InputOffset()}, err
}

// get is the last member named name (as encoding/json takes), or nil.
func (m members) get(name string) []byte {
	for i := len(m.Names) - 1; i >= 0; i-- {
		if m.Names[i] == name {
			return m.Values[i]
		}
	}
	return nil
}

func (m members) without(name string) []byte {
	var keep []string
	for _, n := range m.Names {
		if n != name {
			keep = append(keep, n)
		}
	}
	return m.object(keep)
}

// decodeFields decodes only the named members (small beside 100k records).
func (m members) decodeFields(v any, names ...string) error {
	return json.Unmarshal(m.object(names), v)
}

// object assembles a JSON object of the named members m has.
func (m members) object(names []string) []byte {
	doc := []byte{'{'}
	for _, n := range names {
		value := m.get(n)
		if value == nil {
			continue
		}
		if len(doc) > 1 {
			doc = append(doc, ',')
		}
		doc, _ = jsontext.AppendQuote(doc, n)
		doc = append(doc, ':')
		doc = append(doc, value...)
	}
	return append(doc, '}')
}

// dataMembers is the top-level index of r's data, false when it is no object.
func (r *ToolResponse) dataMembers() (members, bool) {
	if r == nil {
		return members{}, false
	}
	if m := r.Members; m != nil {
		return members(*m), true
	}
	m, err := splitObject(r.Data)
	return m, err == nil
}

// JSONScan walks JSON a byte at a time, for documents too large to decode.
type JSONScan struct{ inString, escaped bool }

// Next reads the next byte.
func (s *JSONScan) Next(c byte) (structure, space bool) {
	if s.inString {
		s.inString = s.escaped || c != '"'
		s.escaped = !s.escaped && c == '\\'
		return false, false
	}
	switch c {
	case '"':
		s.inString = true
		return false, false
	case ' ', '\t', '\n', '\r':
		return false, true
	}
	return true, false
}
