#!/bin/sh
# Measures a whole `backtest run` (smacross 10/30 on ETHBTC, no report, no
# database) over N distinct one-minute bars from a generated CSV: the first
# run parses the CSV and writes the binary cache, the second reads the
# cache. Prints each run's wall time and peak resident memory (GNU time's
# "Maximum resident set size"). Usage: scripts/bench-backtest-run.sh [N]
# (default 1000000). ROUNDS=k repeats the pair k times (each round from a
# fresh cache); KEEP=DIR copies the last run's report.json, trades.csv and
# equity.csv there, to compare two commits' outputs byte for byte.
# Targets (issue 16): 1M bars from CSV <= 0.5 s and <= 150 MB, from the
# cache <= 0.15 s.
set -eu
n=${1:-1000000}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
go build -o "$tmp/backtest" ./cmd/backtest
go run scripts/benchrun/main.go -n "$n" -o "$tmp/ETHBTC-1m.csv"
cat > "$tmp/run.yaml" <<YAML
mode: backtest
data:
  source: csv
  path: $tmp/ETHBTC-1m.csv
  interval: 1m
account:
  quote: BTC
  balances:
    BTC: 10
strategies:
  - name: smacross
    id: bench
    symbols: [ETHBTC]
    interval: 1m
    params: {fast: 10, slow: 30, fraction: 0.5}
YAML
round=0
while [ "$round" -lt "${ROUNDS:-1}" ]; do
	round=$((round + 1))
	rm -rf "$tmp/cache"
	for what in csv cache; do
		XDG_CACHE_HOME="$tmp/cache" /usr/bin/time -v "$tmp/backtest" run --config "$tmp/run.yaml" --no-html --no-store \
			--out "$tmp/out" >"$tmp/stdout" 2>"$tmp/time"
		wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time")
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
		echo "$n bars from $what: wall $wall, peak RSS $((rss / 1024)) MB"
	done
done
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP"
	cp "$tmp/out/report.json" "$tmp/out/trades.csv" "$tmp/out/equity.csv" "$KEEP/"
fi
grep -i "round trips\|trades" "$tmp/stdout" | head -2
