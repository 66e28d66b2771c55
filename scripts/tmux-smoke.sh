#!/usr/bin/env bash
# tmux-smoke.sh: build hark, run its TUI in a detached tmux session of a
# fixed size against the embedded gateway (with a small local index), type
# into it and read the screen back with capture-pane. Exits non-zero, with
# the screen printed, on the first thing that is not as expected.
#
# Needs: go, tmux. No network. Usage: scripts/tmux-smoke.sh [WIDTHxHEIGHT]
set -euo pipefail

size=${1:-80x24}
cols=${size%x*}
rows=${size#*x}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hark-smoke.XXXXXX")
session="hark-smoke-$$"
bin="$work/hark"

cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

command -v tmux >/dev/null || { echo "tmux-smoke: tmux is not installed" >&2; exit 2; }
(cd "$root" && go build -o "$bin" .)

# A private data dir and config, so the smoke test never sees the user's.
export HARK_DATA_DIR="$work/data" HARK_CONFIG="$work/config.toml" HARK_OUTPUT_DIR="$work/out"
: > "$work/config.toml"
unset HARK_BASE_URL HARK_API_KEY HARK_PROFILE NO_COLOR
mkdir -p "$work/site"
cat > "$work/site/zebra.html" <<'HTML'
<html><head><title>Zebra crossings in Hark</title></head><body>
<h1>Zebra crossings in Hark</h1>
<p>The smoke test looks for the word quagga, which appears only on this page.
Zebra crossings give pedestrians the right of way, and this paragraph is long
enough for the extractor to keep it as the page's main content.</p>
</body></html>
HTML
# Index the page over HTTP on loopback when python3 can serve it (results
# then have http URLs, as in real use), else straight from the folder.
target="$work/site"
opened="✗ invalid urls" # file:// results cannot be extracted
if command -v python3 >/dev/null; then
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	python3 -m http.server "$port" --bind 127.0.0.1 -d "$work/site" >/dev/null 2>&1 &
	httpd=$!
	trap 'kill $httpd 2>/dev/null; cleanup' EXIT
	for ((i = 0; i < 50; i++)); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
		sleep 0.1
	done
	target="http://127.0.0.1:$port/zebra.html"
	opened="‹ http://127.0.0.1:$port/zebra.html"
fi
"$bin" index --allow-private "$target" >"$work/index.log" 2>&1 || { cat "$work/index.log"; echo "tmux-smoke: hark index failed" >&2; exit 1; }

screen() { tmux capture-pane -t "$session" -p; }

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

# keys sends keys one call at a time, pausing so that esc followed by a
# key is not read as alt+key.
keys() {
	local k
	for k in "$@"; do
		tmux send-keys -t "$session" "$k"
		sleep 0.15
	done
}

# The environment is passed on the command line: a tmux server that is
# already running would otherwise give the session its own environment.
tmux new-session -d -s "$session" -x "$cols" -y "$rows" \
	"env -u HARK_BASE_URL -u HARK_API_KEY -u HARK_PROFILE -u NO_COLOR TERM=xterm-256color \
	HARK_DATA_DIR='$HARK_DATA_DIR' HARK_CONFIG='$HARK_CONFIG' HARK_OUTPUT_DIR='$HARK_OUTPUT_DIR' \
	'$bin' 2>'$work/stderr'; echo \"hark exited \$?\" > '$work/exit'; sleep 60"

wait_for "1 Search" 10
wait_for "embedded · workspace local"
wait_for "depth basic" 15 # options come from the runtime tool list

# Search: type a query, run it, see the indexed page.
tmux send-keys -t "$session" -l "quagga"
keys Enter
wait_for "Zebra crossings in Hark" 15
wait_for "trace "

# Open the result: it is extracted into Pages. The embedded gateway
# refuses loopback addresses, so the page may open as a failed extraction
# with its reason: either way the reader shows it.
keys Enter
wait_for "$opened" 15
keys Escape

# Help from the keymap, then the palette listing the runtime tools.
keys "?"
wait_for "Pages keys"
keys q
keys ":"
wait_for "Command palette"
wait_for "vendor_research"
tmux send-keys -t "$session" -l "map"
keys Enter
wait_for "vendor_map" 5
wait_for "url*"
keys Escape

# Research pane: ask, get a report.
keys 3 "/"
tmux send-keys -t "$session" -l "what about zebra crossings"
keys Enter
wait_for "✓ what about zebra crossings" 30

# Tools pane lists the live tools.
keys 5
wait_for "Tools (" 5

# Quit with q; the program must exit cleanly.
keys q
for ((i = 0; i < 50; i++)); do
	[ -s "$work/exit" ] && break
	sleep 0.1
done
[ -s "$work/exit" ] || fail "hark did not exit on q"
grep -q "hark exited 0" "$work/exit" || fail "$(cat "$work/exit")"
echo "tmux-smoke: ok (${cols}x${rows})"
