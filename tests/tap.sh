# tap.sh - TAP helpers for the shell tests, sourced by tests/*.t:
#
#   . "$(dirname "$0")/tap.sh"
#   ok STATUS "what"; is GOT WANT "what"; diag TEXT...; bail REASON
#   skip REASON [N]      N (default 1) checks that cannot run here, as skips
#   ...; tap_done        (prints the plan; exit status 1 when any failed)
#   run ARGS...          memscope ARGS; sets rc, and the files out and err
#   lines FILE; sha FILE its line count; its sha256
#   scratch NAME         work in a new temporary directory $T, removed at exit
#
# python3 is the interpreter itself, not a version manager's shim. It also
# checks that $MEMSCOPE names an executable binary (`make test` sets
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
# skip REASON [N]: N passing "# SKIP REASON" lines, as many as the checks
# that cannot run here, so that a file's plan is the same everywhere.
skip() {
    local k
    for ((k = 0; k < ${2:-1}; k++)); do ok 0 "# SKIP $1"; done
}
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

# python3 through a version manager's shim (pyenv's is a shell script that
# runs `pyenv exec`) costs several times the interpreter's own start, on
# every call: the tests call the interpreter the shim runs directly.
_tap_py=$(command -v python3 2>/dev/null)
if [ -n "$_tap_py" ] && [ "$(head -c 2 "$_tap_py" 2>/dev/null)" = "#!" ] &&
    _tap_py=$(command python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$_tap_py" ]; then
    python3() { "$_tap_py" "$@"; }
fi

[ -n "${MEMSCOPE:-}" ] || bail "set MEMSCOPE to the absolute path of the memscope binary"
[ -x "$MEMSCOPE" ] || bail "MEMSCOPE=$MEMSCOPE is not executable"

# scratch NAME: make a temporary directory T (memscope-NAME.XXXXXX), removed
# at exit (KEEP_T=1 keeps it; modes restored first, for the tests that take
# write permission away), and work in it, with HOME and XDG_CACHE_HOME
# inside it and neither MEMSCOPE_DB nor MEMSCOPE_PROFILE from outside.
scratch() {
    T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-$1.XXXXXX") || bail "mktemp failed"
    [ -n "${KEEP_T:-}" ] || trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
    cd "$T" || bail "cannot enter $T"
    unset MEMSCOPE_DB MEMSCOPE_PROFILE
    export HOME="$T/home" XDG_CACHE_HOME="$T/cache"
    mkdir -p "$HOME"
}
