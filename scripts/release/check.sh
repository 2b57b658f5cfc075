#!/usr/bin/env bash
# Validates .goreleaser.yaml with a pinned goreleaser, and with --snapshot
# also builds a snapshot release (archives, deb, rpm, checksums) into dist/.
#
#   scripts/release/check.sh              # goreleaser check
#   scripts/release/check.sh --snapshot   # and goreleaser release --snapshot
#
# goreleaser is built from source through the Go module proxy (go install)
# into a directory kept per version, $RETRY_RELEASE_BIN (default
# ${XDG_CACHE_HOME:-~/.cache}/retry-release/goreleaser-VERSION), so only the
# first run pays for it: about 20 minutes on a busy 2-CPU machine. CI skips
# this script for that reason; release_test.go checks what the project
# relies on in the configuration without goreleaser.
#
# Why this version: v2.18 and later need Go 1.27; v2.17.0 needs
# go.digitalxero.dev/go-msix, which proxy.golang.org refuses to serve (403).
set -euo pipefail
version=v2.16.0

snapshot=false
case "${1:-}" in
"") ;;
--snapshot) snapshot=true ;;
*)
	echo "usage: scripts/release/check.sh [--snapshot]" >&2
	exit 2
	;;
esac

cd "$(dirname "$0")/../.."
bin=${RETRY_RELEASE_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/retry-release/goreleaser-$version}
goreleaser=$bin/goreleaser
if [ ! -x "$goreleaser" ]; then
	echo "== go install github.com/goreleaser/goreleaser/v2@$version into $bin"
	mkdir -p "$bin"
	# GOFLAGS may carry the project's own flags; goreleaser builds with its defaults.
	GOBIN=$bin GOFLAGS= go install "github.com/goreleaser/goreleaser/v2@$version"
fi

echo "== goreleaser check"
"$goreleaser" check

if $snapshot; then
	echo "== goreleaser release --snapshot --clean --skip=publish"
	"$goreleaser" release --snapshot --clean --skip=publish
	ls -l dist/*.tar.gz dist/*.deb dist/*.rpm dist/checksums.txt
	(cd dist && sha256sum -c checksums.txt)
fi
