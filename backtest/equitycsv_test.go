package backtest

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// equityCSVReference is how WriteEquityCSV wrote before it appended rows
// itself: encoding/csv, a field slice per row, time.Format.
func equityCSVReference(w io.Writer, res *Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"time", "equity", "drawdown_pct", "exposed"}); err != nil {
		return err
	}
	dd := DrawdownSeries(res.Curve)
	for i, p := range res.Curve.All() {
		if err := cw.Write([]string{stamp(p.Time()), strconv.FormatFloat(p.Value, 'f', 8, 64), strconv.FormatFloat(dd[i]*100, 'f', 6, 64),
			strconv.FormatBool(res.Exposure.Held(i))}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// TestWriteEquityCSVAsCSV checks that the appended rows are byte for byte
// what encoding/csv wrote, over curves crossing days, years, gaps, times
// before 1970 and values from tiny to huge.
func TestWriteEquityCSVAsCSV(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		start      int64
		step       int64
		n          int
		gapEvery   int
		valueScale float64
	}{
		{"minutes over days", 1577836800000, 60_000, 5000, 0, 10},
		{"minutes with gaps", 1577836800000 - 30*60_000, 60_000, 4000, 97, 1e6},
		{"odd milliseconds", 1700000000123, 61_001, 3000, 13, 1e-3},
		{"before 1970", -86_400_000*3 - 1, 3_599_999, 200, 0, 5},
		{"new year", 1609459200000 - 5*3_600_000, 3_600_000, 20, 0, 100},
		{"flat stretches", 1577836800000, 60_000, 3000, 0, -1},
		{"flat stretches with gaps", 1577836800000, 60_000, 3000, 7, -1},
		{"flat stretches of five-digit years", 253402300799000 - 10*86_400_000, 600_000, 3000, 0, -1},
		// Values that move in bits below the printed decimals, as an
		// account's holding a residue below the quantity step does: the
		// text changes every few rows, and about zero its sign too.
		{"dust", 1577836800000, 60_000, 3000, 0, -2},
		{"dust about zero", 1577836800000, 60_000, 3000, 5, -3},
		{"huge values", 1577836800000, 60_000, 3000, 0, 1e24},
		{"past 1.8e11", 1577836800000, 60_000, 3000, 0, 1.7e11},
		{"years of five digits", 253402300799000 - 10*86_400_000, 3_600_000, 500, 0, 5},
		{"years before 0", -62167219200000 - 86_400_000, 3_600_000, 100, 0, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.n), 7))
			res := &Result{}
			at, v := c.start, c.valueScale
			switch c.valueScale {
			case -2:
				v = 2e-4
			case -3:
				v = 2e-9
			}
			for i := range c.n {
				res.Curve.Append(at, v)
				res.Exposure.mark(i, rng.IntN(3) == 0)
				switch {
				case c.valueScale < -1:
					v += (rng.Float64() - 0.5) * 3e-9
					v *= 1 + (rng.Float64()-0.5)/50
				case rng.IntN(10) == 0: // else the value repeats, as while flat
					v = v*(1+(rng.Float64()-0.5)/50) + 2
				}
				at += c.step
				if c.gapEvery > 0 && i%c.gapEvery == 0 {
					at += c.step * int64(1+rng.IntN(50))
				}
			}
			var want bytes.Buffer
			if err := equityCSVReference(&want, res); err != nil {
				t.Fatal(err)
			}
			// Sequentially, and in blocks on two and three goroutines
			// (blocks of 1 and 97 rows).
			for _, par := range [][2]int{{1, 0}, {2, 1}, {2, 97}, {3, 97}} {
				var got bytes.Buffer
				if err := writeEquityCSV(&got, res, par[0], max(par[1], 1)); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					g, w := got.String(), want.String()
					i := 0
					for i < len(g) && i < len(w) && g[i] == w[i] {
						i++
					}
					t.Fatalf("%d workers, blocks of %d: bytes differ at %d: got %q, want %q", par[0], par[1], i, g[i:min(len(g), i+80)], w[i:min(len(w), i+80)])
				}
				if got.Len() < c.n*40 {
					t.Fatalf("%d bytes for %d rows", got.Len(), c.n)
				}
			}
		})
	}
	// Non-finite values print as encoding/csv printed them.
	res := &Result{}
	res.Curve.Append(0, math.Inf(1))
	res.Curve.Append(60_000, math.NaN())
	if err := asReference(res); err != nil {
		t.Fatal(err)
	}
}

