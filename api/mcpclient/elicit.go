package mcpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// callsInFlight are the MCP tool calls being sent. A question does not say its call, and the SDK does not end
// its handler with the call: it ends with every call in flight, so Close (awaiting handlers) waits on no person.
type callsInFlight struct {
	mu    sync.Mutex
	calls map[*callInFlight]bool
}

// callInFlight is one call a server's questions may belong to.
type callInFlight struct {
	ctx context.Context
	// refused are the questions declined in the call: asked again, the server gets an error, not a loop.
	refused    map[string]bool
	notOffered string // what the server asked for that vq does not offer
}

// start records a call in flight, bounded by ctx; end records its end.
func (f *callsInFlight) start(ctx context.Context) (call *callInFlight, end func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[*callInFlight]bool{}
	}
	call = &callInFlight{ctx: ctx, refused: map[string]bool{}}
	f.calls[call] = true
	return call, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.calls, call)
	}
}

func (f *callsInFlight) markNotOffered(what string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for call := range f.calls {
		call.notOffered = what
	}
}

func (f *callsInFlight) notOffered(call *callInFlight) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return call.notOffered
}

func (f *callsInFlight) now() []*callInFlight {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Collect(maps.Keys(f.calls))
}

// bound is ctx, ended also once every one of calls has ended.
func bound(ctx context.Context, calls []*callInFlight) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		for _, call := range calls {
			select {
			case <-call.ctx.Done():
			case <-ctx.Done():
				return
			}
		}
	}()
	return ctx, cancel
}

// refusedBefore reports a question one of calls has declined or cancelled.
func (f *callsInFlight) refusedBefore(calls []*callInFlight, key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.ContainsFunc(calls, func(call *callInFlight) bool { return call.refused[key] })
}

func (f *callsInFlight) refuse(calls []*callInFlight, key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, call := range calls {
		call.refused[key] = true
	}
}

// holdBounds pauses the calls' idle bounds while a person answers.
func holdBounds(calls []*callInFlight) (release func()) {
	releases := make([]func(), 0, len(calls))
	for _, call := range calls {
		releases = append(releases, holdBound(call.ctx))
	}
	return func() {
		for _, r := range releases {
			r()
		}
	}
}

// askedAgainError is a question asked again after vq refused it in the call.
type askedAgainError struct{ question string }

func (e *askedAgainError) Error() string {
	return fmt.Sprintf("the server asked %q again after vq refused it", e.question)
}

// questionKey tells one question from another: its message and schema.
func questionKey(p *mcp.ElicitParams) string {
	schema, _ := json.Marshal(p.RequestedSchema)
	return p.Message + "\x00" + string(schema)
}

// onElicit answers an elicitation through Options.Elicit within the calls in flight; without one, or for
// a URL elicitation, it declines: vq sends no one to a server's link.
func (c *Client) onElicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := req.Params
	if p == nil {
		return &mcp.ElicitResult{Action: api.ElicitDecline}, nil
	}
	if p.Mode == "url" {
		c.notify(fmt.Sprintf("the server asks you to open a page of %s: %s: declined (vq follows no link a server sends)", linkHost(p.URL), p.Message))
		return &mcp.ElicitResult{Action: api.ElicitDecline}, nil
	}
	calls := c.inFlight.now()
	if len(calls) == 0 {
		return &mcp.ElicitResult{Action: api.ElicitDecline}, nil
	}
	key := questionKey(p)
	if c.inFlight.refusedBefore(calls, key) {
		return nil, &askedAgainError{question: p.Message}
	}
	ctx, cancel := bound(ctx, calls)
	defer cancel()
	defer holdBounds(calls)()
	e := api.Elicitation{Message: p.Message}
	var schema jsonschema.Schema
	_ = remarshal(p.RequestedSchema, &schema) // the SDK has read it so: a schema vq cannot read asks for no fields
	for name, prop := range schema.Properties {
		e.Fields = append(e.Fields, elicitField(name, prop, slices.Contains(schema.Required, name)))
	}
	inSchemaOrder(e.Fields, questionOrder(calls, p.Message, slices.Collect(maps.Keys(schema.Properties))))
	answer, err := c.opts.Elicit(ctx, e)
	if err != nil {
		return nil, err
	}
	if answer.Action != api.ElicitAccept {
		c.inFlight.refuse(calls, key)
	}
	return &answer, nil
}

// elicitField reads one requested property: choices from enum (enumNames) or oneOf const/title, an
// array's from its items; one vq cannot read has no type, so it is not asked.
func elicitField(name string, p *jsonschema.Schema, required bool) api.ElicitField {
	f := api.ElicitField{Name: name, Required: required}
	if p == nil {
		return f
	}
	enum, names, choices := p.Enum, p.Extra["enumNames"], p.OneOf
	if p.Type == "array" {
		items := cmp.Or(p.Items, &jsonschema.Schema{})
		enum, names, choices = items.Enum, nil, items.AnyOf
	}
	var titled []struct{ Const, Title string }
	if !remarshal(enum, &f.Enum) || !remarshal(names, &f.EnumNames) || !remarshal(choices, &titled) {
		return api.ElicitField{Name: name, Required: required}
	}
	if len(enum) == 0 {
		for _, c := range titled {
			f.Enum, f.EnumNames = append(f.Enum, c.Const), append(f.EnumNames, cmp.Or(c.Title, c.Const))
		}
	}
	f.Title, f.Description, f.Type, f.Minimum, f.Maximum = p.Title, p.Description, p.Type, p.Minimum, p.Maximum
	f.MinLength, f.MaxLength, f.MinItems, f.MaxItems = p.MinLength, p.MaxLength, p.MinItems, p.MaxItems
	_ = remarshal(p.Default, &f.Default)
	return f
}

// remarshal reads v, decoded from JSON, into out as JSON would.
func remarshal(v, out any) bool {
	b, err := json.Marshal(v)
	return err == nil && json.Unmarshal(b, out) == nil
}

// linkHost is the host of a server's link; the link itself is not shown.
func linkHost(link string) string {
	if u, err := url.Parse(link); err == nil && u.Host != "" {
		return u.Host
	}
	return "an address vq cannot read"
}
