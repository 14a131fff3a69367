#!/usr/bin/env bash
# Runs every fuzz target of the module, one after another, each for the
# given time (default 30 s):
#
#   scripts/fuzz.sh [seconds] [name-regexp]
#
#   scripts/fuzz.sh            # every target, 30 s each
#   scripts/fuzz.sh 10         # every target, 10 s each
#   scripts/fuzz.sh 300 Load   # only targets whose name matches "Load"
#
# Targets are found by their declaration (func FuzzXxx in a _test.go file),
# so a new target is picked up without editing this script. Each runs as
#
#   go test -run '^$' -fuzz '^FuzzXxx$' -fuzztime Ns ./pkg
#
# Crashers: when a target fails, Go writes the failing input to
# <pkg>/testdata/fuzz/FuzzXxx/<hash> and prints the command that replays
# it. Fix the bug, keep that file and commit it with the fix: plain
# `go test` (and so CI) runs every file under testdata/fuzz as a seed, so
# the crasher becomes a regression test. The inputs a run finds merely
# interesting stay in the Go build cache ($(go env GOCACHE)/fuzz) and are
# not committed.
#
# The script goes on after a failing target and exits 1 at the end if any
# wrote a crasher. A target that fails without writing one is reported as a
# flake and not counted: Go 1.26's fuzz coordinator can report its own
# -fuzztime deadline as "context deadline exceeded" when a worker is busy
# at the end (golang/go#75804), which a loaded machine makes likely.
#
# FUZZ_MINIMIZE (default 1000x: a count, not a time) bounds the work spent
# shrinking each new input. With a time bound, minimising the larger inputs
# stalled short runs for seconds and ran into the race above.
set -euo pipefail

secs="${1:-30}"
filter="${2:-.}"
minimize="${FUZZ_MINIMIZE:-1000x}"
case "$secs" in
'' | *[!0-9]*)
	echo "usage: $0 [seconds] [name-regexp]" >&2
	exit 2
	;;
esac

cd "$(dirname "$0")/.."

failed=()
flaked=()
ran=0
while IFS= read -r file; do
	pkg="./$(dirname "${file#./}")"
	for name in $(grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed 's/^func //'); do
		if ! grep -qE -- "$filter" <<<"$name"; then
			continue
		fi
		ran=$((ran + 1))
		echo "=== $name ($pkg, ${secs}s)"
		start=$(date +%s)
		corpus="$pkg/testdata/fuzz/$name"
		before=$(ls "$corpus" 2>/dev/null | sort || true)
		if go test -run '^$' -fuzz "^${name}\$" -fuzztime "${secs}s" -fuzzminimizetime "$minimize" "$pkg"; then
			echo "--- ok   $name in $(($(date +%s) - start))s"
		elif [ "$(ls "$corpus" 2>/dev/null | sort || true)" != "$before" ]; then
			echo "--- FAIL $name: crasher written to $corpus/ (commit it with the fix)" >&2
			failed+=("$pkg $name")
		else
			# No input was written: not a crasher but Go's fuzz coordinator
			# reporting its own deadline as a failure when -fuzztime ends
			# while a worker is busy (golang/go#75804, on a loaded machine).
			echo "--- flake $name: failed without writing an input (golang/go#75804), not counted" >&2
			flaked+=("$pkg $name")
		fi
	done
done < <(grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+\(' . | sort)

echo "ran $ran fuzz targets for ${secs}s each; ${#failed[@]} failed, ${#flaked[@]} flaked"
if [ "${#failed[@]}" -gt 0 ]; then
	printf 'FAILED: %s\n' "${failed[@]}" >&2
	exit 1
fi
