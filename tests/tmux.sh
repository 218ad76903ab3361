# tmux.sh - driving the real binary in tmux, for the browser's .t tests.
# Sourced after the including test sets T (its temporary directory), WAIT
# (tenths of a second a wait may take) and defines tm (tmux on its own
# socket) and start (a session "t" at a fixed size, through tm_start).

# tm_start COLS ROWS COMMAND: a new server whose session "t" runs COMMAND
# at COLS x ROWS, after the last one is killed and the $T/rc and $T/stderr
# it left are removed; bails when tmux cannot start.
tm_start() {
    local cols=$1 rows=$2 try
    tm kill-server 2>/dev/null
    rm -f "$T/rc" "$T/stderr"
    # A server that is still shutting down can refuse us for a moment.
    for ((try = 0; try < 50; try++)); do
        tm new-session -d -s t -x "$cols" -y "$rows" "$3" 2>/dev/null && return 0
        sleep 0.1
    done
    bail "tmux cannot start"
}

screen() { tm capture-pane -p -t t >"$T/screen"; }
# settle: capture until two captures agree (a capture can catch a screen
# half drawn).
settle() {
    local prev
    for ((k = 0; k < 50; k++)); do
        prev=$(cat "$T/screen")
        sleep 0.05
        screen
        [ "$prev" = "$(cat "$T/screen")" ] && return 0
    done
}
# wait_for TEXT: poll the screen until it shows TEXT and is still; 1 on
# timeout.
wait_for() {
    for ((i = 0; i < WAIT; i++)); do
        screen
        grep -qF -- "$1" "$T/screen" && { settle; return 0; }
        sleep 0.1
    done
    diag "timed out waiting for '$1'; the screen:" "$(cat "$T/screen")"
    return 1
}
# wait_gone TEXT: poll until the screen no longer shows TEXT.
wait_gone() {
    for ((i = 0; i < WAIT; i++)); do
        screen
        grep -qF -- "$1" "$T/screen" || { settle; return 0; }
        sleep 0.1
    done
    diag "timed out waiting for '$1' to go"
    return 1
}
wait_rc() {
    for ((i = 0; i < WAIT; i++)); do
        [ -s "$T/rc" ] && { cat "$T/rc"; return 0; }
        sleep 0.1
    done
    echo timeout
}
keys() { tm send-keys -t t "$@"; }
# for_each_size FUNCTION SIZE...: FUNCTION once for each SIZE (COLSxROWS),
# with cols, rows_ and at (COLSxROWS) set to it.
for_each_size() {
    local fn=$1 size
    shift
    for size in "$@"; do
        cols=${size%x*} rows_=${size#*x} at=$size
        "$fn"
    done
}
type_text() { tm send-keys -t t -l -- "$1"; }
