package format

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/itchyny/gojq"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// JSON writes one ToolResponse document (the server's bytes if sent), escaping what a terminal acts on or hides.
func JSON(out io.Writer, r *api.ToolResponse, indent bool) error {
	if !indent {
		return textsafe.WriteJSONFrom(out, r.WriteDocument)
	}
	doc, err := r.Document()
	if err != nil {
		return err
	}
	return textsafe.WriteJSON(out, doc, indent)
}

// Query is a compiled --jq expression.
type Query struct{ code *gojq.Code }

// CompileJQ compiles a jq expression: a bad one is a usage error before any call.
func CompileJQ(expr string) (*Query, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, &exitcode.UsageError{Reason: "invalid --jq expression: " + err.Error(), Hint: `example: --jq '.data.failures[].scenarioLabel'`}
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, &exitcode.UsageError{Reason: "invalid --jq expression: " + err.Error()}
	}
	return &Query{code: code}, nil
}

// Run writes each result a line: strings raw (jq -r) but sanitized, else JSON.
func (q *Query) Run(ctx context.Context, out io.Writer, r *api.ToolResponse) error {
	doc, err := r.Document()
	if err != nil {
		return err
	}
	return q.runDocument(ctx, out, doc)
}

// WriteDocument writes a JSON document that is no ToolResponse as o asks.
func WriteDocument(ctx context.Context, out io.Writer, doc []byte, o Options) error {
	if o.Query != nil {
		return o.Query.runDocument(ctx, out, doc)
	}
	return textsafe.WriteJSON(out, doc, o.Terminal)
}

func (q *Query) runDocument(ctx context.Context, out io.Writer, doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var input any
	if err := dec.Decode(&input); err != nil {
		return err
	}
	iter := q.code.RunWithContext(ctx, input)
	for {
		v, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := v.(error); isErr {
			if h, halted := err.(*gojq.HaltError); halted && h.Value() == nil {
				return nil
			}
			return fmt.Errorf("--jq: %w", err)
		}
		var line string
		if s, isStr := v.(string); isStr {
			line = textsafe.Sanitize(s)
		} else {
			b, err := gojq.Marshal(v)
			if err != nil {
				return err
			}
			line = string(textsafe.EscapeJSON(b))
		}
		if _, err := io.WriteString(out, line+"\n"); err != nil {
			return err
		}
	}
}
