package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/store"
)

// newImportCmd is `bot import`.
func newImportCmd(prog string) *cobra.Command {
	var f importFlags
	c := &cobra.Command{
		Use:   "import --csv FILE --symbol SYMBOL --interval IV",
		Short: "Load klines from a CSV file into the store",
		Long: `import loads klines from a CSV file (header open_time_ms,open,high,low,close,volume)
into the store. Every row is checked; a bad row stops the import, naming its
line, unless --skip-bad skips and lists bad rows. Gaps are reported.`,
		Example: "  " + prog + " import --csv btc-1h.csv --symbol BTCUSDT --interval 60m --db spotbot.db",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return importFile(c.Context(), f, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.file, "csv", "", "CSV file to import (required)")
	fs.StringVar(&f.symbol, "symbol", "", "symbol the bars belong to (required)")
	fs.StringVar(&f.interval, "interval", "", "interval of the bars (required)")
	fs.StringVar(&f.db, "db", "spotbot.db", "database file")
	fs.BoolVar(&f.skipBad, "skip-bad", false, "skip bad rows instead of stopping")
	return c
}

// importFlags are the flags of `bot import`.
type importFlags struct {
	file, symbol, interval, db string
	skipBad                    bool
}

// importFile checks the flags of bot import and runs it.
func importFile(ctx context.Context, o importFlags, stdout, stderr io.Writer) error {
	iv, err := exchange.ParseInterval(o.interval)
	switch {
	case o.file == "":
		err = errors.New("--csv is required")
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
	return importCSV(ctx, st, f, o.file, strings.ToUpper(o.symbol), iv, o.skipBad, stdout, stderr)
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

// newExportCmd is `bot export`.
func newExportCmd(prog string) *cobra.Command {
	var f exportFlags
	c := &cobra.Command{
		Use:   "export --symbol SYMBOL --interval IV",
		Short: "Write stored klines as CSV",
		Long: `export writes stored klines as CSV (header open_time_ms,open,high,low,close,volume)
to the --csv file, or to standard output.`,
		Example: "  " + prog + " export --symbol BTCUSDT --interval 60m --db spotbot.db --from 2024-01-01 --csv btc-1h.csv",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return exportKlines(c.Context(), f, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.file, "csv", "", "output file (default: standard output)")
	fs.StringVar(&f.symbol, "symbol", "", "symbol (required)")
	fs.StringVar(&f.interval, "interval", "", "interval (required)")
	fs.StringVar(&f.from, "from", "", "first open time (UTC)")
	fs.StringVar(&f.to, "to", "", "end, exclusive (UTC)")
	fs.StringVar(&f.db, "db", "spotbot.db", "database file")
	return c
}

// exportFlags are the flags of `bot export`.
type exportFlags struct {
	file, symbol, interval, from, to, db string
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
	if err != nil {
		return fmt.Errorf("%w: export: %v", ErrUsage, err)
	}
	if _, statErr := os.Stat(o.db); statErr != nil {
		return fmt.Errorf("export: %w", statErr)
	}
	st, err := store.Open(ctx, o.db, store.ReadOnly())
	if err != nil {
		return err
	}
	defer st.Close()
	ks, err := st.Klines(ctx, strings.ToUpper(o.symbol), iv, fromT, toT)
	if err != nil {
		return err
	}
	if len(ks) == 0 {
		return fmt.Errorf("export: no %s %s bars stored in the range", strings.ToUpper(o.symbol), iv)
	}
	if o.file == "" {
		return marketdata.WriteCSV(stdout, ks)
	}
	f, err := os.Create(o.file)
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
	fmt.Fprintf(stderr, "exported %d bars to %s\n", len(ks), o.file)
	return nil
}
