package testkit

import (
	"bytes"
	"context"
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// junitSchema is the JUnit schema of Jenkins' xunit plugin (junit-10.xsd,
// MIT), the one CI servers read reports by.
//
//go:embed junit-10.xsd
var junitSchema []byte

// ValidJUnit fails t when doc is not valid against the Jenkins JUnit
// schema, as xmllint --schema reads it. Without xmllint (Debian's
// libxml2-utils, which .ci/run installs) the test is skipped, not passed.
func ValidJUnit(t testing.TB, doc []byte) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed (Debian: libxml2-utils; .ci/run installs it)")
	}
	schema := filepath.Join(t.TempDir(), "junit-10.xsd")
	if err := os.WriteFile(schema, junitSchema, 0o644); err != nil {
		t.Fatal(err)
	}
	// xmllint slows down with every error it reports: a report with an
	// error per case would take minutes, so the check is bounded and says
	// what it saw first.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, xmllint, "--noout", "--huge", "--schema", schema, "-")
	cmd.Stdin = bytes.NewReader(doc)
	var out firstBytes
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("JUnit report not valid against junit-10.xsd: %v\n%s\nreport (start):\n%.2000s", err, out.b, doc)
	}
}

// firstBytes keeps the first 4 KiB written to it.
type firstBytes struct{ b []byte }

func (f *firstBytes) Write(p []byte) (int, error) {
	f.b = append(f.b, p[:min(len(p), max(0, 4<<10-len(f.b)))]...)
	return len(p), nil
}
