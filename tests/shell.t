#!/bin/bash
# shell.t - `memscope shell`: commands piped on stdin (no prompt noise),
# compact tables with the numbers of `recall --json`, trace, explain, show,
# sticky weights against `recall --weights`, errors and the exit status,
# escaped hostile text; then on a terminal (tmux): the prompt, tab completion
# of commands, the persistent history and quit.
#
# Needs $MEMSCOPE (make test sets it) and python3; tmux for the terminal part.
set -u

n=0
failed=0
ok() {
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
is() { if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; diag "got:      '$1'" "expected: '$2'"; fi; }
bail() { echo "Bail out! $*"; exit 1; }

[ -n "${MEMSCOPE:-}" ] && [ -x "$MEMSCOPE" ] || bail "set MEMSCOPE to the memscope binary"
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is needed"; exit 0; }

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-shell-t.XXXXXX") || bail "mktemp failed"
SOCK="memscope-test-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config" LANG=C.UTF-8 LC_ALL=C.UTF-8
mkdir -p "$HOME"
DB="$T/demo.db"
"$MEMSCOPE" demo --db "$DB" --force >/dev/null || bail "cannot write the demo store"
Q="When is my dentist appointment?"
"$MEMSCOPE" recall --db "$DB" --json --trace "$Q" >"$T/q.json"
"$MEMSCOPE" recall --db "$DB" --json --weights bm25=3 "$Q" >"$T/w.json"
"$MEMSCOPE" recall --db "$DB" --json --explain m0116 "$Q" >"$T/x.json"
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ---- piped commands --------------------------------------------------------

printf '%s\n' "recall $Q" "trace 1" "explain m0116 $Q" "show m0113" "weights bm25=3" \
    "recall $Q" "weights reset" "help" "quit" "recall never reached" |
    "$MEMSCOPE" shell --db "$DB" >"$T/out" 2>"$T/err"
is "$?" 0 "piped commands: exit 0"
is "$(cat "$T/err")" "" "nothing on stderr"
grep -q "memscope>" "$T/out"
ok $((!$?)) "no prompt when stdin is not a terminal"
grep -qE "^  # ID +Relevance +Trust +Mem\.Conf +Ranking +Date +Speaker +Content$" "$T/out"
ok $? "recall prints the table header (rtable.h's)"
# The first table's rows against the JSON.
python3 - "$T/out" "$T/q.json" "$T/w.json" "$T/x.json" >"$T/check" <<'EOF' ||
import json, sys
out = open(sys.argv[1], encoding="utf-8").read().split("\n")
q, w, x = (json.load(open(p)) for p in sys.argv[2:5])
def table(start):
    ids, rows = [], []
    for i in range(start, len(out)):
        t = out[i].split()
        if len(t) > 6 and t[0].isdigit():
            ids.append(t[1]); rows.append(t)
        elif ids:
            return ids, rows, i
    return ids, rows, len(out)
ids, rows, end = table(0)
want = [r["id"] for r in q["results"]]
print("PASS" if ids == want else "FAIL", "the table's ids are recall's", ids, want)
r0, t0 = q["results"][0], rows[0]
nums = ["%.3f" % r0["relevance_score"], "%.2f" % r0["trust_score"],
        "%.2f" % r0["memory_confidence"], "%.4f" % r0["ranking_score"]]
got = [t0[2], t0[4], t0[6], t0[8]]  # each number is followed by its bar or level
print("PASS" if got == nums else "FAIL", "row 1 numbers", got, nums)
text = "\n".join(out)
tr = r0["trace"]
for ch, c in tr["channels"].items():
    s = "%.2f/(%g+%d) = %.6f" % (c["weight"], q["rrf_k"], c["rank"], c["contribution"])
    print("PASS" if s in text else "FAIL", "trace 1:", ch, s)
s = "%.6f / %.6f = %.4f" % (tr["relevance"]["boosted"], tr["relevance"]["max_boosted"], r0["relevance_score"])
print("PASS" if s in text else "FAIL", "trace 1: relevance", s)
ex = x["explain"]
s = "Why not m0116? %s" % ex["verdict"]
print("PASS" if s in text else "FAIL", "explain:", s)
ids2, _, _ = table(text.split("\n").index("weights: semantic=profile bm25=3.00 temporal=profile hopfield=profile spreading=profile") + 1)
want2 = [r["id"] for r in w["results"]]
print("PASS" if ids2 == want2 else "FAIL", "sticky weights: the order of recall --weights bm25=3", ids2, want2)
EOF
    echo "FAIL the table's reader failed" >>"$T/check"
while read -r verdict rest; do
    if [ "$verdict" = PASS ]; then ok 0 "$rest"; else ok 1 "$rest"; fi
done <"$T/check"
grep -q "^trust             alpha 9, beta 1: 0.900" "$T/out"
ok $? "show: trust as alpha and beta"
grep -q "^  explain ID QUERY" "$T/out"
ok $? "help lists the commands"
grep -q "recall never reached" "$T/out"
ok $((!$?)) "quit stops reading"

# ---- abstention, errors ------------------------------------------------------

printf 'recall What is the capital of Australia?\ntrace m1\n' | "$MEMSCOPE" shell --db "$DB" >"$T/out" 2>"$T/err"
grep -q "^ABSTAINED: evidence_floor" "$T/out"
ok $? "an off-topic recall abstains with evidence_floor"
grep -q "^trace of " "$T/out"
ok $? "trace mN shows a nearest miss"
python3 - "$T/out" <<'EOF'
import sys
out = open(sys.argv[1], encoding="utf-8").read()
lines = out.split("\n")
trace = "\n".join(lines[next(i for i, l in enumerate(lines) if l.startswith("trace of ")):])
sys.exit(not ("Naming a speaker is not evidence." in out and "\u2026" not in trace
              and all(len(l) <= 120 for l in lines)))
EOF
ok $? "line mode wraps the floor's long reasons at 120 columns instead of cutting them"
grep -qE "^ m1 m[0-9]{4} +[0-9.]+ .* [0-9]{4}-[0-9]{2}-[0-9]{2} " "$T/out"
ok $? "the shell prints full dates (2025-10-14, not 2025-10-1…)"
printf 'frobnicate\nrecall ok\n' | "$MEMSCOPE" shell --db "$DB" >"$T/out" 2>"$T/err"
is "$?" 1 "an unknown command: exit 1"
is "$(cat "$T/err")" "memscope: unknown command 'frobnicate' (help lists them)" "one error line"
grep -q "^query: ok   type: " "$T/out"
ok $? "and the next command still runs"
printf 'trace 1\n' | "$MEMSCOPE" shell --db "$DB" >/dev/null 2>"$T/err"
grep -q "no recall yet" "$T/err"
ok $? "trace before any recall: an error"
printf 'weights bogus=1\n' | "$MEMSCOPE" shell --db "$DB" >/dev/null 2>"$T/err"
grep -q "weights takes ch=w" "$T/err"
ok $? "bad weights: an error"

# ---- hostile text ------------------------------------------------------------

cp "$DB" "$T/evil.db"
printf '%s\n' '{"id":"evil1","content":"wombat \u001b]2;pwned\u0007 \u001b[2J \u202e","speaker":"M\u001b[31m"}' >"$T/evil.jsonl"
"$MEMSCOPE" import --db "$T/evil.db" "$T/evil.jsonl" >/dev/null
printf 'recall wombat\nshow evil1\n' | "$MEMSCOPE" shell --db "$T/evil.db" >"$T/out" 2>&1
grep -qF '\x1b]2;pwned\x07' "$T/out" && grep -qF '<U+202E>' "$T/out"
ok $? "escape sequences are shown as visible escapes"
grep -q $'\e' "$T/out"
ok $((!$?)) "no raw ESC in the output"

# ---- on a terminal ------------------------------------------------------------

if ! command -v tmux >/dev/null; then
    echo "1..$n"
    [ "$failed" -eq 0 ]
    exit
fi
cat >"$T/run.sh" <<EOF
#!/bin/bash
export TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME="$HOME" XDG_STATE_HOME="$XDG_STATE_HOME"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}"
"\$@"
echo \$? >"$T/rc"
exec sleep 600
EOF
chmod +x "$T/run.sh"
WAIT=${MEMSCOPE_TEST_WAIT:-300}
. "$(dirname "$0")/tmux.sh" # screen, settle, wait_for, wait_gone, wait_rc, keys, type_text
start() {
    tm_start 120 40 "$T/run.sh $*"
}
start "$MEMSCOPE" shell --db "$DB"
wait_for "memscope>"
ok $? "on a terminal: the prompt"
tm send-keys -t t -l "rec"
tm send-keys -t t Tab
wait_for "memscope> recall"
ok $? "Tab completes a command"
tm send-keys -t t -l "$Q"
tm send-keys -t t Enter
wait_for "Mem.Conf"
ok $? "the command runs"
tm send-keys -t t Up
wait_for "memscope> recall $Q"
ok $? "Up recalls the previous line"
tm send-keys -t t C-u
tm send-keys -t t -l quit
tm send-keys -t t Enter
for ((i = 0; i < 300; i++)); do [ -s "$T/rc" ] && break; sleep 0.1; done
is "$(cat "$T/rc" 2>/dev/null)" 0 "quit exits 0"
grep -q "dentist" "$XDG_STATE_HOME/memscope/shell_history"
ok $? "the history is kept in \$XDG_STATE_HOME/memscope/shell_history"

echo "1..$n"
[ "$failed" -eq 0 ]
