package cmdutil

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/visualq/vq/internal/exitcode"
)

// MCPOptions are the global flags of MCP servers in general.
type MCPOptions struct {
	HeaderLines    []string
	LogLevel       string
	ElicitDefaults bool
	EnvPairs       []string // of a stdio: server

	headers http.Header
}

// logLevels are MCP logging/setLevel's, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// given is the first MCP-only flag given (--env is checkStdio's), else "".
func (o MCPOptions) given() string {
	switch {
	case len(o.HeaderLines) > 0:
		return "--header"
	case o.LogLevel != "":
		return "--log-level"
	case o.ElicitDefaults:
		return "--elicit-defaults"
	}
	return ""
}

func addMCPFlags(fs *pflag.FlagSet, o *MCPOptions) {
	fs.StringArrayVar(&o.HeaderLines, "header", nil, "'Name: value' sent with every MCP request (repeatable), for servers with a header of their own")
	fs.StringArrayVar(&o.EnvPairs, "env", nil, "KEY=VALUE set in a stdio: MCP server's environment (repeatable); it gets only HOME, LOGNAME, PATH, SHELL, TERM and USER of vq's")
	fs.StringVar(&o.LogLevel, "log-level", "", "ask an MCP server to log at this level and above: "+strings.Join(logLevels, ", "))
	fs.BoolVar(&o.ElicitDefaults, "elicit-defaults", false, "answer an MCP server's questions (elicitation) with their schema's defaults without asking; otherwise vq asks with a form on a terminal and declines in a script")
}

func (o *MCPOptions) resolve() error {
	if o.LogLevel != "" && !slices.Contains(logLevels, o.LogLevel) {
		return &exitcode.UsageError{Reason: fmt.Sprintf("unknown --log-level %q", o.LogLevel), Hint: "use one of: " + strings.Join(logLevels, ", ")}
	}
	for _, pair := range o.EnvPairs {
		if name, _, ok := strings.Cut(pair, "="); !ok || name == "" || strings.ContainsRune(name, 0) {
			return &exitcode.UsageError{Reason: fmt.Sprintf("--env %q is not KEY=VALUE", pair), Hint: "example: --env ALLOWED_DIR=/tmp"}
		}
	}
	o.headers = nil
	for _, line := range o.HeaderLines {
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || !validHeaderName(name) || strings.ContainsAny(value, "\r\n") {
			return &exitcode.UsageError{Reason: fmt.Sprintf("--header %q is not 'Name: value'", line), Hint: "example: --header 'X-Api-Key: secret'"}
		}
		if o.headers == nil {
			o.headers = http.Header{}
		}
		o.headers.Add(name, value)
	}
	return nil
}

// validHeaderName reports an HTTP token (RFC 9110).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}
