// Sampling and roots are deprecated as of revision 2026-07-28 (SEP-2577);
// vq refuses them whichever revision asks.
//
//lint:file-ignore SA1019 vq refuses the sampling and roots servers still ask for.

package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server asks its client for input in one of two ways, by revision.
// Before 2026-07-28 it sends a request of its own while it answers a call
// (elicitation/create, sampling/createMessage, roots/list); from 2026-07-28
// it answers the call with the input it needs (multi round-trip requests,
// SEP-2322), and the client calls again with the answers. vq answers
// elicitation (onElicit) and offers no sampling nor roots: it is a command
// line, not an agent host, and declares neither. Asked for them anyway,
// it refuses as the revision says, once: a JSON-RPC error to the server's
// request, or the call ended at once; either way the call's failure is
// not sent again (the contract's one retry would ask the same).
//
// The SDK's own multi round-trip loop is turned off (it would answer
// roots/list with an empty list and sampling with an error the call
// retries): inputRounds runs the rounds instead, with the SDK's bounds.

// Bounds of a request's rounds of input: in all, and answered "busy"
// (input required, none asked: the server sheds load).
const (
	maxInputRounds = 10
	maxBusyRounds  = 3
)

// notOfferedError is a server that asked, within a call, for a capability
// vq does not offer.
type notOfferedError struct{ what string }

func (e *notOfferedError) Error() string {
	return fmt.Sprintf("the server asked for %s, which vq does not offer (a command line, not an agent host, declares no sampling nor roots)", e.what)
}

// inputRounds is a sending middleware that answers a tools/call,
// prompts/get or resources/read the server answered with the input it
// needs, and sends it again with the answers and the server's state,
// within the bounds above.
func (c *Client) inputRounds(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		s, ok := req.GetSession().(*mcp.ClientSession)
		if !ok {
			return next(ctx, method, req)
		}
		busy := 0
		for round := 1; ; round++ {
			res, err := next(ctx, method, req)
			asks, state, needed := inputsNeeded(res)
			if err != nil || !needed {
				return res, err
			}
			if len(asks) == 0 {
				busy++
			}
			if busy == maxBusyRounds || round == maxInputRounds {
				return nil, fmt.Errorf("the server still needs input after %d rounds (%d of them busy); vq stopped there", round, busy)
			}
			answers, err := c.answerInputs(ctx, s, asks)
			if err != nil {
				return nil, err
			}
			if req, err = withInputs(s, req, answers, state); err != nil {
				return nil, err
			}
		}
	}
}

// inputsNeeded reads a result that asks for input: what it asks, and the
// state to send back.
func inputsNeeded(res mcp.Result) (mcp.InputRequestMap, string, bool) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		return r.InputRequests, r.RequestState, r != nil && r.NeedsInput()
	case *mcp.GetPromptResult:
		return r.InputRequests, r.RequestState, r != nil && r.NeedsInput()
	case *mcp.ReadResourceResult:
		return r.InputRequests, r.RequestState, r != nil && r.NeedsInput()
	}
	return nil, "", false
}

// answerInputs answers a round's questions one at a time (a person answers
// them). The first that asks for what vq does not offer ends the call.
func (c *Client) answerInputs(ctx context.Context, s *mcp.ClientSession, asks mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	answers := mcp.InputResponseMap{}
	for key, ask := range asks {
		switch p := ask.(type) {
		case *mcp.ElicitParams:
			if c.opts.Elicit == nil {
				return nil, &notOfferedError{what: "elicitation"}
			}
			answer, err := c.onElicit(ctx, &mcp.ElicitRequest{Session: s, Params: p})
			if err != nil {
				return nil, err
			}
			answers[key] = answer
		case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
			return nil, &notOfferedError{what: "sampling (sampling/createMessage)"}
		case *mcp.ListRootsParams:
			return nil, &notOfferedError{what: "roots (roots/list)"}
		default:
			return nil, fmt.Errorf("the server asked for input vq does not know (%T)", ask)
		}
	}
	return answers, nil
}

// withInputs is req again, with a copy of its params carrying the answers
// and the server's state (the caller's params stay as they were).
func withInputs(s *mcp.ClientSession, req mcp.Request, answers mcp.InputResponseMap, state string) (mcp.Request, error) {
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParams:
		again := *p
		again.InputResponses, again.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.CallToolParams]{Session: s, Params: &again}, nil
	case *mcp.GetPromptParams:
		again := *p
		again.InputResponses, again.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.GetPromptParams]{Session: s, Params: &again}, nil
	case *mcp.ReadResourceParams:
		again := *p
		again.InputResponses, again.RequestState = answers, state
		return &mcp.ClientRequest[*mcp.ReadResourceParams]{Session: s, Params: &again}, nil
	}
	return nil, fmt.Errorf("input for a request vq cannot send again (%T)", req.GetParams())
}

// refuseUnoffered is a receiving middleware that answers a server's
// sampling/createMessage and roots/list (revisions before 2026-07-28) with
// "method not found", the error of a client that does not offer them, and
// marks the calls in flight, whose failure is then not sent again.
func (c *Client) refuseUnoffered(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		var what string
		switch method {
		case "sampling/createMessage":
			what = "sampling (sampling/createMessage)"
		case "roots/list":
			what = "roots (roots/list)"
		default:
			return next(ctx, method, req)
		}
		c.inFlight.markNotOffered(what)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "vq does not offer " + what + ": it is a command line, not an agent host"}
	}
}

// isNotOffered reports a call ended because the server asked for what vq
// does not offer.
func isNotOffered(err error) bool {
	var e *notOfferedError
	return errors.As(err, &e)
}

// nilParams reports params that are a nil pointer in an interface.
func nilParams(p mcp.Params) bool { return p == nil || reflect.ValueOf(p).IsNil() }
