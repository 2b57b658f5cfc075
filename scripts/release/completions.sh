#!/usr/bin/env bash
# goreleaser's before hook: writes the shell completion scripts the release
# ships into DIR (default completions/, relative to the module root).
#
#   scripts/release/completions.sh [DIR]
#
# The archives carry the scripts for the command name retry, exactly as the
# built binary's `retry completion SHELL` prints them; the deb and rpm
# packages install retry as retry-cli, so they carry the same scripts
# registered for that name (scripts/release/completions). DIR holds its own
# .gitignore so that a release leaves the checkout clean.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-completions}
mkdir -p "$dir"
printf '*\n' >"$dir/.gitignore"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/retry" .
"$tmp/retry" completion bash >"$dir/retry.bash"
"$tmp/retry" completion zsh >"$dir/_retry"
"$tmp/retry" completion fish >"$dir/retry.fish"

go run ./scripts/release/completions -name retry-cli -dir "$dir"
