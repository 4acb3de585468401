// Command floor is the start-up floor of vq's stack: a program that links
// the libraries vq is built on (named by the project: cobra, the Charm v2
// line with huh, resty, gojq for --jq, the official MCP SDK) and only
// prints. Their package initialisation and size are paid by every vq
// start; the bench sets `vq --version` against this to show how much of
// start-up is vq's.
package main

import (
	"fmt"

	_ "charm.land/bubbles/v2/help"
	_ "charm.land/bubbles/v2/progress"
	_ "charm.land/bubbles/v2/spinner"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/huh/v2"
	_ "charm.land/lipgloss/v2"
	_ "github.com/go-resty/resty/v2"
	_ "github.com/itchyny/gojq"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/spf13/cobra"
)

func main() { fmt.Println("vq dev") }
