#!/usr/bin/env bash
# Watched sources, in a real terminal at 80x24: a page served on loopback
# is read in Pages (o, its URL) and a sentence of it highlighted with a
# note; the Library watches it (w, every 12h typed at its line), W lists it, c reads it; the page
# changes on the server; c finds the change: the list says CHANGED and
# the status bar counts it; enter reads the page in Pages at its change,
# a word diff of the passage with the highlight it rewrote flagged; esc
# shows the page as it reads now, D the change again; once looked at the
# count is gone. The page then goes from the site: its highlight still
# opens the copy kept when it was made. Then the command line: watching a loopback address
# without --allow-private is refused, naming the flag, and `hark watch
# diff` prints the same diff and flag.
#
# Usage: scripts/tmux-watch.sh      (builds hark from this tree)
#        HARK_BIN=/path/to/hark scripts/tmux-watch.sh
# Exits non-zero, printing the screen, when a step fails. Needs go, tmux.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d /tmp/hwatch.XXXXXX)
sock="hark-watch-$$"
server_pid=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work" 2>/dev/null || { sleep 1; rm -rf "$work"; }
}
trap cleanup EXIT
name=tmux-watch target=watch
# shellcheck source=scripts/lib-tmux.sh
. "$root/scripts/lib-tmux.sh"

mkdir -p "$work/home" "$work/bin" "$work/cwd" "$work/site"
if [[ -n ${HARK_BIN:-} ]]; then
	cp "$HARK_BIN" "$work/bin/hark"
else
	go build -o "$work/bin/hark" .
fi

# page SENTENCE writes the site's page with SENTENCE in its first
# paragraph.
page() {
	cat >"$work/site/okapi.html" <<HTML
<!doctype html>
<html><head><title>Okapi facts</title></head><body><article><h1>Okapi facts</h1>
<p>The okapi is a giraffid of the Congo rainforest. $1</p>
<p>It eats leaves, buds and fungi, and it is shy of people.</p>
</article></body></html>
HTML
}
page "Its stripes hide it in the forest."

serve_site "$work/site"
url="http://127.0.0.1:$port/okapi.html"


user_env=(env -i HOME="$work/home" PATH="$work/bin:/usr/local/bin:/usr/bin:/bin" TERM=xterm-256color LANG=C.UTF-8 HARK_AUDIO_SINK=null)
hark_cli() { "${user_env[@]}" hark "$@"; }

# A watch on a loopback address needs --allow-private, as everywhere.
if hark_cli watch add "$url" >"$work/refused.txt" 2>&1; then
	echo "tmux-watch: FAIL: a loopback watch without --allow-private was taken: $(cat "$work/refused.txt")" >&2
	exit 1
fi
grep -q -- '--allow-private' "$work/refused.txt" || { echo "tmux-watch: FAIL: the refusal does not name --allow-private: $(cat "$work/refused.txt")" >&2; exit 1; }

# The TUI reads private addresses (the site is on loopback).
tmux -L "$sock" new-session -d -s "$target" -x 80 -y 24 -c "$work/cwd" "${user_env[@]}" HARK_ALLOW_PRIVATE=1 hark
tmux -L "$sock" set-option -t "$target" history-limit 0 >/dev/null
wait_for '1 Search' 15
wait_for 'embedded · workspace local' 15

# Pages: o reads the URL; v highlights the sentence the change rewrites.
keys 2 o
wait_for 'URL\(s\)' 5
text "$url"
keys Enter
wait_for 'Its stripes hide it in the' 20
keys v
wait_for 'select 1 sentence' 5
# Selection steps over the heading: v is on the first paragraph's
# first sentence, j on its second.
keys j
wait_for 'select 1 sentence' 5
keys Enter
wait_for 'note: ' 5
text "camouflage #zoology"
keys Enter
wait_for 'highlight 1 kept · #zoology' 10
hl=$(hark_cli notes list 2>&1) || fail "notes list: $hl"
grep -q 'Its stripes hide it in the forest' <<<"$hl" || fail "the highlight is not the sentence: $hl"

# The Library watches the page; W lists it, c reads it.
keys q 6
wait_for 'Okapi facts' 10
# w asks how often, offering a day; 12h typed instead is the watch's.
keys w
wait_for 'watch every 1d' 10
keys BSpace BSpace 1 2 h Enter
wait_for 'watching 1 page, every 12h' 10
keys W
wait_for 'not read yet|unchanged' 10
wait_for 'every 12h' 5
keys c
wait_for 'unchanged +http://127.0.0.1' 15

# The page changes on the server; c finds it.
page "Its stripes mark it out among the trees."
keys c
wait_for 'CHANGED +http://127.0.0.1' 15
wait_for '1 watched page, 1 changed' 5
wait_for '◉ 1 watched changed' 10

# enter: the page in the reader at its change.
keys Enter
wait_for '· the change' 10
wait_for '! highlight 1 \(gone\): “Its stripes hide it in the forest.?”' 5
wait_for 'stripes \[-hide-\] \{\+mark\+\} it \[-in-\]' 5
wait_for '\{\+out among\+\} the \[-forest.-\] \{\+trees.\+\}' 5
wait_for 'D or esc the page' 5
screen | grep -q 'shy of people' && fail "the change shows the paragraph it left alone"
# Looked at: the count goes.
for _ in $(seq 50); do screen | grep -q 'watched changed' || break; sleep 0.2; done
screen | grep -q 'watched changed' && fail "the count stayed once the change was looked at"

# esc: the page as it reads now; D shows the change again, D goes back.
keys Escape
wait_for 'Its stripes mark it out among' 10
wait_for '· changed [A-Z][a-z]{2} [0-9]{2} \(D\)' 5
wait_for 'D the change' 5
keys D
wait_for '\{\+mark\+\}' 5
keys D
wait_for 'Its stripes mark it out among' 5

# The page is gone from the site: its highlight still opens the copy
# kept when it was made, at the quote.
rm "$work/site/okapi.html"
keys q 6 W n
wait_for '1 highlight · enter open' 10
keys Enter
wait_for 'Its stripes hide it in the' 10
screen | grep -q 'mark it out among' && fail "the highlight opened the page as it changed, not its kept copy"
keys q q
sleep 0.5

# The command line's diff says the same.
id=$(hark_cli watch list --json | grep -o '"id": *"[^"]*"' | head -n1 | sed 's/.*"\([^"]*\)"$/\1/')
[ -n "$id" ] || fail "no watch id in: $(hark_cli watch list --json)"
hark_cli watch diff "$id" >"$work/diff.txt" 2>&1 || fail "watch diff: $(cat "$work/diff.txt")"
grep -q '\[-hide-\] {+mark+}' "$work/diff.txt" || fail "watch diff: $(cat "$work/diff.txt")"
grep -q '! highlight 1 (gone)' "$work/diff.txt" || fail "watch diff's flag: $(cat "$work/diff.txt")"
echo "tmux-watch: ok"
