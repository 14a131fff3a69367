package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
)

const downloadUsage = `usage: bot download --symbol BTCUSDT --interval 60m --from 2024-01-01 [--to 2024-02-01] --db spotbot.db --base-url URL

Downloads closed klines into the store through the exchange's klines endpoint,
500 per request, within the client's rate budgets. A rerun resumes after the
last stored bar of the range. Times are UTC: 2024-01-01, 2024-01-01T15:04,
RFC 3339, or milliseconds since the epoch.`

// downloadCmd parses the flags of bot download, wires the client and the
// store, and runs the download.
func downloadCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("download", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	symbol := fs.String("symbol", "", "symbol, e.g. BTCUSDT")
	interval := fs.String("interval", "", "interval: 1m 5m 15m 30m 60m (or 1h) 4h 1d 1W 1M")
	from := fs.String("from", "", "first bar's open time (UTC)")
	to := fs.String("to", "", "end of the range, exclusive (UTC); default: the last closed bar")
	db := fs.String("db", "spotbot.db", "database file")
	baseURL := fs.String("base-url", "", "exchange REST address")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: download: %v\n%s", errUsage, err, downloadUsage)
	}
	req, err := downloadRequest(*symbol, *interval, *from, *to)
	if err != nil {
		return fmt.Errorf("%w: download: %v\n%s", errUsage, err, downloadUsage)
	}
	if *baseURL == "" {
		return fmt.Errorf("%w: download: --base-url is required\n%s", errUsage, downloadUsage)
	}
	client, err := exchange.New(exchange.WithBaseURL(*baseURL))
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	return download(ctx, client, st, req, stdout, stderr, isTerminal(stderr))
}

// download runs a download, showing progress on stderr (a bar on a
// terminal, plain lines otherwise) and a summary on stdout.
func download(ctx context.Context, tr exchange.Trader, st *store.Store, req store.DownloadRequest, stdout, stderr io.Writer, tty bool) error {
	p := &progress{w: stderr, tty: tty}
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

// progress shows a download's progress: a bar redrawn in place on a
// terminal, one plain line per page otherwise (logs, pipes, CI).
type progress struct {
	w     io.Writer
	tty   bool
	drawn bool
}

const barWidth = 30

func (p *progress) update(d store.DownloadProgress) {
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
func (p *progress) finish() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
	}
}
