package layout

// Table is a list of records laid out for display, cells sanitized.
type Table struct {
	Columns []string
	Numeric []bool // right-aligned: every non-empty cell a number
	Rows    [][]string
	More    int // columns left out
}
