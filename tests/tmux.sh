# tmux.sh - driving the real binary in tmux, for the browser's .t tests.
# Sourced after the including test sets T (its temporary directory), WAIT
# (tenths of a second a wait may take) and defines tm (tmux on its own
# socket) and start (a session "t" at a fixed size).

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
type_text() { tm send-keys -t t -l -- "$1"; }
