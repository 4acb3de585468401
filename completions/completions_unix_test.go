//go:build unix

package completions

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
)

// A cache file that is not a small regular file (swapped for /dev/zero, a
// FIFO nobody writes, a huge file) is passed over at once: completion works
// as with no cache.
func TestHostileCacheFilesArePassedOver(t *testing.T) {
	for name, plant := range map[string]func(path string) error{
		"dev zero": func(path string) error { return os.Symlink("/dev/zero", path) },
		"fifo":     func(path string) error { return syscall.Mkfifo(path, 0o600) },
		"huge":     func(path string) error { return os.WriteFile(path, make([]byte, maxCacheFile+1), 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := testkit.Bound(t)
			c := Cache{Dir: t.TempDir(), TTL: DefaultTTL, Now: time.Now}
			if err := plant(filepath.Join(c.Dir, "recent.json")); err != nil {
				t.Skip(err)
			}
			done := make(chan []string, 1)
			go func() { done <- c.Recent(RunID) }()
			if got := testkit.Receive(t, ctx, done, "the cache's recent IDs"); len(got) != 0 {
				t.Errorf("recent = %q from a hostile file", got)
			}
		})
	}
}
