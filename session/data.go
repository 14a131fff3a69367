package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/marketdata/barfile"
	"github.com/spotbot/spotbot/store"
)

// LoadData loads the bars of symbols at interval iv from d.Source: "sample"
// (the embedded data; its interval is 60m), "csv" (path is a data file,
// for one symbol, or a folder holding <SYMBOL>-<interval>.csv files, where
// the interval may be written 1h for 60m; any format marketdata.Read
// detects, or a bars file .arrow) or "store" (d.Path is a spotbot database,
// filled by bot download or bot import, opened read-only). Bars outside
// rng (zero ends are open) are dropped. CSV data goes through the binary
// cache in CacheDir(d). The klines of sample and CSV data are materialised
// from LoadSeries' Series; the store's keep their quote volume, which a
// Series does not hold.
func LoadData(d config.Data, iv exchange.Interval, symbols []string, rng [2]time.Time) (map[string][]exchange.Kline, error) {
	if source, path := d.Source, d.Path; source == "store" {
		if err := checkSymbols(symbols); err != nil {
			return nil, err
		}
		out := map[string][]exchange.Kline{}
		for _, sym := range symbols {
			ks, err := readStore(path, sym, iv, rng)
			if err != nil {
				return nil, err
			}
			if ks = Cut(ks, rng); len(ks) == 0 {
				return nil, fmt.Errorf("data: no %s bars of %s in the chosen range", iv, sym)
			}
			out[sym] = ks
		}
		return out, nil
	}
	series, err := LoadSeries(d, iv, symbols, rng)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]exchange.Kline, len(series))
	for sym, s := range series {
		out[sym] = s.Klines()
	}
	return out, nil
}

func checkSymbols(symbols []string) error {
	if len(symbols) == 0 {
		return errors.New("strategies: no symbols to load data for")
	}
	return nil
}

// CacheDir is the folder of the binary cache of CSV data that d names
// (data.cache): "" when it is off, the user's cache folder's spotbot/bars
// (barfile.DefaultDir) when d leaves it empty, and "" too when there is no
// user cache folder (no cache then).
func CacheDir(d config.Data) string {
	switch {
	case d.CacheDisabled():
		return ""
	case d.Cache == "":
		dir, _ := barfile.DefaultDir()
		return dir
	}
	return d.Cache
}

// LoadSeries loads the bars of symbols as LoadData does, as compact
// marketdata.Series (48 bytes a bar, shareable read-only between runs).
// CSV data goes through the binary cache in CacheDir(d) (barfile.Cache).
func LoadSeries(d config.Data, iv exchange.Interval, symbols []string, rng [2]time.Time) (map[string]*marketdata.Series, error) {
	return LoadSeriesBackground(d, iv, symbols, rng, nil)
}

// CacheWrites are cache files LoadSeriesBackground left to be written
// (Wait waits for them and says why any failed) and, when Map is set, the
// cache files it mapped instead of reading them (Unmap releases them, and
// the bars read from them with them).
type CacheWrites = barfile.Writes

// LoadSeriesBackground is LoadSeries leaving the binary cache of CSV data
// it read to be written in the background into w (nil: written before it
// returns): a single backtest starts while its bars are being cached, and
// waits for w before it exits.
func LoadSeriesBackground(d config.Data, iv exchange.Interval, symbols []string, rng [2]time.Time, w *CacheWrites) (map[string]*marketdata.Series, error) {
	if err := checkSymbols(symbols); err != nil {
		return nil, err
	}
	source, path, cacheDir := d.Source, d.Path, CacheDir(d)
	out := map[string]*marketdata.Series{}
	for _, sym := range symbols {
		var s *marketdata.Series
		var err error
		switch source {
		case "", "sample":
			if iv != marketdata.SampleInterval {
				return nil, fmt.Errorf("data.interval: the sample data is %s, not %s", marketdata.SampleInterval, iv)
			}
			s, err = marketdata.SampleSeries(sym)
		case "csv":
			s, err = readCSV(path, sym, iv, len(symbols), barfile.Cache{Dir: cacheDir, Writes: w})
		case "store":
			s, err = readStoreSeries(path, sym, iv, rng)
		default:
			return nil, fmt.Errorf("data.source: %q must be sample, csv or store", source)
		}
		if err != nil {
			return nil, err
		}
		s = s.Between(rng[0], rng[1])
		if s.Len() == 0 {
			return nil, fmt.Errorf("data: no %s bars of %s in the chosen range", iv, sym)
		}
		out[sym] = s
	}
	return out, nil
}

func readCSV(path, sym string, iv exchange.Interval, nsyms int, cache barfile.Cache) (*marketdata.Series, error) {
	if path == "" {
		return nil, errors.New("data.path: required for csv data")
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("data.path: %w", err)
	}
	file := path
	if st.IsDir() {
		file = ""
		names := []string{sym + "-" + string(iv) + ".csv"}
		if iv == exchange.Interval60m {
			names = append(names, sym+"-1h.csv")
		}
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(path, n)); err == nil {
				file = filepath.Join(path, n)
				break
			}
		}
		if file == "" {
			return nil, fmt.Errorf("data.path: %s holds none of %s", path, strings.Join(names, ", "))
		}
	} else if nsyms > 1 {
		return nil, fmt.Errorf("data.path: %s is one file but the strategies trade %d symbols; give a folder", path, nsyms)
	}
	s, _, err := cache.Load(file, marketdata.ReadOptions{Interval: iv, Symbol: sym})
	if err != nil {
		return nil, err
	}
	return s, nil
}

func readStoreSeries(path, sym string, iv exchange.Interval, rng [2]time.Time) (*marketdata.Series, error) {
	st, err := openStore(path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	s, err := st.KlineSeries(context.Background(), sym, iv, rng[0], rng[1])
	if err != nil {
		return nil, fmt.Errorf("data.path: %w", err)
	}
	return s, nil
}

func openStore(path string) (*store.Store, error) {
	if path == "" {
		return nil, errors.New("data.path: required for store data (the database file)")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("data.path: %w", err)
	}
	st, err := store.Open(context.Background(), path, store.ReadOnly())
	if err != nil {
		return nil, fmt.Errorf("data.path: %w", err)
	}
	return st, nil
}

func readStore(path, sym string, iv exchange.Interval, rng [2]time.Time) ([]exchange.Kline, error) {
	st, err := openStore(path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ks, err := st.Klines(context.Background(), sym, iv, rng[0], rng[1])
	if err != nil {
		return nil, fmt.Errorf("data.path: %w", err)
	}
	return ks, nil
}

// Cut keeps the bars whose open time is in [rng[0], rng[1]).
func Cut(ks []exchange.Kline, rng [2]time.Time) []exchange.Kline {
	lo, hi := 0, len(ks)
	if !rng[0].IsZero() {
		lo = sort.Search(len(ks), func(i int) bool { return !ks[i].OpenTime.Before(rng[0]) })
	}
	if !rng[1].IsZero() {
		hi = sort.Search(len(ks), func(i int) bool { return !ks[i].OpenTime.Before(rng[1]) })
	}
	if lo > hi {
		return nil
	}
	return ks[lo:hi]
}
