package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/store"
)

// newDownloadCmd is `bot download`.
func newDownloadCmd(prog string, d deps) *cobra.Command {
	var f downloadFlags
	c := &cobra.Command{
		Use:   "download --symbol A,B --interval IV,IV (--from T | --days N) (--base-url URL | --config FILE)",
		Short: "Fetch closed klines into the store (resumable)",
		Long: `download fetches closed klines into the store through the exchange's klines
endpoint, 500 per request. Every symbol is fetched at every interval: --symbol
and --interval take comma-separated lists and may be repeated, each value
kept. The series are fetched concurrently (--parallel), all through one
client whose rate budgets pace them. A rerun resumes after the last stored
bar of each range. Times are UTC: 2024-01-01, 2024-01-01T15:04, RFC 3339, or
milliseconds since the epoch; --days N starts N days before the exchange's
current time. The exchange's address is --base-url, else exchange.base_url
of the --config file (or SPOTBOT_EXCHANGE__BASE_URL with it). On a terminal
each series draws a progress bar on stderr; otherwise a plain line is
written per page.`,
		Example: "  " + prog + " download --symbol BTCUSDT --interval 60m --from 2024-01-01 --to 2024-02-01 --db spotbot.db --base-url URL\n" +
			"  " + prog + " download --symbol BTCUSDT,ETHUSDT --interval 1m,60m --days 30 --config bot.yaml",
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return downloadKlines(c.Context(), d, f, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	fs := c.Flags()
	fs.StringSliceVar(&f.symbols, "symbol", nil, "symbols, e.g. BTCUSDT,ETHUSDT (required; repeatable)")
	fs.StringSliceVar(&f.intervals, "interval", nil, "intervals: 1m 5m 15m 30m 60m (or 1h) 4h 1d 1W 1M (required; comma-separated, repeatable)")
	fs.StringVar(&f.from, "from", "", "first bar's open time, UTC (this or --days)")
	fs.IntVar(&f.days, "days", 0, "start this many days before the exchange's current time")
	fs.StringVar(&f.to, "to", "", "end of the range, exclusive (UTC); default: the last closed bar")
	fs.StringVar(&f.db, "db", "spotbot.db", "database file")
	fs.StringVar(&f.baseURL, "base-url", "", "exchange REST address (default: exchange.base_url of --config)")
	fs.StringVar(&f.config, "config", "", "configuration file whose exchange.base_url to use")
	fs.IntVar(&f.parallel, "parallel", 4, "series fetched at once")
	return c
}

// downloadFlags are the flags of `bot download`.
type downloadFlags struct {
	symbols, intervals            []string
	from, to, db, baseURL, config string
	days, parallel                int
}

// downloadKlines checks the flags of bot download, wires the client and
// the store, and downloads every symbol at every interval.
func downloadKlines(ctx context.Context, d deps, f downloadFlags, stdout, stderr io.Writer) error {
	usage := func(err error) error { return fmt.Errorf("%w: download: %v", ErrUsage, err) }
	symbols, intervals := f.symbols, f.intervals
	if len(symbols) == 0 {
		return usage(errors.New("--symbol is required"))
	}
	if len(intervals) == 0 {
		intervals = []string{""} // downloadRequest names the missing flag
	}
	switch {
	case f.days < 0:
		return usage(fmt.Errorf("--days: %d is negative", f.days))
	case f.days > 0 && f.from != "":
		return usage(errors.New("--from and --days both give the start; use one"))
	case f.parallel < 1:
		return usage(fmt.Errorf("--parallel: %d must be at least 1", f.parallel))
	}
	from := f.from
	if f.days > 0 {
		from = "1" // replaced once the exchange's time is known
	}
	var reqs []store.DownloadRequest
	seen := map[string]bool{}
	for _, sym := range symbols {
		for _, iv := range intervals {
			req, err := downloadRequest(sym, iv, from, f.to)
			if err != nil {
				return usage(err)
			}
			if key := req.Symbol + " " + string(req.Interval); !seen[key] { // 1h and 60m are one series
				seen[key] = true
				reqs = append(reqs, req)
			}
		}
	}
	baseURL, err := downloadBaseURL(d, f)
	if err != nil {
		return err
	}
	client, err := exchange.New(exchange.WithBaseURL(baseURL))
	if err != nil {
		return err
	}
	if f.days > 0 {
		now, err := client.Market.ServerTime(ctx)
		if err != nil {
			return fmt.Errorf("download: the exchange's time (for --days): %w", err)
		}
		for i := range reqs {
			reqs[i].From = now.UTC().AddDate(0, 0, -f.days)
		}
	}
	st, err := store.Open(ctx, f.db)
	if err != nil {
		return err
	}
	defer st.Close()
	return downloadAll(ctx, client, st, reqs, f.parallel, stdout, stderr, isTerminal(stderr))
}

// downloadBaseURL is --base-url, else the configuration's exchange.base_url.
func downloadBaseURL(d deps, f downloadFlags) (string, error) {
	if f.baseURL != "" {
		return f.baseURL, nil
	}
	if f.config == "" {
		return "", fmt.Errorf("%w: download: --base-url is required, or --config with exchange.base_url (the interface's spec documents no default address)", ErrUsage)
	}
	cfg, err := loadConfig(d.reg, "download", f.config, d.environ(), nil)
	if err != nil {
		return "", err
	}
	if cfg.Exchange.BaseURL == "" {
		return "", fmt.Errorf("%w: download: %s sets no exchange.base_url; set it or give --base-url", ErrUsage, f.config)
	}
	return cfg.Exchange.BaseURL, nil
}

// downloadAll runs the downloads, parallel at a time, through one trader
// (whose rate budgets pace them all). Summaries go to stdout in the order
// of reqs once all are done; a failed series does not stop the others,
// and the errors of all that failed are returned.
func downloadAll(ctx context.Context, tr exchange.Trader, st *store.Store, reqs []store.DownloadRequest, parallel int, stdout, stderr io.Writer, tty bool) error {
	p := &downloadProgress{w: stderr, tty: tty}
	results := make([]store.DownloadResult, len(reqs))
	errs := make([]error, len(reqs))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, req := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			results[i], errs[i] = st.Download(ctx, tr, req, p.update)
		}()
	}
	wg.Wait()
	for i, req := range reqs {
		if errs[i] != nil {
			continue
		}
		res := results[i]
		last := "no bars"
		if !res.Last.IsZero() {
			last = "last bar " + res.Last.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(stdout, "%s %s: %d new bars in %s, %s, into %s\n", req.Symbol, req.Interval, res.Inserted, requests(res.Requests), last, st.Path())
	}
	return errors.Join(errs...)
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
		return store.DownloadRequest{}, errors.New("--from or --days is required")
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

// downloadProgress shows the downloads' progress: on a terminal a bar per
// series, all redrawn in place; otherwise one plain line per page (logs,
// pipes, CI), no bar drawn.
type downloadProgress struct {
	w     io.Writer
	tty   bool
	mu    sync.Mutex
	order []string          // series in the order they started
	lines map[string]string // each series' bar
	drawn int               // lines drawn so far
}

const barWidth = 30

func (p *downloadProgress) update(d store.DownloadProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pct := 100
	if d.Total > 0 {
		pct = d.Done * 100 / d.Total
	}
	through := "-"
	if !d.Last.IsZero() {
		through = d.Last.UTC().Format("2006-01-02 15:04")
	}
	if !p.tty {
		fmt.Fprintf(p.w, "%s %s: %d/%d bars (%d%%), through %s, %s\n", d.Symbol, d.Interval, d.Done, d.Total, pct, through, requests(d.Requests))
		return
	}
	key := d.Symbol + " " + string(d.Interval)
	if p.lines == nil {
		p.lines = map[string]string{}
	}
	if _, ok := p.lines[key]; !ok {
		p.order = append(p.order, key)
	}
	filled := barWidth * pct / 100
	p.lines[key] = fmt.Sprintf("%s [%s%s] %3d%% %d/%d through %s", key,
		strings.Repeat("#", filled), strings.Repeat(" ", barWidth-filled), pct, d.Done, d.Total, through)
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn) // back to the first bar
	}
	for _, k := range p.order {
		b.WriteString("\r\x1b[2K" + p.lines[k] + "\n")
	}
	p.drawn = len(p.order)
	io.WriteString(p.w, b.String())
}

// requests counts requests in words: "1 request", "2 requests".
func requests(n int) string {
	if n == 1 {
		return "1 request"
	}
	return fmt.Sprintf("%d requests", n)
}
