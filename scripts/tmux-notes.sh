#!/usr/bin/env bash
# Highlights, notes and their exports, in a real terminal at 80x24: a page
# of an indexed folder is read in Pages; v selects its sentence, j moves
# to the next, enter opens the note line, the note with a #tag is kept;
# the Library's highlights (n) are searched as you type, sent to Zotero
# (a fake of its connector server on loopback, library/zoterotest) and
# written to an Obsidian folder; sending again duplicates nothing; the
# CLI lists the highlight as standing.
#
# Usage: scripts/tmux-notes.sh      (builds hark from this tree)
#        HARK_BIN=/path/to/hark scripts/tmux-notes.sh
# Exits non-zero, printing the screen, when a step fails. Needs tmux.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d /tmp/hnotes.XXXXXX)
sock="hark-notes-$$"
zpid=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	[ -z "$zpid" ] || kill "$zpid" 2>/dev/null || true
	rm -rf "$work" 2>/dev/null || { sleep 1; rm -rf "$work"; }
}
trap cleanup EXIT

mkdir -p "$work/home" "$work/bin" "$work/cwd" "$work/docs"
if [[ -n ${HARK_BIN:-} ]]; then
	cp "$HARK_BIN" "$work/bin/hark"
else
	go build -o "$work/bin/hark" .
fi
go build -o "$work/bin/fakezotero" ./library/zoterotest/fakezotero
"$work/bin/fakezotero" >"$work/zotero.addr" 2>"$work/zotero.log" &
zpid=$!
for _ in $(seq 50); do [ -s "$work/zotero.addr" ] && break; sleep 0.1; done
zotero=$(head -n1 "$work/zotero.addr")
[ -n "$zotero" ] || { cat "$work/zotero.log"; echo "tmux-notes: the fake Zotero did not start" >&2; exit 1; }

printf '# Okapi field notes\n\nThe okapi is a giraffid of the Congo rainforest. Its striped legs hide it among the trees. It eats leaves and fruit.\n\nKeepers say it is shy.\n' >"$work/docs/okapi.md"

# zotero_items prints what the fake Zotero was sent (bash's /dev/tcp: no
# curl on a fresh machine).
zotero_items() {
	local hostport=${zotero#http://}
	exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}"
	printf 'GET /hark-fake/items HTTP/1.0\r\nHost: %s\r\n\r\n' "$hostport" >&3
	cat <&3
	exec 3<&-
}

name=tmux-notes target=notes
# shellcheck source=scripts/lib-tmux.sh
. "$root/scripts/lib-tmux.sh"


user_env=(env -i HOME="$work/home" PATH="$work/bin:/usr/local/bin:/usr/bin:/bin" TERM=xterm-256color LANG=C.UTF-8 HARK_ZOTERO_URL="$zotero" HARK_AUDIO_SINK=null)
"${user_env[@]}" hark index "$work/docs" >"$work/index.log" 2>&1 || { cat "$work/index.log"; echo "tmux-notes: hark index failed" >&2; exit 1; }

tmux -L "$sock" new-session -d -s notes -x 80 -y 24 -c "$work/cwd" "${user_env[@]}" bash --norc --noprofile
tmux -L "$sock" set-option -t notes history-limit 0 >/dev/null
text "PS1='$ '; clear"
keys Enter
text "hark"
keys Enter
wait_for '1 Search' 10
wait_for 'embedded · workspace local' 15

# A page of the index, read in Pages.
text "okapi giraffid"
keys Enter
wait_for 'Okapi field notes' 15
keys Enter
wait_for 'striped legs hide it' 15

# v selects the first sentence (selection steps over the heading), j
# the next; J takes one more; enter asks for the note.
keys v
wait_for 'select 1 sentence' 5
keys j
wait_for 'select 1 sentence' 5
keys J
wait_for 'select 2 sentences' 5
keys Enter
wait_for 'note: ' 5
text "camouflage among trees #zoology"
keys Enter
wait_for 'highlight 1 kept · #zoology' 10

# The Library's highlights: searched as you type, then exported.
keys q
keys 6
wait_for 'n highlights' 10
keys n
wait_for '1 highlight · enter open' 10
wait_for 'Its striped legs hide it among the trees' 5
wait_for 'camouflage among trees · #zoology' 5
keys /
text "camou"
wait_for '1 highlight · enter open' 5
keys C-u
text "zebra"
wait_for 'No highlight matches' 5
keys C-u Enter
wait_for '1 highlight · enter open' 5

keys z
wait_for 'Zotero: 1 new item and 1 note sent' 10
zotero_items >"$work/zotero.json" || fail "the fake Zotero's items"
grep -q '"itemType":"webpage"' "$work/zotero.json" || fail "Zotero got no web page item: $(cat "$work/zotero.json")"
grep -q 'camouflage among trees' "$work/zotero.json" || fail "Zotero got no note: $(cat "$work/zotero.json")"
keys z
wait_for 'Zotero: 0 new items and 0 notes sent, 1 already there' 10
n=$(zotero_items | grep -o '"itemType"' | wc -l)
[ "$n" = 1 ] || fail "Zotero holds $n items after sending twice"

keys O
wait_for 'notes' 5
keys Enter
wait_for 'wrote 1 note to' 10
note="$work/home/.local/share/hark/output/notes/Okapi field notes.md"
[ -f "$note" ] || fail "no Obsidian note at $note: $(ls -R "$work/home/.local/share/hark/output" 2>&1)"
grep -q '^title: "Okapi field notes"' "$note" || fail "the note's front matter: $(cat "$note")"
grep -q '^tags: \["zoology"\]' "$note" || fail "the note's tags: $(cat "$note")"
grep -q '^> The okapi is a giraffid of the Congo rainforest. Its striped legs hide it among the trees' "$note" && fail "the quote holds a sentence not selected"
grep -q '^> Its striped legs hide it among the trees. It eats leaves and fruit' "$note" || fail "the quote block: $(cat "$note")"
grep -q '#:~:text=' "$note" || fail "no link back: $(cat "$note")"
keys O
keys Enter
wait_for 'wrote 0 notes to .*\(1 unchanged\)' 10

# enter opens the page at the highlight, underlined.
keys Enter
wait_for 'Okapi field notes' 10
wait_for 'striped legs' 5
keys q
keys C-c
sleep 0.5
"${user_env[@]}" hark notes list >"$work/list.txt" 2>&1 || { cat "$work/list.txt"; fail "hark notes list"; }
grep -q 'stands' "$work/list.txt" || fail "notes list: $(cat "$work/list.txt")"
echo "tmux-notes: ok"
