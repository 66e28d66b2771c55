#!/usr/bin/env bash
# End-to-end test of demo decks in a real terminal: `hark demo DECK.toml`
# plays a three-line deck in a detached tmux at 80x24 with the audio going
# to the null sink (which the stage paces as if it were heard), and the
# screen is read with capture-pane: each line's caption in turn, space
# pausing the show (it stays on its line) and resuming it, n going on to
# the next line at once, w saving the performance as one WAV, q stopping
# and q again quitting. Then the same deck from the TUI's Voices pane: D
# opens the deck picker in the Demo section, the deck plays, q stops it
# and closes the stage, and q quits hark.
#
# Usage: scripts/tmux-demo.sh            (builds hark from this tree)
#        HARK_BIN=/path/to/hark scripts/tmux-demo.sh
# Exits non-zero, printing the screen, when a step fails. Needs tmux,
# espeak-ng and flite.
set -euo pipefail

cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/hdemo.XXXXXX)
sock="hark-demo-$$"
cleanup() {
	tmux -L "hark-demo-$$" kill-server 2>/dev/null || true
	tmux -L "hark-demo-$$-tui" kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

bin=${HARK_BIN:-}
if [[ -z $bin ]]; then
	bin="$work/hark"
	go build -o "$bin" .
fi
mkdir -p "$work/config" "$work/data" "$work/tmp" "$work/out" "$work/decks"

name=tmux-demo target=demo
# shellcheck source=scripts/lib-tmux.sh
. scripts/lib-tmux.sh


# Three lines of a few seconds each, in two voices, with captions.
cat >"$work/decks/three.toml" <<'EOF'
title = "Three voices"
voice = "flite:slt"

[[line]]
text = "Good morning, everyone, and welcome to a short demonstration of the voices on this machine."
caption = "Welcome"

[[line]]
text = "This is the second line, spoken by espeak in its American English voice, a little faster than usual."
voice = "espeak:en-us"
speed = 10
caption = "Second voice"

[[line]]
text = "And this is the third and last line of the deck, back in the first voice. Thank you for listening."
caption = "Thanks"
EOF

start() { # start CMD...: hark in a fresh environment, audio to nothing
	tmux -L "$sock" new-session -d -s "$target" -x 80 -y 24 -c "$work/decks" \
		env -u HARK_BASE_URL -u HARK_API_KEY -u HARK_CONFIG -u HARK_PROFILE -u HARK_VOICE -u HARK_PROVIDER \
		HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" TMPDIR="$work/tmp" \
		HARK_AUDIO_SINK=null HARK_OUTPUT_DIR="$work/out" TERM=xterm-256color \
		sh -c '"$@"; echo "exit status $?"; sleep 600' sh "$@"
}

# --- hark demo DECK.toml ---
start "$bin" demo three.toml
wait_for 'Demo · Three voices' 30
wait_for 'line 1 of 3 · ▶ playing' 30
wait_for 'caption: Welcome'
# The caption large: WELCOME in block letters.
wait_for '█   █ █▀▀ █   ▄▀▀ ▄▀▄ █▄ ▄█ █▀▀'
wait_for 'Good morning, everyone'
wait_for 'Audio output is off \(audio sink null\)'

# space pauses: the show stays on line 1 for as long as it is paused
# (line 1 lasts about 5 s; 7 s paused would otherwise reach line 2).
keys Space
wait_for 'line 1 of 3 · ❚❚ paused'
sleep 7
screen | grep -q 'line 1 of 3 · ❚❚ paused' || fail "the show moved on while paused"
keys Space
wait_for 'line 1 of 3 · ▶ playing'

# The show goes on by itself to line 2.
wait_for 'line 2 of 3 · ▶ playing' 20
wait_for 'caption: Second voice'
wait_for 'espeak:en-us\) · speed \+10'
wait_for '✓ 1  ▶ 2  · 3'

# n goes on at once, without waiting for line 2 to end.
keys n
wait_for 'line 3 of 3 · ▶ playing' 5
wait_for 'caption: Thanks'
wait_for '▀█▀ █ █ ▄▀▄ █▄ █ █ ▄▀ ▄▀▀'

# n on the last line ends the show; w saves the whole performance.
keys n
wait_for '✓ the end'
keys w
wait_for 'performance saved to' 60
screen | grep -q "$work/out/demo-three-" || fail "the saved WAV's path is not on screen"
ls "$work"/out/demo-three-*.wav >/dev/null 2>&1 || fail "no WAV in $work/out"
# q closes the stage, which quits hark demo.
keys q
wait_for 'exit status 0' 10
tmux -L "$sock" kill-server

# --- the TUI: D in the Voices pane (a tmux server of its own: the first
# may still be going away) ---
sock="hark-demo-$$-tui"
start "$bin"
wait_for 'Voices' 30
keys Escape
keys 4
wait_for 'Voices +Speak +Listen +Round trip +Demo'
wait_for '[0-9]+ voices' 30
keys D
wait_for 'choose a deck \(.toml\)'
wait_for 'three.toml'
keys Enter
wait_for 'line 1 of 3 · ▶ playing' 30
wait_for 'caption: Welcome'
# q stops the show rather than quitting hark; q again closes the stage.
keys q
wait_for 'line 1 of 3 · ■ stopped'
keys q
wait_for 'o chooses a deck file'
keys q
wait_for 'exit status 0' 10
echo "$name: ok"
