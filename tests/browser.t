#!/bin/bash
# browser.t - the full-screen browser, driven in tmux at fixed sizes: the
# query line and the result columns; every number of the result rows and of
# the trace pane against `recall --json --trace` for the same query; the
# abstention banner (evidence_floor, no_candidates); what-if against
# `recall --weights`; why-not against `recall --explain`; the detail view;
# the help overlay; resize to tiny and back; NO_COLOR; a memory holding
# ESC/OSC/CSI and bidi characters; a malformed theme; history (Up, Ctrl-R);
# line editing (Ctrl-W, Ctrl-U); refresh after another process wrote;
# --read-only; the demo tour; q and Ctrl-C exit 0 with the terminal
# restored.
#
# Needs $MEMSCOPE (absolute path of the binary; `make test` sets it), tmux
# and python3. A private tmux server (-L memscope-test-PID) and a temporary
# directory are removed at the end. Waits poll the screen; no fixed sleeps.
set -u

. "$(dirname "$0")/tap.sh"
if ! command -v tmux >/dev/null || ! command -v python3 >/dev/null; then
    echo "1..0 # SKIP tmux and python3 are needed"
    exit 0
fi
# The plan comes first, so a crash (of the browser, tmux or the checker
# below) that drops checks is a failure, not a shorter pass. A new check
# raises it.
PLAN=214
echo "1..$PLAN"
tap_done() {
    [ "$n" -eq "$PLAN" ] || diag "ran $n checks, planned $PLAN"
    [ "$failed" -eq 0 ] && [ "$n" -eq "$PLAN" ]
}

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-browser-t.XXXXXX") || bail "mktemp failed"
SOCK="memscope-test-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
unset MEMSCOPE_DB MEMSCOPE_PROFILE NO_COLOR
export HOME="$T/home" XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config" \
    XDG_DATA_HOME="$T/data" LANG=C.UTF-8 LC_ALL=C.UTF-8
mkdir -p "$HOME" "$XDG_CONFIG_HOME/memscope/themes"
DB="$T/demo.db"
"$MEMSCOPE" demo --db "$DB" --force >/dev/null || bail "cannot write the demo store"
WAIT=${MEMSCOPE_TEST_WAIT:-300} # tenths of a second a wait may take (ASan is slow)

# The program each tmux session runs: the environment, memscope with the
# given arguments, then the terminal settings and its exit status written
# down, the status last (wait_rc returns as soon as it is there, and a
# check of the settings then raced their write), and a shell that keeps
# the pane open.
cat >"$T/run.sh" <<EOF
#!/bin/bash
export TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME="$HOME"
export XDG_STATE_HOME="$XDG_STATE_HOME" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" XDG_DATA_HOME="$XDG_DATA_HOME"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}"
stty -g >"$T/stty.before"
"\$@" 2>"$T/stderr"
rc=\$?
stty -g >"$T/stty.after"
echo \$rc >"$T/rc"
exec sleep 600
EOF
chmod +x "$T/run.sh"

# start COLS ROWS ARGS...: a fresh tmux session running ARGS.
start() {
    local cols=$1 rows=$2
    shift 2
    tm_start "$cols" "$rows" "$T/run.sh $*"
}
. "$(dirname "$0")/tmux.sh" # screen, settle, wait_for, wait_gone, wait_rc, keys, type_text
# query TEXT: focus the query line, replace its text, run it.
query() {
    keys /
    keys C-u
    type_text "$1"
    keys Enter
}
# check WHAT ARGS...: run the Python checker on the last screen; each line
# it prints ("PASS text" or "FAIL text") becomes a test.
check() {
    local line
    while IFS= read -r line; do
        case "$line" in
        PASS*) ok 0 "${line#PASS }" ;;
        FAIL*) ok 1 "${line#FAIL }" ;;
        *) diag "$line" ;;
        esac
    done < <(python3 "$T/check.py" "$@" 2>&1)
}

cat >"$T/check.py" <<'EOF'
# check.py WHAT SCREEN [JSON...]: compare the browser's screen with the
# JSON of `memscope recall`.
import json, re, sys

