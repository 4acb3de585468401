package format

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/fixture"
)

// answerShapes are the layouts a record list can take (see fixture):
// dense, sparse (every key its own record, the list that once printed
// rows × columns), very wide (one record of n keys) and dense with one
// long cell.
var answerShapes = []struct {
	name string
	body func(n int) []byte
}{
	{"dense", fixture.Dense},
	{"sparse", fixture.Sparse},
	{"wide", fixture.Wide},
	{"long-cell", fixture.LongCell},
}

// output is one rendering vq writes, as every byte it writes: github's
// step summary file (in dir) is counted with its workflow commands.
type output struct {
	name   string
	render func(out io.Writer, r *api.ToolResponse, dir string) error
}

var outputs = []output{
	{"plain", func(out io.Writer, r *api.ToolResponse, _ string) error { return Plain(out, out, r, nil) }},
	{"markdown", func(out io.Writer, r *api.ToolResponse, _ string) error { return Markdown(out, r, nil, nil) }},
	{"junit", func(out io.Writer, r *api.ToolResponse, _ string) error { return JUnit(out, r, nil) }},
	{"github", func(out io.Writer, r *api.ToolResponse, dir string) error {
		summary := filepath.Join(dir, "step-summary.md")
		defer os.Remove(summary)
		if err := GitHub(out, r, summary, nil, nil); err != nil {
			return err
		}
		written, err := os.ReadFile(summary)
		out.Write(written)
		return err
	}},
}

type byteCount int64

func (c *byteCount) Write(p []byte) (int, error) { *c += byteCount(len(p)); return len(p), nil }

// outputBound is how many times the answer's size any rendering of these
// shapes may write.
const outputBound = 8

// Every rendering of every shape writes at most a small multiple of the
// answer: columns are bounded, sparse and very wide lists are fields, and
// a long cell does not pad the other rows.
func TestOutputStaysWithinAMultipleOfTheAnswer(t *testing.T) {
	t.Parallel()
	const n = 2_000
	for _, shape := range answerShapes {
		body := shape.body(n)
		resp, err := api.DecodeToolResponse(body)
		if err != nil {
			t.Fatalf("%s: %v", shape.name, err)
		}
		for _, out := range outputs {
			var written byteCount
			if err := out.render(&written, resp, t.TempDir()); err != nil {
				t.Fatalf("%s %s: %v", shape.name, out.name, err)
			}
			if ratio := float64(written) / float64(len(body)); ratio > outputBound {
				t.Errorf("%s, %s: %d bytes for a %d-byte answer (%.1f×, at most %d×)", shape.name, out.name, written, len(body), ratio, outputBound)
			}
		}
	}
}

// What a sparse or very wide list shows, and a table leaving columns out
// says so once.
func TestListsThatAreNoTableShowAsFields(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body string
		want []string
	}{
		{`{"ok":true,"data":{"items":[{"a":1},{"b":"x"},{"c":true},{"d":null}]}}`, []string{"items[0].a  1\n", "items[1].b  x\n", "items[2].c  true\n", "items[3].d\n"}},
		{string(fixture.Wide(100)), []string{"items[0].key_000000  0\n", "items[0].key_000099  99\n"}},
	} {
		resp, err := api.DecodeToolResponse([]byte(c.body))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := Plain(&out, &out, resp, nil); err != nil {
			t.Fatal(err)
		}
		for _, want := range c.want {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%.60s: no line %q in\n%s", c.body, want, out.String())
			}
		}
	}
	var wide strings.Builder
	wide.WriteString(`{"ok":true,"data":{"items":[`)
	for i := range 3 {
		if i > 0 {
			wide.WriteString(",")
		}
		wide.WriteString("{")
		for k := range 40 {
			if k > 0 {
				wide.WriteString(",")
			}
			fmt.Fprintf(&wide, `"k%02d":%d`, k, i)
		}
		wide.WriteString("}")
	}
	wide.WriteString("]}}")
	resp, err := api.DecodeToolResponse([]byte(wide.String()))
	if err != nil {
		t.Fatal(err)
	}
	var plain, md bytes.Buffer
	Plain(&plain, &plain, resp, nil)
	Markdown(&md, resp, nil, nil)
	for name, text := range map[string]string{"plain": plain.String(), "markdown": md.String()} {
		lower := strings.ToLower(text) // plain text heads the columns K00 … K31
		if strings.Count(text, "+8 more columns (--json shows every member)") != 1 || strings.Contains(lower, "k32") || !strings.Contains(lower, "k31") {
			t.Errorf("%s: a 40-column table should show 32 columns and say once that 8 more are left out:\n%s", name, text)
		}
	}
}

// BenchmarkOutputPerShape renders each shape of 100,000 records (or keys)
// in every output and reports what it wrote (out/answer) and allocated
// (alloc/answer) as multiples of the answer's size.
func BenchmarkOutputPerShape(b *testing.B) {
	const n = 100_000
	for _, shape := range answerShapes {
		body := shape.body(n)
		resp, err := api.DecodeToolResponse(body)
		if err != nil {
			b.Fatal(err)
		}
		for _, out := range outputs {
			b.Run(shape.name+"/"+out.name, func(b *testing.B) {
				dir := b.TempDir()
				var written byteCount
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for b.Loop() {
					if err := out.render(&written, resp, dir); err != nil {
						b.Fatal(err)
					}
				}
				runtime.ReadMemStats(&after)
				size := float64(len(body)) * float64(b.N)
				b.ReportMetric(float64(written)/size, "out/answer")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/size, "alloc/answer")
			})
		}
	}
}

// fuzzBound and fuzzSlack bound what any answer may make a rendering
// write: fuzzBound times its size, plus fuzzSlack for the fixed lines
// (headings, notes). The multiple is larger than outputBound because a
// member of a few bytes under a long path prints that path, shortened to
// maxKeyRunes and Markdown-escaped, once per member.
const (
	fuzzBound = 64
	fuzzSlack = 4 << 10
)

// FuzzOutputBounded lays out any JSON as an answer's data and holds every
// rendering to a multiple of the answer's size.
func FuzzOutputBounded(f *testing.F) {
	for _, seed := range []string{
		`[{"a":1},{"b":2},{"c":3}]`, `[{"a":1,"b":2,"c":3,"d":4}]`, `{"x":{"y":[{"a":"` + strings.Repeat("w", 200) + `"},{},{},{},{}]}}`,
		`[{},{},{},{},{"a":1}]`, `{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":{"":0,"":1,"":2}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !jsontext.Value(data).IsValid(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) {
			return
		}
		body := append(append([]byte(`{"ok":true,"tool":"t","data":`), data...), '}')
		resp, err := api.DecodeToolResponse(body)
		if err != nil {
			return
		}
		for _, out := range outputs {
			var written byteCount
			out.render(&written, resp, t.TempDir())
			if limit := fuzzBound*len(body) + fuzzSlack; int(written) > limit {
				t.Fatalf("%s wrote %d bytes for a %d-byte answer (limit %d): %.300s", out.name, written, len(body), limit, body)
			}
		}
	})
}
