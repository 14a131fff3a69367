//go:build !linux

package app

import "os"

// replaceFile moves the finished temporary file tmp to path, atomically
// (replace_linux.go says why Linux exchanges the two instead).
func replaceFile(tmp, path string) error { return os.Rename(tmp, path) }
