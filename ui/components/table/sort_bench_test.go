package table

import (
	"strconv"
	"testing"

	"github.com/visualq/vq/internal/layout"
)

// BenchmarkSortText100k measures the first sort of a text column of
// 100,000 rows ("Page 1" to "Page 100000", in natural order): the key
// press that builds the column's order; later ones reuse it.
func BenchmarkSortText100k(b *testing.B) {
	records := &layout.Table{Columns: []string{"scenarioLabel"}, Numeric: []bool{false}}
	for i := range 100_000 {
		records.Rows = append(records.Rows, []string{"Page " + strconv.Itoa((i*7919)%100_000+1)})
	}
	t := New("failures", records)
	b.ResetTimer()
	for b.Loop() {
		t.byColumn = nil
		if len(t.ascending(0)) != 100_000 {
			b.Fatal("rows lost")
		}
	}
}
