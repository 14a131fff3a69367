// Package chartlib obtains the charting library the HTML reports inline:
// TradingView's lightweight-charts (Apache-2.0), a pinned version taken
// from the npm registry, checked against the registry's sha512 integrity
// and cached, so no third-party source lives in the repository and a
// report, once written, needs nothing from the network.
package chartlib

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Library is one file of one pinned npm package version.
type Library struct {
	Package string
	Version string
	// Integrity is the tarball's Subresource Integrity string as the
	// registry publishes it (npm view PKG@VER dist.integrity).
	Integrity string
	// File is the path of the wanted file inside the tarball.
	File string
	// License names the package's license, printed with the inlined file.
	License string
}

// Pinned is the library the reports use (a function, so no caller can
// change it for the others).
func Pinned() Library {
	return Library{
		Package:   "lightweight-charts",
		Version:   "5.2.1",
		Integrity: "sha512-IVwoK1RLFiLPubaKIjNbtjWLnpPMqiABSrTay6whmNa8L1+19292VtHJ+BWyPUuLCwF0tcQlhEWd1CLB2a1nsQ==",
		File:      "package/dist/lightweight-charts.standalone.production.js",
		License:   "Apache-2.0",
	}
}

// Tarball is the tarball's file name, as npm pack names it.
func (l Library) Tarball() string { return l.Package + "-" + l.Version + ".tgz" }

// String names the library, as in package@version.
func (l Library) String() string { return l.Package + "@" + l.Version }

// DefaultRegistry is the public npm registry.
const DefaultRegistry = "https://registry.npmjs.org"

// maxTarball bounds what is read from the network or a file.
const maxTarball = 32 << 20

// Loader finds the library: a local copy when one is named, else the
// cache, else the registry (and then fills the cache).
type Loader struct {
	Lib Library
	// Local, when set, is a copy of the tarball (npm pack's .tgz, checked
	// against the integrity) or of the file itself (.js, used as is).
	Local string
	// CacheDir holds fetched tarballs; empty disables the cache.
	CacheDir string
	// Registry is the registry's base URL (DefaultRegistry when empty).
	Registry string
	// Client fetches from the registry; nil disables fetching.
	Client *http.Client
}

// NewClient is the HTTP client the registry is fetched with: short
// timeouts, so a machine without network falls back quickly.
func NewClient() *http.Client { return &http.Client{Timeout: 20 * time.Second} }

// Load returns the library's file.
func (l Loader) Load(ctx context.Context) ([]byte, error) {
	if l.Lib.Package == "" {
		l.Lib = Pinned()
	}
	if l.Local != "" {
		b, err := readLimited(l.Local)
		if err != nil {
			return nil, fmt.Errorf("chart library %s: %w", l.Local, err)
		}
		if strings.HasSuffix(l.Local, ".js") {
			return b, nil
		}
		out, err := l.Lib.extract(b)
		if err != nil {
			return nil, fmt.Errorf("chart library %s: %w", l.Local, err)
		}
		return out, nil
	}
	cached := ""
	if l.CacheDir != "" {
		cached = filepath.Join(l.CacheDir, l.Lib.Tarball())
		if b, err := readLimited(cached); err == nil {
			if out, err := l.Lib.extract(b); err == nil {
				return out, nil
			}
			// A damaged cache entry is fetched again below.
		}
	}
	if l.Client == nil {
		return nil, fmt.Errorf("chart library %s: not cached and fetching is off", l.Lib)
	}
	b, err := l.fetch(ctx)
	if err != nil {
		return nil, fmt.Errorf("chart library %s: %w", l.Lib, err)
	}
	out, err := l.Lib.extract(b)
	if err != nil {
		return nil, fmt.Errorf("chart library %s from %s: %w", l.Lib, l.url(), err)
	}
	if cached != "" {
		// A cache that cannot be written costs the next run a fetch, not
		// this report.
		_ = writeAtomic(cached, b)
	}
	return out, nil
}

func (l Loader) url() string {
	reg := strings.TrimRight(l.Registry, "/")
	if reg == "" {
		reg = DefaultRegistry
	}
	return reg + "/" + l.Lib.Package + "/-/" + l.Lib.Tarball()
}

func (l Loader) fetch(ctx context.Context) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.url(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := l.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", l.url(), resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxTarball+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", l.url(), err)
	}
	if len(b) > maxTarball {
		return nil, fmt.Errorf("GET %s: more than %d bytes", l.url(), maxTarball)
	}
	return b, nil
}

// extract checks the tarball against the integrity and returns the file.
func (l Library) extract(tgz []byte) ([]byte, error) {
	algo, want, ok := strings.Cut(l.Integrity, "-")
	if !ok || algo != "sha512" {
		return nil, fmt.Errorf("integrity %q: want sha512-<base64>", l.Integrity)
	}
	sum := sha512.Sum512(tgz)
	if got := base64.StdEncoding.EncodeToString(sum[:]); got != want {
		return nil, fmt.Errorf("integrity mismatch: the tarball is sha512-%s, want %s", got, l.Integrity)
	}
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, fmt.Errorf("not a gzip tarball: %w", err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("the tarball has no %s", l.File)
		}
		if err != nil {
			return nil, fmt.Errorf("reading the tarball: %w", err)
		}
		if h.Name == l.File && h.Typeflag == tar.TypeReg {
			return io.ReadAll(io.LimitReader(tr, maxTarball))
		}
	}
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTarball+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxTarball {
		return nil, fmt.Errorf("more than %d bytes", maxTarball)
	}
	return b, nil
}

func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
