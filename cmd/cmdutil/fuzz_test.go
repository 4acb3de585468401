package cmdutil

import (
	"strings"
	"testing"
)

func FuzzParsePair(f *testing.F) {
	for _, s := range []string{"k=v", "n:=1", "a:=[1,{\"b\":null}]", "=x", ":=1", "k:=", "k==v", "url=http://x?a=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pair string) {
		key, value, err := parsePair(pair)
		if err != nil {
			return
		}
		if key == "" {
			t.Fatalf("%q parsed to an empty key", pair)
		}
		// KEY=VALUE sends what follows the = as is; KEY:="..." is a JSON
		// string, decoded.
		if s, isString := value.(string); isString && !strings.HasPrefix(pair, key+":=") && !strings.HasSuffix(pair, "="+s) {
			t.Fatalf("%q: string value %q is not what follows the =", pair, s)
		}
	})
}
