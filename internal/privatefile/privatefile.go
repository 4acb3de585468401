// Package privatefile writes vq's own files (the config, the OAuth tokens,
// the completion cache): private (0600 in a 0700 directory), atomically,
// and updated under a lock beside them.
//
// Imports: a leaf, nothing of vq.
package privatefile

import (
	"os"
	"path/filepath"
)

// Update runs update, a read and rewrite of one of vq's files, holding an
// exclusive lock beside it (path.lock), so that two vq processes signing
// in at once (to different servers, say) both keep what they wrote.
func Update(path string, update func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close() // closing releases the lock
	if err := lockFile(lock); err != nil {
		return err
	}
	return update()
}

// Write writes a private file (0600, directory 0700) through a temporary
// file and a rename: a crash leaves the old file or the new one, never
// half of one.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
