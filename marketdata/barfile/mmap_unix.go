//go:build unix

package barfile

import (
	"os"
	"syscall"
)

// canMap says whether this system maps files (mapFile).
const canMap = true

// mmap maps the first size bytes of f read-only.
func mmap(f *os.File, size int64) ([]byte, error) {
	if size == 0 {
		return nil, syscall.EINVAL // nothing to map: not an Arrow file either
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

func munmap(b []byte) error {
	if b == nil {
		return nil
	}
	return syscall.Munmap(b)
}
