package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/visualq/vq/api"
)

// checkOutput holds a general server's answer (resp, ok) to the
// outputSchema its tools/list gives the tool: structuredContent must be
// there and valid. An answer that breaks it is an output_schema failure,
// not recoverable, naming where and by which rule, which keeps the answer
// as its data (--json still carries it). A schema vq cannot read (one it
// cannot resolve, of a draft it does not know) judges nothing; one whose
// check would not end, or cost too much, judges nothing and says why in a
// warning.
func (c *Client) checkOutput(ctx context.Context, tool string, resp *api.ToolResponse) *api.ToolResponse {
	content := resp.Content
	if content == nil || !resp.OK {
		return resp
	}
	listed, known, _ := c.listedTool(ctx, tool)
	if !known || len(listed.OutputSchema) == 0 {
		return resp
	}
	broken, unchecked := outputBreaks(listed.OutputSchema, content.Structured)
	if unchecked != "" {
		resp.Warnings = append(resp.Warnings, fmt.Sprintf("%s's answer is not checked against the outputSchema the server lists for it: %s", tool, unchecked))
	}
	if broken == "" {
		return resp
	}
	resp.OK = false
	resp.Error = &api.ToolError{Code: api.CodeOutputSchema, Message: fmt.Sprintf("%s's answer breaks the outputSchema the server lists for it: %s", tool, broken)}
	resp.Recoverable, resp.Failure.RepeatUnsafe = new(false), true
	return resp
}

// outputBreaks is how structured (none: nil) breaks schema, or why it
// cannot be checked against it; both "" when it holds, or the schema
// judges nothing.
func outputBreaks(schema, structured json.RawMessage) (broken, unchecked string) {
	var s jsonschema.Schema
	if json.Unmarshal(schema, &s) != nil {
		return "", ""
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return "", ""
	}
	if len(structured) == 0 {
		return "it sent no structuredContent", ""
	}
	var instance any
	if err := json.Unmarshal(structured, &instance); err != nil {
		return "", "" // the SDK decoded it: cannot happen
	}
	if why := validationCost(&s, instance, len(structured)); why != "" {
		return "", why
	}
	if err := resolved.Validate(instance); err != nil && !strings.HasPrefix(err.Error(), "cannot validate version") {
		return schemaViolation(err), ""
	}
	return "", ""
}

// schemaViolation is a validation error as a person reads it: the
// library's chain of "validating <schema path>: " prefixes becomes the
// innermost path, which names the member (as /properties/n), and its rule.
func schemaViolation(err error) string {
	msg, path := err.Error(), ""
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		at, after, ok := strings.Cut(rest, ": ")
		if !ok {
			break
		}
		path, msg = at, after
	}
	if path == "" || path == "root" {
		return msg
	}
	return path + ": " + msg
}
