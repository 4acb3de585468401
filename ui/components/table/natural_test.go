package table

import (
	"slices"
	"testing"
)

// Text sorts as people read it: numbers by value, case aside.
func TestNaturalOrder(t *testing.T) {
	t.Parallel()
	got := []string{"Checkout 10", "checkout 2", "Cart", "Checkout 1", "Checkout 2b", "Checkout 02", "Cart 100", "Cart 99", "Ça", "b", "A"}
	slices.SortStableFunc(got, naturalCompare)
	want := []string{"A", "b", "Cart", "Cart 99", "Cart 100", "Checkout 1", "checkout 2", "Checkout 02", "Checkout 2b", "Checkout 10", "Ça"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted %q,\nwant   %q", got, want)
	}
	if naturalCompare("Page 123456789012345678901234567890", "Page 99") <= 0 {
		t.Error("a number longer than any integer sorts before a shorter one")
	}
}
