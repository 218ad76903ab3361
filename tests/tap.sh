# tap.sh - TAP helpers for the shell tests, sourced by tests/*.t:
#
#   . "$(dirname "$0")/tap.sh"
#   ok STATUS "what"; is GOT WANT "what"; diag TEXT...; bail REASON
#   ...; tap_done        (prints the plan; exit status 1 when any failed)
#   run ARGS...          memscope ARGS; sets rc, and the files out and err
#   lines FILE; sha FILE its line count; its sha256
#
# It also checks that $MEMSCOPE names an executable binary (`make test` sets
# it to the absolute path of the one just built).
n=0
failed=0
ok() { # ok STATUS DESCRIPTION: STATUS 0 passes
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $n - $2"
    else
        echo "not ok $n - $2"
        failed=$((failed + 1))
    fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
is() { # is GOT WANT DESCRIPTION
    if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; diag "got:      '$1'" "expected: '$2'"; fi
}
bail() { echo "Bail out! $*"; exit 1; }
tap_done() {
    echo "1..$n"
    [ "$failed" -eq 0 ]
}
run() {
    "$MEMSCOPE" "$@" >out 2>err </dev/null
    rc=$?
}
lines() { wc -l <"$1" | tr -d ' '; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

[ -n "${MEMSCOPE:-}" ] || bail "set MEMSCOPE to the absolute path of the memscope binary"
[ -x "$MEMSCOPE" ] || bail "MEMSCOPE=$MEMSCOPE is not executable"