what, screen_path = sys.argv[1], sys.argv[2]
screen = open(screen_path, encoding="utf-8", errors="replace").read()
lines = screen.split("\n")
def load(i):
    return json.load(open(sys.argv[i]))
def say(cond, text, detail=""):
    print(("PASS " if cond else "FAIL ") + text)
    if not cond and detail:
        print("  " + detail)

def row_of(rank):
    for l in lines:
        if re.match(r"^\s*%d \S" % rank, l):
            return l
    return None

def rows(res, whatif=False):
    for r in res["results"]:
        l = row_of(r["rank_position"])
        want = [r["id"], "%.3f" % r["relevance_score"], "%.2f" % r["trust_score"],
                "%.2f" % r["memory_confidence"], "%.4f" % r["ranking_score"]]
        say(l is not None and all(w in l.split() for w in want),
            "row %d shows %s" % (r["rank_position"], " ".join(want)), repr(l))

def chan_line(name):
    for l in lines:
        if l.startswith(name + " "):
            return l
    return None

def trace(res, idx, k):
    r = res[idx]
    t = r["trace"]
    for ch in ["semantic", "bm25", "temporal", "hopfield", "spreading"]:
        l = chan_line(ch)
        c = t["channels"].get(ch)
        if c is None:
            say(l is not None and ("not ranked" in l or "off:" in l or "empty" in l),
                "trace row %s: not ranked" % ch, repr(l))
            continue
        tok = l.split() if l else []
        want = ["active", "%d" % c["rank"], "%.4g" % c["raw"], "%.2f" % c["weight"],
                "%.2f/(%g+%d)" % (c["weight"], k, c["rank"]), "=", "%.6f" % c["contribution"]]
        say(tok[1:8] == want, "trace row %s: %s" % (ch, " ".join(want)), repr(l))
    def has(label, text):
        l = chan_line(label)
        say(l is not None and text in l, "trace %s shows %s" % (label, text), repr(l))
    has("fused", "%.6f" % t["fused"])
    has("entity", "x %.4f" % t["entity_graph"]["factor"])
    has("entity", "boosted = %.6f" % t["fused"])
    for a in t["adjustments"]:
        has(a["name"], "x %.4f" % a["factor"])
    has("ranking", "%.6f" % r["ranking_score"])
    rel = t["relevance"]
    has("relevance", "%.6f / %.6f = %.4f" % (rel["boosted"], rel["max_boosted"], r["relevance_score"]))
    fl = t["floor"]
    has("floor", ("passed by %s" % fl["passed_by"]) if fl["passed_by"] else "cut")

if what == "results":
    res = load(3)
    rows(res)
    trace(res["results"], int(sys.argv[4]), res["rrf_k"])
elif what == "misses":
    res = load(3)
    say(res["abstained"] and res["abstention_reason"] == "evidence_floor", "recall abstains too")
    for m in res["floor"]["nearest_misses"]:
        say(any(m["id"] in l.split() for l in lines), "nearest miss %s listed" % m["id"])
    trace(res["floor"]["nearest_misses"], 0, res["rrf_k"])
elif what == "order":
    res, base = load(3), load(4)
    want = [r["id"] for r in res["results"]]
    got = []
    for l in lines:
        m = re.match(r"^\s*(\d+) +\S+ +(\S+) ", l)
        if m and 1 <= int(m.group(1)) <= 10 and m.group(2) in want + [b["id"] for b in base["results"]]:
            got.append(m.group(2))
    say(got == want, "what-if order is recall --weights' order", "got %s want %s" % (got, want))
    bids = [b["id"] for b in base["results"]]
    for r in res["results"]:
        l = row_of(r["rank_position"]) or ""
        if r["id"] in bids:
            d = bids.index(r["id"]) + 1 - r["rank_position"]
            mv = "=" if d == 0 else ("↑%d" % d if d > 0 else "↓%d" % -d)
        else:
            mv = "new"
        say(mv in l.split(), "%s moves %s" % (r["id"], mv), repr(l))
    shared = len(set(want[:10]) & set(bids[:10]))
    of = max(min(10, len(want)), min(10, len(bids)))
    say("overlap@10 %d/%d" % (shared, of) in screen, "overlap@10 %d/%d" % (shared, of))
    for b in bids:
        if b not in want:
            say(any(b in l.split() and "gone" in l.split() for l in lines), "%s shown gone" % b)
