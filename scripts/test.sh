#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every check hark has: formatting, vet,
# the race-enabled test suite, short fuzz runs of the decoders, and the tmux
# end-to-end tests of the TUI. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bench/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== BENCHMARKS.md matches docs/"
./scripts/benchmarks.sh --check

echo "== go vet"
go vet ./...

echo "== a build without cgo still compiles (no playback device or recognition)"
CGO_ENABLED=0 go build -o /dev/null .

echo "== go test -race"
go test -race -count=1 -timeout 15m ./...

echo "== fuzz (short runs; fails only on a written reproducer)"
./scripts/fuzz.sh

echo "== benchmark programs and replacement modules build"
for mod in bench/*/go.mod replace/*/go.mod; do
	[ -f "$mod" ] || continue
	(cd "$(dirname "$mod")" && go vet ./...)
done

echo "== load and fault test (short: asserts counts, never times; docs/gateway.md)"
(cd bench/load && go run . -short -check)

echo "== tmux end-to-end"
for s in scripts/tmux-*.sh; do
	[ -f "$s" ] || continue
	echo "-- $s"
	bash "$s"
done

echo "all checks passed"
