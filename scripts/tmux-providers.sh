#!/usr/bin/env bash
# End-to-end test of voice providers in a real terminal: fake OpenAI-
# compatible and ElevenLabs servers run on 127.0.0.1 (relaytest's, in
# their wire formats), hark's embedded gateway is given them in
# gateway.toml's [voice.<code>], and hark runs in a detached tmux at 80x24
# with the audio going to files. The Voices tab lists their voices beside
# the local ones, each with its provider; a filter finds one of each;
# space marks them and B plays them as a blind A/B, the voices hidden
# until the letter picked reveals them. No key may show on the screen.
#
# Usage: scripts/tmux-providers.sh            (builds hark from this tree)
#        HARK_BIN=/path/to/hark scripts/tmux-providers.sh
# Exits non-zero, printing the screen, when a step fails. Needs tmux.
set -euo pipefail

cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/hpr.XXXXXX)
sock="hark-providers-$$"
fakes_pid=
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	[ -z "$fakes_pid" ] || kill "$fakes_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

bin=${HARK_BIN:-}
if [[ -z $bin ]]; then
	bin="$work/hark"
	go build -o "$bin" .
fi
go build -o "$work/fakevendors" ./gateway/voice/relay/relaytest/fakevendors
mkdir -p "$work/config/hark" "$work/data" "$work/tmp" "$work/out"

name=tmux-providers target=prov
# shellcheck source=scripts/lib-tmux.sh
. scripts/lib-tmux.sh


toml="$work/config/hark/gateway.toml"
"$work/fakevendors" "$toml" &
fakes_pid=$!
for _ in $(seq 50); do [ -s "$toml" ] && break; sleep 0.1; done
[ -s "$toml" ] || { echo "$name: FAIL: the fake vendors did not start" >&2; exit 1; }
# The keys, to be sure none reaches the screen.
mapfile -t vendor_keys < <(sed -n 's/^api_key = "\(.*\)"$/\1/p' "$toml")

tmux -L "$sock" new-session -d -s prov -x 80 -y 24 -c "$work" \
	env -u HARK_BASE_URL -u HARK_API_KEY -u HARK_CONFIG -u HARK_PROFILE -u HARK_VOICE -u HARK_PROVIDER \
	HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" TMPDIR="$work/tmp" \
	HARK_AUDIO_SINK=file HARK_OUTPUT_DIR="$work/out" TERM=xterm-256color \
	sh -c '"$1"; sleep 600' sh "$bin"

no_keys() {
	local k
	for k in "${vendor_keys[@]}"; do
		if screen | grep -qF -- "$k"; then fail "a vendor key is on the screen"; fi
	done
}

wait_for 'Voices' 30
keys Escape
keys 4
wait_for 'Voices +Speak +Listen +Round trip'
wait_for '[0-9]+ voices' 30
# The status bar names the providers listed beside the local one.
wait_for 'vendor_speech \+ elevenlabs, openai_speech'

# A filter finds the Kokoro voice, shown with its provider; space marks it.
keys /
text bella
keys Enter
wait_for 'Bella +· openai_speech'
keys Space
# And an ElevenLabs voice.
keys /
keys C-u
text rachel
keys Enter
wait_for 'Rachel +· elevenlabs'
keys Space
keys Escape
wait_for '2 marked'

# B: the blind round. While it plays and until the pick, no voice is named
# in the audition panel, only A and B.
keys B
wait_for 'Which did you prefer\? A–B' 30
panel=$(screen | sed -n '/Audition/,$p' | cut -c42-)
if grep -Eq 'af_bella|21m00Tcm4' <<<"$panel"; then
	fail "a voice is named before the pick"
fi
keys A
wait_for 'A \(your pick\)'
wait_for 'you picked A: '
no_keys

tmux -L "$sock" send-keys -t prov q
echo "tmux-providers: ok (the vendors' voices listed with their providers, found by filter, marked, played blind as A and B, revealed on the pick; no key on the screen)"
