package format

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/layout"
)

// On a terminal the text's failures table draws each mismatch with its
// bar, on the scale the TUI and the Markdown report use, and says how to
// read them; a pipe gets the columns alone, as a script reads them.
func TestTextTablesDrawMismatchBarsOnATerminal(t *testing.T) {
	t.Parallel()
	r := failuresResponse(t)
	var terminal, pipe bytes.Buffer
	if err := Render(context.Background(), &terminal, io.Discard, r, Options{Terminal: true}); err != nil {
		t.Fatal(err)
	}
	if err := Render(context.Background(), &pipe, io.Discard, r, Options{}); err != nil {
		t.Fatal(err)
	}
	bar := strings.TrimRight(layout.MismatchBar(4.2), " ")
	for _, want := range []string{"4.2 " + bar, layout.MismatchLegend} {
		if !strings.Contains(terminal.String(), want) {
			t.Errorf("the terminal's text lacks %q:\n%s", want, terminal.String())
		}
	}
	if strings.Contains(pipe.String(), bar) || strings.Contains(pipe.String(), layout.MismatchLegend) {
		t.Errorf("a pipe got bars:\n%s", pipe.String())
	}
}
