//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

var errLocked = errors.New("locked")

// lockFile opens path and takes an exclusive flock on it without waiting.
// The file stays after the lock is dropped: removing it would let a second
// process lock an unlinked file while a third locks a new one.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return f, nil
}

func unlockFile(f *os.File, _ string) error {
	_ = f.Truncate(0)
	// Closing the descriptor drops the lock.
	return f.Close()
}
