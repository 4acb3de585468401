// Package privatefile reads vq's own files (config, OAuth tokens, completion
// cache) within a size bound and only if regular, and writes them private
// (0600, directory 0700), atomically, through a symbolic link to its target,
// updated under a lock beside them. WriteReport is the same, readable by others.
//
// Imports: a leaf, nothing of vq.
package privatefile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// RefusedError names a file vq will not read or write: not regular, or too large.
type RefusedError struct {
	Path string
	Why  string
}

func (e *RefusedError) Error() string { return e.Path + " " + e.Why }

// Read reads one of vq's files of at most limit bytes; missing is
// fs.ErrNotExist, os.DevNull is empty. Anything else not regular (a FIFO,
// /dev/zero) is refused unread: no file makes vq block or hold more than limit.
func Read(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := readable(path, info, limit); err != nil || isDevNull(info) {
		return nil, err
	}
	// Opened without blocking and checked again: it may be a FIFO since the Stat.
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := readable(path, info, limit); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		return nil, tooLarge(path, limit)
	}
	return b, err
}

// readable refuses anything but a regular file (os.DevNull aside) within limit.
func readable(path string, info fs.FileInfo, limit int64) error {
	switch {
	case isDevNull(info):
		return nil
	case !info.Mode().IsRegular():
		return &RefusedError{Path: path, Why: "is not a regular file (" + kind(info.Mode()) + ")"}
	case info.Size() > limit:
		return tooLarge(path, limit)
	}
	return nil
}

func tooLarge(path string, limit int64) error {
	return &RefusedError{Path: path, Why: fmt.Sprintf("is larger than %s (vq's own files are far smaller)", size(limit))}
}

func isDevNull(info fs.FileInfo) bool {
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(info, null)
}

// kind names what a file that is not a regular file is.
func kind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + mode.String()
}

// size writes a bound in the unit it is a whole number of.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Update runs update (a read and rewrite) holding an exclusive lock beside the
// target (path.lock), so two vq processes signing in at once both keep theirs.
func Update(path string, update func() error) error {
	target, err := replaceable(path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return err
	}
	lock, err := os.OpenFile(target+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close() // closing releases the lock
	if err := lockFile(lock); err != nil {
		return err
	}
	return update()
}

// maxLinks bounds a chain of symbolic links, as the kernel's ELOOP does.
const maxLinks = 40

// Target is the file a write of path replaces: path, or the end of its chain of
// symbolic links (which need not exist yet), so writing keeps the links.
func Target(path string) (string, error) {
	target := path
	for range maxLinks {
		info, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) || err == nil && info.Mode()&fs.ModeSymlink == 0 {
			return target, nil
		}
		if err != nil {
			return "", err
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			// Not filepath.Join: it resolves ".." before the links.
			link = filepath.Dir(target) + string(filepath.Separator) + link
		}
		target = link
	}
	return "", &RefusedError{Path: path, Why: fmt.Sprintf("is a chain of more than %d symbolic links", maxLinks)}
}

// replaceable is path's Target, refused when it exists and is not regular
// (/dev/null, /dev/stdout): nothing is created beside or replaces it. Stat
// follows the links: /proc/self/fd/1 names no file Readlink can read.
func replaceable(path string) (string, error) {
	target, err := Target(path)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return "", &RefusedError{Path: path, Why: "is not a regular file (" + kind(info.Mode()) + "): refusing to replace it"}
	}
	return target, nil
}

// Write writes a private file (0600, directory 0700) through a temporary file
// and a rename, so a crash never leaves half of one; a link's target is
// replaced, and a target that is not regular is refused.
func Write(path string, data []byte) error {
	return replace(path, 0o600, 0o700, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteReport writes a file a person asked for (--junit, --save-dir) as Write
// does, but readable by others (0644, directory 0755).
func WriteReport(path string, write func(io.Writer) error) error {
	return replace(path, 0o644, 0o755, write)
}

// replace writes path's replaceable target (mode perm, directory dirPerm)
// through a temporary file beside it, renamed over it once complete.
func replace(path string, perm, dirPerm fs.FileMode, write func(io.Writer) error) error {
	target, err := replaceable(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing left to remove
	w := bufio.NewWriter(tmp)
	err = tmp.Chmod(perm)
	if err == nil {
		err = write(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}
