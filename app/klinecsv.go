package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/store"
)

const importUsage = `usage: bot import --csv FILE --symbol BTCUSDT --interval 60m --db spotbot.db [--skip-bad]

Imports klines from a CSV file (header open_time_ms,open,high,low,close,volume)
into the store. Every row is checked; a bad row stops the import, naming its
line, unless --skip-bad skips and lists bad rows. Gaps are reported.`

const exportUsage = `usage: bot export --symbol BTCUSDT --interval 60m --db spotbot.db [--from T] [--to T] [--csv FILE]

Writes stored klines as CSV (header open_time_ms,open,high,low,close,volume)
to FILE, or to standard output.`

// importCmd parses the flags of bot import and runs it.
func importCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	file := fs.String("csv", "", "CSV file to import")
	symbol := fs.String("symbol", "", "symbol the bars belong to")
	interval := fs.String("interval", "", "interval of the bars")
	db := fs.String("db", "spotbot.db", "database file")
	skipBad := fs.Bool("skip-bad", false, "skip bad rows instead of stopping")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: import: %v\n%s", errUsage, err, importUsage)
	}
	iv, err := exchange.ParseInterval(*interval)
	switch {
	case *file == "":
		err = errors.New("--csv is required")
	case *symbol == "":
		err = errors.New("--symbol is required")
	case err != nil:
		err = fmt.Errorf("--interval: %w", err)
	}
	if err != nil {
		return fmt.Errorf("%w: import: %v\n%s", errUsage, err, importUsage)
	}
	f, err := os.Open(*file)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := store.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	return importCSV(ctx, st, f, *file, strings.ToUpper(*symbol), iv, *skipBad, stdout, stderr)
}

// importCSV reads, validates and stores one CSV file. Nothing is stored
// unless the whole file is read (all rows good, or bad rows skipped).
func importCSV(ctx context.Context, st *store.Store, r io.Reader, name, symbol string, iv exchange.Interval, skipBad bool, stdout, stderr io.Writer) error {
	res, err := marketdata.ReadCSV(r, marketdata.ReadOptions{Interval: iv, SkipBad: skipBad})
	if err != nil {
		return fmt.Errorf("import %s: %w (nothing imported; --skip-bad skips bad rows)", name, err)
	}
	for _, bad := range res.Skipped {
		fmt.Fprintf(stderr, "skipped %s: %v\n", name, bad)
	}
	n, err := st.InsertKlines(ctx, symbol, iv, res.Klines)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d bars of %s %s from %s (%d new, %d already stored, %d bad rows skipped)\n",
		len(res.Klines), symbol, iv, name, n, len(res.Klines)-n, len(res.Skipped))
	gaps := marketdata.Gaps(res.Klines, iv)
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

// exportCmd parses the flags of bot export and runs it.
func exportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	file := fs.String("csv", "", "output file (default: standard output)")
	symbol := fs.String("symbol", "", "symbol")
	interval := fs.String("interval", "", "interval")
	from := fs.String("from", "", "first open time (UTC)")
	to := fs.String("to", "", "end, exclusive (UTC)")
	db := fs.String("db", "spotbot.db", "database file")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: export: %v\n%s", errUsage, err, exportUsage)
	}
	iv, err := exchange.ParseInterval(*interval)
	if *symbol == "" {
		err = errors.New("--symbol is required")
	} else if err != nil {
		err = fmt.Errorf("--interval: %w", err)
	}
	var fromT, toT time.Time
	if err == nil && *from != "" {
		if fromT, err = parseTime(*from); err != nil {
			err = fmt.Errorf("--from: %w", err)
		}
	}
	if err == nil && *to != "" {
		if toT, err = parseTime(*to); err != nil {
			err = fmt.Errorf("--to: %w", err)
		}
	}
	if err != nil {
		return fmt.Errorf("%w: export: %v\n%s", errUsage, err, exportUsage)
	}
	if _, statErr := os.Stat(*db); statErr != nil {
		return fmt.Errorf("export: %w", statErr)
	}
	st, err := store.Open(ctx, *db, store.ReadOnly())
	if err != nil {
		return err
	}
	defer st.Close()
	ks, err := st.Klines(ctx, strings.ToUpper(*symbol), iv, fromT, toT)
	if err != nil {
		return err
	}
	if len(ks) == 0 {
		return fmt.Errorf("export: no %s %s bars stored in the range", strings.ToUpper(*symbol), iv)
	}
	if *file == "" {
		return marketdata.WriteCSV(stdout, ks)
	}
	f, err := os.Create(*file)
	if err != nil {
		return err
	}
	err = marketdata.WriteCSV(f, ks)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported %d bars to %s\n", len(ks), *file)
	return nil
}
