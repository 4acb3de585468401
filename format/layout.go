package format

import (
	"strings"
)

// Layout is a response's data arranged for display, the one arrangement
// that plain text, Markdown and the TUI all draw: scalar fields first
// (nested objects flattened to dotted keys), then plain lines (a list of
// scalars, or one scalar), then each record list as a titled table.
type Layout struct {
	Fields []Field
	Lines  []string
	Tables []TitledTable
	// Root is the parsed data, for renderers that look further (the TUI
	// finds image links in it).
	Root *Node
}

// Field is one "key  value" line.
type Field struct {
	// Key is the sanitized dotted path; Name is the member's own key as
	// sent (the last segment of Key), for renderers that treat some fields
	// specially.
	Key, Name string
	// Value is the sanitized one-line rendering of Node.
	Value string
	Node  *Node
}

// TitledTable is a record list and where it was: Title is the sanitized
// dotted path of the member holding it, "" when the data itself is the list.
type TitledTable struct {
	Title string
	Count int
	*Table
}

// LayoutData arranges raw data. null or empty data gives an empty layout.
func LayoutData(raw []byte) (*Layout, error) {
	l := &Layout{}
	if len(raw) == 0 || string(raw) == "null" {
		return l, nil
	}
	n, err := ParseNode(raw)
	if err != nil {
		return nil, err
	}
	l.Root = n
	switch {
	case n.IsRecordList():
		l.Tables = append(l.Tables, TitledTable{Count: len(n.Items), Table: NewTable(n)})
	case n.Kind == '{':
		l.flatten("", n)
	case n.Kind == '[':
		for _, it := range n.Items {
			l.Lines = append(l.Lines, SanitizeLine(it.String()))
		}
	default:
		l.Lines = strings.Split(Sanitize(n.String()), "\n")
	}
	return l, nil
}

func (l *Layout) flatten(prefix string, n *Node) {
	for i, k := range n.Keys {
		v := n.Values[i]
		name := prefix + k
		switch {
		case v.IsRecordList():
			l.Tables = append(l.Tables, TitledTable{Title: SanitizeLine(name), Count: len(v.Items), Table: NewTable(v)})
		case v.Kind == '{' && len(v.Keys) > 0:
			l.flatten(name+".", v)
		default:
			l.Fields = append(l.Fields, Field{Key: SanitizeLine(name), Name: k, Value: SanitizeLine(v.String()), Node: v})
		}
	}
}
