package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/marketdata/barfile"
	"github.com/spotbot/spotbot/store"
)

// newImportCmd is `bot import`.
func newImportCmd(prog string) *cobra.Command {
	var f importFlags
	c := &cobra.Command{
		Use:   "import --file FILE --symbol SYMBOL --interval IV",
		Short: "Load klines from a data file into the store",
		Long: `import loads klines from a file into the store. The format is detected and
reported: spotbot's CSV (header open_time_ms,open,high,low,close,volume), a
Binance public dump (12 columns, no header, open times in milliseconds or
microseconds), a 6-column CSV without header, a CSV whose header names its
columns (a date or time column, open, high, low, close, volume), freqtrade's
JSON ([[ms,o,h,l,c,v],...]), or an Arrow IPC bars file (.arrow, or --format
arrow) as bot export writes. Open times given as numbers must fall in
2009-2100 for the unit guessed from their digits. Every row is checked; a bad
row stops the import, naming its line, unless --skip-bad skips and lists bad
rows. Gaps are reported.`,
		Example: "  " + prog + " import --file btc-1h.csv --symbol BTCUSDT --interval 60m --db spotbot.db\n" +
			"  " + prog + " import --file BTCUSDT-1m-2025-01.csv --symbol BTCUSDT --interval 1m",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return importFile(c.Context(), f, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.file, "file", "", "file to import (required)")
	fs.StringVar(&f.file, "csv", "", "the same as --file")
	fs.StringVar(&f.format, "format", "", "auto (detected; .arrow files are Arrow) or arrow")
	fs.StringVar(&f.symbol, "symbol", "", "symbol the bars belong to (required)")
	fs.StringVar(&f.interval, "interval", "", "interval of the bars (required)")
	fs.StringVar(&f.db, "db", "spotbot.db", "database file")
	fs.BoolVar(&f.skipBad, "skip-bad", false, "skip bad rows instead of stopping")
	return c
}

// importFlags are the flags of `bot import`.
type importFlags struct {
	file, format, symbol, interval, db string
	skipBad                            bool
}

// importFile checks the flags of bot import and runs it.
func importFile(ctx context.Context, o importFlags, stdout, stderr io.Writer) error {
	iv, err := exchange.ParseInterval(o.interval)
	switch {
	case o.file == "":
		err = errors.New("--file is required")
	case o.format != "" && o.format != "auto" && o.format != "arrow":
		err = fmt.Errorf("--format: %q must be auto or arrow (text formats are detected)", o.format)
	case o.symbol == "":
		err = errors.New("--symbol is required")
	case err != nil:
		err = fmt.Errorf("--interval: %w", err)
	}
	if err != nil {
		return fmt.Errorf("%w: import: %v", ErrUsage, err)
	}
	f, err := os.Open(o.file)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := store.Open(ctx, o.db)
	if err != nil {
		return err
	}
	defer st.Close()
	arrow := o.format == "arrow" || (o.format != "auto" && strings.EqualFold(filepath.Ext(o.file), barfile.Ext))
	return importCSV(ctx, st, f, o.file, strings.ToUpper(o.symbol), iv, o.skipBad, arrow, stdout, stderr)
}

// importCSV reads, validates and stores one data file (an Arrow bars
// file when arrow is set, else any format marketdata.Read detects).
// Nothing is stored unless the whole file is read (all rows good, or bad
// rows skipped).
func importCSV(ctx context.Context, st *store.Store, r io.Reader, name, symbol string, iv exchange.Interval, skipBad, arrow bool, stdout, stderr io.Writer) error {
	var s *marketdata.Series
	var rep marketdata.Report
	var err error
	if arrow {
		ra, ok := r.(ipcFile)
		if !ok {
			return fmt.Errorf("import %s: an Arrow file must be a file", name)
		}
		s, _, err = barfile.Read(ra)
		if err == nil && s.Interval() != iv {
			err = fmt.Errorf("it holds %s bars, not %s", s.Interval(), iv)
		}
		if err != nil {
			return fmt.Errorf("import %s: %w (nothing imported)", name, err)
		}
		fmt.Fprintf(stdout, "%s: arrow bars file\n", name)
	} else {
		s, rep, err = marketdata.Read(r, marketdata.ReadOptions{Interval: iv, SkipBad: skipBad, Symbol: symbol})
		if err != nil {
			what := ""
			if rep.Format != "" {
				what = " as " + string(rep.Format)
			}
			return fmt.Errorf("import %s%s: %w (nothing imported; --skip-bad skips bad rows)", name, what, err)
		}
		fmt.Fprintf(stdout, "%s: %s\n", name, rep)
	}
	for _, bad := range rep.Skipped {
		fmt.Fprintf(stderr, "skipped %s: %v\n", name, bad)
	}
	ks := s.Klines()
	n, err := st.InsertKlines(ctx, symbol, iv, ks)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d bars of %s %s from %s (%d new, %d already stored, %d bad rows skipped)\n",
		len(ks), symbol, iv, name, n, len(ks)-n, len(rep.Skipped))
	gaps := marketdata.Gaps(ks, iv)
	missing := 0
	for _, g := range gaps {
		missing += g.Missing
	}
	if len(gaps) > 0 {
		fmt.Fprintf(stdout, "%d gaps, %d bars missing:\n", len(gaps), missing)
		for _, g := range gaps {
			fmt.Fprintf(stdout, "  %s\n", g)
		}
	}
	return nil
}

