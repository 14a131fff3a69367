//go:build !unix

package barfile

import (
	"errors"
	"os"
)

// canMap says whether this system maps files (mapFile): not this one, so
// the cache's files are read.
const canMap = false

func mmap(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func munmap([]byte) error { return nil }
