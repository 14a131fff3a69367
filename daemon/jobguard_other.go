//go:build !unix

package daemon

import (
	"errors"
	"os"
)

var errLocked = errors.New("locked")

// lockFile creates path exclusively; where flock is missing, the file's
// existence is the lock, removed on release (a crash leaves it behind).
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, errLocked
	}
	return f, err
}

func unlockFile(f *os.File, path string) error {
	err := f.Close()
	if rerr := os.Remove(path); err == nil {
		err = rerr
	}
	return err
}
