package mcpclient

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/visualq/vq/api"
)

// questionOrder is a question's field order from the calls' records (the SDK's map loses it), or nil.
func questionOrder(calls []*callInFlight, message string, names []string) []string {
	slices.Sort(names)
	var order []string
	for _, call := range calls {
		rec, ok := call.ctx.Value(httpRecordKey{}).(*httpRecord)
		if !ok {
			continue
		}
		rec.eachMessage(func(doc []byte) {
			for _, q := range questionsIn(doc) {
				if q.Message != message {
					continue
				}
				keys := objectKeys(q.RequestedSchema.Properties)
				if sorted := slices.Sorted(slices.Values(keys)); slices.Equal(sorted, names) {
					order = keys
				}
			}
		})
	}
	return order
}

type question struct {
	Message         string `json:"message"`
	RequestedSchema struct {
		Properties json.RawMessage `json:"properties"`
	} `json:"requestedSchema"`
}

// questionsIn are the questions one message asks: a request or inputRequests.
func questionsIn(doc []byte) []question {
	if !bytes.Contains(doc, []byte(`"requestedSchema"`)) {
		return nil
	}
	type input struct {
		Method string   `json:"method"`
		Params question `json:"params"`
	}
	var msg struct {
		input
		Result struct {
			InputRequests map[string]input `json:"inputRequests"`
		} `json:"result"`
	}
	if json.Unmarshal(doc, &msg) != nil {
		return nil
	}
	var qs []question
	for _, in := range append([]input{msg.input}, slices.Collect(maps.Values(msg.Result.InputRequests))...) {
		if in.Method == "elicitation/create" {
			qs = append(qs, in.Params)
		}
	}
	return qs
}

// objectKeys are a JSON object's member names in order.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		key, _ := t.(string)
		keys = append(keys, key)
		var value json.RawMessage
		if dec.Decode(&value) != nil {
			return keys
		}
	}
	return keys
}

// inSchemaOrder sorts fields by order, then the rest by name.
func inSchemaOrder(fields []api.ElicitField, order []string) {
	rank := func(name string) int {
		if i := slices.Index(order, name); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(fields, func(a, b api.ElicitField) int {
		if ra, rb := rank(a.Name), rank(b.Name); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Name, b.Name)
	})
}
