package marketdata

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/spotbot/spotbot/exchange"
)

// GenCSV writes n distinct one-minute bars in spotbot's CSV: a random walk
// from 2021-01-01 with prices at two decimals and volumes at four.
func genCSV(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 64)
	b.WriteString(Header + "\n")
	t := int64(1609459200000)
	p := int64(2_900_000) // 29000.00
	x := uint64(88172645463325252)
	buf := make([]byte, 0, 128)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		step := int64(x%2001) - 1000
		o := p
		c := max(p+step, 100)
		h := max(o, c) + int64(x>>20%500)
		l := max(min(o, c)-int64(x>>30%500), 1)
		v := int64(x >> 40 % 100_000_000)
		buf = buf[:0]
		buf = strconv.AppendInt(buf, t, 10)
		for _, q := range [4]int64{o, h, l, c} {
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, q/100, 10)
			buf = append(buf, '.', byte('0'+q/10%10), byte('0'+q%10))
		}
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, v/10000, 10)
		buf = append(buf, '.', byte('0'+v/1000%10), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
		buf = append(buf, '\n')
		b.Write(buf)
		t += 60_000
		p = c
	}
	return b.Bytes()
}

// BenchmarkReadSeriesCSV parses 1,000,000 distinct one-minute bars of
// spotbot's CSV into a Series: sequentially (goroutines=1) and in chunks
// on two goroutines (goroutines=2, which needs GOMAXPROCS 2 or more to
// mean two cores). The goroutines are chosen here rather than by -cpu:
// a b.Loop benchmark's first -cpu value may be measured at the default
// GOMAXPROCS.
func BenchmarkReadSeriesCSV(b *testing.B) {
	const n = 1_000_000
	data := genCSV(n)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("goroutines=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var s *Series
			for b.Loop() {
				var err error
				s, _, err = readOn(bytes.NewReader(data), ReadOptions{Interval: exchange.Interval1m}, workers, parallelMin)
				if err != nil {
					b.Fatal(err)
				}
			}
			if s.Len() != n {
				b.Fatalf("%d bars", s.Len())
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(bytesPerBar(s), "B/bar")
		})
	}
}

// bytesPerBar is the memory the series' columns hold, per bar.
func bytesPerBar(s *Series) float64 {
	c := cap(s.Times())
	for f := Open; f <= Volume; f++ {
		c += cap(s.Ints(f))
	}
	return float64(c*8) / float64(s.Len())
}
