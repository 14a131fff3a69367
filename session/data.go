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

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/marketdata"
	"github.com/spotbot/spotbot/store"
)

// LoadData loads the bars of symbols at interval iv from source: "sample"
// (the embedded data; its interval is 60m), "csv" (path is a CSV file,
// for one symbol, or a folder holding <SYMBOL>-<interval>.csv files, where
// the interval may be written 1h for 60m) or "store" (path is a spotbot
// database, filled by bot download or bot import, opened read-only). Bars
// outside rng (zero ends are open) are dropped.
func LoadData(source, path string, iv exchange.Interval, symbols []string, rng [2]time.Time) (map[string][]exchange.Kline, error) {
	if len(symbols) == 0 {
		return nil, errors.New("strategies: no symbols to load data for")
	}
	out := map[string][]exchange.Kline{}
	for _, sym := range symbols {
		var ks []exchange.Kline
		var err error
		switch source {
		case "", "sample":
			if iv != marketdata.SampleInterval {
				return nil, fmt.Errorf("data.interval: the sample data is %s, not %s", marketdata.SampleInterval, iv)
			}
			ks, err = marketdata.Sample(sym)
		case "csv":
			ks, err = readCSV(path, sym, iv, len(symbols))
		case "store":
			ks, err = readStore(path, sym, iv, rng)
		default:
			return nil, fmt.Errorf("data.source: %q must be sample, csv or store", source)
		}
		if err != nil {
			return nil, err
		}
		ks = Cut(ks, rng)
		if len(ks) == 0 {
			return nil, fmt.Errorf("data: no %s bars of %s in the chosen range", iv, sym)
		}
		out[sym] = ks
	}
	return out, nil
}

func readCSV(path, sym string, iv exchange.Interval, nsyms int) ([]exchange.Kline, error) {
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
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("data.path: %w", err)
	}
	defer f.Close()
	res, err := marketdata.ReadCSV(f, marketdata.ReadOptions{Interval: iv})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return res.Klines, nil
}

func readStore(path, sym string, iv exchange.Interval, rng [2]time.Time) ([]exchange.Kline, error) {
	if path == "" {
		return nil, errors.New("data.path: required for store data (the database file)")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("data.path: %w", err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, path, store.ReadOnly())
	if err != nil {
		return nil, fmt.Errorf("data.path: %w", err)
	}
	defer st.Close()
	ks, err := st.Klines(ctx, sym, iv, rng[0], rng[1])
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
