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

// An outputSchema whose check would never end is not checked, and says
// why in the answer's warnings; the answer stands, and the next call is
// answered: a $ref loop on one value (a validator that follows it
// overflows its stack), $refs applied twice a level (2^32 steps), calls
// nested too deep. A schema that recurses into the answer (a tree's) is
// still checked down a deep answer, and a union down a large answer
// (past the steps any answer may take, within those its size adds).
func TestOutputSchemasWhoseCheckWouldNotEndAreNotChecked(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	tools := testkit.HostileOutputSchemas()
	unchecked := map[string]string{
		"self_ref":      "it applies itself to a value without going into it (a $ref loop), which never ends",
		"ref_loop":      "it applies itself to a value without going into it (a $ref loop), which never ends",
		"all_of_32":     "checking it would apply its subschemas more than 100014 times",
		"any_of_32":     "checking it would apply its subschemas more than 100014 times",
		"doubling_tree": "checking it would apply its subschemas more than 100",
		"deep_nesting":  "checking it would nest more than 10000 schemas deep",
	}
	node := map[string]any{"type": "object", "properties": map[string]any{
		"kids": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/node"}}, "n": map[string]any{"type": "integer"}}}
	tools["tree"] = testkit.OutputSchema{Schema: map[string]any{"$ref": "#/$defs/node", "$defs": map[string]any{"node": node}},
		Answer: strings.Repeat(`{"kids":[`, 450) + `{"n":"x"}` + strings.Repeat("]}", 450)}
	var kinds []any // a union of ten kinds of row: each row is checked ten times over
	for i := range 10 {
		kinds = append(kinds, map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"const": i}}})
	}
	tools["wide"] = testkit.OutputSchema{Schema: map[string]any{"type": "object", "properties": map[string]any{"rows": map[string]any{"type": "array", "items": map[string]any{"anyOf": kinds}}}},
		Answer: `{"rows":[` + strings.Repeat(`{"n":1},`, 4000) + `{"n":"x"}]}`}
	c := mcpclient.New(mcpclient.Options{OverMCP: true, Endpoint: testkit.ServeOutputSchemas(t, tools)})
	t.Cleanup(func() { c.Close() })
	for _, tool := range []string{"self_ref", "tree", "ref_loop", "all_of_32", "any_of_32", "wide", "doubling_tree", "deep_nesting"} {
		resp, err := c.Invoke(ctx, api.Call{Tool: tool})
		if err != nil {
			t.Fatal(err)
		}
		var data struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if json.Unmarshal(resp.Data, &data) != nil || string(data.StructuredContent) != tools[tool].Answer {
			t.Errorf("%s: the answer is not the data: %.200s", tool, resp.Data)
		}
		if why, ok := unchecked[tool]; ok {
			want := tool + "'s answer is not checked against the outputSchema the server lists for it: " + why
			if !resp.OK || len(resp.Warnings) != 1 || !strings.HasPrefix(resp.Warnings[0], want) {
				t.Errorf("%s: ok %v %s, warnings %q; want the warning %q", tool, resp.OK, resp.ErrorMessage(), resp.Warnings, want)
			}
		} else if resp.ErrorCode() != api.CodeOutputSchema || len(resp.Warnings) != 0 {
			t.Errorf("%s: checked to %s %q, warnings %q; want output_schema", tool, resp.ErrorCode(), resp.ErrorMessage(), resp.Warnings)
		}
	}
}
