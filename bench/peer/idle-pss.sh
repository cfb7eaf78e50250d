#!/bin/sh
# Proportional set size (PSS) of an idle executor replica and its sandbox
# workers, from /proc/PID/smaps_rollup. PSS splits each shared page (the
# binary's text, mapped by the executor and every worker) between the
# processes that map it, so the sum is what the replica costs the machine;
# RSS would count the binary once per process.
#
#   sh bench/peer/idle-pss.sh [binary] [seconds]
#
# It starts the binary on its embedded defaults (an embedded broker, 8
# workers, no demo), waits, prints each process's PSS and RSS and the sum,
# and stops it.
set -eu
bin=${1:-/tmp/flowscript-executor}
wait=${2:-5}
if [ "$bin" = /tmp/flowscript-executor ]; then
	go build -o "$bin" ./cmd/executor
fi
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; tail -n 3 "$dir/log" >&2; rm -rf "$dir"' EXIT
(cd "$dir" && exec env -i PATH="$PATH" HOME="$dir" "$bin" -demo off >"$dir/log" 2>&1) &
pid=$!
sleep "$wait"
# The executor is the subshell's exec'd process: $pid; the workers are its children.
pids="$pid $(pgrep -P "$pid" | tr '\n' ' ')"
total_pss=0
total_rss=0
n=0
for p in $pids; do
	pss=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup")
	rss=$(awk '/^Rss:/ {print $2}' "/proc/$p/smaps_rollup")
	printf '%-8s %-40s PSS %6d KB  RSS %6d KB\n' "$p" "$(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-40)" "$pss" "$rss"
	total_pss=$((total_pss + pss))
	total_rss=$((total_rss + rss))
	n=$((n + 1))
done
printf 'processes %d: PSS %.1f MB in total (RSS %.1f MB)\n' "$n" "$(echo "$total_pss / 1024" | bc -l)" "$(echo "$total_rss / 1024" | bc -l)"
