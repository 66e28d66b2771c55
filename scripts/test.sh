#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every check hark has: formatting, vet,
# the race-enabled test suite, short fuzz runs of the decoders, and the tmux
# end-to-end tests of the TUI. Exits non-zero on the first failure.
#
# Where the time goes (docs/architecture.md, "Tests"): the race-enabled
# suite first, with the machine to itself; then the fuzz runs, which keep
# both cores busy, side by side with the tmux scripts, which mostly wait on
# a terminal; the load test last, alone, since it asserts that nothing
# times out. hark is built once, for the cli tests that run it as a
# server, the tmux scripts and the load test.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/hark-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== gofmt (at ${SECONDS} s)"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bench/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== BENCHMARKS.md matches docs/ (at ${SECONDS} s)"
./scripts/benchmarks.sh --check

echo "== go vet (at ${SECONDS} s)"
go vet ./...

echo "== a build without cgo still compiles (no playback device or recognition) (at ${SECONDS} s)"
CGO_ENABLED=0 go build -o /dev/null .

echo "== hark, built once for the tests that run it as a server, the tmux scripts and the load test (at ${SECONDS} s)"
go build -o "$work/hark" .
export HARK_BIN="$work/hark"

echo "== go test -race (at ${SECONDS} s)"
# -vet=off: go vet ./... above ran every check go test's own vet would.
go test -race -vet=off -count=1 -timeout 15m ./...

# The tmux end-to-end scripts, in turn, in the background: their output
# goes to a file, shown when the fuzz runs are done.
tmux_scripts() {
	local s
	for s in scripts/tmux-*.sh; do
		[ -f "$s" ] || continue
		echo "-- $s"
		bash "$s" || return
	done
}
echo "== tmux end-to-end (in the background, beside the fuzz runs) (at ${SECONDS} s)"
tmux_scripts >"$work/tmux.log" 2>&1 &
tmux_pid=$!

# The quality and equivalence tests whole, without -race (which samples
# or skips them), and the bench modules' vets and tests, in the background beside
# the fuzz runs: each keeps about one core busy. All of it is nice, so
# that the tmux walks beside them get a hark that reads its keys on time.
quality() {
	nice -n 10 go test -count=1 -timeout 20m -run 'TestPostgresIndexRanksAsSQLite|TestSnippetIsFTS5s|TestPostgresIndexTakesConcurrentReplicas|TestStoredPassages' ./gateway/web || return
	nice -n 10 go test -count=1 -timeout 20m -run 'TestResearchQuestionSet' ./gateway/research || return
	local mod
	for mod in bench/*/go.mod replace/*/go.mod; do
		[ -f "$mod" ] || continue
		(cd "$(dirname "$mod")" && nice -n 10 go vet ./... && nice -n 10 go test -count=1 ./...) || { echo "go vet or go test failed in $(dirname "$mod")"; return 1; }
	done
}
echo "== quality and equivalence tests whole, without -race, and the bench modules' vets (in the background) (at ${SECONDS} s)"
quality >"$work/quality.log" 2>&1 &
quality_pid=$!

fuzz_ok=0
echo "== fuzz (short runs; fails only on a written reproducer) (at ${SECONDS} s)"
FUZZ_WORKERS=1 FUZZ_NICE=10 ./scripts/fuzz.sh || fuzz_ok=$?

quality_ok=0
wait "$quality_pid" || quality_ok=$?
echo "== quality, equivalence and bench vets (their output) (at ${SECONDS} s)"
cat "$work/quality.log"

tmux_ok=0
wait "$tmux_pid" || tmux_ok=$?
echo "== tmux end-to-end (its output) (at ${SECONDS} s)"
cat "$work/tmux.log"
if [ "$fuzz_ok" -ne 0 ] || [ "$quality_ok" -ne 0 ] || [ "$tmux_ok" -ne 0 ]; then
	echo "FAILED: $([ "$fuzz_ok" -ne 0 ] && echo "fuzz ")$([ "$quality_ok" -ne 0 ] && echo "quality or bench vet ")$([ "$tmux_ok" -ne 0 ] && echo "tmux end-to-end")"
	exit 1
fi

echo "== load and fault test (short: asserts counts, never times; docs/gateway.md) (at ${SECONDS} s)"
(cd bench/load && go run . -short -check -hark "$HARK_BIN")

echo "all checks passed in ${SECONDS} s"
