package ui

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
	tbl "github.com/visualq/vq/ui/components/table"
)

// Row actions (docs/tui.md): a next action whose column-named arguments match a row's cells is
// a template every row fills. Values go as shown, sanitized: one with control characters names no row.

// table is a data table with its row actions; only rows with one can be selected.
type table struct {
	*tbl.Table
	templates []*rowTemplate
}

func (t *table) actionable() bool { return len(t.templates) > 0 }

type rowTemplate struct {
	action api.NextAction
	// fromRow pairs row-filled arguments with columns, by argument name.
	fromRow []rowArg
	write   bool
}

type rowArg struct {
	name string
	col  int
}

// key identifies a template by tool and row-filled arguments: five "Inspect …" give one.
func (tp *rowTemplate) key() string {
	var b strings.Builder
	b.WriteString(tp.action.Tool)
	for _, a := range tp.fromRow {
		b.WriteString("\x00" + a.name)
	}
	return b.String()
}

// argText is a value as a cell shows it; !ok for objects, arrays, null.
func argText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return textsafe.SanitizeLine(v), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(v), true
	case json.Number:
		return v.String(), true
	}
	return "", false
}

// templateFor makes a template of a when its column-named arguments match row r (-1: any), else nil.
func templateFor(a api.NextAction, t *table, r int, writes func(string) bool) *rowTemplate {
	tp := &rowTemplate{action: a, write: writes(a.Tool)}
	var want []string
	for _, name := range slices.Sorted(maps.Keys(a.Args)) {
		if name == api.ArgConfirm {
			continue
		}
		col := slices.Index(t.Data.Columns, textsafe.SanitizeLine(name))
		text, scalar := argText(a.Args[name])
		if col < 0 || !scalar {
			continue
		}
		tp.fromRow = append(tp.fromRow, rowArg{name: name, col: col})
		want = append(want, text)
	}
	if len(tp.fromRow) == 0 {
		return nil
	}
	matches := func(row []string) bool {
		for i, arg := range tp.fromRow {
			if row[arg.col] != want[i] {
				return false
			}
		}
		return true
	}
	rows := t.Data.Rows
	if r >= 0 {
		rows = rows[r : r+1]
	}
	if slices.ContainsFunc(rows, matches) {
		return tp
	}
	return nil
}

func (t *table) addTemplates(actions []api.NextAction, r int, writes func(string) bool) {
	for _, a := range actions {
		tp := templateFor(a, t, r, writes)
		if tp == nil || slices.ContainsFunc(t.templates, func(o *rowTemplate) bool { return o.key() == tp.key() }) {
			continue
		}
		t.templates = append(t.templates, tp)
	}
}

// rowAction is what Enter runs: the first read-only template, else the first.
func (t *table) rowAction() *rowTemplate {
	for _, tp := range t.templates {
		if !tp.write {
			return tp
		}
	}
	if len(t.templates) > 0 {
		return t.templates[0]
	}
	return nil
}

func (t *table) writeAction() *rowTemplate {
	for _, tp := range t.templates {
		if tp.write {
			return tp
		}
	}
	return nil
}

// call is the template's call for row r, values keeping their type; the server's confirm is dropped.
func (tp *rowTemplate) call(t *table, r int) api.Call {
	c := tp.action.Call()
	row := t.Data.Rows[r]
	for _, arg := range tp.fromRow {
		cell := row[arg.col]
		switch tp.action.Args[arg.name].(type) {
		case float64:
			if v, err := strconv.ParseFloat(cell, 64); err == nil {
				c.Args[arg.name] = v
				continue
			}
		case bool:
			if v, err := strconv.ParseBool(cell); err == nil {
				c.Args[arg.name] = v
				continue
			}
		}
		c.Args[arg.name] = cell
	}
	return c
}

// label is the label with its row's values replaced by row r's, else the tool.
func (tp *rowTemplate) label(t *table, r int) string {
	label := textsafe.SanitizeLine(tp.action.Label)
	var pairs []string
	for _, arg := range tp.fromRow {
		if old, _ := argText(tp.action.Args[arg.name]); old != "" {
			pairs = append(pairs, old, t.Data.Rows[r][arg.col])
		}
	}
	if label == "" || len(pairs) == 0 {
		return tp.action.Tool
	}
	return strings.NewReplacer(pairs...).Replace(label)
}

// rowOf is the first row holding the values a gives the template's arguments, else -1.
func (tp *rowTemplate) rowOf(t *table, a api.NextAction) int {
	other := templateFor(a, t, -1, func(string) bool { return tp.write })
	if other == nil || other.key() != tp.key() {
		return -1
	}
	return slices.IndexFunc(t.Data.Rows, func(row []string) bool {
		for _, arg := range tp.fromRow {
			if text, _ := argText(a.Args[arg.name]); row[arg.col] != text {
				return false
			}
		}
		return true
	})
}

// rowName names a row by the values its template takes ("Cart 3 tablet").
func rowName(tp *rowTemplate, t *table, r int) string {
	parts := make([]string, 0, len(tp.fromRow))
	for _, a := range tp.fromRow {
		parts = append(parts, t.Data.Rows[r][a.col])
	}
	return strings.Join(parts, " ")
}
