package obs

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A scrape of the fixture (two instances, four balances, two feeds): the
// cost a Prometheus server adds to the bot every scrape interval.
func BenchmarkMetricsScrape(b *testing.B) {
	benchmarkPath(b, "/metrics")
}

func BenchmarkStatus(b *testing.B) {
	benchmarkPath(b, "/status")
}

func benchmarkPath(b *testing.B, path string) {
	h, err := New(Options{Status: fixture})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, path, nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d", path, w.Code)
		}
	}
}
