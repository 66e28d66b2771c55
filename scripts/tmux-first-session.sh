#!/usr/bin/env bash
# A new user's first session, in a real terminal: bash at 80x24 in tmux,
# with a fresh home (no config, no data) and hark on PATH, read back with
# capture-pane at each step:
#   1. shell completion (bash-completion loaded, "hark completion bash"
#      sourced) completes tool slugs and enum flags from the embedded
#      gateway;
#   2. hark opens; the digits the tab bar advertises switch panes from the
#      empty query and question lines, and type nothing into them; in
#      Research, h and M type into the question that has the cursor, and
#      the line under it names the keys that work there (ctrl+o, esc then
#      h); after esc, M changes the model;
#   3. the empty index says so; a folder of documentation is indexed from
#      the CLI while the TUI runs, then searched in the TUI, and a result
#      opened in Pages; the index's sources are listed and another folder
#      indexed from the palette; a page kept as .md and .html is one
#      result;
#   3b. a long page of the indexed folder is read: a find (/) moves to
#      a match, a second / starts empty (the term typed is the new one),
#      a link followed by its number (l 1) and esc come back to the same
#      line with the same find; q closes the reader, not hark; a run of
#      changes to one query (+, -, a re-run) is kept once in the Library,
#      its last step;
#   4. a palette form checks what the tool list says before sending
#      (extract of an ftp:// URL: the rule at its field, nothing sent); one
#      the gateway refuses (a crawl's select_paths that is no regular
#      expression) comes back with what was typed and the rule at its
#      field, and again when reopened;
#   4b. research runs; a source (a file:// page of the indexed folder)
#      opens in Pages with the index's text, and esc goes back to
#      Research; the report is saved with ctrl+s into the data directory;
#   5. relaunched against an unreachable gateway, the report is found in
#      the Library by a word of its body and reopened; in the reader, find
#      (/, n), the contents (T) and $EDITOR (e) work, and so does history;
#   6. after quitting, "hark tts TEXT | hark stt -" gives the words back;
#   7. nothing was written to the directory hark was started in.
#
# Usage: scripts/tmux-first-session.sh      (builds hark from this tree)
#        HARK_BIN=/path/to/hark scripts/tmux-first-session.sh
# Exits non-zero, printing the screen, when a step fails. Needs tmux,
# bash-completion, espeak-ng, flite and pocketsphinx (scripts/setup.sh).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d /tmp/hfs.XXXXXX)
sock="hark-first-$$"
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	# hark may still be closing its files under $work for a moment.
	rm -rf "$work" 2>/dev/null || { sleep 1; rm -rf "$work"; }
}
trap cleanup EXIT

