#!/usr/bin/env bash
# tmux-trust.sh: what hark says about itself, on screen (issue 43), at
# 80x24 and again at 120x40, in one tmux server with one hark build:
#   - a research report's keys read whole under it (v verify, ctrl+s
#     save), and history lists a report another hark kept meanwhile;
#   - Pages' help scrolls to its end (w export, x cancel, Everywhere);
#   - the Pages reader names its keys; esc after a contents jump goes
#     back to where it jumped from, not to the list; R with the audio off
#     says so; the export notice reads whole, with ~/;
#   - a page of an indexed folder (file://) is listed under "files";
#   - a search sent from the form with max_results 3 says "max 3", and +
#     counts up from it;
#   - Voices' save-as field says it has the keys and refuses a name
#     without the audio's extension;
#   - v with the site down says "N of M quotes not checked: … refused",
#     never "✓ verified … gone", and a citation shows the kept copy, called
#     that.
# The site is gateway/research/testdata/corpus served by a Go file server
# on 127.0.0.1 (no python, no network).
#
# Usage: scripts/tmux-trust.sh                 (builds hark from this tree)
#        HARK_BIN=/path/to/hark scripts/tmux-trust.sh
# Exits non-zero, printing the screen, when a step fails. Needs go, tmux,
# flite (scripts/setup.sh).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d /tmp/htr.XXXXXX)
sock="hark-trust-$$"
server_pid=""
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	[[ -z $server_pid ]] || kill "$server_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work" 2>/dev/null || { sleep 1; rm -rf "$work"; }
}
trap cleanup EXIT

mkdir -p "$work/home" "$work/bin" "$work/site" "$work/notes"
if [[ -n ${HARK_BIN:-} ]]; then
	cp "$HARK_BIN" "$work/bin/hark"
else
	go build -o "$work/bin/hark" .
fi
cp -r "$root/gateway/research/testdata/corpus/valgrind" "$root/gateway/research/testdata/corpus/flite" "$work/site/"
printf '# Okapi notes\n\nThe okapi is a giraffid of the Congo rainforest, shy and striped.\n' >"$work/notes/okapi.md"
printf '# Quagga notes\n\nThe quagga was a zebra of South Africa, striped at the front only.\n' >"$work/notes/quagga.md"

name=tmux-trust target=trust
# shellcheck source=scripts/lib-tmux.sh
. "$root/scripts/lib-tmux.sh"

# The site, on loopback; started again at the same port after a step
# stops it.
serve_site "$work/site"
site="http://127.0.0.1:$port"

user_env=(env -i HOME="$work/home" PATH="$work/bin:/usr/local/bin:/usr/bin:/bin" TERM=xterm-256color LANG=C.UTF-8)
hark_cli() { "${user_env[@]}" hark "$@"; }

# The index and a report whose sources are the site's pages.
for d in valgrind flite; do
	hark_cli index --allow-private "$site/$d/" >"$work/index.log" 2>&1 || { cat "$work/index.log"; exit 1; }
done
hark_cli index "$work/notes" >"$work/index.log" 2>&1 || { cat "$work/index.log"; exit 1; }
hark_cli research "How does memcheck find memory leaks?" >/dev/null 2>"$work/research.log" || { cat "$work/research.log"; exit 1; }


# open_report opens the memcheck report, the oldest in Research's
# history (newest first), which lists what the library keeps.
open_report() {
	keys 3 Escape h
	wait_for 'History' 5
	keys Down Down Down Down Down Down Down Down Enter
	wait_for 'How does memcheck find memory leaks.*kept' 10
}

