package chartlib

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// tarball builds a gzip tarball of the given files and its integrity.
func tarball(t *testing.T, files map[string]string) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(buf.Bytes())
	return buf.Bytes(), "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// registry serves one tarball at the npm path of lib and counts requests.
func registry(t *testing.T, lib Library, body []byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /"+lib.Package+"/-/"+lib.Tarball(), func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write(body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestLoadFetchesChecksAndCaches(t *testing.T) {
	t.Parallel()
	const js = "/* lib */ window.Lib = 1;"
	tgz, integrity := tarball(t, map[string]string{"package/README.md": "readme", "package/dist/lib.js": js})
	lib := Library{Package: "lib", Version: "1.2.3", Integrity: integrity, File: "package/dist/lib.js"}
	srv, hits := registry(t, lib, tgz)
	cache := t.TempDir()
	l := Loader{Lib: lib, CacheDir: cache, Registry: srv.URL, Client: srv.Client()}
	got, err := l.Load(t.Context())
	if err != nil || string(got) != js {
		t.Fatalf("Load = %q, %v; want %q", got, err, js)
	}
	if b, err := os.ReadFile(filepath.Join(cache, "lib-1.2.3.tgz")); err != nil || !bytes.Equal(b, tgz) {
		t.Fatalf("cache holds %d bytes, %v; want the tarball's %d", len(b), err, len(tgz))
	}
	// From the cache now: no request, and none possible.
	srv.Close()
	got, err = l.Load(t.Context())
	if err != nil || string(got) != js || hits.Load() != 1 {
		t.Fatalf("second Load = %q, %v after %d requests; want the cached file after 1", got, err, hits.Load())
	}
	// A local copy of the tarball or of the file itself.
	local := filepath.Join(t.TempDir(), "lib-1.2.3.tgz")
	if err := os.WriteFile(local, tgz, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := (Loader{Lib: lib, Local: local}).Load(t.Context()); err != nil || string(got) != js {
		t.Fatalf("local tarball: %q, %v", got, err)
	}
	jsFile := filepath.Join(t.TempDir(), "lib.js")
	if err := os.WriteFile(jsFile, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := (Loader{Lib: lib, Local: jsFile}).Load(t.Context()); err != nil || string(got) != js {
		t.Fatalf("local file: %q, %v", got, err)
	}
}

func TestLoadRefusesBadTarballs(t *testing.T) {
	t.Parallel()
	tgz, integrity := tarball(t, map[string]string{"package/dist/lib.js": "x"})
	other, otherIntegrity := tarball(t, map[string]string{"package/other.js": "y"})
	lib := Library{Package: "lib", Version: "1.0.0", Integrity: integrity, File: "package/dist/lib.js"}
	cases := []struct {
		name string
		lib  Library
		body []byte
		want string
	}{
		{"tampered", lib, append(append([]byte{}, tgz...), 0), "integrity mismatch: the tarball is sha512-"},
		{"file absent", Library{Package: "lib", Version: "1.0.0", Integrity: otherIntegrity, File: "package/dist/lib.js"}, other,
			"the tarball has no package/dist/lib.js"},
		{"bad integrity text", Library{Package: "lib", Version: "1.0.0", Integrity: "md5-abc", File: "x"}, tgz,
			`integrity "md5-abc": want sha512-<base64>`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := registry(t, c.lib, c.body)
			cache := t.TempDir()
			_, err := Loader{Lib: c.lib, CacheDir: cache, Registry: srv.URL, Client: srv.Client()}.Load(t.Context())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
			if ents, _ := os.ReadDir(cache); len(ents) != 0 {
				t.Errorf("a refused tarball was cached: %v", ents)
			}
		})
	}
	t.Run("not found", func(t *testing.T) {
		t.Parallel()
		srv, _ := registry(t, lib, tgz)
		_, err := Loader{Lib: Library{Package: "nope", Version: "1", Integrity: integrity}, Registry: srv.URL, Client: srv.Client()}.Load(t.Context())
		if err == nil || !strings.Contains(err.Error(), "404 Not Found") {
			t.Fatalf("err = %v, want a 404", err)
		}
	})
	t.Run("offline", func(t *testing.T) {
		t.Parallel()
		_, err := Loader{Lib: lib, CacheDir: t.TempDir()}.Load(t.Context())
		if err == nil || err.Error() != "chart library lib@1.0.0: not cached and fetching is off" {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestPinnedIsTheRegistrysTarball checks the pin against a copy of the
// real tarball when one is at hand ($SPOTBOT_CHARTS, as .ci/run fetches).
func TestPinnedIsTheRegistrysTarball(t *testing.T) {
	t.Parallel()
	path := os.Getenv("SPOTBOT_CHARTS")
	if path == "" || !strings.HasSuffix(path, ".tgz") {
		t.Skip("SPOTBOT_CHARTS names no lightweight-charts tarball (npm pack lightweight-charts@5.2.1)")
	}
	js, err := Loader{Local: path}.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js, []byte("Lightweight Charts™ v5.2.1")) || !bytes.Contains(js, []byte("createSeriesMarkers")) {
		t.Fatalf("%s is not the standalone build of 5.2.1", Pinned().File)
	}
}
