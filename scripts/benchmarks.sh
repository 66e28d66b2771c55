#!/usr/bin/env bash
# Writes BENCHMARKS.md from the "## Benchmarks" section of each docs/*.md,
# so every figure lives next to the capability it measures and the summary
# cannot drift from it. `scripts/benchmarks.sh --check` fails when
# BENCHMARKS.md is out of date (scripts/test.sh runs it).
set -euo pipefail
cd "$(dirname "$0")/.."

generate() {
	cat <<'HEAD'
# Benchmarks

Every speed and memory figure of hark, with the command that produced it and
the machine it ran on. Each section is copied from the "Benchmarks" section of
the capability's own document in docs/ by `scripts/benchmarks.sh`; edit the
figure there and run the script. Targets from the issues are named next to
their figures.

HEAD
	for f in docs/*.md; do
		section=$(awk '/^## Benchmarks/{p=1;next} /^## /{p=0} p' "$f")
		[ -n "$section" ] || continue
		title=$(head -1 "$f" | sed 's/^# //')
		printf '## %s\n\nFrom [%s](%s).\n%s\n\n' "$title" "$f" "$f" \
			"$(sed -E 's/^(#{3,5}) /#\1 /' <<<"$section")"
	done
}

if [ "${1:-}" = "--check" ]; then
	if ! diff -q <(generate) BENCHMARKS.md >/dev/null 2>&1; then
		echo "BENCHMARKS.md is out of date with docs/*.md: run scripts/benchmarks.sh" >&2
		exit 1
	fi
	exit 0
fi
generate >BENCHMARKS.md
echo "wrote BENCHMARKS.md"
