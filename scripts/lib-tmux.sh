# lib-tmux.sh: what the tmux end-to-end scripts share, sourced by them (not
# named tmux-*.sh, which scripts/test.sh runs). The script sets $name (for
# messages), $sock (its own tmux server), $target (its session) and $work
# (its scratch folder) first, and $root (the checkout) if it has not cd'd
# there.

# screen prints the session's screen as text.
screen() { tmux -L "$sock" capture-pane -p -t "$target"; }

# fail says what went wrong, prints the screen, and exits 1.
fail() {
	echo "$name: FAIL: $*" >&2
	echo "----- screen -----" >&2
	screen >&2 || true
	echo "------------------" >&2
	# What hark was doing: its processes and the end of its logs.
	ps -o pid,stat,etime,args -C hark >&2 2>/dev/null || true
	local f
	for f in "${work:-/nonexistent}"/home/.local/share/hark/*.log "${work:-/nonexistent}"/home/.local/state/hark/*.log; do
		[ -f "$f" ] || continue
		echo "----- $f (end) -----" >&2
		tail -n 15 "$f" >&2
	done
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

# keys KEY...: sends the keys one at a time, each followed by a pause
# ($key_pause seconds, 0.2 unless the script sets it). Esc and the key
# after it read together are alt+key, and a hark starved of CPU (CI fuzzes
# beside these scripts) reads late, so esc waits longer.
keys() {
	local k
	for k in "$@"; do
		tmux -L "$sock" send-keys -t "$target" "$k"
		sleep "${key_pause:-0.2}"
		[ "$k" != Escape ] || sleep 0.6
	done
}

# text STRING: types STRING as it is, not as key names.
text() {
	tmux -L "$sock" send-keys -t "$target" -l "$1"
	sleep "${key_pause:-0.2}"
}

# serve_site DIR [PORT]: serves DIR over HTTP on 127.0.0.1 with
# scripts/fileserver (built into $work the first time), on PORT or a free
# port; sets $port and $server_pid. Called again with the same PORT after
# the server is killed, it brings the site back at the same address.
serve_site() {
	if [ ! -x "$work/fileserver" ]; then
		(cd "${root:-.}" && GOFLAGS= go build -o "$work/fileserver" ./scripts/fileserver)
	fi
	rm -f "$work/port"
	"$work/fileserver" "$1" "${2:-0}" >"$work/port" 2>"$work/fileserver.log" &
	server_pid=$!
	local i
	for ((i = 0; i < 100; i++)); do
		grep -qE '^[0-9]+$' "$work/port" 2>/dev/null && break
		sleep 0.1
	done
	port=$(head -n1 "$work/port" 2>/dev/null || true)
	[[ $port =~ ^[0-9]+$ ]] || { echo "$name: FAIL: the file server did not start: $(cat "$work/fileserver.log")" >&2; exit 1; }
}