elif what == "explain":
    ex = load(3)["explain"]
    say(("Why not %s? %s" % (ex["id"], ex["verdict"])) in screen, "why-not verdict %s" % ex["verdict"])
    if "fused" in ex:
        say(("fused %.6f (position %d" % (ex["fused"], ex["fused_rank"])) in screen, "why-not fused score")
elif what == "colors":
    sgr = re.findall(r"\x1b\[([0-9;:]*)m", screen)
    colour = []
    for s in sgr:
        ps = [p for p in re.split("[;:]", s) if p]
        if any(p in ("38", "48") or 30 <= int(p) <= 37 or 40 <= int(p) <= 47
               or 90 <= int(p) <= 97 or 100 <= int(p) <= 107 for p in ps):
            colour.append(s)
    want = sys.argv[3] == "yes"
    say(bool(colour) == want, "colour escapes %s" % ("present" if want else "absent"),
        "found %s" % colour[:5])
EOF

stty_same() { cmp -s "$T/stty.before" "$T/stty.after"; }
Q_DENTIST="When is my dentist appointment?"
"$MEMSCOPE" recall --db "$DB" --json --trace "$Q_DENTIST" >"$T/dentist.json" || bail "recall failed"

# ---- query line, columns, rows and trace against the JSON --------------------

start 120 50 "$MEMSCOPE" --db "$DB"
wait_for "Query ▸"
ok $? "the browser starts with the query line"
is "$(tm display -p -t t '#{alternate_on}')" 1 "it uses the alternate screen"
type_text "$Q_DENTIST"
wait_for "Mem.Conf"
ok $? "results follow as you type (no Enter)"
keys Enter
wait_for "Trace of"
for h in Relevance Trust Mem.Conf Ranking Date Speaker Content; do
    grep -q " $h " "$T/screen" || grep -q " $h\$" "$T/screen"
    ok $? "column header $h"
done
wait_for "Relevance is query-relative; Trust and Mem.Conf belong to the memory; nothing here is an answer probability."
ok $? "the legend line"
check results "$T/screen" "$T/dentist.json" 0
grep -qE "sem(antic)? [0-9]+" "$T/screen"
ok $? "status bar: channel candidates"
grep -qF "$(basename "$DB")" "$T/screen" && grep -qF "temporal · k 15" "$T/screen"
ok $? "status bar: store, query type and k"

keys Down
wait_for "Trace of $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][1]["id"])' "$T/dentist.json"), rank 2"
ok $? "Down selects the next row and its trace"
check results "$T/screen" "$T/dentist.json" 1

# ---- line editing and history ------------------------------------------------

keys /
keys C-u
type_text "hello big world"
keys C-w
wait_gone "world"
wait_for "Query ▸ hello big"
ok $? "Ctrl-W deletes the word before the cursor"
keys C-u
wait_gone "hello big"
ok $? "Ctrl-U empties the line"
keys Up
wait_for "Query ▸ $Q_DENTIST"
ok $? "Up brings back the last query from the history"
grep -qF "dentist" "$XDG_STATE_HOME/memscope/history"
ok $? "the history is kept in \$XDG_STATE_HOME/memscope/history"
# / goes to the query line (as less and vim start a search): typed on the
# focused, empty line it is no text; inside a query it is.
keys C-u
wait_gone "$Q_DENTIST"
keys /
type_text "dentist and/or yoga"
wait_for "Query ▸ dentist and/or yoga"
ok $? "/ on the empty query line types nothing; / inside the query is text"
keys Enter
wait_for "Trace of"
keys /
type_text "/"
wait_for "Query ▸ dentist and/or yoga/"
ok $? "/ from the results goes to the query line, keeping it; another / is text"

# ---- off-topic: the evidence_floor banner and its misses ---------------------

