#!/bin/bash
# render.t - one renderer (tui/present/rtable.c and view_trace.c): the same
# recall printed by `memscope recall`, by `memscope shell` and drawn by the
# browser (tmux, 120x40) gives the same result rows, character for
# character, and the same trace rows for result 1. Each row also carries
# the id, and the ranking in the browser's precision (%.4f).
#
# Needs $MEMSCOPE, tmux and python3; a private tmux server and a temporary
# directory are removed at the end. The plan comes first: a crash is a
# failure.
set -u

. "$(dirname "$0")/tap.sh"
if ! command -v tmux >/dev/null || ! command -v python3 >/dev/null; then
    echo "1..0 # SKIP tmux and python3 are needed"
    exit 0
fi
echo "1..9"
tap_done() { [ "$failed" -eq 0 ]; } # the plan is printed above

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-render-t.XXXXXX") || bail "mktemp failed"
SOCK="memscope-render-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
unset MEMSCOPE_DB MEMSCOPE_PROFILE NO_COLOR COLUMNS
export HOME="$T/home" XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config" \
    XDG_DATA_HOME="$T/data" LANG=C.UTF-8 LC_ALL=C.UTF-8
mkdir -p "$HOME"
DB="$T/demo.db"
"$MEMSCOPE" demo --db "$DB" --force >/dev/null || bail "cannot write the demo store"
WAIT=${MEMSCOPE_TEST_WAIT:-300}
Q="what did I say about my dentist"

# ---- recall and the shell, in a pipe (120 columns) ---------------------------

"$MEMSCOPE" recall --db "$DB" --trace "$Q" >"$T/recall" 2>"$T/err"
is "$?" 0 "recall --trace exits 0"
printf 'recall %s\ntrace 1\n' "$Q" | "$MEMSCOPE" shell --db "$DB" >"$T/shell" 2>>"$T/err"
is "$?" 0 "the shell exits 0"

# ---- the browser at 120x40 ---------------------------------------------------

cat >"$T/run.sh" <<EOF2
#!/bin/bash
export TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME="$HOME"
export XDG_STATE_HOME="$XDG_STATE_HOME" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" XDG_DATA_HOME="$XDG_DATA_HOME"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}"
"\$@" 2>"$T/stderr"
exec sleep 600
EOF2
chmod +x "$T/run.sh"
. "$(dirname "$0")/tmux.sh" # tm_start, screen, settle, wait_for, keys, type_text
tm_start 120 40 "$T/run.sh $MEMSCOPE --db $DB"
wait_for "Query ▸"
type_text "$Q"
keys Enter
wait_for "Trace of m"
ok $? "the browser shows the results and the trace of result 1"

# ---- the three agree -----------------------------------------------------------

cat >"$T/check.py" <<'PYEOF'
import re, sys
recall, shell, screen = (open(p, encoding="utf-8").read().split("\n") for p in sys.argv[1:4])
row = re.compile(r"^ {0,2}\d{1,3} m\d{4} ")
def rows(lines):
    return [l.rstrip() for l in lines if row.match(l)]
r, s, b = rows(recall), rows(shell), rows(screen)
def say(cond, text, detail=""):
    print(("PASS " if cond else "FAIL ") + text)
    if not cond:
        print("  " + detail)
def diff(x, y):
    return "\n  ".join(a + "\n  " + c for a, c in zip(x, y) if a != c)
say(len(r) == 10 and len(s) == 10, "recall and the shell print 10 result rows", "%d %d" % (len(r), len(s)))
say(r == s, "the shell's rows are recall's, character for character", diff(r, s))
say(len(b) >= 5 and b == r[:len(b)], "the browser's rows (%d on screen) are recall's" % len(b), diff(r, b))
say(len(r) > 0 and all(re.search(r" m\d{4} +\d\.\d{3} .* \d\.\d{4} +\d{4}-\d\d-\d\d ", l) for l in r),
    "each row has its id, and the ranking as 0.0000 before the full date", "\n  ".join(r))
# The trace of result 1: recall indents it by 6, the shell by 2, the browser
# draws it in the lower pane. Rows that fit in 110 columns everywhere.
trace = re.compile(r"^(channel |semantic |bm25 |temporal |hopfield |spreading |fused |ranking |relevance )")
def tr(lines, indent):
    return [l[len(indent):].rstrip() for l in lines
            if l.startswith(indent) and trace.match(l[len(indent):])]
end = recall.index(r[1]) if len(r) > 1 else len(recall)
rt = tr(recall[:end], " " * 6)
st, bt = tr(shell, "  "), tr(screen, "")
fits = [l for l in rt if len(l) < 110]
say(len(fits) >= 8 and [l for l in st if l in fits] == fits, "the shell's trace rows are recall's",
    "\n  ".join(fits) + "\n  --\n  " + "\n  ".join(st))
shown = [l for l in bt if len(l) < 110]
say(len(shown) >= 5 and all(l in fits for l in shown),
    "the browser's trace rows are recall's (%d)" % len(shown), "\n  ".join(shown))
PYEOF
python3 "$T/check.py" "$T/recall" "$T/shell" "$T/screen" >"$T/check.out" 2>&1 ||
    echo "FAIL the checker's reader failed" >>"$T/check.out"
while IFS= read -r line; do
    case "$line" in
    PASS*) ok 0 "${line#PASS }" ;;
    FAIL*) ok 1 "${line#FAIL }" ;;
    *) diag "$line" ;;
    esac
done <"$T/check.out"
tap_done
