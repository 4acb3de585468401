package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/visualq/vq/api"
)

// checkOutput holds an answer to its tool's outputSchema: a break is an output_schema failure, the answer
// kept as data; an unreadable schema judges nothing, one too costly says so in a warning.
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

// outputBreaks is how structured breaks schema, or why it cannot be checked.
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

// schemaViolation is a validation error as the innermost schema path and its rule.
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