Q_OFF="What is the capital of Australia?"
"$MEMSCOPE" recall --db "$DB" --json --trace "$Q_OFF" >"$T/off.json"
query "$Q_OFF"
wait_for "ABSTAINED — evidence_floor"
ok $? "off-topic query: the banner names evidence_floor"
# "capital" is the word the question asks about and no memory holds it:
# the banner names it, and the predicate's words no candidate holds.
wait_for 'Nothing about "capital". No candidate holds: capital australia.'
ok $? "the banner says what part of the question found no support"
wait_for "Floor rule: " && wait_for "best remainder cosine 0.182 vs 0.28"
ok $? "the banner states the floor rule and the best values against the thresholds"
wait_for "nearest misses, cut by the evidence floor"
ok $? "nearest misses listed"
check misses "$T/screen" "$T/off.json"

# An on-topic question: Leah is the store's main speaker, but nothing says
# anything about blood. Naming her is not evidence; the banner says what
# found no support, for whom.
query "What is Leah's blood type?"
wait_for "ABSTAINED — evidence_floor"
ok $? "on-topic question with no support: the banner names evidence_floor"
wait_for 'Nothing about "blood" for Leah. No candidate holds: blood.'
ok $? "the banner says: nothing about the predicate, for the speaker named"

# ---- no_candidates ---------------------------------------------------------------

Q_NONE="gizmo quokka kiwi"
"$MEMSCOPE" recall --db "$DB" --json --disable semantic,hopfield "$Q_NONE" >"$T/none.json"
query "$Q_NONE"
wait_for "ABSTAINED"
keys 1 4
wait_for "ABSTAINED — no_candidates"
ok $? "with the dense channels off (what-if 1, 4): no_candidates"
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["abstention_reason"])' "$T/none.json")" \
    no_candidates "recall --disable semantic,hopfield agrees"
wait_for "No channel produced a single candidate"
ok $? "the banner says why"
wait_for "OFF:disabled"
ok $? "a disabled channel is marked OFF in the status bar"
wait_for "bm25 0 EMPTY"
ok $? "an empty channel is marked EMPTY"
keys 0
wait_gone "WHAT-IF"
ok $? "0 resets the what-if"

# ---- what-if against recall --weights -------------------------------------------

"$MEMSCOPE" recall --db "$DB" --json --weights bm25=3 "$Q_DENTIST" >"$T/bm25.json"
query "$Q_DENTIST"
wait_for "Trace of"
keys w + + + + + + + +
wait_for "bm25 3.00"
ok $? "w then + raises the bm25 weight to 3.00"
wait_for "overlap@10"
check order "$T/screen" "$T/bm25.json" "$T/dentist.json"
keys 0
wait_gone "WHAT-IF"

# ---- why not --------------------------------------------------------------------

"$MEMSCOPE" recall --db "$DB" --json --explain m0116 "$Q_DENTIST" >"$T/explain.json"
keys i
wait_for "Pin id ▸"
ok $? "i opens the pin-by-id prompt"
type_text m0116
keys Enter
wait_for "Why not m0116?"
ok $? "the lower pane explains the pinned memory"
check explain "$T/screen" "$T/explain.json"

# ---- detail view -------------------------------------------------------------------

keys Home Enter
wait_for "Memory m0113"
ok $? "Enter opens the detail view"
wait_for "trust             alpha 9, beta 1"
ok $? "detail: trust as alpha and beta"
wait_for "entities (" && wait_for "memory_confidence 0.95"
ok $? "detail: entities and stored fields"
wait_for "status            current" && wait_for "vector            hash"
ok $? "detail: the memory's status and its vector's model"
keys Down
wait_for "edges ("
keys Down Enter
wait_for "back to the previous memory"
ok $? "Enter on an edge opens the memory at its other end"
keys Escape
wait_for "Memory m0113"
ok $? "Esc goes back to the previous memory"
keys Escape
wait_for "Trace of"
ok $? "Esc closes the detail view"

# ---- the mouse, through the terminal ---------------------------------------------------
# SGR mouse reports (what xterm sends with mode 1006, which ncurses turns on
# for TERM=xterm-256color), written into the pane as the terminal would.

