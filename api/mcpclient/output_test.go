package mcpclient_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/internal/testkit"
)

// A general server's answer is held to the outputSchema its tools/list
// gives the tool: one that breaks it is output_schema, not recoverable,
// naming the member and the rule, and keeps the answer as its data. Over
// both transports, whichever revision.
func TestAnswersAreHeldToTheToolsOutputSchema(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	httpEndpoint, _ := httpTestServer(t, true)
	stdioEndpoint, env, _ := stdioTestServer(t)
	for name, opts := range map[string]mcpclient.Options{
		"http":  {OverMCP: true, Endpoint: httpEndpoint},
		"stdio": {OverMCP: true, Endpoint: stdioEndpoint, StdioEnv: env},
	} {
		t.Run(name, func(t *testing.T) {
			c := mcpclient.New(opts)
			t.Cleanup(func() { c.Close() })
			for _, tc := range []struct {
				answer, code, message string
			}{
				{`{"n":3,"label":"three"}`, "", ""},
				{`{"n":"not-a-number"}`, api.CodeOutputSchema, `typed's answer breaks the outputSchema the server lists for it: /properties/n: type: not-a-number has type "string", want "integer"`},
				{`{"label":"no n"}`, api.CodeOutputSchema, `required: missing properties: ["n"]`},
				{``, api.CodeOutputSchema, "typed's answer breaks the outputSchema the server lists for it: it sent no structuredContent"},
			} {
				resp, err := c.Invoke(ctx, api.Call{Tool: "typed", Args: map[string]any{"answer": tc.answer}})
				if err != nil {
					t.Fatal(err)
				}
				if resp.ErrorCode() != tc.code || resp.IsRecoverable() || !strings.Contains(resp.ErrorMessage(), tc.message) {
					t.Errorf("%s: got %s (recoverable %v): %s", tc.answer, resp.ErrorCode(), resp.IsRecoverable(), resp.ErrorMessage())
				}
				var data struct {
					StructuredContent json.RawMessage `json:"structuredContent"`
				}
				if json.Unmarshal(resp.Data, &data) != nil || tc.answer != "" && string(data.StructuredContent) != tc.answer {
					t.Errorf("%s: the answer is not the data: %s", tc.answer, resp.Data)
				}
			}
		})
	}
}

// A text block that is a JSON document is summed up by its start on one
// line, not its first line ("{"), within a bound.
func TestTheSummaryOfAJSONTextIsItsStart(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	endpoint, _ := httpTestServer(t, false)
	c := mcpclient.New(mcpclient.Options{OverMCP: true, Endpoint: endpoint})
	t.Cleanup(func() { c.Close() })
	long := `{"n": 1, "label": "` + strings.Repeat("é", 300) + `"}`
	for answer, want := range map[string]string{
		"{\n  \"n\": 3,\n  \"label\": \"a b\\\" c\"\n}": `{"n":3,"label":"a b\" c"}`,
		long: `{"n":1,"label":"` + strings.Repeat("é", 92) + "…",
	} {
		resp, err := c.Invoke(ctx, api.Call{Tool: "typed", Args: map[string]any{"answer": answer}})
		if err != nil || !resp.OK || resp.Summary != want {
			t.Errorf("%.40q: summary %q (%v %s), want %q", answer, resp.Summary, err, resp.ErrorMessage(), want)
		}
	}
}
