package format

// Table is a list of records laid out for display: columns are the records'
// keys in first-seen order, cells are sanitized one-line strings.
type Table struct {
	Columns []string
	// Numeric marks columns whose every non-empty cell is a number, which
	// are right-aligned.
	Numeric []bool
	Rows    [][]string
}

// NewTable lays out a record list (see Node.IsRecordList).
func NewTable(records *Node) *Table {
	t := &Table{}
	index := map[string]int{}
	for _, rec := range records.Items {
		for _, k := range rec.Keys {
			if _, ok := index[k]; !ok {
				index[k] = len(t.Columns)
				t.Columns = append(t.Columns, k)
			}
		}
	}
	for i, c := range t.Columns {
		t.Columns[i] = SanitizeLine(c)
	}
	t.Numeric = make([]bool, len(t.Columns))
	seenNumber := make([]bool, len(t.Columns))
	notNumber := make([]bool, len(t.Columns))
	t.Rows = make([][]string, len(records.Items))
	for r, rec := range records.Items {
		row := make([]string, len(t.Columns))
		for i, k := range rec.Keys {
			col := index[k]
			v := rec.Values[i]
			row[col] = SanitizeLine(v.String())
			switch v.Kind {
			case '0':
				seenNumber[col] = true
			case 'n':
			default:
				notNumber[col] = true
			}
		}
		t.Rows[r] = row
	}
	for i := range t.Columns {
		t.Numeric[i] = seenNumber[i] && !notNumber[i]
	}
	return t
}