# mouse BUTTON ROW: a press of BUTTON (0 left, 64 wheel up, 65 wheel down) at
# column 10 of screen row ROW (1-based, as capture-pane's line numbers), and
# for the left button its release, each written on its own as a terminal does.
mouse() {
    tm send-keys -t t -l $'\e[<'"$1;10;$2M"
    if [ "$1" = 0 ]; then
        sleep 0.03
        tm send-keys -t t -l $'\e[<'"$1;10;$2m"
    fi
    sleep 0.03
}
# at RANK: set y to the screen row showing the result of that rank, and id
# to its memory's id.
at() {
    screen
    local line
    line=$(grep -nE "^ *$1 .*m[0-9]{4} " "$T/screen" | head -1)
    y=${line%%:*}
    id=$(echo "$line" | grep -oE 'm[0-9]{4}' | head -1)
}

at 4
mouse 0 "$y"
wait_for "Trace of $id, rank 4"
ok $? "a click on the fourth row selects it and shows its trace"
at 5
mouse 65 "$y"
wait_for "Trace of $id, rank 5"
ok $? "the wheel down over the results moves the selection down one"
at 4
mouse 64 "$y"
wait_for "Trace of $id, rank 4"
ok $? "the wheel up moves it back"
at 2
# two clicks within 400 ms: a loaded machine can stretch the gap between
# two tmux commands past that, so up to three tries
for try in 1 2 3; do
    mouse 0 "$y"
    mouse 0 "$y"
    WAIT=30 wait_for "Memory $id" 2>/dev/null && break
done
wait_for "Memory $id"
ok $? "a double click on the second row opens its detail view"
keys Escape
wait_for "Trace of $id, rank 2"
ok $? "Esc closes it, the row still selected"
mouse 0 1
keys C-u
type_text "vet appointment for Biscuit"
wait_for "Query ▸ vet appointment for Biscuit"
ok $? "a click on the query line (focus was on the results) sends typing there"
keys C-u
type_text "$Q_DENTIST"
wait_for "Query ▸ $Q_DENTIST"
keys Enter
wait_for "Trace of"
keys Home

# ---- help ---------------------------------------------------------------------------

keys '?'
wait_for "memscope browser: every key"
ok $? "? opens the help"
wait_for "pin the selected memory" && wait_for "choose the channel that + and - change"
ok $? "the help lists the actions"
keys Escape
wait_gone "memscope browser: every key"
ok $? "Esc closes the help"

# ---- resize, redraw --------------------------------------------------------------

tm resize-window -t t -x 30 -y 8
wait_for "terminal too small"
ok $? "a tiny terminal shows 'terminal too small'"
tm resize-window -t t -x 100 -y 30
wait_for "Mem.Conf"
ok $? "back to 100x30, the results return"
keys C-l
wait_for "Mem.Conf"
ok $? "Ctrl-L redraws"

# ---- quit ---------------------------------------------------------------------------

keys q
is "$(wait_rc)" 0 "q exits 0"
is "$(tm display -p -t t '#{alternate_on}')" 0 "the alternate screen is left"
stty_same
ok $? "the terminal settings are restored"
is "$(cat "$T/stderr")" "" "nothing on stderr"

# ---- Ctrl-C, colours, NO_COLOR -----------------------------------------------------

start 100 30 "$MEMSCOPE" --db "$DB"
wait_for "Query ▸"
type_text "$Q_DENTIST"
wait_for "Trace of"
tm capture-pane -p -e -t t >"$T/escreen"
check colors "$T/escreen" yes
keys C-c
is "$(wait_rc)" 0 "Ctrl-C exits 0"
stty_same
ok $? "the terminal is restored after Ctrl-C"

start 100 30 env NO_COLOR=1 "$MEMSCOPE" --db "$DB"
wait_for "Query ▸"
type_text "$Q_DENTIST"
wait_for "Trace of"
tm capture-pane -p -e -t t >"$T/escreen"
check colors "$T/escreen" no
keys Escape q
is "$(wait_rc)" 0 "NO_COLOR: q exits 0"

# ---- themes and config ---------------------------------------------------------------

