package api

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioScheme starts an --endpoint that names a command instead of a URL:
// "stdio:CMD ARGS" runs CMD as a child process and speaks MCP over its
// stdin and stdout.
const StdioScheme = "stdio:"

// StdioCommand splits a stdio: endpoint into the command and its
// arguments, as a shell splits words (single and double quotes, backslash
// escapes) but without running one: no variables, globs or pipes. false
// when the endpoint is not a stdio: one, or names no command.
func StdioCommand(endpoint string) ([]string, bool) {
	rest, ok := strings.CutPrefix(endpoint, StdioScheme)
	if !ok {
		return nil, false
	}
	argv, err := splitWords(rest)
	if err != nil || len(argv) == 0 {
		return nil, false
	}
	return argv, true
}

// CheckStdioEndpoint says what is wrong with a stdio: endpoint, nil when it
// names a command.
func CheckStdioEndpoint(endpoint string) error {
	rest, _ := strings.CutPrefix(endpoint, StdioScheme)
	argv, err := splitWords(rest)
	if err != nil {
		return err
	}
	if len(argv) == 0 {
		return errors.New("names no command")
	}
	return nil
}

func splitWords(s string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			word.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("has an unterminated quote or escape")
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// stdioGrace is how long a stdio server may take to exit once its stdin is
// closed, before it is sent SIGTERM (and then killed).
const stdioGrace = 2 * time.Second

// stdioTransport starts nothing yet: the SDK starts the command on Connect
// and ends it on Close (stdin closed, then SIGTERM, then kill). The
// child's stderr goes to StdioStderr (vq's stderr under --debug).
func (c *Client) stdioTransport(argv []string) (mcp.Transport, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("cannot start the stdio server: %w", err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stderr = c.opts.StdioStderr
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: stdioGrace}, nil
}
