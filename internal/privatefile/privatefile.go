// Package privatefile reads and writes vq's own files (the config, the
// OAuth tokens, the completion cache): read within a size bound and only
// from a regular file, written private (0600 in a 0700 directory),
// atomically, through a symbolic link to its target, and updated under a
// lock beside them. The reports a person asks for (WriteReport) are
// written the same way, readable by others.
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

// RefusedError is a file vq will not read or write: not a regular file,
// or larger than the bound its reader gives. It names the file.
type RefusedError struct {
	Path string
	Why  string
}

func (e *RefusedError) Error() string { return e.Path + " " + e.Why }

// Read reads one of vq's own files, of at most limit bytes. A missing
// file is fs.ErrNotExist; os.DevNull (or a link to it) reads as empty, so
// VQ_CONFIG=/dev/null means no settings. Anything else that is not a
// regular file (a FIFO, a device such as /dev/zero, a directory) is
// refused before it is read, and the read stops past limit: no file makes
// vq block or hold more than limit.
func Read(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := readable(path, info, limit); err != nil || isDevNull(info) {
		return nil, err
	}
	// Opened without blocking (openNonBlocking), and checked again: the
	// name may have been swapped for a FIFO since the Stat.
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

// readable refuses what Read must not read: anything but a regular file
// (os.DevNull aside), or one larger than limit.
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

// Update runs update, a read and rewrite of one of vq's files, holding an
// exclusive lock beside it (path.lock, beside a link's target), so that
// two vq processes signing in at once (to different servers, say) both
// keep what they wrote.
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

// Target is the file a write of path replaces: path itself, or the end of
// the chain of symbolic links it names, which need not exist yet (a link
// into a dotfiles repository kept before the file is). Writing there
// keeps the links.
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
			// Not filepath.Join, which would resolve ".." before the
			// links it passes through.
			link = filepath.Dir(target) + string(filepath.Separator) + link
		}
		target = link
	}
	return "", &RefusedError{Path: path, Why: fmt.Sprintf("is a chain of more than %d symbolic links", maxLinks)}
}

// replaceable is path's Target, refused when it exists and is no regular
// file (VQ_CONFIG=/dev/null, --junit /dev/stdout: nothing is created
// beside it, nothing replaces it). What path is, the system says, links
// followed: /dev/stdout's /proc/self/fd/1 names no file it can read.
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

// Write writes a private file (0600, directory 0700) through a temporary
// file and a rename: a crash leaves the old file or the new one, never
// half of one. A symbolic link is kept: its target is the file replaced.
// A target that is not a regular file (a device, a FIFO) is refused.
func Write(path string, data []byte) error {
	return replace(path, 0o600, 0o700, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteReport writes a file a person asked vq for (--junit, --save-dir)
// as Write does, through a link to its target, atomically, refusing a
// target that is no regular file (a device, a FIFO, /dev/stdout), but
// readable by others: 0644, a directory it creates 0755. write writes its
// bytes.
func WriteReport(path string, write func(io.Writer) error) error {
	return replace(path, 0o644, 0o755, write)
}

// replace writes path's replaceable target, of mode perm (its directory
// created dirPerm), with what write writes, in a temporary file beside it
// renamed over it once complete.
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
