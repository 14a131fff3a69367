package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
)

// newDownloadCmd is `bot download`.
func newDownloadCmd(prog string) *cobra.Command {
	var f downloadFlags
	c := &cobra.Command{
		Use:   "download --symbol SYMBOL --interval IV --from T --base-url URL",
		Short: "Fetch closed klines into the store (resumable)",
		Long: `download fetches closed klines into the store through the exchange's klines
endpoint, 500 per request, within the client's rate budgets. A rerun resumes
after the last stored bar of the range. Times are UTC: 2024-01-01,
2024-01-01T15:04, RFC 3339, or milliseconds since the epoch. --symbol may be
given several times (or as a comma-separated list); the symbols are fetched
one after the other.`,
		Example: "  " + prog + " download --symbol BTCUSDT --interval 60m --from 2024-01-01 --to 2024-02-01 --db spotbot.db --base-url URL\n" +
			"  " + prog + " download --symbol BTCUSDT --symbol ETHUSDT --interval 1d --from 2023-01-01 --base-url URL",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return downloadKlines(c.Context(), f, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.StringSliceVar(&f.symbols, "symbol", nil, "symbol, e.g. BTCUSDT (required; repeatable)")
	fs.StringVar(&f.interval, "interval", "", "interval: 1m 5m 15m 30m 60m (or 1h) 4h 1d 1W 1M (required)")
	fs.StringVar(&f.from, "from", "", "first bar's open time, UTC (required)")
	fs.StringVar(&f.to, "to", "", "end of the range, exclusive (UTC); default: the last closed bar")
	fs.StringVar(&f.db, "db", "spotbot.db", "database file")
	fs.StringVar(&f.baseURL, "base-url", "", "exchange REST address (required)")
	return c
}

// downloadFlags are the flags of `bot download`.
type downloadFlags struct {
	symbols                         []string
	interval, from, to, db, baseURL string
}

// downloadKlines checks the flags of bot download, wires the client and
// the store, and downloads each symbol in turn.
func downloadKlines(ctx context.Context, f downloadFlags, stdout, stderr io.Writer) error {
	symbols := f.symbols
	if len(symbols) == 0 {
		symbols = []string{""} // downloadRequest names the missing flag
	}
	reqs := make([]store.DownloadRequest, 0, len(symbols))
	for _, sym := range symbols {
		req, err := downloadRequest(sym, f.interval, f.from, f.to)
		if err != nil {
			return fmt.Errorf("%w: download: %v", ErrUsage, err)
		}
		reqs = append(reqs, req)
	}
	if f.baseURL == "" {
		return fmt.Errorf("%w: download: --base-url is required", ErrUsage)
	}
	client, err := exchange.New(exchange.WithBaseURL(f.baseURL))
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, f.db)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, req := range reqs {
		if err := download(ctx, client, st, req, stdout, stderr, isTerminal(stderr)); err != nil {
			return err
		}
	}
	return nil
}

// download runs a download, showing progress on stderr (a bar on a
// terminal, plain lines otherwise) and a summary on stdout.
func download(ctx context.Context, tr exchange.Trader, st *store.Store, req store.DownloadRequest, stdout, stderr io.Writer, tty bool) error {
	p := &downloadProgress{w: stderr, tty: tty}
	res, err := st.Download(ctx, tr, req, p.update)
	p.finish()
	if err != nil {
		return err
	}
	last := "no bars"
	if !res.Last.IsZero() {
		last = "last bar " + res.Last.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(stdout, "%s %s: %d new bars in %d requests, %s, into %s\n", req.Symbol, req.Interval, res.Inserted, res.Requests, last, st.Path())
	return nil
}

func downloadRequest(symbol, interval, from, to string) (store.DownloadRequest, error) {
	if symbol == "" {
		return store.DownloadRequest{}, errors.New("--symbol is required")
	}
	iv, err := exchange.ParseInterval(interval)
	if err != nil {
		return store.DownloadRequest{}, fmt.Errorf("--interval: %w", err)
	}
	if from == "" {
		return store.DownloadRequest{}, errors.New("--from is required")
	}
	req := store.DownloadRequest{Symbol: strings.ToUpper(symbol), Interval: iv}
	if req.From, err = parseTime(from); err != nil {
		return store.DownloadRequest{}, fmt.Errorf("--from: %w", err)
	}
	if to != "" {
		if req.To, err = parseTime(to); err != nil {
			return store.DownloadRequest{}, fmt.Errorf("--to: %w", err)
		}
	}
	return req, nil
}

// parseTime reads a UTC time given as a date, a date and minute, RFC 3339
// or milliseconds since the epoch.
func parseTime(s string) (time.Time, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms > 0 {
		return time.UnixMilli(ms).UTC(), nil
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02 15:04", time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (use 2024-01-01, 2024-01-01T15:04, RFC 3339 or epoch milliseconds)", s)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// downloadProgress shows a download's progress: a bar redrawn in place on a
// terminal, one plain line per page otherwise (logs, pipes, CI).
type downloadProgress struct {
	w     io.Writer
	tty   bool
	drawn bool
}

const barWidth = 30

func (p *downloadProgress) update(d store.DownloadProgress) {
	pct := 100
	if d.Total > 0 {
		pct = d.Done * 100 / d.Total
	}
	through := "-"
	if !d.Last.IsZero() {
		through = d.Last.UTC().Format("2006-01-02 15:04")
	}
	if !p.tty {
		fmt.Fprintf(p.w, "%s %s: %d/%d bars (%d%%), through %s, %d requests\n", d.Symbol, d.Interval, d.Done, d.Total, pct, through, d.Requests)
		return
	}
	filled := barWidth * pct / 100
	fmt.Fprintf(p.w, "\r%s %s [%s%s] %3d%% %d/%d through %s", d.Symbol, d.Interval,
		strings.Repeat("#", filled), strings.Repeat(" ", barWidth-filled), pct, d.Done, d.Total, through)
	p.drawn = true
}

// finish ends the bar's line so later output starts on its own.
func (p *downloadProgress) finish() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
	}
}
