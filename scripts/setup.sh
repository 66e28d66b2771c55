#!/usr/bin/env bash
# Installs everything hark needs on a fresh Debian machine with Go: the
# Debian packages of the local engines, audio and research's vocabulary,
# then the Go modules.
# Run as root (or with sudo available). Safe to run again: it installs only
# what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
	gcc pkg-config                         # cgo (pocketsphinx, ALSA)
	espeak-ng flite lame sox libsox-fmt-mp3 opus-tools   # speech synthesis, encoding, conversion
	festival festvox-us-slt-hts festvox-kallpc16k festvox-kdlpc16k   # festival and its voices (HTS slt, diphone kal and ked)
	pocketsphinx pocketsphinx-en-us libpocketsphinx-dev libsphinxbase-dev   # recognition
	libasound2-dev alsa-utils pulseaudio-utils   # playback (oto) and capture
	tmux                                   # the end-to-end TUI tests
	bash-completion                        # what "hark completion bash" scripts load with
	postgresql                             # the team gateway's tests start a throwaway cluster (gateway/pgtest)
	nginx                                  # deploy/'s test runs deploy/nginx/hark.conf in a real nginx on loopback
	wordnet-base wamerican wbritish        # research's vocabulary: WordNet 3.0 and the spelling lists (gateway/text/lexicon)
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "setup: installing ${missing[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	# nginx is here for a test, which runs its own on loopback: a system
	# nginx that the package started is stopped, not left on port 80.
	if [[ " ${missing[*]} " == *" nginx "* ]] && [ -f /run/nginx.pid ]; then
		$sudo nginx -s quit 2>/dev/null || true
		command -v systemctl >/dev/null && $sudo systemctl disable nginx >/dev/null 2>&1 || true
	fi
fi

echo "setup: downloading Go modules"
go mod download
echo "setup: done"
