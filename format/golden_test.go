package format

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from what the renderers write")

// goldenFormats are the renderings each fixture is checked in: the
// formats of --format, what vq mcp serve gives an agent, the next actions
// as shell lines, a proof and a tool list. One that does not apply to a
// fixture (no next actions, no proof, no tools) has no golden file.
var goldenFormats = []struct {
	name   string
	render func(out, errOut io.Writer, r *api.ToolResponse) (applies bool, err error)
}{
	{"text", formatRenderer("text")},
	{"json", formatRenderer("json")},
	{"markdown", formatRenderer("markdown")},
	{"junit", formatRenderer("junit")},
	{"github", formatRenderer("github")},
	{"agent", func(out, _ io.Writer, r *api.ToolResponse) (bool, error) {
		_, err := io.WriteString(out, AgentText(r)+"\n")
		return true, err
	}},
	{"shell", func(out, _ io.Writer, r *api.ToolResponse) (bool, error) {
		for _, a := range r.NextActions {
			line, why := ActionCommand(a, nil)
			if why != "" {
				line = "# not printed: " + why
			}
			io.WriteString(out, line+"\n")
		}
		return len(r.NextActions) > 0, nil
	}},
	{"proof", func(out, errOut io.Writer, r *api.ToolResponse) (bool, error) {
		p, ok := ProofAnswer(r, true)
		if !ok {
			return false, nil
		}
		return true, WriteProof(out, errOut, r, p, nil)
	}},
	{"tools", func(out, _ io.Writer, r *api.ToolResponse) (bool, error) {
		var list struct{ Tools []api.Tool }
		if json.Unmarshal(r.Data, &list) != nil || len(list.Tools) == 0 {
			return false, nil
		}
		return true, Tools(out, list.Tools, func(tool string) (string, bool) { return "vq " + tool, tool == "compare" })
	}},
}

func formatRenderer(name string) func(out, errOut io.Writer, r *api.ToolResponse) (bool, error) {
	return func(out, errOut io.Writer, r *api.ToolResponse) (bool, error) {
		return true, Render(context.Background(), out, errOut, r, Options{Format: name})
	}
}

// TestGolden renders each answer of testdata/fixtures in each format and
// compares the bytes, stdout then what went to stderr, with
// testdata/FIXTURE.FORMAT.golden; go test ./format -update rewrites them.
func TestGolden(t *testing.T) {
	t.Parallel()
	fixtures, _ := filepath.Glob("testdata/fixtures/*.json")
	if len(fixtures) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range fixtures {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r := decodeResponse(t, string(body))
		for _, f := range goldenFormats {
			var out, errOut bytes.Buffer
			applies, err := f.render(&out, &errOut, r)
			if err != nil {
				t.Errorf("%s as %s: %v", path, f.name, err)
			}
			if errOut.Len() > 0 {
				out.WriteString("--- stderr ---\n")
				out.Write(errOut.Bytes())
			}
			golden := "testdata/" + strings.TrimSuffix(filepath.Base(path), ".json") + "." + f.name + ".golden"
			checkGolden(t, golden, applies, out.Bytes())
		}
	}
}

// checkGolden compares got with the golden file, or with -update writes
// it (and removes the file of a rendering that no longer applies).
func checkGolden(t *testing.T, golden string, applies bool, got []byte) {
	t.Helper()
	if *update {
		if !applies {
			os.Remove(golden)
			return
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	switch {
	case !applies && err == nil:
		t.Errorf("%s exists, but the rendering does not apply (go test ./format -update removes it)", golden)
	case applies && err != nil:
		t.Errorf("%v (go test ./format -update writes it)", err)
	case applies && !bytes.Equal(got, want):
		t.Errorf("%s differs (go test ./format -update rewrites it):\n got %q\nwant %q", golden, got, want)
	}
}
