package layout

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/visualq/vq/internal/textsafe"
)

// Layout is data arranged for text, Markdown and the TUI: fields (dotted keys), plain lines, then
// each record list as a titled table (or, when it makes no table, as fields at name[i]).
type Layout struct {
	Fields []Field
	Lines  []string
	Tables []TitledTable
}

// Field is one "key  value" line.
type Field struct {
	// Key is the sanitized dotted path; Name the member's own key as sent.
	Key, Name string
	Value     string // sanitized one-line rendering of Node
	Node      *Node
}

// TitledTable is a record list; Title is its sanitized dotted path, "" for the data itself.
type TitledTable struct {
	Title   string
	Count   int
	Records Records
	shape   *shape
}

// Data arranges raw data, keeping record lists as bytes to stream (Text) or decode (Table).
func Data(raw []byte) (*Layout, error) {
	l := &Layout{}
	if len(raw) == 0 || string(raw) == "null" {
		return l, nil
	}
	dec := newDecoder(raw)
	var err error
	if dec.PeekKind() == '{' {
		err = l.object(dec, "")
	} else {
		var value jsontext.Value
		if value, err = dec.ReadValue(); err == nil {
			err = l.add("", "", value)
		}
	}
	if err == nil {
		if _, end := dec.ReadToken(); end != io.EOF {
			err = errors.New("trailing data after the JSON value")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("data is not valid JSON: %w", err)
	}
	return l, nil
}

// Members is a JSON object's top-level members in order, values views into it.
type Members struct {
	Names  []string
	Values [][]byte
}

// Response is Data given the members m found while reading the answer (nil if not): no second scan.
func Response(data []byte, m *Members) (*Layout, error) {
	if m == nil {
		return Data(data)
	}
	l := &Layout{}
	for i, name := range m.Names {
		if err := l.add(name, name, m.Values[i]); err != nil {
			return nil, fmt.Errorf("data is not valid JSON: %w", err)
		}
	}
	return l, nil
}

// Member is the raw value of data's last top-level member name, or nil; m, if set, is data's members.
func Member(data []byte, m *Members, name string) []byte {
	if m == nil {
		found := membersOf(data)
		m = &found
	}
	for i := len(m.Names) - 1; i >= 0; i-- {
		if m.Names[i] == name {
			return m.Values[i]
		}
	}
	return nil
}

// membersOf is data's members when it is one valid JSON object, else none.
func membersOf(data []byte) (m Members) {
	dec := newDecoder(data)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return Members{}
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return Members{}
		}
		m.Names = append(m.Names, name.String())
		value, err := dec.ReadValue()
		if err != nil {
			return Members{}
		}
		m.Values = append(m.Values, value)
	}
	if _, err := dec.ReadToken(); err != nil {
		return Members{}
	}
	if _, end := dec.ReadToken(); end != io.EOF {
		return Members{}
	}
	return m
}

// add places one value: an object flattened, a record list as a table, else a field or plain lines.
func (l *Layout) add(name, key string, value jsontext.Value) error {
	switch value.Kind() {
	case '{':
		if !emptyObject(value) {
			return l.object(newDecoder(value), name+".")
		}
	case '[':
		if sh, ok := Records(value).measure(); ok {
			if !sh.table {
				return l.records(name, key, value)
			}
			l.Tables = append(l.Tables, TitledTable{Title: shownKey(name), Count: sh.rows, Records: Records(value), shape: sh})
			return nil
		}
	}
	node, err := valueNode(value)
	if err != nil {
		return err
	}
	switch {
	case name != "":
		l.Fields = append(l.Fields, Field{Key: shownKey(name), Name: key, Value: textsafe.SanitizeLine(node.String()), Node: node})
	case node.Kind == '[':
		for _, it := range node.Items {
			l.Lines = append(l.Lines, textsafe.SanitizeLine(it.String()))
		}
	default:
		l.Lines = strings.Split(textsafe.Sanitize(node.String()), "\n")
	}
	return nil
}

// records places a record list that is no table as objects at name[i].
func (l *Layout) records(name, key string, list jsontext.Value) error {
	dec := newDecoder(list)
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for i := 0; dec.PeekKind() != ']'; i++ {
		record, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if err := l.add(name+"["+strconv.Itoa(i)+"]", key, record); err != nil {
			return err
		}
	}
	return nil
}

// Text writes an answer as plain text, sanitized here: summary, warning: lines, then the data laid out as l.
func Text(w *bufio.Writer, summary string, warnings []string, l *Layout, bars bool) {
	if summary != "" {
		w.WriteString(textsafe.Sanitize(summary) + "\n")
	}
	for _, warn := range warnings {
		w.WriteString("warning: " + textsafe.SanitizeLine(warn) + "\n")
	}
	var keys span
	for _, f := range l.Fields {
		keys.add(textsafe.DisplayWidth(f.Key))
	}
	width := keys.width(len(l.Fields))
	for _, f := range l.Fields {
		w.WriteString(f.Key)
		if f.Value != "" {
			w.WriteString(strings.Repeat(" ", max(0, width-textsafe.DisplayWidth(f.Key))+2) + f.Value)
		}
		w.WriteByte('\n')
	}
	for _, line := range l.Lines {
		w.WriteString(line + "\n")
	}
	for _, t := range l.Tables {
		if t.Title == "" {
			t.writeText(w, "", bars)
			continue
		}
		w.WriteString("\n" + t.Title + " (" + strconv.Itoa(t.Count) + "):\n")
		t.writeText(w, "  ", bars)
	}
}

// alignSlack is how many times its mean width a column may be padded to.
const alignSlack = 4

type span struct{ widest, second, total int }

func (s *span) add(w int) {
	s.total += w
	switch {
	case w > s.widest:
		s.second, s.widest = s.widest, w
	case w < s.widest && w > s.second:
		s.second = w
	}
}

// width is a column's padding: its widest cell within alignSlack times the mean, else that bound, so
// padding costs at most alignSlack times the text and one long cell overflows.
func (s span) width(n int) int {
	if n == 0 {
		return s.widest
	}
	limit := (alignSlack*s.total + n - 1) / n
	switch {
	case s.widest <= limit:
		return s.widest
	case s.second <= limit:
		return s.second
	}
	return limit
}

// maxKeyRunes bounds a shown key: a dotted path repeats its prefix for every
// member below it, so a longer one keeps its start and end, with … between.
const maxKeyRunes = 48

// shownKey is a dotted path sanitized and shortened past maxKeyRunes.
func shownKey(path string) string {
	s := textsafe.SanitizeLine(path)
	if utf8.RuneCountInString(s) <= maxKeyRunes {
		return s
	}
	runes := []rune(s)
	head := maxKeyRunes / 3
	return string(runes[:head]) + "…" + string(runes[len(runes)-(maxKeyRunes-head-1):])
}

// object places each member of the object at dec under prefix ("" or "a.b.").
func (l *Layout) object(dec *jsontext.Decoder, prefix string) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		key := tok.String()
		member, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if err := l.add(prefix+key, key, member); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// emptyObject reports {}: shown as a field, not flattened into nothing.
func emptyObject(v jsontext.Value) bool {
	return len(bytes.TrimSpace(v[1:len(v)-1])) == 0
}
