#!/usr/bin/env bash
# Runs every fuzz target of the module for a short time (FUZZTIME, default
# 5s). It fails only when the fuzzer found something, which it proves by
# writing a reproducer under the package's testdata/fuzz/<target>/: then
# the reproducer and the failure are printed. Go's fuzzer can also exit
# non-zero at the -fuzztime boundary without finding anything
# (golang/go#51484); that is reported as a warning line, not a failure.
# Committed reproducers run as ordinary tests in `go test ./...`.
#
# Each package's fuzzing test binary is built once (go test -c -fuzz) and
# runs each of its targets, as `go test -fuzz` would run it (in the
# package's folder, with the fuzz cache go test uses): linking the binary
# again for every target of a package was a third of the stage's time.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-5s}
# FUZZ_WORKERS fuzzing processes (default one per core), at FUZZ_NICE
# (default 0). test.sh runs the tmux scripts beside this with one worker
# at nice 10: a hark starved of CPU read esc and the next key together
# as alt+key, and its walks failed.
workers=${FUZZ_WORKERS:-$(nproc)}
niceness=${FUZZ_NICE:-0}
only=${FUZZ_ONLY:-.}   # a regexp of target names, to run fewer
log=$(mktemp "${TMPDIR:-/tmp}/hark-fuzz.XXXXXX")
bins=$(mktemp -d "${TMPDIR:-/tmp}/hark-fuzz-bin.XXXXXX")
trap 'rm -rf "$log" "$bins"' EXIT
fuzzcache="$(go env GOCACHE)/fuzz"
root=$PWD

# fuzz NAME PKG runs one target of PKG (./dir) from the package's binary,
# built the first time.
fuzz() {
	local name=$1 pkg=$2 bin
	bin="$bins/$(tr / _ <<<"$pkg").test"
	if [ ! -x "$bin" ]; then
		go test -c -fuzz "^${name}\$" -o "$bin" "$pkg" || return
	fi
	(cd "$root/$pkg" && nice -n "$niceness" "$bin" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "$fuzztime" -test.parallel "$workers" \
		-test.fuzzcachedir "$fuzzcache/$(go list "$root/$pkg")" -test.timeout 10m -test.paniconexit0 </dev/null)
}

# corpus lists the files of one target's committed-or-written corpus.
corpus() { find "$1/testdata/fuzz/$2" -type f 2>/dev/null | sort || true; }

failed=0
while IFS= read -r line; do
	file=${line%%:*}
	name=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' <<<"${line#*:}")
	pkg=$(dirname "$file")
	grep -Eq "$only" <<<"$name" || continue
	echo "-- $name ($pkg)"
	before=$(corpus "$pkg" "$name")
	if fuzz "$name" "$pkg" >"$log" 2>&1; then
		continue
	fi
	new=$(comm -13 <(printf '%s\n' "$before") <(corpus "$pkg" "$name") | sed '/^$/d')
	if [ -n "$new" ]; then
		echo "FAIL: $name found a failing input:"
		cat "$log"
		while IFS= read -r f; do
			echo "--- reproducer $f:"
			cat "$f"
			echo
			echo "(re-run it with: go test -run '^${name}\$/$(basename "$f")\$' $pkg)"
		done <<<"$new"
		failed=1
	elif ! grep -q '^fuzz: elapsed' "$log"; then
		# It never started fuzzing: a build failure or a failing seed.
		echo "FAIL: $name did not run:"
		cat "$log"
		failed=1
	else
		echo "warning: $name exited non-zero at the -fuzztime boundary without writing a reproducer (golang/go#51484); not a failure"
	fi
done < <(grep -rn --include='*_test.go' -E '^func Fuzz' . | grep -v '^./bench/' | sed -E 's/:[0-9]+:/:/')
exit "$failed"
