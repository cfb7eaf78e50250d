//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || illumos

package executorapp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive lock on dir (a file in it, held open) for as
// long as the process runs or until unlock: the embedded server's store
// serves one executor.
func lockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, ".executor.lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking EXECUTOR_DATA_DIR %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("EXECUTOR_DATA_DIR %s is in use by another executor (the embedded NATS server's store serves one): stop it, give this one another EXECUTOR_DATA_DIR, or set NATS_URL to share a broker", dir)
		}
		return nil, fmt.Errorf("locking EXECUTOR_DATA_DIR %s: %w", dir, err)
	}
	return func() { _ = f.Close() }, nil
}
