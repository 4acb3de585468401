package layout

// Table is a list of records laid out for display: columns are the keys a
// table of them shows (see choose) in first-seen order, cells are
// sanitized one-line strings.
type Table struct {
	Columns []string
	// Numeric marks columns whose every non-empty cell is a number, which
	// are right-aligned.
	Numeric []bool
	Rows    [][]string
	// More is how many columns the table leaves out; MoreColumnsNote says
	// so.
	More int
}
