#!/usr/bin/env bash
# Smoke test of the voice studio pane in a real terminal: runs hark (with its
# embedded gateway and the local voices) in a detached tmux at 120x36, goes to
# the Voices tab, filters to one voice, previews it twice (the second time
# from the cache), speaks by stream, saves the audio, and reads the screen
# with capture-pane at each step. The audio goes to the file sink, as over
# SSH without audio forwarding, so no sound card is needed.
#
# Usage: scripts/tmux-voices.sh            (builds hark from this tree)
#        HARK_BIN=/path/to/hark scripts/tmux-voices.sh
# Exits non-zero, printing the screen, when a step fails. Needs tmux,
# espeak-ng and flite.
set -euo pipefail

cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/hark-voices-smoke.XXXXXX")
sock="hark-voices-$$"
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

bin=${HARK_BIN:-}
if [[ -z $bin ]]; then
	bin="$work/hark"
	go build -o "$bin" .
fi
mkdir -p "$work/config" "$work/data" "$work/tmp" "$work/out"

screen() { tmux -L "$sock" capture-pane -p -t smoke; }

fail() {
	echo "tmux-voices: FAIL: $*" >&2
	echo "----- screen -----" >&2
	screen >&2 || true
	echo "------------------" >&2
	exit 1
}

# wait_for PATTERN [SECONDS]: until the screen matches the extended regex.
wait_for() {
	local pattern=$1 limit=${2:-20} i
	for ((i = 0; i < limit * 10; i++)); do
		if screen | grep -Eq -- "$pattern"; then
			return 0
		fi
		sleep 0.1
	done
	fail "waited ${limit}s for /$pattern/"
}

keys() { tmux -L "$sock" send-keys -t smoke "$@"; sleep 0.3; }

# A clean environment: the embedded gateway with a fresh config and data,
# audio to files under $work.
# hark's exit status is written to a file: tmux's #{pane_dead_status} is not
# reliable across versions.
tmux -L "$sock" new-session -d -s smoke -x 120 -y 36 \
	env -u HARK_BASE_URL -u HARK_API_KEY -u HARK_CONFIG -u HARK_PROFILE -u HARK_VOICE -u HARK_PROVIDER \
	HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" TMPDIR="$work/tmp" \
	HARK_AUDIO_SINK=file HARK_OUTPUT_DIR="$work/out" TERM=xterm-256color \
	sh -c '"$1"; echo $? >"$2"; sleep 600' sh "$bin" "$work/exit-status"

wait_for 'Voices' 30
# The first pane may start with its input focused: leave it, then go to tab 4.
# (Escape and 4 sent together would read as alt+4.)
keys Escape
keys 4
wait_for 'Voices +Speak +Listen +Round trip'
wait_for '[0-9]+ voices' 30
wait_for 'English \(America\)'

# Filter as you type: one voice left, its details on the right.
keys /
keys -l slt
wait_for '^/slt'
keys Enter
wait_for 'filter slt +1/[0-9]+'
wait_for 'code +flite:slt'
wait_for 'language +en-us'

# Preview: played through the file sink, with the notice saying where.
keys p
wait_for 'preview played \(REST\)' 30
wait_for 'No sound device here'
ls "$work"/tmp/hark/*.wav >/dev/null 2>&1 || fail "the preview wrote no WAV under $work/tmp/hark"
wait_for 'p preview \(cached\)'
keys p
wait_for 'preview played \(cached\)' 30

# Speak by stream with the selected voice, then save the audio.
keys Enter
wait_for 'voice SLT \(US English, female\) \(flite:slt\)'
wait_for 'transport +stream \(WebSocket\)'
keys Enter
wait_for 'speech played \(stream\)' 60
wait_for 'first audio [0-9.]+ m?s'
wait_for 'received .*[0-9.]+ KB'
keys w
wait_for "saved to $work/out/hark-tts-flite_slt-" 10
saved=$(ls "$work"/out/hark-tts-flite_slt-*.wav 2>/dev/null | head -1)
[[ -n $saved && $(head -c 4 "$saved") == RIFF ]] || fail "no WAV saved in $work/out"

# Listen and Round trip sections render.
keys ']'
wait_for 'transport stream \(partial results live\)'
keys ']'
wait_for 'Spoken .*Heard'

# Quit with q (the pane captures no keys here).
keys q
for ((i = 0; i < 50; i++)); do
	[[ -s $work/exit-status ]] && break
	sleep 0.1
done
[[ -s $work/exit-status ]] || fail "hark did not quit on q"
status=$(<"$work/exit-status")
[[ $status == 0 ]] || fail "hark exited with status $status"

echo "tmux-voices: ok (voices listed, filtered, previewed twice, streamed, saved)"