completion=/usr/share/bash-completion/bash_completion
[ -f "$completion" ] || { echo "tmux-first-session: bash-completion is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
mkdir -p "$work/home" "$work/bin" "$work/cwd" "$work/docs"
if [[ -n ${HARK_BIN:-} ]]; then
	cp "$HARK_BIN" "$work/bin/hark"
else
	go build -o "$work/bin/hark" .
fi
# Real documentation pages (see gateway/web/testdata/extract/SOURCES.md;
# the blog articles there are left out).
for f in "$root"/gateway/web/testdata/extract/*.html; do
	[[ $(basename "$f") == blog_* ]] || cp "$f" "$work/docs/"
done
ndocs=$(ls "$work/docs" | wc -l)

name=tmux-first-session target=first
# shellcheck source=scripts/lib-tmux.sh
. "$root/scripts/lib-tmux.sh"

# keys sends each key on its own, so that esc and the next key are not
# read as alt+key.

# The user's environment: a fresh home, nothing configured.
user_env=(env -i HOME="$work/home" PATH="$work/bin:/usr/local/bin:/usr/bin:/bin" TERM=xterm-256color LANG=C.UTF-8)
tmux -L "$sock" new-session -d -s first -x 80 -y 24 -c "$work/cwd" "${user_env[@]}" bash --norc --noprofile
tmux -L "$sock" set-option -t first history-limit 0 >/dev/null
text "PS1='$ '; source $completion; source <(hark completion bash); clear"
keys Enter
sleep 0.5

# 1. Completion from the embedded gateway: a slug, then an enum flag.
text "hark invoke vendor_r"
keys Tab
wait_for 'hark invoke vendor_research' 10
keys C-u
text "hark search --topic "
keys Tab Tab
wait_for 'finance +general +news' 10
keys C-u C-l

# 2. hark opens on Search; the digits switch panes from the empty lines.
text "hark"
keys Enter
wait_for '1 Search' 10
wait_for 'embedded · workspace local' 15
wait_for 'The local search index is empty' 10
keys 3
wait_for 'what do you want researched\?'
# The question has the cursor: the hint names ctrl+o, not M, and h and M
# type into it.
wait_for 'ctrl\+o model auto' 5
if screen | grep -Eq '^M model'; then fail "the hint names M while the question has the cursor"; fi
keys h M
wait_for '^\? hM' 5
wait_for 'ctrl\+o model auto' 5
keys C-u Escape
# Left: M changes the model, as the line now says.
wait_for '^M model auto' 5
keys M
wait_for '^M model mini' 5
keys M M
wait_for '^M model auto' 5
keys i
keys 4
wait_for 'Voices +Speak +Listen' 10
keys 2
wait_for 'No pages yet'
keys 1
wait_for 'search the pages hark has read…'
if screen | grep -Eq '› *[0-9]'; then fail "a digit was typed into the query"; fi

# 3. A folder indexed from the CLI while the TUI runs, then searched.
"${user_env[@]}" hark index "$work/docs" >"$work/index.log" 2>&1 ||
	{ cat "$work/index.log"; fail "hark index $work/docs"; }
grep -q 'Indexed' "$work/index.log" || fail "hark index said: $(cat "$work/index.log")"
text "memcheck leak"
keys Enter
wait_for 'Valgrind' 15
keys Enter
wait_for 'file://.*valgrind' 15
wait_for 'Memcheck' 15
keys Escape

# The index from the TUI: its sources (the folder the CLI indexed), then
# another folder added from the palette, with its progress.
mkdir -p "$work/notes"
printf '# Okapi notes\n\nThe okapi is a giraffid of the Congo rainforest, shy and striped.\n' >"$work/notes/okapi.md"
# The same page as HTML too, as Node.js ships its docs: it counts once.
# Its text differs a little, as a site's HTML does from its markdown.
printf '<html><head><title>Okapi notes | Field notes</title></head><body><h1>Okapi notes</h1>\n<p>The okapi is a giraffid of the Congo rainforest, shy and striped.</p>\n<p>Its tongue is long enough to clean its ears.</p></body></html>\n' >"$work/notes/okapi.html"
{
	printf '# Okapi field guide\n\nA guide to finding okapis.\n\n'
	for i in $(seq 1 30); do
		printf '## Part %d\n\nPart %d of the guide tells of the forest and its paths.\n\n' "$i" "$i"
	done
	printf '## Stripes\n\nThe zebra stripes on its legs hide it. See [the okapi notes](okapi.md).\n'
} >"$work/notes/guide.md"
keys Escape
keys :
text "index sources"
keys Enter
wait_for 'Index sources \(1\)' 10
wait_for "$ndocs pages .*$work/docs" 5
keys a
wait_for 'index: ' 5
text "$work/notes"
keys Enter
wait_for "indexed 3 pages from $work/notes" 15
wait_for 'Index sources \(2\)' 5
keys Escape

# One page indexed as okapi.md and okapi.html is one result.
keys Escape
keys 1 i C-u
text "giraffid rainforest"
keys Enter
wait_for 'Okapi notes' 15
n=$(screen | grep -c 'Okapi notes')
[ "$n" = 1 ] || fail "the okapi notes, indexed as okapi.md and okapi.html, are listed $n times"

# 3b. The reader: find, a second find that starts empty, a link followed
# by its number and back to the same place and find, q to close it.
keys Escape
keys 1 i C-u
text "zebra stripes"
keys Enter
wait_for 'Okapi field guide' 15
keys Enter
wait_for '“zebra” 1 of 1' 15
keys /
text "paths"
keys Enter
wait_for '“paths” [0-9]+ of 30' 5
keys /
text "forest"
keys Enter
# "pathsforest" would be found nowhere.
wait_for '“forest” [0-9]+ of 30' 5
keys n n
find=$(screen | grep -Eo '“forest” [0-9]+ of 30')
top=$(screen | sed -n 3p)
keys l
wait_for 'Links on this page \(1\)' 5
keys 1 Enter
wait_for 'okapi\.md' 10
wait_for 'giraffid of the Congo' 10
keys Escape
wait_for "$find" 10
[ "$(screen | sed -n 3p)" = "$top" ] || fail "back did not restore the top line: was '$top'"
keys q
wait_for 'enter read · m select' 5
wait_for '2 Pages' 2

# The Library keeps a run of changes to one query once, its last step:
# + (max 6), - (max 5 again) and a re-run are one item, titled by what
# the last one sent (the defaults: the query alone).
keys 1
keys Escape
keys +
wait_for 'max 6' 5
sleep 1
keys -
wait_for 'max 5' 5
sleep 1
keys /
keys Enter
sleep 1
keys Escape
keys 6
wait_for 'zebra stripes$' 10
n=$(screen | grep -Ec 'search +[A-Z][a-z]{2} [0-9]{2} [0-9:]{5}  zebra stripes')
[ "$n" = 1 ] || fail "a run of changes to one query is kept $n times"
keys 1

# 4. A palette form checks the tool list's rules before sending: an
# ftp:// URL gets the gateway's own rule at its field. A form the gateway
# refuses keeps what was typed: the form comes back with the rule at the
# field, and again from the palette.
keys Escape
keys :
text "vendor_extract"
keys Enter
wait_for 'urls\*' 5
text "ftp://example.com/x"
keys Enter
wait_for '✗ urls .*not an absolute http' 15
wait_for 'ftp://example.com/x' 5
keys Escape
keys 1
keys :
text "vendor_crawl"
keys Enter
wait_for 'url\*' 5
text "https://example.com"
# select_paths is the tenth field.
keys Tab Tab Tab Tab Tab Tab Tab Tab Tab
text "([a-z"
keys Enter
wait_for '✗ select_paths .*regular expression' 15
keys Escape
keys 1
keys :
text "vendor_crawl"
keys Enter
wait_for 'select_paths +\(\[a-z' 5
wait_for '✗ select_paths' 5
keys Escape

# 4b. Research; a source from the indexed folder opens with the index's
# text, esc comes back; the report is saved where the user says (the
# offered path is under the data directory).
keys 3
text "How does memcheck find memory leaks?"
keys Enter
wait_for '✓ How does memcheck' 60
wait_for 'Summary'
keys Escape
keys s
wait_for 'Sources \(' 5
keys Enter
wait_for 'file://' 15
if screen | grep -q 'not an absolute http'; then fail "a file:// source was sent to extract"; fi
keys Escape
wait_for 'esc back to Research' 5
keys Escape
wait_for 'Sources \(' 5
keys s
keys C-s
wait_for 'save as ' 5
keys Enter
wait_for 'saved ' 10
ls "$work/home/.local/share/hark/output"/research-*.md >/dev/null 2>&1 ||
	fail "no research-*.md in $work/home/.local/share/hark/output"

# 5. Quit and relaunch against a gateway that cannot be reached: the
# report is in the Library, found by a word of its body, and opens from
# what was kept (any call to the gateway would fail on screen). The
# first q closes the report shown (hark stays, the pane keeps its
# history), the second quits.
keys q
wait_for 'history \([0-9]+\)' 5
if screen | grep -q '^\$ '; then fail "q on a research report quit hark"; fi
keys q
wait_for '^\$ ' 10
keys C-l
# An editor that keeps a copy of what it was given, to check e.
printf '#!/bin/sh\ncp "$1" "%s/edited.md"\n' "$work" >"$work/bin/fake-editor"
chmod +x "$work/bin/fake-editor"
text "EDITOR=fake-editor HARK_BASE_URL=http://127.0.0.1:9 HARK_API_KEY=sk-unreachable-0000 hark"
keys Enter
wait_for '6 Library' 10
keys 6
wait_for 'How does memcheck find memory leaks' 10
keys f
wait_for 'research +[A-Z][a-z]{2} [0-9]{2} [0-9:]{5}  How does memcheck' 5
keys /
text "valgrind"
wait_for '1 found' 5
keys Enter
keys Enter
wait_for 'from the library, kept' 10
wait_for 'Summary' 5
keys Escape
# The reader: find with / and n, the contents with T, the editor with e.
keys /
text "leak"
keys Enter
wait_for '“leak” 1 of [0-9]+ \(n/N\)' 5
keys n
wait_for '“leak” 2 of [0-9]+ \(n/N\)' 5
keys T
wait_for 'Contents +enter jumps' 5
wait_for '  Summary' 5
keys Escape
keys e
for _ in $(seq 50); do [ -s "$work/edited.md" ] && break; sleep 0.1; done
grep -q '## Summary' "$work/edited.md" 2>/dev/null || fail "e did not hand the report to \$EDITOR"
# Back in the TUI (the status bar may show the unreachable gateway's
# tool-list error instead of "back from fake-editor").
wait_for '“leak” 2 of' 10
keys h
wait_for 'History' 5
if screen | grep -q 'connection refused'; then fail "reopening called the gateway"; fi

# 6. Quit, then pipe speech into recognition.
keys q
wait_for '^\$ ' 10
keys C-l
text "hark tts 'the quick brown fox jumps over the lazy dog' | hark stt -"
keys Enter
wait_for 'quick brown fox' 60

# 7. Nothing landed in the directory hark ran in.
if [ -n "$(ls -A "$work/cwd")" ]; then
	fail "files written to the working directory: $(ls -A "$work/cwd")"
fi
echo "tmux-first-session: ok (completion, digits, Research h/M at launch, index from the CLI, search, a result opened, find afresh, a link by number and back to the same line and find, q closes the reader, a run of changes to one query kept once, a refused palette form kept, a file:// research source and back, research saved, index sources and a folder from the palette, reopened from the Library offline, find, contents, editor, tts | stt, nothing in the working directory)"
