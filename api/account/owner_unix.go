//go:build !windows

package account

import (
	"io/fs"
	"syscall"
)

// fileOwner is the user id that owns the file info describes.
func fileOwner(info fs.FileInfo) (uid int, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
