package cmd

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
)

// A 16 MiB answer costs vq fewer page faults than its 4,096 pages, with or
// without a Content-Length: the buffers it is read into lie in huge pages (in a VM, page faults were most of the time of a 100k-failure
// answer, issue 41). Counted as the kernel counts the vq process's faults.
func TestLargeAnswerTakesFewPageFaults(t *testing.T) {
	if raceDetector {
		t.Skip("the race run's shadow memory faults for every page")
	}
	if thp, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || bytes.Contains(thp, []byte("[never]")) {
		t.Skip("no transparent huge pages here")
	}
	t.Parallel()
	var doc bytes.Buffer
	doc.WriteString(`{"ok":true,"tool":"get_run_failures","summary":"s","data":{"failures":[`)
	for i := 0; doc.Len() < 16<<20; i++ {
		fmt.Fprintf(&doc, `{"scenarioLabel":"Homepage %d","viewport":"desktop","mismatchPercent":5.3},`, i)
	}
	doc.WriteString(`{}]}}`)
	large := doc.Bytes()
	small := []byte(`{"ok":true,"tool":"get_run_failures","summary":"s","data":{"failures":[]}}`)
	s := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer := small
		if strings.Contains(r.URL.Path, "/large") {
			answer = large
		}
		if !strings.Contains(r.URL.Path, "/chunked/") {
			w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		}
		w.Write(answer)
	}))
	faults := func(path string) int64 {
		p := startVQ(t, s.URL+path, "invoke", "get_run_failures", "--json", "--no-retry")
		if exit := p.wait(t, 2*time.Minute); exit != 0 {
			t.Fatalf("%s: exit %d, stderr: %s", path, exit, p.stderr.String())
		}
		if strings.Contains(path, "large") && p.stdout.Len() < len(large) {
			t.Fatalf("%s: printed %d bytes of a %d-byte answer", path, p.stdout.Len(), len(large))
		}
		return p.cmd.ProcessState.SysUsage().(*syscall.Rusage).Minflt
	}
	pages := int64(len(large) >> 12)
	for _, tc := range []struct {
		path  string
		bound int64 // faults more than an empty answer's
	}{
		{"/large", pages / 2},
		// Unannounced, it arrives in chunks from 4 KiB up, then joined.
		{"/chunked/large", pages},
	} {
		base, got := faults(strings.Replace(tc.path, "large", "small", 1)), faults(tc.path)
		t.Logf("%s: %d page faults, %d for an empty answer", tc.path, got, base)
		if got-base > tc.bound {
			t.Errorf("%s: %d page faults more than an empty answer, for %d pages of answer", tc.path, got-base, pages)
		}
	}
}