# walk SIZE: the whole walk in a new session of that size.
walk() {
	local size=$1 cols=${1%x*} rows=${1#*x}
	target="trust-$size"
	# The TUI reads private addresses (the site is on loopback), and its
	# audio is off.
	tmux -L "$sock" new-session -d -s "$target" -x "$cols" -y "$rows" \
		"${user_env[@]}" HARK_ALLOW_PRIVATE=1 HARK_AUDIO_SINK=null hark
	wait_for '1 Search' 15
	wait_for 'embedded · workspace local' 15

	# Research: the kept report, from the Library; its keys read whole.
	open_report
	wait_for 'How does memcheck find memory leaks' 10
	wait_for 'v verify' 10
	wait_for 'ctrl\+s save' 5
	# Another hark keeps a report: history lists it once shown again.
	local before
	before=$(screen | grep -oE 'history \([0-9]+\)' | grep -oE '[0-9]+' | head -1)
	hark_cli research "What is flite?" >/dev/null 2>&1 || fail "hark research (another process)"
	keys 1 3
	wait_for "history \\($((before + 1))\\)" 10

	# Pages' help scrolls to its end.
	keys 2
	keys '?'
	wait_for 'Pages keys' 5
	keys G
	wait_for 'x cancel' 5
	wait_for 'Everywhere' 5
	# At 80x24 it does not fit: it says where it is, and how to scroll.
	((rows > 30)) || wait_for '100% · j/k' 5
	keys Escape

	# A page read: its keys under it; esc after a contents jump comes back.
	keys 1 i C-u
	text "memcheck leak summary"
	keys Enter
	wait_for 'Memcheck' 15
	keys Enter
	wait_for "‹ $site/(valgrind/|…/?)mc-manual" 15 # at 80 columns the path gives way to its end
	wait_for 'j/k scroll' 10
	wait_for 'esc list' 5
	wait_for '[0-9]+% · rendered' 30 # the whole page, not its top
	keys T
	wait_for 'Contents' 5
	keys Down Down Enter
	wait_for 'esc back to before the jump' 5
	keys Escape
	wait_for 'esc list' 5
	wait_for "‹ $site/(valgrind/|…/?)mc-manual" 2
	# R with the audio off says so, and reads nothing.
	keys R
	wait_for '! read aloud: audio output is off' 10
	# The export notice reads whole, with ~/.
	keys Escape
	wait_for 'enter read' 5
	keys w
	wait_for '✓ exported [0-9]+ pages? to ~/\.local/share/hark/output/pages-[0-9]{8}-[0-9]{6}' 10

	# A page of an indexed folder is listed under files.
	keys 1 i C-u
	text "giraffid rainforest"
	keys Enter
	wait_for 'Okapi notes' 15
	keys Enter
	wait_for 'file://' 10
	keys Escape
	wait_for 'files \([0-9]+\)' 5
	if screen | grep -qE '^ *▾ other'; then fail "a file:// page is listed under other"; fi

	# A search from the form with max_results 3: the options line says so.
	keys 1 Escape f
	wait_for 'max_results' 5
	keys Tab C-u
	text "3"
	keys Enter
	wait_for '\+- max 3' 15
	keys +
	wait_for '\+- max 4' 10

	# Voices: the save-as field has the keys, and checks the extension.
	keys 4
	wait_for '[0-9]+ voices' 30
	keys /
	text "slt"
	keys Enter
	wait_for 'code +flite:slt' 10
	keys Enter Enter
	wait_for '✓ speech played' 30
	wait_for 'Audio output is off' 5
	keys w
	wait_for '▶ save as .*hark-tts-flite_slt-.*\.wav' 10
	wait_for 'typing edits the name' 5
	text "1:index a"
	keys Enter
	wait_for 'the name must end in \.wav' 5
	keys Escape

	# v with the site down: not verified, the sources not checked, and a
	# citation shows the kept copy.
	kill "$server_pid"
	wait "$server_pid" 2>/dev/null || true
	server_pid=""
	open_report
	keys v
	wait_for '! [0-9]+ of [0-9]+ quotes not checked: connection refused' 30
	if screen | grep -q '✓ verified'; then fail "v with the site down says verified"; fi
	keys c
	wait_for 'Citations \([0-9]+\)' 5
	wait_for 'not checked' 5
	keys Enter
	wait_for 'the kept copy' 10
	wait_for 'not checked: ' 5
	if screen | grep -q 'no longer holds'; then fail "the kept copy is said not to hold the quote"; fi
	serve_site "$work/site" "$port"

	tmux -L "$sock" send-keys -t "$target" C-c
	sleep 0.5
}

walk 80x24
walk 120x40
echo "tmux-trust: ok (80x24 and 120x40: report keys whole, history read again, Pages' help scrolled, the reader's keys, back after a contents jump, R with the audio off, the export notice with ~/, files grouped, max 3 from the form, the save-as field checked, v with the site down not verified and the kept copy shown) in ${SECONDS}s"
