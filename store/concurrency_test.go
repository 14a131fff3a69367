package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spotbot/spotbot/exchange"
)

// TestOneWriterManyReaders writes klines in batches while readers query the
// same series; every read must see a prefix of whole batches.
func TestOneWriterManyReaders(t *testing.T) {
	t.Parallel()
	s, _ := fileStore(t)
	ctx := t.Context()
	const batches, size = 40, 50
	ks := sampleKlines(batches * size)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	done := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				got, err := s.Klines(ctx, "BTCUSDT", exchange.Interval60m, time.Time{}, time.Time{})
				if err != nil {
					errs <- err
					return
				}
				if len(got)%size != 0 {
					errs <- fmt.Errorf("read %d bars, not whole batches of %d", len(got), size)
					return
				}
				for i, k := range got {
					if !k.OpenTime.Equal(ks[i].OpenTime) {
						errs <- fmt.Errorf("bar %d at %s, want %s", i, k.OpenTime, ks[i].OpenTime)
						return
					}
				}
			}
		}()
	}
	for b := range batches {
		if _, err := s.InsertKlines(ctx, "BTCUSDT", exchange.Interval60m, ks[b*size:(b+1)*size]); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveState(ctx, "w", []byte(strconv.Itoa(b))); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// The reader process: re-executed test binary, reading while the parent
// writes.
const readerEnv = "SPOTBOT_STORE_TEST_READER"

func TestMain(m *testing.M) {
	if path := os.Getenv(readerEnv); path != "" {
		os.Exit(readerProcess(path))
	}
	os.Exit(m.Run())
}

// readerProcess opens the database read-only and reads until it has seen
// every batch, printing each new count; the parent checks they only grow.
func readerProcess(path string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := Open(ctx, path, ReadOnly())
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	defer s.Close()
	last := -1
	for ctx.Err() == nil {
		ks, err := s.Klines(ctx, "BTCUSDT", exchange.Interval60m, time.Time{}, time.Time{})
		if err != nil {
			fmt.Println("read:", err)
			return 1
		}
		if len(ks) != last {
			fmt.Println(len(ks))
			last = len(ks)
		}
		if len(ks) == 1000 {
			return 0
		}
	}
	fmt.Println("timed out at", last)
	return 1
}

func TestSecondProcessReads(t *testing.T) {
	t.Parallel()
	s, path := fileStore(t)
	ctx := t.Context()
	ks := sampleKlines(1000)
	if _, err := s.InsertKlines(ctx, "BTCUSDT", exchange.Interval60m, ks[:100]); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), readerEnv+"="+path)
	out := make(chan []byte, 1)
	errc := make(chan error, 1)
	go func() {
		b, err := cmd.CombinedOutput()
		out <- b
		errc <- err
	}()
	for b := 1; b < 10; b++ {
		time.Sleep(20 * time.Millisecond)
		if _, err := s.InsertKlines(ctx, "BTCUSDT", exchange.Interval60m, ks[b*100:(b+1)*100]); err != nil {
			t.Fatal(err)
		}
	}
	b, err := <-out, <-errc
	if err != nil {
		t.Fatalf("reader: %v\n%s", err, b)
	}
	prev := 0
	var counts []int
	for _, line := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(line)
		if err != nil || n < prev || n%100 != 0 {
			t.Fatalf("reader saw %q after %d\n%s", line, prev, b)
		}
		prev = n
		counts = append(counts, n)
	}
	if len(counts) == 0 || counts[0] < 100 || counts[len(counts)-1] != 1000 {
		t.Fatalf("reader counts %v", counts)
	}
}
