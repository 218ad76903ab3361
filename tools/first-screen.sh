#!/bin/bash
# first-screen.sh - how long the browser takes from launch to its first
# screen: memscope --db DB runs in a private tmux server at 120x40, and the
# pane is captured every 10 ms until the status bar shows the store's
# memory count (" mem · "). Prints each run's milliseconds and their median.
#
#   tools/first-screen.sh DB [RUNS]     RUNS default 5
#
# MEMSCOPE names the binary (default ./memscope). The time includes starting
# tmux and the capture interval, the same for every binary compared; compare
# binaries in one run of the machine, alternately. Needs tmux and python3.
set -eu

db=${1:?usage: $0 DB [RUNS]}
runs=${2:-5}
MEMSCOPE=${MEMSCOPE:-./memscope}
sock="memscope-first-screen-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT INT TERM
export TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8

times=""
for ((r = 0; r < runs; r++)); do
    tm kill-server 2>/dev/null || true
    t0=$(date +%s%N)
    tm new-session -d -s t -x 120 -y 40 "$MEMSCOPE --db '$db' --read-only; sleep 600"
    while :; do
        if tm capture-pane -p -t t 2>/dev/null | grep -qF ' mem · '; then
            break
        fi
        if (($(date +%s%N) - t0 > 120000000000)); then
            echo "first-screen: no status bar after 120 s ($db)" >&2
            exit 1
        fi
        sleep 0.01
    done
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    echo "run $((r + 1)): $ms ms"
    times="$times $ms"
done
python3 -c 'import statistics, sys; print("median: %d ms" % statistics.median(map(int, sys.argv[1:])))' $times