// newExportCmd is `bot export`.
func newExportCmd(prog string) *cobra.Command {
	var f exportFlags
	c := &cobra.Command{
		Use:   "export --symbol SYMBOL --interval IV",
		Short: "Write stored klines as CSV or an Arrow bars file",
		Long: `export writes stored klines to the --file file, or to standard output: as CSV
(header open_time_ms,open,high,low,close,volume), or as an Arrow IPC bars
file with --format arrow or a file name ending in .arrow (which bot import,
data.source csv and pyarrow read back).`,
		Example: "  " + prog + " export --symbol BTCUSDT --interval 60m --db spotbot.db --from 2024-01-01 --file btc-1h.csv\n" +
			"  " + prog + " export --symbol BTCUSDT --interval 1m --file btc-1m.arrow",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return exportKlines(c.Context(), f, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.file, "file", "", "output file (default: standard output)")
	fs.StringVar(&f.file, "csv", "", "the same as --file")
	fs.StringVar(&f.format, "format", "", "csv or arrow (default: by the file's extension, csv for standard output)")
	fs.StringVar(&f.symbol, "symbol", "", "symbol (required)")
	fs.StringVar(&f.interval, "interval", "", "interval (required)")
	fs.StringVar(&f.from, "from", "", "first open time (UTC)")
	fs.StringVar(&f.to, "to", "", "end, exclusive (UTC)")
	fs.StringVar(&f.db, "db", "spotbot.db", "database file")
	return c
}

// exportFlags are the flags of `bot export`.
type exportFlags struct {
	file, format, symbol, interval, from, to, db string
}

// exportKlines checks the flags of bot export and runs it.
func exportKlines(ctx context.Context, o exportFlags, stdout, stderr io.Writer) error {
	iv, err := exchange.ParseInterval(o.interval)
	if o.symbol == "" {
		err = errors.New("--symbol is required")
	} else if err != nil {
		err = fmt.Errorf("--interval: %w", err)
	}
	var fromT, toT time.Time
	if err == nil && o.from != "" {
		if fromT, err = parseTime(o.from); err != nil {
			err = fmt.Errorf("--from: %w", err)
		}
	}
	if err == nil && o.to != "" {
		if toT, err = parseTime(o.to); err != nil {
			err = fmt.Errorf("--to: %w", err)
		}
	}
	if err == nil && o.format != "" && o.format != "csv" && o.format != "arrow" {
		err = fmt.Errorf("--format: %q must be csv or arrow", o.format)
	}
	if err != nil {
		return fmt.Errorf("%w: export: %v", ErrUsage, err)
	}
	arrow := o.format == "arrow" || (o.format == "" && strings.EqualFold(filepath.Ext(o.file), barfile.Ext))
	if _, statErr := os.Stat(o.db); statErr != nil {
		return fmt.Errorf("export: %w", statErr)
	}
	st, err := store.Open(ctx, o.db, store.ReadOnly())
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := st.KlineSeries(ctx, strings.ToUpper(o.symbol), iv, fromT, toT)
	if err != nil {
		return err
	}
	if s.Len() == 0 {
		return fmt.Errorf("export: no %s %s bars stored in the range", strings.ToUpper(o.symbol), iv)
	}
	write := func(w io.Writer) error {
		if arrow {
			return barfile.Write(w, s, barfile.Meta{})
		}
		return marketdata.WriteSeries(w, s)
	}
	if o.file == "" {
		return write(stdout)
	}
	if arrow {
		err = barfile.WriteFile(o.file, s, barfile.Meta{})
	} else {
		var f *os.File
		if f, err = os.Create(o.file); err != nil {
			return err
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported %d bars to %s\n", s.Len(), o.file)
	return nil
}

// ipcFile is what reading an Arrow file needs.
type ipcFile interface {
	io.Reader
	io.ReaderAt
	io.Seeker
}
