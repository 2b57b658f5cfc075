#!/usr/bin/env bash
# Peak RSS of retry while 1 GiB flows through stdin, stdout or stderr, as
# /usr/bin/time -v reports it ("Maximum resident set size"). The goal is
# under 32 MiB whatever the volume.
#
#   scripts/rss.sh [path/to/retry] [bytes]
set -euo pipefail
retry=${1:-}
bytes=${2:-1073741824}
if [ -z "$retry" ]; then
	retry=$(mktemp -d)/retry
	CGO_ENABLED=0 go build -o "$retry" "$(dirname "$0")/.."
fi
command -v /usr/bin/time >/dev/null || { echo "rss.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

report=$(mktemp)
trap 'rm -f "$report"' EXIT
timed() { # runs the command under /usr/bin/time -v, its report to $report
	/usr/bin/time -v -o "$report" "$@"
}
peak() { # the peak RSS from the last report, in MiB
	awk '/Maximum resident/ {printf "%.1f MiB", $6/1024}' "$report"
}
patterns=()
for i in $(seq 20); do patterns+=(--retry-if "pattern$i"); done
lines="head -c $bytes /dev/zero | tr '\\0' x | fold -w 100"

echo "| $((bytes >> 20)) MiB through | retry's peak RSS |"
echo "|---|---|"
head -c "$bytes" /dev/zero | timed "$retry" --stdin replay -- sh -c 'cat >/dev/null'
echo "| stdin, --stdin replay (recorded, replayable) | $(peak) |"
timed "$retry" -- head -c "$bytes" /dev/zero >/dev/null
echo "| stdout, --stdout pass (no copy) | $(peak) |"
timed "$retry" --stdout buffer -- head -c "$bytes" /dev/zero >/dev/null
echo "| stdout, --stdout buffer (held, then written once) | $(peak) |"
timed "$retry" "${patterns[@]}" --match-stdout -- sh -c "$lines" >/dev/null
echo "| stdout scanned, 20 patterns (--match-stdout) | $(peak) |"
timed "$retry" "${patterns[@]}" -- sh -c "$lines >&2" 2>/dev/null
echo "| stderr scanned, 20 patterns | $(peak) |"
