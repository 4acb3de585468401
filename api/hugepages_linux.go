package api

import (
	"syscall"
	"unsafe"
)

// bodyBuffer is an empty buffer for n bytes of answer. One of 4 MiB or more
// lies in huge pages, asked for and aligned to: filling 16 MiB then takes a
// few page faults, not 4,096, and in a VM every fault is slow (issue 41: a
// 100k-failure answer spent most of its time in them). The margin before
// the first huge page is never touched, so it takes no memory; the last
// huge page is whole, so the answer's tail is no 4 KiB pages either.
func bodyBuffer(n int64) []byte {
	const huge = 2 << 20
	if n < 2*huge {
		return make([]byte, 0, n)
	}
	pages := (uintptr(n) + huge - 1) / huge * huge
	b := make([]byte, pages+huge)
	skip := (huge - uintptr(unsafe.Pointer(&b[0]))%huge) % huge
	b = b[skip : skip+pages]
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice: without it, small pages
	return b[:0:n]
}