printf 'color normal default default\ncolor no_such_role red blue bold\n' \
    >"$XDG_CONFIG_HOME/memscope/themes/broken"
start 200 30 "$MEMSCOPE" --db "$DB" --theme broken
wait_for "broken:2:7: unknown role 'no_such_role'"
ok $? "a malformed theme: one error naming file:line:col"
wait_for "using the default theme"
ok $? "and the default theme is used"
keys C-c
wait_rc >/dev/null
for th in light high-contrast monochrome default; do
    start 100 30 "$MEMSCOPE" --db "$DB" --theme "$th"
    wait_for "Query ▸"
    grep -qF "memscope:" "$T/screen"
    ok $((!$?)) "theme $th loads without an error"
    keys C-c
    wait_rc >/dev/null
done
# Where themes are found (theme.h, theme_dirs): a binary outside the tree
# and not installed finds the tree's; MEMSCOPE_THEME_PATH comes first.
mkdir -p "$T/bin" "$T/tp"
cp "$MEMSCOPE" "$T/bin/memscope"
start 100 30 "$T/bin/memscope" --db "$DB" --theme light
wait_for "Query ▸"
grep -qF "memscope:" "$T/screen"
ok $((!$?)) "a copy of the binary outside the tree finds theme light (in the tree it was built from)"
keys C-c
wait_rc >/dev/null
# An older install's themes (here a broken light in an XDG_DATA_DIRS folder):
# the binary in the tree takes the tree's; the copy outside keeps the
# documented order and takes the install's.
mkdir -p "$T/inst/memscope/themes"
printf 'color nope red blue\n' >"$T/inst/memscope/themes/light"
start 200 30 env XDG_DATA_DIRS="$T/inst" "$MEMSCOPE" --db "$DB" --theme light
wait_for "Query ▸"
grep -qF "memscope:" "$T/screen"
ok $((!$?)) "the binary in the tree prefers the tree's theme light to an older install's"
keys C-c
wait_rc >/dev/null
start 200 30 env XDG_DATA_DIRS="$T/inst" "$T/bin/memscope" --db "$DB" --theme light
wait_for "$T/inst/memscope/themes/light:1:7: unknown role 'nope'"
ok $? "a copy outside the tree keeps the documented order: the install's light first"
keys C-c
wait_rc >/dev/null
printf 'color normal default default\ncolor nope red blue\n' >"$T/tp/broken"
start 200 30 env MEMSCOPE_THEME_PATH="$T/none:$T/tp" "$MEMSCOPE" --db "$DB" --theme broken
wait_for "$T/tp/broken:2:7: unknown role 'nope'"
ok $? "MEMSCOPE_THEME_PATH's folders come before \$XDG_CONFIG_HOME/memscope/themes"
keys C-c
wait_rc >/dev/null
printf 'ranking off\nlimit 5\n' >"$XDG_CONFIG_HOME/memscope/config"
start 100 30 "$MEMSCOPE" --db "$DB"
wait_for "Query ▸"
type_text "$Q_DENTIST"
wait_for "Trace of"
grep -q " Ranking " "$T/screen"
ok $((!$?)) "config: ranking off hides the Ranking column"
grep -qE "^ +6 m0" "$T/screen"
ok $((!$?)) "config: limit 5"
keys C-c
wait_rc >/dev/null
printf 'bogus 1\n' >"$XDG_CONFIG_HOME/memscope/config"
start 200 30 "$MEMSCOPE" --db "$DB"
wait_for "config:1:1: unknown setting 'bogus'"
ok $? "a malformed config: one error naming file:line:col"
keys C-c
wait_rc >/dev/null
rm -f "$XDG_CONFIG_HOME/memscope/config"

# ---- hostile text: escape sequences stay visible, the title stays -------------------

