#!/usr/bin/env bash
# Smoke test of the voice studio pane in a real terminal: runs hark (with its
# embedded gateway and the local voices) in a detached tmux at 80x24, as a
# demo on a small terminal would, and reads the screen with capture-pane at
# each step: the Voices tab, order by name and by language, a filter to one
# voice and its details, a preview twice (the second time from the cache),
# speech by stream and by REST, the end of a control's range, saving, a file
# chosen in the file picker recognised by stream (results live) and by
# REST, and a round trip. The audio goes to the file sink, as over SSH
# without audio forwarding, so no sound card is needed; the notice saying
# so is checked.
#
# Usage: scripts/tmux-voices.sh            (builds hark from this tree)
#        HARK_BIN=/path/to/hark scripts/tmux-voices.sh
# Exits non-zero, printing the screen, when a step fails. Needs tmux,
# espeak-ng and flite.
set -euo pipefail

cd "$(dirname "$0")/.."
# A short path under /tmp: saved paths are read off an 80-column screen.
work=$(mktemp -d /tmp/hvs.XXXXXX)
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
mkdir -p "$work/config" "$work/data" "$work/tmp" "$work/out" "$work/listen"

name=tmux-voices target=smoke
# shellcheck source=scripts/lib-tmux.sh
. scripts/lib-tmux.sh


# A clean environment: the embedded gateway with a fresh config and data,
# audio to files under $work.
# hark's exit status is written to a file: tmux's #{pane_dead_status} is not
# reliable across versions.
# It starts in $work/listen, where the file picker opens.
tmux -L "$sock" new-session -d -s smoke -x 80 -y 24 -c "$work/listen" \
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

# Order by name and back to grouping by language.
keys s
wait_for '/ filter · by name'
keys s
wait_for '/ filter · by language'

# Filter as you type: one voice left, its details on the right.
keys /
text flite:slt
wait_for '^/flite:slt'
keys Enter
wait_for 'filter flite:slt +1/[0-9]+'
wait_for 'code +flite:slt'
wait_for 'language +en-us'

