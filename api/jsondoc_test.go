package api

import (
	"encoding/json"
	"testing"

	"github.com/visualq/vq/internal/layout"
)

// Data that breaks off inside an object has no members, and asking for one
// is an answer (nil), not a crash.
func TestDataFieldOfBrokenData(t *testing.T) {
	t.Parallel()
	for _, data := range []string{`  {"a":`, `{"a":1`, `{"a":1}}`, `{"a":1} x`, `[1]`, ``} {
		r := &ToolResponse{Data: json.RawMessage(data)}
		if got := layout.Member(r.Data, r.Members, "a"); got != nil {
			t.Errorf("data %q: field a = %s, want none", data, got)
		}
		if _, ok := r.dataMembers(); ok {
			t.Errorf("data %q: has members", data)
		}
	}
}