cp "$DB" "$T/hostile.db"
printf '%s\n' '{"id":"evil1","content":"Biscuit quokka \u001b]2;pwned\u0007 then \u001b[2J cleared \u202e reversed","speaker":"Mallory\u001b[31m","created_at":"2026-10-01T00:00:00Z"}' >"$T/evil.jsonl"
"$MEMSCOPE" import --db "$T/hostile.db" "$T/evil.jsonl" >/dev/null || bail "cannot import the hostile memory"
start 120 40 "$MEMSCOPE" --db "$T/hostile.db"
wait_for "Query ▸"
title=$(tm display -p -t t '#{pane_title}')
Q_EVIL="Biscuit quokka reversed"
rank=$("$MEMSCOPE" recall --db "$T/hostile.db" --json "$Q_EVIL" |
    python3 -c 'import json,sys; ids=[r["id"] for r in json.load(sys.stdin)["results"]]; print(ids.index("evil1") + 1 if "evil1" in ids else 0)')
[ "$rank" -gt 0 ] || bail "recall does not return the hostile memory"
type_text "$Q_EVIL"
keys Enter
wait_for 'evil1'
for ((k = 1; k < rank; k++)); do keys Down; done
wait_for "Trace of evil1"
keys Enter
wait_for 'Memory evil1'
wait_for '\x1b]2;pwned\x07 then \x1b[2J cleared <U+202E> reversed'
ok $? "ESC, OSC, CSI and U+202E are shown as visible escapes"
wait_for 'Mallory\x1b[31m'
ok $? "escapes in the speaker too"
is "$(tm display -p -t t '#{pane_title}')" "$title" "the pane title is untouched"
tm display -p -t t '#{window_name}' | grep -q pwned
ok $((!$?)) "the window name is untouched"
wait_for "Relevance is query-relative"
ok $? "the screen was not cleared"
tm capture-pane -p -e -t t >"$T/escreen"
grep -qF $'\e[2J' "$T/escreen"
ok $((!$?)) "no raw CSI 2J reaches the screen"
keys q # closes the detail view
wait_gone "Memory evil1"
keys q
is "$(wait_rc)" 0 "q exits 0 after hostile text"

# ---- read-only, refresh after another process wrote ---------------------------------

cp "$DB" "$T/ro.db"
chmod 444 "$T/ro.db"
start 100 30 "$MEMSCOPE" --db "$T/ro.db" --read-only
wait_for "Query ▸"
type_text "$Q_DENTIST"
wait_for "Trace of"
ok $? "--read-only opens a read-only store"
keys C-c
is "$(wait_rc)" 0 "--read-only: exits 0"

cp "$DB" "$T/rw.db"
start 100 30 "$MEMSCOPE" --db "$T/rw.db"
wait_for "Query ▸"
type_text "$Q_DENTIST"
wait_for "Trace of"
"$MEMSCOPE" add --db "$T/rw.db" "The dentist moved my appointment to Friday" >/dev/null
wait_for "The store changed"
ok $? "another process wrote: the browser offers to refresh"
keys Escape R
wait_gone "The store changed"
ok $? "R runs the query again"
keys q
wait_rc >/dev/null

# ---- Ctrl-R history search ------------------------------------------------------------

start 100 30 "$MEMSCOPE" --db "$DB"
wait_for "Query ▸"
keys C-r
type_text "capital"
wait_for "→ $Q_OFF"
ok $? "Ctrl-R finds an older query"
keys Enter
wait_for "ABSTAINED — evidence_floor"
ok $? "Enter runs the found query"
keys q
wait_rc >/dev/null

# ---- feedback keys: y marks relevant, x not relevant, and the trace shows it -----------