# Preview: written by the file sink, with the notice saying so and where.
keys p
wait_for 'preview saved to a file \(REST\)' 30
# The file sink was asked for (HARK_AUDIO_SINK=file): the notice says so,
# and does not guess at SSH.
wait_for 'Audio goes to WAV files \(audio sink file\)'
wait_for 'Saved to \(y copies the path\):'
if screen | grep -q 'SSH'; then fail "the notice guesses SSH though the file sink was chosen"; fi
# Played audio is a cache under the data directory; nothing lands in the
# output directory or the directory hark started in until w saves it.
played="$work/data/hark/played"
ls "$played"/hark-*.wav >/dev/null 2>&1 || fail "the preview wrote no WAV under $played"
wait_for "$played/hark-"
if ls "$work"/out/* "$work"/listen/* >/dev/null 2>&1; then fail "playing wrote files outside the cache: $(ls "$work/out" "$work/listen")"; fi
wait_for 'p preview \(cached\)'
keys p
wait_for 'preview saved to a file \(cached\)' 30

# Speak by stream with the selected voice.
keys Enter
wait_for 'voice SLT \(US English, female\) \(flite:slt\)'
wait_for 'transport +stream \(WebSocket\)'
keys Enter
wait_for 'speech saved to a file \(stream\)' 30
wait_for 'first audio [0-9.]+ m?s'
wait_for 'received .*[0-9.]+ KB'
wait_for 'written .*[0-9.]+ KB'
wait_for 'Saved to \(y copies the path\):'

# The end of a range is said inline: pitch is the fifth control.
keys Down Down Down Down
for _ in 1 2 3 4 5 6; do keys Right; done
wait_for 'pitch: \+50 is the highest the provider allows \(-50…50\)'
keys 0

# REST, as mp3 (the second control).
keys t
keys Up Up Up Right Right Right
wait_for '> format +mp3'
keys Enter
wait_for 'speech saved to a file \(REST\)' 30

# Save the last audio: w offers a file in the output directory, enter
# writes it, and only it.
keys w
wait_for "save as ~/out/hark-tts-flite_slt-.*\\.mp3" 10 # home as ~/, the name whole
keys Enter
wait_for "$work/out/hark-tts-flite_slt-.*\.mp3" 10
saved=$(ls "$work"/out/hark-tts-flite_slt-*.mp3 2>/dev/null | head -1)
[[ -n $saved ]] || fail "no mp3 saved in $work/out"

# Listen: a WAV of speech chosen in the file picker, by stream (results
# live, then the final text), then by REST.
# The first preview's WAV: "Hello, this is a short sample of my voice."
cp "$(ls -tr "$played"/hark-2*.wav | head -1)" "$work/listen/hello.wav"
keys ']'
wait_for 'transport stream \(partial results live\)'
keys o
wait_for 'Choose an audio file'
wait_for "$work/listen"
wait_for 'hello\.wav'
keys Enter
wait_for 'recognising by stream: [0-9]+ results? so far' 20
wait_for '✓ recognised' 30
wait_for '(hello|sample|voice)'
wait_for 'confidence [0-9.e-]+ · audio [0-9.]+ s'
keys t
wait_for 'transport REST'
keys Enter
wait_for '✓ recognised' 30

# Round trip: both texts side by side.
keys ']'
wait_for 'Spoken .*Heard'
keys Enter
wait_for 'words matched [0-9]+%' 30
wait_for 'fox'

# Audition: two flite voices say a ready sentence in turn, each labelled
# with its first audio and length, the settings shown; a star, an A/B
# chosen take by take, the set saved with true WAV sizes; with no sound
# device the audition is one WAV whose path is whole under the list.
keys ']'
wait_for 'o chooses a deck file'
keys ']'
wait_for '/ filter|filter flite:slt'
keys Escape
keys /
text flite
keys Enter
wait_for 'filter flite +[0-9]+/[0-9]+'
keys Up Up Up Up Up Up
keys Down Down Down
wait_for '> +RMS'
keys Space
wait_for '✓ RMS'
keys Space
wait_for '2 marked · a plays them in turn'
wait_for 'text: the Speak text · t picks another'
keys t
wait_for 'text: a pangram · t picks another'
keys a
wait_for 'flite:rms  ✓ [0-9]+ ms · [0-9.]+ s' 30
wait_for 'flite:slt  ✓ [0-9]+ ms · [0-9.]+ s' 30
wait_for 'rate 0 · pitch 0 · loudness 0'
wait_for 'Audition · “The quick brown fox'
wait_for "^$played/hark-[0-9]+-[0-9]+-[0-9]+-[0-9]+\.wav *\$"
keys '*'
wait_for '★ flite:slt'
keys b
wait_for 'flite:slt  A · ✓'
keys Up
keys b
wait_for 'flite:rms  ✓ [0-9]+ ms'
if screen | grep -q 'A · ✓'; then fail "the A/B choice stayed after B was played"; fi
keys W
for ((i = 0; i < 50; i++)); do
	ls "$work"/out/audition-*/manifest.json >/dev/null 2>&1 && break
	sleep 0.1
done
set_dir=$(ls -d "$work"/out/audition-* 2>/dev/null | head -1)
[[ -n $set_dir && -s $set_dir/manifest.json ]] || fail "W saved no set in $work/out"
for f in "$set_dir"/*.wav; do
	size=$(stat -c %s "$f")
	data=$(od -An -tu4 -j40 -N4 "$f" | tr -d ' ')
	((data + 44 == size)) || fail "$f: its data size says $data for a file of $size bytes"
done
grep -q '"starred": true' "$set_dir/manifest.json" || fail "the star is not in the manifest"

# Quit with q (the pane captures no keys here).
keys q
for ((i = 0; i < 50; i++)); do
	[[ -s $work/exit-status ]] && break
	sleep 0.1
done
[[ -s $work/exit-status ]] || fail "hark did not quit on q"
status=$(<"$work/exit-status")
[[ $status == 0 ]] || fail "hark exited with status $status"

echo "tmux-voices: ok (ordered, filtered, previewed twice, spoken by stream and REST, range end shown, saved, a picked file recognised by stream and REST, round trip, audition with a ready sentence, star, A/B and the set saved) in ${SECONDS}s"
