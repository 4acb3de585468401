package layout

// Table is a list of records laid out for display: columns are the records'
// keys in first-seen order, cells are sanitized one-line strings.
type Table struct {
	Columns []string
	// Numeric marks columns whose every non-empty cell is a number, which
	// are right-aligned.
	Numeric []bool
	Rows    [][]string
}