cp "$DB" "$T/fb.db"
QF="When is my dentist appointment?"
first=$("$MEMSCOPE" recall --db "$T/fb.db" --json "$QF" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
start 120 40 "$MEMSCOPE" --db "$T/fb.db"
wait_for "Query ▸"
query "$QF"
wait_for "Trace of $first"
keys Tab
keys x
wait_for "marked $first not relevant"
ok $? "x marks the selected memory not relevant"
wait_for "feedback   x"
ok $? "the trace shows the feedback adjustment"
keys q
wait_rc >/dev/null
"$MEMSCOPE" feedback --db "$T/fb.db" --list >"$T/fb.list"
grep -q "^- $first	temporal	$QF" "$T/fb.list"
ok $? "the judgement is stored where memscope feedback --list sees it"
after=$("$MEMSCOPE" recall --db "$T/fb.db" --json "$QF" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
ok $([ "$after" != "$first" ]; echo $?) "the memory marked not relevant no longer ranks first"

# ---- the second stage's adjustments in the trace pane -----------------------------

# The second stage's adjustments come from the trace data: the other
# speaker's reply to a turn of the named speaker carries the exchange
# adjustment (engine/stage2.c), and its row in the trace pane shows it.
Q_LEAH="What did Leah say about the dentist?"
"$MEMSCOPE" recall --db "$DB" --json --trace "$Q_LEAH" >"$T/leah.json" || bail "recall failed"
ex=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["results"]
print(next((i for i, h in enumerate(r) if any(a["name"] == "exchange" for a in h["trace"]["adjustments"])), -1))' "$T/leah.json")
[ "$ex" -ge 0 ]
ok $? "a reply in the demo store carries the exchange adjustment"
start 120 50 "$MEMSCOPE" --db "$DB"
wait_for "Query ▸"
query "$Q_LEAH"
wait_for "Trace of $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["id"])' "$T/leah.json"), rank 1"
for _ in $(seq 1 "$ex"); do keys Down; done
exid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["id"])' "$T/leah.json" "$ex")
wait_for "Trace of $exid, rank $((ex + 1))"
ok $? "Down reaches the reply $exid"
check results "$T/screen" "$T/leah.json" "$ex"
grep -q "exchange *x 2.0000" "$T/screen"
ok $? "the trace pane shows the exchange adjustment"
keys q
wait_rc >/dev/null

# ---- the demo tour ----------------------------------------------------------------------

start 100 40 "$MEMSCOPE" demo --db "$T/tour.db" --tour
wait_for "Tour 1/6"
ok $? "demo --tour opens the browser on the tour"
for step in 2 3 4 5 6; do
    keys n
    wait_for "Tour $step/6"
    ok $? "tour step $step"
done
wait_for "ABSTAINED — no_candidates"
ok $? "the last step shows no_candidates"
keys q
is "$(wait_rc)" 0 "the tour quits with 0"

# At 80x24 and 120x36 (and the smallest screen, 60x14): step 1's confident
# hit is the answer, m0037, at rank 1 and named by the caption; step 6 shows
# its what-if; no caption is cut in the middle of a sentence (the line before
# the result header or the WHAT-IF line ends one).
# caption_end: the last line of the caption on the screen.
caption_end() {
    awk '/^ Tour [0-9]\/6/ {on = 1} on && (/^  # / || /^ WHAT-IF  /) {print last; exit} on {last = $0}' "$T/screen"
}
tour_captions() {
    start "$cols" "$rows_" "$MEMSCOPE" --db "$T/tour.db"
    wait_for "Query ▸"
    keys Escape
    sleep 0.2
    keys T
    wait_for "Tour 1/6"
    cut=0 # 1 once a caption ends mid-sentence
    if [ "$at" != 60x14 ]; then
        grep -q "^  1 m0037 " "$T/screen" && grep -q "A confident hit. m0037 ranks first" "$T/screen"
        ok $? "$at: step 1's confident hit, m0037, is the answer at rank 1 and the caption says so"
    fi
    case "$(caption_end)" in *.) ;; *) cut=1; diag "$at step 1 caption ends: $(caption_end)" ;; esac
    for step in 2 3 4 5 6; do
        keys n
        wait_for "Tour $step/6"
        case "$(caption_end)" in *.) ;; *) cut=1; diag "$at step $step caption ends: $(caption_end)" ;; esac
    done
    ok $cut "$at: every step's caption ends a sentence"
    if [ "$at" != 60x14 ]; then
        grep -q "^ WHAT-IF .*sem off.*hop off" "$T/screen" && grep -q "ABSTAINED — no_candidates" "$T/screen"
        ok $? "$at: step 6 switches semantic and hopfield off by what-if and shows no_candidates"
    fi
    keys q
    wait_rc >/dev/null
}
for_each_size tour_captions 80x24 120x36 60x14

tap_done
