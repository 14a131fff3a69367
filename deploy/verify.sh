#!/usr/bin/env bash
# Checks deploy/spotbot.service with systemd-analyze verify, against a bot
# binary built for the purpose (the unit's ExecStart must exist). Any
# warning fails. Skips with a message where systemd-analyze is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "no systemd-analyze; deploy/spotbot.service not verified"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bot" ./cmd/bot
sed "s|/usr/local/bin/bot|$tmp/bot|" deploy/spotbot.service >"$tmp/spotbot.service"
out=$(systemd-analyze verify "$tmp/spotbot.service" 2>&1) || { printf '%s\n' "$out"; exit 1; }
if [ -n "$out" ]; then
	printf 'systemd-analyze verify warned:\n%s\n' "$out"
	exit 1
fi
echo "deploy/spotbot.service verified"
