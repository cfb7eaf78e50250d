package workerpool

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// newLogRegion creates the memory a worker shares with its parent for its
// console lines: an anonymous file of size bytes, closed on exec (the
// worker gets it as an extra file).
func newLogRegion(size int) (*os.File, error) {
	fd, err := unix.MemfdCreate("flowscript-worker-logs", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("creating the worker's log region: %w", err)
	}
	f := os.NewFile(uintptr(fd), "flowscript-worker-logs")
	if err := f.Truncate(int64(size)); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("sizing the worker's log region: %w", err)
	}
	return f, nil
}

// mapLogRegion maps the region the parent passed as file descriptor fd,
// for the worker to write.
func mapLogRegion(fd, size int) ([]byte, error) {
	return syscall.Mmap(fd, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}
