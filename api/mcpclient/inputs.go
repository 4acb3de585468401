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

// A server asks for input by a request of its own (before 2026-07-28) or by answering the call with what it
// needs (SEP-2322). vq answers elicitation, refuses sampling and roots, and sends no failed call again;
// the SDK's own round loop is off (it answers roots/list with an empty list).

// Bounds of a request's rounds of input: in all, and "busy" (none asked).
const (
	maxInputRounds = 10
	maxBusyRounds  = 3
)

// notOfferedError is a server that asked for a capability vq does not offer.
type notOfferedError struct{ what string }

func (e *notOfferedError) Error() string {
	return fmt.Sprintf("the server asked for %s, which vq does not offer (a command line, not an agent host, declares no sampling nor roots)", e.what)
}

// inputRounds is a sending middleware that answers a request's rounds of input.
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

// inputsNeeded reads what a result asks, and the state to send back.
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

// answerInputs answers a round's questions one at a time.
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

// withInputs is req again with a copy of its params carrying answers and state.
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

// refuseUnoffered answers sampling and roots/list "method not found", marking the calls not to be sent again.
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

func isNotOffered(err error) bool {
	var e *notOfferedError
	return errors.As(err, &e)
}

// nilParams reports params that are a nil pointer in an interface.
func nilParams(p mcp.Params) bool { return p == nil || reflect.ValueOf(p).IsNil() }
