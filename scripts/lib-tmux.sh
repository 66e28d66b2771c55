# lib-tmux.sh: what the tmux end-to-end scripts share, sourced by them (not
# named tmux-*.sh, which scripts/test.sh runs). The script sets $name (for
# messages), $sock (its own tmux server) and $target (its session) first.

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
