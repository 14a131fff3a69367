// Package procfs reads the memory figures Linux keeps in /proc: a
// process's resident set and its peak (/proc/PID/status) and the
// machine's memory (/proc/meminfo), each a "Key:   value kB" line.
package procfs

import (
	"bytes"
	"os"
	"strconv"
)

// KB is the value, in kB, of the line key ("VmHWM", "MemTotal", without
// the colon) of the /proc file at path; ok is false where the file cannot
// be read (another system) or has no such line, or the value is not a
// number.
func KB(path, key string) (kb int64, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	return Parse(b, key)
}

// Parse is KB over a file's contents.
func Parse(b []byte, key string) (kb int64, ok bool) {
	for line := range bytes.Lines(b) {
		v, found := bytes.CutPrefix(line, []byte(key+":"))
		if !found {
			continue
		}
		v = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))
		n, err := strconv.ParseInt(string(v), 10, 64)
		return n, err == nil
	}
	return 0, false
}
