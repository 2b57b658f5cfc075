#!/usr/bin/env bash
# Runs staticcheck, pinned, over every package. The version is pinned so a
# new release's checks never break a build that did not change.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
