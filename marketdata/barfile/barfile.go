// Package barfile writes and reads a marketdata.Series as an Apache Arrow
// IPC file: six int64 columns (open_time_ms, open, high, low, close,
// volume) in one record batch, uncompressed, with the symbol, interval and
// decimal exponents in the schema's metadata. Arrow's file layout is its
// memory layout, so reading is a copy of the columns from the file (no
// decoding); other tools (pyarrow, polars, DuckDB) read the same files.
//
// It also keeps the binary cache of CSV data (Cache): the first load of a
// CSV file writes its bars here, later loads read them back unless the
// file changed.
package barfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
)

// Metadata keys of the schema.
const (
	keyVersion  = "spotbot.bars"
	keySymbol   = "spotbot.symbol"
	keyInterval = "spotbot.interval"
	keyPriceExp = "spotbot.price_exp"
	keyVolExp   = "spotbot.volume_exp"
	keySource   = "spotbot.source"
	keyFormat   = "spotbot.source_format"
	version     = "1"
)

var columns = [6]string{"open_time_ms", "open", "high", "low", "close", "volume"}

// Meta is what a file says besides its bars.
type Meta struct {
	// Source identifies what the bars were read from (the cache's key);
	// empty for a file bot export wrote.
	Source string
	// Format is the format the source was detected as.
	Format string
}

// Write writes s to w as an Arrow IPC file.
func Write(w io.Writer, s *marketdata.Series, m Meta) error {
	fields := make([]arrow.Field, len(columns))
	for i, name := range columns {
		fields[i] = arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64}
	}
	md := arrow.NewMetadata(
		[]string{keyVersion, keySymbol, keyInterval, keyPriceExp, keyVolExp, keySource, keyFormat},
		[]string{version, s.Symbol(), string(s.Interval()), strconv.Itoa(int(s.Exp(marketdata.Open))), strconv.Itoa(int(s.Exp(marketdata.Volume))), m.Source, m.Format})
	schema := arrow.NewSchema(fields, &md)
	cols := [6][]int64{s.Times(), s.Ints(marketdata.Open), s.Ints(marketdata.High), s.Ints(marketdata.Low), s.Ints(marketdata.Close), s.Ints(marketdata.Volume)}
	arrs := make([]arrow.Array, len(cols))
	for i, col := range cols {
		data := array.NewData(arrow.PrimitiveTypes.Int64, len(col),
			[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(col))}, nil, 0, 0)
		arrs[i] = array.NewInt64Data(data)
		data.Release()
	}
	rec := array.NewRecordBatch(schema, arrs, int64(s.Len()))
	defer rec.Release()
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(schema))
	if err != nil {
		return fmt.Errorf("barfile: %w", err)
	}
	if err := fw.Write(rec); err != nil {
		return fmt.Errorf("barfile: writing: %w", err)
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("barfile: writing: %w", err)
	}
	return nil
}

// Read reads an Arrow IPC file Write wrote (or any with the same six
// int64 columns and metadata) and checks every bar as marketdata.NewSeries
// does; a file of another shape is refused naming what differs.
func Read(r ipc.ReadAtSeeker) (*marketdata.Series, Meta, error) {
	fr, err := ipc.NewFileReader(r, ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		return nil, Meta{}, fmt.Errorf("barfile: not an Arrow IPC file: %w", err)
	}
	return read(fr)
}

// read reads the bars of an open file reader (Read, mapFile): a file of
// one record batch is read in place, its columns the reader's buffers.
func read(fr *ipc.FileReader) (*marketdata.Series, Meta, error) {
	defer fr.Close()
	schema := fr.Schema()
	md := schema.Metadata()
	get := func(k string) string {
		if i := md.FindKey(k); i >= 0 {
			return md.Values()[i]
		}
		return ""
	}
	if v := get(keyVersion); v != version {
		return nil, Meta{}, fmt.Errorf("barfile: not a spotbot bars file (metadata %s is %q, want %q)", keyVersion, v, version)
	}
	for i, name := range columns {
		if len(schema.Fields()) != len(columns) || schema.Field(i).Name != name || schema.Field(i).Type.ID() != arrow.INT64 {
			return nil, Meta{}, fmt.Errorf("barfile: the columns must be %v, all int64; got %s", columns, schema)
		}
	}
	pexp, err1 := strconv.Atoi(get(keyPriceExp))
	vexp, err2 := strconv.Atoi(get(keyVolExp))
	if err := errors.Join(err1, err2); err != nil {
		return nil, Meta{}, fmt.Errorf("barfile: bad exponent in the metadata: %w", err)
	}
	var cols [6][]int64
	n := 0
	for i := range fr.NumRecords() {
		rec, err := fr.RecordBatch(i)
		if err != nil {
			return nil, Meta{}, fmt.Errorf("barfile: record batch %d: %w", i, err)
		}
		for c := range cols {
			a := rec.Column(c).(*array.Int64)
			if a.NullN() > 0 {
				return nil, Meta{}, fmt.Errorf("barfile: column %s holds nulls", columns[c])
			}
			if fr.NumRecords() == 1 {
				cols[c] = a.Int64Values() // the reader's own buffer: no copy
			} else {
				cols[c] = append(cols[c], a.Int64Values()...)
			}
		}
		n += int(rec.NumRows())
	}
	s, err := marketdata.NewSeries(get(keySymbol), exchange.Interval(get(keyInterval)), int32(pexp), int32(vexp),
		cols[0], cols[1], cols[2], cols[3], cols[4], cols[5])
	if err != nil {
		return nil, Meta{}, fmt.Errorf("barfile: %w", err)
	}
	return s, Meta{Source: get(keySource), Format: get(keyFormat)}, nil
}

// WriteFile writes s to path through a temporary file renamed into place,
// so a reader never sees half a file.
func WriteFile(path string, s *marketdata.Series, m Meta) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("barfile: %w", err)
	}
	err = Write(tmp, s, m)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("barfile: %s: %w", path, err)
	}
	return nil
}

// ReadFile reads the bars file at path.
func ReadFile(path string) (*marketdata.Series, Meta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("barfile: %w", err)
	}
	defer f.Close()
	s, m, err := Read(f)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, m, nil
}
