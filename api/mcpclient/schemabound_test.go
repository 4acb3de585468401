package mcpclient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/testkit"
)

// BenchmarkOutputSchema is the check of an answer against each hostile
// outputSchema (refused before Validate runs), and against a plain schema
// over a 200 KB answer of 50,000 values (checked).
func BenchmarkOutputSchema(b *testing.B) {
	tools := testkit.HostileOutputSchemas()
	tools["wide"] = testkit.OutputSchema{Schema: map[string]any{"type": "object", "properties": map[string]any{"rows": map[string]any{"type": "array",
		"items": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}}},
		Answer: `{"rows":[` + strings.Repeat(`{"n":1},`, 25_000) + `{"n":1}]}`}
	for name, tool := range tools {
		schema, _ := json.Marshal(tool.Schema)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				outputBreaks(schema, json.RawMessage(tool.Answer))
			}
		})
	}
}

// A listed schema nested past maxSchemaDepth lists no arguments: reading
// it would cost its bytes times its depth (a megabyte under 1000 levels:
// a minute). One at the bound is read.
func TestADeepInputSchemaIsNotRead(t *testing.T) {
	t.Parallel()
	nested := func(depth int) json.RawMessage {
		return json.RawMessage(`{"properties":{"a":` + strings.Repeat(`{"properties":{"a":`, depth/2-2) +
			`{"description":"` + strings.Repeat("x", 64<<10) + `"}` + strings.Repeat(`}}`, depth/2-1))
	}
	if got := toolFromMCP(&mcp.Tool{Name: "deep"}, rawToolMembers{InputSchema: nested(1000)}).Arguments; len(got) != 0 {
		t.Errorf("a schema 1000 deep: arguments %+v", got)
	}
	if got := toolFromMCP(&mcp.Tool{Name: "fits"}, rawToolMembers{InputSchema: nested(maxSchemaDepth)}).Arguments; len(got) != 1 || got[0].Name != "a" {
		t.Errorf("a schema %d deep: arguments %+v", maxSchemaDepth, got)
	}
}
