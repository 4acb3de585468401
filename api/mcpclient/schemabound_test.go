package mcpclient

import (
	"encoding/json"
	"strings"
	"testing"

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
