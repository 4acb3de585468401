package table

import (
	"cmp"
	"unicode"
	"unicode/utf8"
)

// naturalCompare orders text as people read it ("Checkout 2" before "Checkout 10"), case-blind.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			var na, nb string
			na, a = digitRun(a)
			nb, b = digitRun(b)
			if c := compareNumbers(na, nb); c != 0 {
				return c
			}
			continue
		}
		ra, wa := utf8.DecodeRuneInString(a)
		rb, wb := utf8.DecodeRuneInString(b)
		if ra != rb {
			if la, lb := unicode.ToLower(ra), unicode.ToLower(rb); la != lb {
				return cmp.Compare(int(la), int(lb))
			}
		}
		a, b = a[wa:], b[wb:]
	}
	return cmp.Compare(len(a), len(b))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitRun splits s after its leading digits, returned without leading zeros.
func digitRun(s string) (digits, rest string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	digits = s[:i]
	for len(digits) > 1 && digits[0] == '0' {
		digits = digits[1:]
	}
	return digits, s[i:]
}

// compareNumbers compares digit runs by value, however long.
func compareNumbers(a, b string) int {
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return cmp.Compare(a, b)
}
