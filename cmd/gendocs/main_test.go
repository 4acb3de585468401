package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdutil"
)

func TestManAndMarkdownPagesBuild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := generate(cmd.NewRootCmd(cmdutil.NewFactory(cmd.Version())), dir, true, true); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"vq.1", "vq-invoke.1", "vq-environment.1", "vq-formats.1", "vq.md", "vq_diff.md"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if strings.HasSuffix(name, ".1") && !strings.Contains(string(b), ".TH \"VQ\" \"1\"") {
			t.Errorf("%s is not a man page:\n%.200s", name, b)
		}
	}
	if man, err := exec.LookPath("man"); err == nil {
		out, err := exec.Command(man, "-l", filepath.Join(dir, "vq-invoke.1")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "KEY=VALUE") {
			t.Errorf("man -l vq-invoke.1: %v\n%.300s", err, out)
		}
	}
}
