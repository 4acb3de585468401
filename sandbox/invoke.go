package sandbox

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/visualq/vq/api"
)

// maxInvokeBody bounds a request body; real calls are a few hundred bytes.
const maxInvokeBody = 1 << 20

// invokeRequest is the body of POST /api/mcp/v1/invoke.
type invokeRequest struct {
	Tool        string `json:"tool"`
	Args        args   `json:"args"`
	Project     string `json:"project"`
	Environment string `json:"environment"`
}

// call is one admitted invocation, as a tool handler sees it.
type call struct {
	tool    string
	args    args
	baseURL string // scheme://host the client used, for absolute links
}

func (s *Server) serveInvoke(w http.ResponseWriter, r *http.Request) {
	s.invoke(r).write(w)
}

// invoke runs the gates in the order a client can act on them: transport
// (method, key, body), rate, tool, project, then the tool's own gates.
func (s *Server) invoke(r *http.Request) reply {
	if r.Method != http.MethodPost {
		rp := failure("", refuse(api.CodeValidation, "method %s is not allowed: invoke with POST and a JSON body", r.Method))
		rp.header = http.Header{"Allow": {http.MethodPost}}
		return rp
	}
	key, why, ok := authenticate(r.Header)
	if !ok {
		return unauthorized(why)
	}
	req, err := decodeInvoke(r)
	if err != nil {
		return failure(req.Tool, err)
	}
	return s.call(key, req, baseURL(r))
}

// call runs one decoded call for key: the rate limit, the tool, its
// project and scopes, then the tool itself. The MCP endpoint enters here.
func (s *Server) call(key Key, req invokeRequest, base string) reply {
	if ok, wait := s.limiter.allow(key.Token); !ok {
		return rateLimited(req.Tool, wait)
	}
	t, ok := tools[req.Tool]
	if !ok {
		return failure(req.Tool, refuse(api.CodeNotFound, "unknown tool %q; tools: %s", req.Tool, strings.Join(toolNames(), ", ")))
	}
	if err := resolveProject(req.Project, req.Environment); err != nil {
		return failure(req.Tool, err)
	}
	if err := t.admit(req.Tool, key, req.Args); err != nil {
		return failure(req.Tool, err)
	}
	return t.run(s, &call{tool: req.Tool, args: req.Args, baseURL: base})
}

func decodeInvoke(r *http.Request) (invokeRequest, error) {
	var req invokeRequest
	body := http.MaxBytesReader(nil, r.Body, maxInvokeBody)
	dec := json.NewDecoder(body)
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return req, refuse(api.CodeValidation, "request body is larger than %d bytes", maxInvokeBody)
		}
		var wrongType *json.UnmarshalTypeError
		if errors.As(err, &wrongType) {
			want := "a string"
			if wrongType.Field == "args" {
				want = "an object"
			}
			return req, refuse(api.CodeValidation, "%s must be %s, got %s", wrongType.Field, want, wrongType.Value)
		}
		return req, refuse(api.CodeValidation, "request body is not a JSON invoke request {\"tool\", \"args\"}: %v", err)
	}
	if dec.More() {
		return req, refuse(api.CodeValidation, "request body holds more than one JSON value")
	}
	if req.Tool == "" {
		return req, refuse(api.CodeValidation, "tool is required")
	}
	if req.Args == nil {
		req.Args = args{}
	}
	return req, nil
}

// baseURL is the scheme and host the client reached us on, so links work
// behind any address the sandbox was started on.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// project is a seeded VisualQ project and its environments.
type project struct {
	name         string
	environments []string
}

var projects = []project{
	{name: "shop-web", environments: []string{"staging", "production"}},
	{name: "docs-site", environments: []string{"production"}},
}

// resolveProject checks the project and environment a call names; calls
// without them use the first project. Seeded data is shared by all projects:
// resolution only refuses unknown names, as the service does before any tool.
func resolveProject(name, environment string) error {
	p := projects[0]
	if name != "" {
		i := slices.IndexFunc(projects, func(p project) bool { return p.name == name })
		if i < 0 {
			names := make([]string, len(projects))
			for i, p := range projects {
				names[i] = p.name
			}
			return refuse(api.CodeProjectResolution, "project %q not found; projects: %s", name, strings.Join(names, ", "))
		}
		p = projects[i]
	}
	if environment != "" && !slices.Contains(p.environments, environment) {
		return refuse(api.CodeProjectResolution, "environment %q not found in project %s; environments: %s",
			environment, p.name, strings.Join(p.environments, ", "))
	}
	return nil
}
