#!/usr/bin/env bash
# tmux-smoke.sh: build hark, run its TUI in a detached tmux session of a
# fixed size, type into it as a user would and read the screen back with
# capture-pane. Exits non-zero, with the screen printed, on the first thing
# that is not as expected.
#
# Two runs, each against a small site served on 127.0.0.1 by a Go file
# server built here (no python, no network):
#   1. the embedded gateway, after `hark index --allow-private` of the site:
#      palette and help from an empty query line, an unknown tool in the
#      palette, search, open a result in Pages (refused: loopback, with
#      what to do), a mouse click on a tab, research, a source opened in
#      Pages, the report saved, the Tools pane, quit;
#   2. `hark serve --allow-private` with NO_COLOR: map the site from the
#      palette, filter the tree, extract the selection, export it, check
#      that no colour reached the screen, quit.
#
# Needs: go, tmux (scripts/setup.sh installs both). Usage:
#   scripts/tmux-smoke.sh [WIDTHxHEIGHT]      (default 80x24; builds hark)
#   HARK_BIN=/path/to/hark scripts/tmux-smoke.sh
set -euo pipefail

size=${1:-80x24}
cols=${size%x*}
rows=${size#*x}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hark-smoke.XXXXXX")
session="none"
# A tmux server of its own: a server the user already runs keeps its
# environment and options, and is left alone.
sock="hark-smoke-$$"
tm() { tmux -L "$sock" "$@"; }
bin="$work/hark"
pids=()

cleanup() {
	tm kill-server 2>/dev/null || true
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
# A command that fails outside fail() (a tmux call, say) names itself and
# what hark left behind, so that a failure seen once can be read.
died() {
	echo "tmux-smoke: FAIL: line $1 (called from lines $4) exited $2: $3" >&2
	local f
	for f in exit stderr; do
		[ -s "$work/$f" ] && { echo "----- $f -----" >&2; cat "$work/$f" >&2; }
	done
	return 0
}
set -E
trap 'died "$LINENO" "$?" "$BASH_COMMAND" "${BASH_LINENO[*]}"' ERR

command -v tmux >/dev/null || { echo "tmux-smoke: tmux is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
build_started=$SECONDS
if [[ -n ${HARK_BIN:-} ]]; then
	cp "$HARK_BIN" "$bin" # built once for every tmux script (scripts/test.sh)
else
	(cd "$root" && go build -o "$bin" .)
fi
built=$((SECONDS - build_started))
started=$SECONDS

# A private data dir and config, so the smoke test never sees the user's.
export HARK_DATA_DIR="$work/data" HARK_CONFIG="$work/config.toml" HARK_OUTPUT_DIR="$work/out"
: >"$work/config.toml"
mkdir -p "$work/out"
unset HARK_BASE_URL HARK_API_KEY HARK_PROFILE NO_COLOR

# The site: a page with the word quagga and links to three more.
mkdir -p "$work/site/docs"
cat >"$work/site/zebra.html" <<'HTML'
<html><head><title>Zebra crossings in Hark</title></head><body>
<h1>Zebra crossings in Hark</h1>
<p>The smoke test looks for the word quagga, which appears only on this page.
Zebra crossings give pedestrians the right of way, and this paragraph is long
enough for the extractor to keep it as the page's main content.</p>
<p>See <a href="docs/a.html">doc A</a>, <a href="docs/b.html">doc B</a> and <a href="okapi.html">okapi</a>.</p>
</body></html>
HTML
for n in a b; do
	cat >"$work/site/docs/$n.html" <<HTML
<html><head><title>Doc $n about crossings</title></head><body><h1>Doc $n</h1>
<p>Documentation page $n about pedestrian crossings and their stripes, long
enough for the extractor of the local engine to keep it as main content.</p>
<a href="../zebra.html">back</a></body></html>
HTML
done
cat >"$work/site/okapi.html" <<'HTML'
<html><head><title>Okapi facts</title></head><body><h1>Okapi</h1>
<p>The okapi is a giraffid mammal of the Congo rainforest, with stripes like a
zebra on its legs, and the smoke test's second page.</p></body></html>
HTML

# A file server on a free loopback port (scripts/fileserver).
(cd "$root" && GOFLAGS= go build -o "$work/fileserver" ./scripts/fileserver)
"$work/fileserver" "$work/site" >"$work/port" 2>"$work/fileserver.log" &
pids+=($!)

# wait_file FILE PATTERN SECONDS: poll until FILE holds a line matching PATTERN.
wait_file() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "tmux-smoke: FAIL: waited $3s for /$2/ in $1" >&2
	cat "$1" >&2 2>/dev/null || true
	exit 1
}
wait_file "$work/port" '^[0-9]+$' 10
site="http://127.0.0.1:$(head -n1 "$work/port")"

"$bin" index --allow-private "$site/zebra.html" >"$work/index.log" 2>&1 ||
	{ cat "$work/index.log"; echo "tmux-smoke: FAIL: hark index" >&2; exit 1; }

screen() { tm capture-pane -t "$session" -p; }

fail() {
	echo "tmux-smoke: FAIL: $*" >&2
	echo "----- screen (${cols}x${rows}) -----" >&2
	screen >&2 || true
	echo "-----" >&2
	[ -s "$work/stderr" ] && { echo "----- stderr -----" >&2; cat "$work/stderr" >&2; }
	exit 1
}

# wait_for TEXT [SECONDS]: poll the screen until it shows TEXT.
wait_for() {
	local text=$1 limit=${2:-10} i
	for ((i = 0; i < limit * 10; i++)); do
		if screen | grep -qF -- "$text"; then return 0; fi
		sleep 0.1
	done
	fail "waited ${limit}s for: $text"
}

# wait_gone TEXT: poll until the screen no longer shows TEXT.
wait_gone() {
	local i
	for ((i = 0; i < 50; i++)); do
		screen | grep -qF -- "$1" || return 0
		sleep 0.1
	done
	fail "still shown after 5s: $1"
}

# keys sends keys one call at a time, pausing so that esc followed by a
# key is not read as alt+key.
keys() {
	local k
	for k in "$@"; do
		tm send-keys -t "$session" "$k"
		sleep 0.15
		# A hark starved of CPU reads late: esc waits longer.
		[ "$k" != Escape ] || sleep 0.6
	done
}

text() { tm send-keys -t "$session" -l "$1"; sleep 0.1; }

# click X Y: a left click at screen cell X,Y (1-based), as an SGR mouse
# report written straight to hark's input.
click() {
	local seq hex
	seq=$(printf '\033[<0;%d;%dM\033[<0;%d;%dm' "$1" "$2" "$1" "$2")
	hex=$(printf '%s' "$seq" | od -An -tx1)
	# shellcheck disable=SC2086 # one argument per byte
	tm send-keys -t "$session" -H $hex
	sleep 0.15
}

# run_hark ENV...: start hark in the session with only the given
# environment on top of the smoke test's own. The environment is passed on
# the command line, so that what the session sees is exactly this.
# Each run gets a session of its own, made before the previous one is
# killed: a tmux server left with no session exits, and a client that
# reaches it in that moment fails with "server exited unexpectedly".
runs=0
run_hark() {
	local old=$session
	rm -f "$work/exit"
	runs=$((runs + 1))
	session="hark-smoke-$runs"
	tm new-session -d -s "$session" -x "$cols" -y "$rows" \
		"env -u HARK_BASE_URL -u HARK_API_KEY -u HARK_PROFILE -u NO_COLOR TERM=xterm-256color \
		HARK_DATA_DIR='$HARK_DATA_DIR' HARK_CONFIG='$HARK_CONFIG' HARK_OUTPUT_DIR='$HARK_OUTPUT_DIR' $* \
		'$bin' 2>'$work/stderr'; echo \"hark exited \$?\" > '$work/exit'; sleep 60"
	tm kill-session -t "$old" 2>/dev/null || true
}

quit_hark() {
	local i
	keys q
	for ((i = 0; i < 50; i++)); do
		[ -s "$work/exit" ] && break
		sleep 0.1
	done
	[ -s "$work/exit" ] || fail "hark did not exit on q"
	grep -q "hark exited 0" "$work/exit" || fail "$(cat "$work/exit")"
}

# ---- 1. the embedded gateway ----
run_hark
wait_for "1 Search" 10
wait_for "embedded · workspace local"
wait_for "depth basic" 15 # options come from the runtime tool list

# The query line has focus and is empty: ":" opens the palette, "?" help.
keys ":"
wait_for "Command palette"
wait_for "vendor_research"
text "frobnicate"
keys Enter
wait_for 'no tool matching "frobnicate"'
keys Escape "?"
wait_for "Search keys"
keys Escape

# Search: type a query, run it, see the indexed page.
text "quagga"
keys Enter
wait_for "Zebra crossings in Hark" 15
wait_for "trace "
wait_for "credits "

# Open the result: it is extracted into Pages. The embedded gateway
# refuses loopback addresses, so it opens as a failed extraction with its
# reason and what to do.
keys Enter
wait_for "‹ $site/zebra.html" 15
wait_for "address is private"
wait_for "HARK_ALLOW_PRIVATE"
keys Escape
wait_for "1 page"

# A click on the Research tab shows it.
tabs=$(screen | head -n1)
prefix=${tabs%%3 Research*}
click $((${#prefix} + 2)) 1
wait_for "what do you want researched?"

# Research: ask (the empty question has the cursor on arrival), get a
# report, open a source in Pages, save the report (ctrl+s: a control key,
# so that typed words never write a file).
text "what about zebra crossings"
keys Enter
wait_for "✓ what about zebra crossings" 30
keys Escape s
wait_for "Sources ("
keys Enter
wait_for "‹ http://127.0.0.1" 15
keys 3 C-s
wait_for "save as $work/out/research-"
keys Enter
wait_for "saved "
ls "$work/out"/research-*.md >/dev/null 2>&1 || fail "no research-*.md in the output dir"
grep -q "what about zebra crossings" "$work/out"/research-*.md || fail "the saved report lacks its question"

# Tools pane lists the live tools.
keys 5
wait_for "Tools (" 5
quit_hark

# ---- 2. a gateway that may read loopback, with NO_COLOR ----
mkdir -p "$work/gw"
"$bin" serve --allow-private --listen 127.0.0.1:0 --config "$work/gw/gateway.toml" --data-dir "$work/gw" >"$work/serve.log" 2>"$work/serve.err" &
pids+=($!)
wait_file "$work/serve.log" 'listening on http://' 20
base=$(sed -n 's/^hark gateway listening on \(http:[^ ]*\).*/\1/p' "$work/serve.log")
# The key printed once on first run: kept in a file, never echoed.
(umask 077 && awk '/shown only now/ {getline; getline; gsub(/ /, ""); print; exit}' "$work/serve.log" >"$work/key")
[ -s "$work/key" ] || { echo "tmux-smoke: FAIL: no API key from hark serve" >&2; exit 1; }

run_hark NO_COLOR=1 HARK_BASE_URL="'$base'" HARK_API_KEY="\$(cat '$work/key')"
wait_for "$base" 10
wait_for "depth basic" 15
keys ":"
text "map"
keys Enter
wait_for "url*" 5
text "$site/zebra.html"
keys Enter
wait_for "pages from vendor_map" 15
wait_for "/docs/ (2)"
keys "/"
text "docs"
keys Enter
wait_for "filter: docs"
wait_for "2 of 4 pages match the filter"
wait_gone "okapi.html"
keys A e
wait_for "2 selected" 5
wait_for "pages from vendor_extract" 15
keys w
wait_for "exported 2 pages" 5
export_dir=$(ls -d "$work/out"/pages-* 2>/dev/null | head -n1)
[ -n "$export_dir" ] && [ -f "$export_dir/index.md" ] || fail "no export folder with index.md in $work/out"
[ "$(ls "$export_dir" | grep -c '_docs_.*\.md$')" = 2 ] || fail "export holds $(ls "$export_dir")"
keys Escape
wait_for "okapi.html" 5

# NO_COLOR: nothing on screen has a foreground or background colour.
colours=$(tm capture-pane -t "$session" -p -e | grep -oE $'\e\\[[0-9;:]*m' |
	tr -d '\033[m' | tr ';:' '\n\n' | grep -xE '3[0-8]|4[0-8]|9[0-7]|10[0-7]' | sort -u | tr '\n' ' ' || true)
[ -z "$colours" ] || fail "colours on screen with NO_COLOR set (SGR $colours)"
quit_hark

echo "tmux-smoke: ok (${cols}x${rows}, $((SECONDS - started))s, after ${built}s building hark)"