// asReference returns an error unless WriteEquityCSV writes res's curve
// as equityCSVReference does.
func asReference(res *Result) error {
	var got, want bytes.Buffer
	if err := WriteEquityCSV(&got, res); err != nil {
		return err
	}
	if err := equityCSVReference(&want, res); err != nil {
		return err
	}
	if got.String() != want.String() {
		return fmt.Errorf("got  %q\nwant %q", got.String(), want.String())
	}
	return nil
}

// Signed zeros, negative values and their drawdowns print as the
// reference prints them: 0 and -0 compare equal but print apart, so no
// row of one stands for a row of the other.
func TestWriteEquityCSVSignedZeros(t *testing.T) {
	t.Parallel()
	negZero := math.Copysign(0, -1)
	for _, vals := range [][]float64{
		{1, 0, negZero, 0, negZero, 1e-9, -1e-9, negZero, 0},
		{-1, -1.5, -1.5000000001, negZero, -2, -2.0000000001, -1.9999999999, 0, negZero},
		{0, 0, negZero, negZero, 0},
	} {
		res := &Result{}
		for i, v := range vals {
			res.Curve.Append(1577836800000+int64(i)*60_000, v)
		}
		if err := asReference(res); err != nil {
			t.Fatalf("%v:\n%v", vals, err)
		}
	}
}

// BenchmarkWriteEquityCSV writes a million-point curve generated here to
// io.Discard: on one goroutine and in blocks on two (goroutines=2 needs
// GOMAXPROCS 2 or more to mean two cores; chosen here, not by -cpu). The
// curve=walk curve is a random walk, flat seven points in ten as while no
// position is held, exposed three in ten; curve=flat is one value
// throughout, unexposed, as the rest of a run whose account can no
// longer trade; curve=dust is that account after losing all but 0.0002
// of its 10, holding a residue below the quantity step: its value moves
// with the price at every point, mostly below the eighth decimal.
func BenchmarkWriteEquityCSV(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	walk, flat, dust := &Result{}, &Result{}, &Result{}
	v, price := 10.0, 0.05
	for i := range n {
		if rng.IntN(10) < 3 {
			v *= 1 + (rng.Float64()-0.5)/100
		}
		price *= 1 + rng.NormFloat64()*0.001
		at := 1577836800000 + int64(i)*60_000
		walk.Curve.Append(at, v)
		walk.Exposure.mark(i, rng.IntN(10) < 3)
		flat.Curve.Append(at, 0.00020002)
		flat.Exposure.mark(i, false)
		if i == 0 {
			dust.Curve.Append(at, 10) // the peak, long gone
		} else {
			dust.Curve.Append(at, 0.0002+3e-8*price)
		}
		dust.Exposure.mark(i, false)
	}
	for _, curve := range []struct {
		name string
		res  *Result
	}{{"walk", walk}, {"flat", flat}, {"dust", dust}} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("curve=%s/goroutines=%d", curve.name, workers), func(b *testing.B) {
				var written int64
				b.ReportAllocs()
				for b.Loop() {
					cw := &countWriter{}
					if err := writeEquityCSV(cw, curve.res, workers, equityBlock); err != nil {
						b.Fatal(err)
					}
					written = cw.n
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(written)/n, "B/row")
			})
		}
	}
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// failAfter fails every write after the first n.
type failAfter struct{ n int }

