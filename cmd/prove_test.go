package cmd

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
)

// trickyMarkdown holds what a JIRA comment may hold and a careless printer
// would change: unicode, table pipes, braces, backticks, trailing spaces and
// no final newline.
const trickyMarkdown = "h3. Preuve de tracking — BN-470 ✓ (日本語, émoji 🎯)\n" +
	"||event||status||\n" +
	"|add_to_cart|{color:green}pass{color}|\n" +
	"{code:json}{\"price\": 12.5, \"items\": [1, 2]}{code}\n" +
	"`vq prove BN-470` then $HOME and \\n stay as they are   \n" +
	"\ttabbed line, trailing spaces  "

// proofStep is the final get_job_status answer of a proof job.
func proofStep(proven bool, markdown string) testkit.Reply {
	result := map[string]any{
		"proofVerdict": "proven",
		"proofOutcome": map[string]any{"proven": true, "headline": "OUI — add_to_cart fires with the product payload",
			"reasons": []string{"event add_to_cart seen after the click", "payload matches the ticket"}},
		"jiraMarkdown": markdown,
		"eventStatus":  "pass",
		"scenario":     map[string]any{"matchesTicketIntent": true},
		"warnings":     []string{"intent-only proof: the scenario is generic"},
		"nextActions":  []any{},
	}
	data := map[string]any{"jobId": "job_p", "status": "completed", "result": result}
	warnings := testkit.Warnings("intent-only proof: the scenario is generic", "reused audit cache from 2h ago")
	if !proven {
		result["proofVerdict"] = "failed"
		result["proofOutcome"] = map[string]any{"proven": false, "headline": "NON — add_to_cart never fired",
			"reasons": []string{"no add_to_cart event after the click"}}
		result["eventStatus"] = "fail"
		actions := []any{
			map[string]any{"label": "Create the missing scenario", "tool": "create_frt_scenario", "args": map[string]any{"goal": "add a product to the cart", "startPath": "/products"}},
			map[string]any{"label": "Re-prove BN-470", "tool": "tracking_prove_jira_ticket", "args": map[string]any{"ticket": "BN-470"}},
			map[string]any{"label": "Inspect the proof job", "tool": "get_job_status", "args": map[string]any{"jobId": "job_p"}},
		}
		result["nextActions"] = actions
		return testkit.Answer(200, testkit.OK(api.ToolJobStatus, "BN-470 not proven.", data, warnings, testkit.NextActions(actions...),
			testkit.Failed("proof_failed", "BN-470 not proven: add_to_cart never fired", true)))
	}
	return testkit.Answer(200, testkit.OK(api.ToolJobStatus, "BN-470 proven.", data, warnings))
}

func proveServer(t *testing.T, final testkit.Reply) *testkit.JobServer {
	return testkit.NewJobServer(t, testkit.Answer(200, testkit.Queued(api.ToolProve, "job_p")), map[string][]testkit.Reply{"job_p": {
		testkit.JobStep("job_p", "running", 1, 3, "Replaying the scenario"), final,
	}})
}

func TestProveMarkdownIsByteForByte(t *testing.T) {
	t.Parallel()
	for _, proven := range []bool{true, false} {
		s := proveServer(t, proofStep(proven, trickyMarkdown))
		stdout, stderr, exit := runVQ(t, s.Env(), "prove", "BN-470", "--markdown", "--interval", "1ms")
		if stdout != trickyMarkdown {
			t.Errorf("proven=%v: stdout\n%q\nwant\n%q", proven, stdout, trickyMarkdown)
		}
		if want := map[bool]int{true: 0, false: 22}[proven]; exit != want {
			t.Errorf("proven=%v: exit %d, want %d", proven, exit, want)
		}
		if !strings.Contains(stderr, "job_p running 1/3 Replaying the scenario") {
			t.Errorf("progress missing from stderr: %q", stderr)
		}
	}
}

// On a terminal with no tmux and no desktop, --copy asks the terminal
// through OSC 52, and says it sent the comment, which vq cannot check:
// never that it copied it.
func TestProveCopyToTheTerminalWithOSC52(t *testing.T) {
	t.Parallel()
	s := proveServer(t, proofStep(true, trickyMarkdown))
	stdout, stderr, exit := vqRun{Env: s.Env(), TTY: true}.run(t, "prove", "BN-470", "--copy", "--markdown", "--interval", "1ms")
	if exit != 0 || stdout != trickyMarkdown {
		t.Errorf("exit %d, stdout %q", exit, stdout)
	}
	osc := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(trickyMarkdown)) + "\a"
	want := osc + fmt.Sprintf("JIRA comment (%d bytes) sent to the terminal's clipboard (OSC 52); vq cannot check that the terminal took it: it must allow OSC 52 clipboard writes\n", len(trickyMarkdown))
	if !strings.HasSuffix(stderr, want) || strings.Count(stderr, "\x1b]52;") != 1 {
		t.Errorf("stderr %q\nwant it to end %q", stderr, want)
	}
}
