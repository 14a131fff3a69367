//go:build ignore

// Writes n distinct one-minute ETHBTC bars (a random walk, the same for the
// same seed: package benchrun) as a spotbot CSV, for
// scripts/bench-backtest-run.sh:
//
//	go run scripts/benchrun/main.go -n 1000000 -o ETHBTC-1m.csv
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/spotbot/spotbot/scripts/benchrun"
)

func main() {
	n := flag.Int("n", 1_000_000, "bars")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "ETHBTC-1m.csv", "output file")
	flag.Parse()
	if err := benchrun.WriteCSV(*out, *n, *seed); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
