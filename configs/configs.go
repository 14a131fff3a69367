// Package configs holds the example configurations a user copies. They are
// embedded so commands can run on them without a checkout, and each is
// loaded by a test so none rots.
package configs

import "embed"

// FS holds every example configuration, by file name.
//
//go:embed *.yaml
var FS embed.FS
