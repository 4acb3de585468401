// Command floor is the start-up floor of vq's stack: a program that links
// the libraries vq is built on (named by the project: cobra, the Charm v2
// line with huh, resty, gojq for --jq, the official MCP SDK) and only
// prints. Their package initialisation and size are paid by every vq
// start; the bench sets `vq --version` against this to show how much of
// start-up is vq's.
//
// With the words "post URL" it is the floor of one call instead: the POST
// vq sends for get_run_failures runId=run_abc (resty, the key in
// VQ_API_KEY), the answer's envelope decoded with encoding/json as vq
// decodes it, and its bytes printed, as `vq invoke … --json` prints them.
//
// Built with -tags vqfloor it is vq's own floor (vq.go).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	_ "charm.land/bubbles/v2/help"
	_ "charm.land/bubbles/v2/progress"
	_ "charm.land/bubbles/v2/spinner"
	_ "charm.land/bubbletea/v2"
	_ "charm.land/huh/v2"
	_ "charm.land/lipgloss/v2"
	"github.com/go-resty/resty/v2"
	_ "github.com/itchyny/gojq"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/spf13/cobra"
)

// Set in a vqfloor build (vq.go): catchSignals catches the signals every
// vq call catches; runVQ is vq itself, run by the words "vq ARGS…".
var (
	catchSignals = func() {}
	runVQ        func() int
)

func main() {
	if runVQ != nil && len(os.Args) > 1 && os.Args[1] == "vq" {
		os.Args = os.Args[1:]
		os.Exit(runVQ())
	}
	if len(os.Args) == 3 && os.Args[1] == "post" {
		catchSignals()
		if err := post(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		return
	}
	fmt.Println("vq dev")
}

func post(url string) error {
	body := map[string]any{"tool": "get_run_failures", "args": map[string]any{"runId": "run_abc"}}
	res, err := resty.New().R().SetAuthToken(os.Getenv("VQ_API_KEY")).SetHeader("Accept", "application/json").
		SetBody(body).Post(url + "/api/mcp/v1/invoke")
	if err != nil {
		return err
	}
	// api.ToolResponse's wire fields, restated: the plain floor links no
	// package of vq's (it measures the libraries alone), so it cannot
	// decode into that type.
	var envelope struct {
		OK          bool            `json:"ok"`
		Tool        string          `json:"tool"`
		Summary     string          `json:"summary"`
		Data        json.RawMessage `json:"data"`
		Warnings    []string        `json:"warnings"`
		NextActions []struct {
			Tool string         `json:"tool"`
			Args map[string]any `json:"args"`
		} `json:"nextActions"`
	}
	dec := json.NewDecoder(bytes.NewReader(res.Body()))
	dec.UseNumber()
	if err := dec.Decode(&envelope); err != nil || !envelope.OK {
		return fmt.Errorf("not a passing answer (%v): %s", err, res.Body())
	}
	_, err = os.Stdout.Write(append(res.Body(), '\n'))
	return err
}
