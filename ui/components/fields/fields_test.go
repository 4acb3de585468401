package fields

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/visualq/vq/internal/layout"
)

// Folded fields are one line that names the key showing them all, and
// as many fields as the width leaves; e is offered while they are
// folded, and folds them again once opened.
func TestFieldsFoldIntoOneLine(t *testing.T) {
	t.Parallel()
	var fs []layout.Field
	for _, kv := range [][2]string{{"runId", "run_big"}, {"failed", "350"}, {"total", "400"}, {"url", strings.Repeat("u", 200)}} {
		fs = append(fs, layout.Field{Key: kv[0], Name: kv[0], Value: kv[1], Node: &layout.Node{Kind: '"', Text: kv[1]}})
	}
	m := New(fs)
	var st Styles
	if m.Lines() != 4 || m.Line(1, st, 80) != "failed  350" {
		t.Fatalf("unfolded: %d lines, line 1 %q", m.Lines(), m.Line(1, st, 80))
	}
	if k := m.Keys(NewKeys(), false); k.Fields.Enabled() {
		t.Error("e offered on fields that are not folded")
	}
	if !m.Fold(true) || m.Fold(true) || m.Lines() != 1 {
		t.Fatalf("fold: %d lines", m.Lines())
	}
	line := m.Line(0, st, 80)
	if !strings.HasPrefix(line, "runId run_big · failed 350 · total 400 · url u") || !strings.HasSuffix(line, "…  (e shows 4 fields)") || lipgloss.Width(line) != 80 {
		t.Errorf("folded line %q (%d wide)", line, lipgloss.Width(line))
	}
	if k := m.Keys(NewKeys(), false); !k.Fields.Enabled() || k.Fields.Help().Desc != "show fields" {
		t.Error("e not offered on folded fields")
	}
	if k := m.Keys(NewKeys(), true); k.Fields.Help().Desc != "fold fields" {
		t.Errorf("e on opened fields says %q", k.Fields.Help().Desc)
	}
}
