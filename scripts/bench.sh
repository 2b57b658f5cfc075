#!/usr/bin/env bash
# Runs every measurement of docs/benchmarks.md and prints the tables:
# start-up, pass-through, stdin replay and signal latency (scripts/bench),
# peak RSS through /usr/bin/time (scripts/rss.sh), the Go benchmarks, and
# the herd simulator on a 10 s outage and a 300 ms blip (scripts/herd).
# On this 2-core machine it takes under 10 minutes.
#
#   scripts/bench.sh            # from anywhere in the checkout
#   QUICK=1 scripts/bench.sh    # smaller volumes, about 2 minutes
#
# Other retry tools are timed beside retry's start when given as programs
# (docs/benchmarks.md says how to build them): RECUR=/path/to/recur,
# JOSHDK_RETRY=/path/to/joshdk/retry, DEBIAN_RETRY=/usr/bin/retry (the
# default, when it is Debian's and not ours).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Built as a release is: static, stripped.
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/retry" .
go build -o "$tmp/bench" ./scripts/bench
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/depsonly" ./scripts/bench/depsonly
# The same, marking the steps of its start (internal/steptrace).
CGO_ENABLED=0 go build -tags steptrace -trimpath -ldflags "-s -w" -o "$tmp/retry-steps" .

bytes=$((1 << 30)) runs=300 steps=1000 trials=100 bursts=5x rounds=5
if [ -n "${QUICK:-}" ]; then
	bytes=$((200 << 20)) runs=50 steps=200 trials=20 bursts=1x rounds=2
fi

peers=()
debian=${DEBIAN_RETRY-/usr/bin/retry}
if [ -x "$debian" ] && ! "$debian" --version 2>/dev/null | grep -q '(commit'; then
	peers+=(-peer "Debian's retry (C)=$debian true")
fi
if [ -n "${RECUR:-}" ]; then peers+=(-peer "recur=$RECUR true"); fi
if [ -n "${JOSHDK_RETRY:-}" ]; then peers+=(-peer "joshdk/retry=$JOSHDK_RETRY true"); fi

echo "# retry benchmarks, $(date -u +%Y-%m-%dT%H:%MZ), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$tmp/bench" -retry "$tmp/retry" -deps "$tmp/depsonly" ${peers[@]+"${peers[@]}"} -runs "$runs" -bytes "$bytes" -trials "$trials" -rounds "$rounds"
"$tmp/bench" -steps "$tmp/retry-steps" -runs "$steps"
echo "## Peak RSS (/usr/bin/time -v)"
echo
scripts/rss.sh "$tmp/retry" "$bytes"
echo
echo "## Go benchmarks"
echo
echo '```'
go test -run '^$' -bench 'BenchmarkScanLines|BenchmarkNext|BenchmarkStartup|BenchmarkScannedCopy' -benchtime 1s \
	./exitcodes/ ./policy/ ./cmd/ ./runner/ | grep -E '^(Benchmark|ok)'
go test -run '^$' -bench 'ContendedUpdate' -benchtime "$bursts" ./internal/statefile/ | grep -E '^(Benchmark|ok)'
echo '```'
if [ -d scripts/herd ]; then
	echo
	echo "## Herd"
	echo
	go build -o "$tmp/herd" ./scripts/herd
	for scenario in blip outage10s; do
		"$tmp/herd" -retry "$tmp/retry" -scenario "$scenario" -n "${HERD_CLIENTS:-50}" -out "$tmp/herd-$scenario" ${QUICK:+-quick}
	done
fi
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