func (w *failAfter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

// A write that fails stops a parallel write with its error, the workers
// finished.
func TestWriteEquityCSVFails(t *testing.T) {
	t.Parallel()
	res := &Result{}
	for i := range 1000 {
		res.Curve.Append(1577836800000+int64(i)*60_000, 10+float64(i%7))
	}
	for _, n := range []int{0, 1, 5} {
		if err := writeEquityCSV(&failAfter{n: n}, res, 2, 10); err == nil || err.Error() != "disk full" {
			t.Errorf("failing after %d writes: %v", n, err)
		}
	}
}

// appendFixed appends v as strconv.AppendFloat(b, v, 'f', prec, 64)
// does, through fixedScaled and appendScaled where they apply (prec at
// most 8, v finite and below 1.8e11), else through strconv: the pair the
// writers use, held to strconv by the tests below.
func appendFixed(b []byte, v float64, prec int) []byte {
	q, ok := fixedScaled(v, prec)
	if !ok {
		return strconv.AppendFloat(b, v, 'f', prec, 64)
	}
	return appendScaled(b, math.Signbit(v), q, prec)
}

// appendFixed writes what strconv writes: random values over many
// magnitudes, exact ties at the last decimal, the edges of its integer
// path and values it hands to strconv.
func TestAppendFixed(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	var vals []float64
	for range 200_000 {
		vals = append(vals, math.Ldexp(rng.Float64(), rng.IntN(120)-80), -rng.Float64()*math.Pow(10, float64(rng.IntN(14)-4)))
	}
	for k := -80; k < 60; k++ {
		for m := range 64 {
			vals = append(vals, math.Ldexp(float64(m), k), math.Ldexp(float64(2*m+1), k)/2)
		}
	}
	for _, v := range []float64{0, math.Copysign(0, -1), 5e-9, 1.5e-8, 2.5e-8, 0.125, 0.5, 1, 99.999999995, 1.8e11, 1.9e11, 1e300,
		math.SmallestNonzeroFloat64, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), math.Nextafter(1, 0), math.Nextafter(1, 2)} {
		vals = append(vals, v, -v)
	}
	for _, v := range vals {
		for _, prec := range []int{0, 1, 6, 8} {
			if got, want := string(appendFixed(nil, v, prec)), strconv.FormatFloat(v, 'f', prec, 64); got != want {
				t.Fatalf("appendFixed(%v (%b), %d) = %s, want %s", v, v, prec, got, want)
			}
		}
	}
}

// digits8 writes eight digits, zeros leading: every number below 10^5,
// every 9,973rd up to 10^8, and the edges of its lanes.
func TestDigits8(t *testing.T) {
	t.Parallel()
	check := func(n uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], digits8(n))
		if got, want := string(b[:]), fmt.Sprintf("%08d", n); got != want {
			t.Fatalf("digits8(%d) = %q, want %q", n, got, want)
		}
	}
	for n := range uint64(100_000) {
		check(n)
	}
	for n := uint64(0); n < 1e8; n += 9973 {
		check(n)
	}
	for _, n := range []uint64{9999, 10000, 99_999_999, 10_000_000, 99_990_000, 12_345_678, 90_000_009} {
		check(n)
	}
}

// FuzzAppendFixed checks appendFixed against strconv on any float64 and
// any precision it takes.
func FuzzAppendFixed(f *testing.F) {
	f.Add(math.Float64bits(0.001953125), uint8(8))
	f.Add(math.Float64bits(-99.999999995), uint8(6))
	f.Add(math.Float64bits(1.8e11), uint8(0))
	f.Fuzz(func(t *testing.T, fb uint64, p uint8) {
		v, prec := math.Float64frombits(fb), int(p%9)
		if got, want := string(appendFixed(nil, v, prec)), strconv.FormatFloat(v, 'f', prec, 64); got != want {
			t.Fatalf("appendFixed(%v (%#x), %d) = %s, want %s", v, fb, prec, got, want)
		}
	})
}
