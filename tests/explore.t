#!/bin/bash
# explore.t - the browser as an explorer, driven in tmux at 80x24 and
# 120x36: an empty query lists every memory of a 10k-memory store (first
# screen, PgDn, End), sorting (o, O), grouping (t), find (F, n, N), the
# entity view (E) and an entity's memories, walking a memory's edges and
# back, the profile picker (P) and an empty profile's screen, and q closing
# the view on screen before it quits. Expected ids and counts come from the
# store itself, read with sqlite3.
#
# Needs $MEMSCOPE, tmux, python3 and sqlite3; a private tmux server and a
# temporary directory are removed at the end. Waits poll the screen.
set -u

. "$(dirname "$0")/tap.sh"
for tool in tmux sqlite3; do
    if ! command -v $tool >/dev/null; then
        echo "1..0 # SKIP $tool is needed"
        exit 0
    fi
done

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-explore-t.XXXXXX") || bail "mktemp failed"
SOCK="memscope-explore-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
unset MEMSCOPE_DB MEMSCOPE_PROFILE NO_COLOR
export HOME="$T/home" XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config" \
    XDG_DATA_HOME="$T/data" LANG=C.UTF-8 LC_ALL=C.UTF-8
mkdir -p "$HOME"
WAIT=${MEMSCOPE_TEST_WAIT:-300} # tenths of a second a wait may take

BIG="$T/big.db"
# 10,000 memories over 300 days, sessions of 30 turns, five speakers (one
# of them rarer), every third with an event time.
awk 'BEGIN {
    split("Wes Farid Ana Bo", sp, " ")
    for (i = 0; i < 10000; i++) {
        d = int(i / 34); m = 1 + int(d / 28) % 12; day = 1 + d % 28
        who = i % 97 == 0 ? "Quill" : sp[1 + i % 4]
        ev = i % 3 ? "" : sprintf(",\"event_time\":\"2022-%02d-%02dT00:00:00Z\"", 1 + i % 12, 1 + (i * 7) % 28)
        printf "{\"id\":\"g%05d\",\"content\":\"turn %d of the log\",\"speaker\":\"%s\",\"session\":\"s%03d\",\"created_at\":\"2023-%02d-%02dT%02d:00:00Z\"%s}\n", i, i, who, int(i / 30), m, day, i % 24, ev
    }
}' >"$T/big.jsonl"
"$MEMSCOPE" import --db "$BIG" "$T/big.jsonl" >/dev/null 2>&1 || bail "cannot build the 10k store"
DEMO="$T/demo.db"
"$MEMSCOPE" demo --db "$DEMO" --force >/dev/null || bail "cannot write the demo store"
"$MEMSCOPE" add --db "$DEMO" --profile work --speaker Ana "the quarterly plan is due" >/dev/null ||
    bail "cannot add to profile work"

cat >"$T/run.sh" <<EOF
#!/bin/bash
export TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME="$HOME"
export XDG_STATE_HOME="$XDG_STATE_HOME" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" XDG_DATA_HOME="$XDG_DATA_HOME"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}"
"\$@" 2>"$T/stderr"
echo \$? >"$T/rc"
exec sleep 600
EOF
chmod +x "$T/run.sh"

start() { # start COLS ROWS ARGS...
    local cols=$1 rows=$2
    shift 2
    tm_start "$cols" "$rows" "$T/run.sh $*"
}
. "$(dirname "$0")/tmux.sh" # screen, settle, wait_for, wait_gone, wait_rc, keys, type_text
# row_of ID: the screen line that shows memory ID in the listing's id column.
row_of() { grep -E "^(» |  )$1 " "$T/screen"; }
sql() { sqlite3 "$1" "$2"; }
ORDER_DATE="ORDER BY created_ts, rid"
ORDER_EVENT="ORDER BY (event_ts IS NULL), event_ts, rid"

listing() {
    # ---- the listing of a 10k store -------------------------------------------------
    start "$cols" "$rows_" "$MEMSCOPE" --db "$BIG" --read-only
    wait_for "Every memory (10000), by date"
    ok $? "$at: an empty query lists every memory of the 10k store"
    first=$(sql "$BIG" "SELECT id FROM memories $ORDER_DATE LIMIT 1")
    row_of "$first" >/dev/null
    ok $? "$at: the first row is the oldest memory ($first)"
    keys Escape
    keys NPage
    page=$((rows_ - 7)) # the rows a page moves: the listing's height less one
    id_at=$(sql "$BIG" "SELECT id FROM memories $ORDER_DATE LIMIT 1 OFFSET $page")
    wait_for "$id_at"
    ok $? "$at: PgDn pages down to position $page ($id_at)"
    keys G
    last=$(sql "$BIG" "SELECT id FROM memories ORDER BY created_ts DESC, rid DESC LIMIT 1")
    wait_for "$last"
    ok $? "$at: End shows the newest memory ($last)"
    keys g
    wait_for "$first"
    # ---- sort ----------------------------------------------------------------------
    keys o
    wait_for "by event"
    ok $? "$at: o sorts by event time"
    ev=$(sql "$BIG" "SELECT id FROM memories $ORDER_EVENT LIMIT 1")
    row_of "$ev" >/dev/null
    ok $? "$at: the first row is the earliest event ($ev)"
    keys O
    wait_for "by event descending"
    ev=$(sql "$BIG" "SELECT id FROM memories ORDER BY (event_ts IS NULL), event_ts DESC, rid DESC LIMIT 1")
    row_of "$ev" >/dev/null
    ok $? "$at: O reverses it ($ev first)"
    for ((k = 0; k < 7; k++)); do keys o; done # back round to date, still descending
    wait_for "by date descending"
    row_of "$last" >/dev/null
    ok $? "$at: round the columns back to date, newest first"
    # ---- group ---------------------------------------------------------------------
    keys t
    wait_for "by session descending, by session"
    s1=$(sql "$BIG" "SELECT session FROM memories ORDER BY (session IS NULL), session DESC, rid DESC LIMIT 1")
    grep -qF -- "── session $s1 ──" "$T/screen"
    ok $? "$at: t groups by session ($s1 first)"
    keys t
    wait_for "by day"
    d1=$(sql "$BIG" "SELECT substr(created_at, 1, 10) FROM memories ORDER BY created_ts DESC, rid DESC LIMIT 1")
    grep -qF -- "── $d1 ──" "$T/screen"
    ok $? "$at: t again: a timeline by day ($d1 first)"
    keys t
    wait_for "by date descending  ("
    # ---- find ----------------------------------------------------------------------
    spk=$(sql "$BIG" "SELECT speaker FROM memories WHERE speaker IS NOT NULL GROUP BY speaker ORDER BY count(*), speaker LIMIT 1")
    n_spk=$(sql "$BIG" "SELECT count(*) FROM memories WHERE lower(speaker) LIKE '%' || lower('$spk') || '%'")
    keys F
    wait_for "Find (field:text)"
    type_text "speaker:$spk"
    keys Enter
    wait_for ": $n_spk match"
    ok $? "$at: F speaker:$spk counts $n_spk matches"
    m1=$(sql "$BIG" "SELECT id FROM memories WHERE instr(lower(speaker), lower('$spk')) ORDER BY created_ts DESC, rid DESC LIMIT 1")
    grep -qE -- "^» $m1 " "$T/screen"
    ok $? "$at: the first match is marked and shown ($m1)"
    keys n
    m2=$(sql "$BIG" "SELECT id FROM memories WHERE instr(lower(speaker), lower('$spk')) ORDER BY created_ts DESC, rid DESC LIMIT 1 OFFSET 1")
    wait_for "» $m2 "
    ok $? "$at: n goes to the next match ($m2)"
    keys q
    is "$(wait_rc)" 0 "$at: q on the listing quits, exit 0"
}
for_each_size listing 80x24 120x36

# ---- entities, edges, views (120x36 and 80x24, the demo store) ----------------------
entities_and_edges() {
    start "$cols" "$rows_" "$MEMSCOPE" --db "$DEMO"
    wait_for "Every memory ("
    keys Escape
    keys E
    wait_for "Entities of profile default"
    ok $? "$at: E opens the entity view"
    top=$(sql "$DEMO" "SELECT e.name || ' ' || count(*) FROM entities e JOIN memory_entities l ON l.eid = e.eid WHERE e.profile = 'default' GROUP BY e.eid ORDER BY count(*) DESC, e.name LIMIT 1")
    name=${top% *}
    count=${top##* }
    grep -qE "^ +$count +[a-z]+ +$name\$" "$T/screen"
    ok $? "$at: the most linked entity first, with its count ($name, $count)"
    keys Enter
    wait_for "Memories mentioning $name ($count)"
    ok $? "$at: Enter lists the memories that mention it"
    keys Enter
    wait_for " Memory "
    ok $? "$at: Enter opens one"
    id=$(sed -n 's/^ Memory \([^ ]*\) .*/\1/p' "$T/screen" | head -1)
    keys Down
    keys Enter
    wait_for "back to the previous memory"
    id2=$(sed -n 's/^ Memory \([^ ]*\) .*/\1/p' "$T/screen" | head -1)
    [ -n "$id2" ] && [ "$id2" != "$id" ]
    ok $? "$at: Down, Enter walks an edge to another memory ($id -> $id2)"
    keys Escape
    wait_for " Memory $id "
    ok $? "$at: Esc comes back to $id"
    keys q
    wait_for "Memories mentioning $name"
    ok $? "$at: q closes the detail view"
    keys q
    wait_for "Entities of profile default"
    ok $? "$at: q closes the entity's list"
    keys q
    wait_for "Every memory ("
    ok $? "$at: q closes the entity view"
    keys '?'
    wait_for "every key"
    keys q
    wait_gone "every key"
    [ ! -s "$T/rc" ]
    ok $? "$at: q closes the help without quitting"
    # ---- profiles ------------------------------------------------------------------
    keys P
    wait_for "Profiles of this store (2)"
    ok $? "$at: P opens the profile picker"
    grep -qE '^ +1  work$' "$T/screen"
    ok $? "$at: it lists profile work with its one memory"
    keys Down
    keys Enter
    wait_for "Every memory (1)"
    ok $? "$at: Enter switches to profile work"
    if [ "$cols" -ge 120 ]; then
        grep -qF "1 mem · work" "$T/screen"
        ok $? "$at: the status bar says so"
    fi
    keys q
    is "$(wait_rc)" 0 "$at: q quits from the main screen"
}
for_each_size entities_and_edges 120x36 80x24

# ---- an empty profile --------------------------------------------------------------
demo_n=$(sql "$DEMO" "SELECT count(*) FROM memories WHERE profile = 'default'")
empty_profile() {
    start "$cols" "$rows_" "$MEMSCOPE" --db "$DEMO" --profile nosuch
    wait_for "The profile \"nosuch\" holds no memories."
    ok $? "$at: an empty profile says so"
    grep -qF "Profiles with memories: default ($demo_n), work (1). P picks one" "$T/screen"
    ok $? "$at: and names the profiles that have memories"
    keys C-c
    is "$(wait_rc)" 0 "$at: Ctrl-C quits"
}
for_each_size empty_profile 120x36 80x24

# ---- a 100k store: the first screen lists at once, and pages ---------------------------
HUGE="$T/huge.db"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"id\":\"h%06d\",\"content\":\"note %d about the depot, the rota and bus %d\",\"speaker\":\"%s\",\"session\":\"s%04d\",\"created_at\":\"2024-%02d-%02dT%02d:%02d:00Z\"}\n", i, i, i % 311, (i % 2 ? "Ana" : "Bo"), int(i / 40), 1 + int(i / 8400) % 12, 1 + int(i / 300) % 28, int(i / 13) % 24, i % 60 }' >"$T/huge.jsonl"
"$MEMSCOPE" import --db "$HUGE" "$T/huge.jsonl" >/dev/null 2>&1 || bail "cannot build the 100k store"
rm -f "$T/huge.jsonl"
hfirst=$(sql "$HUGE" "SELECT id FROM memories $ORDER_DATE LIMIT 1")
hlast=$(sql "$HUGE" "SELECT id FROM memories ORDER BY created_ts DESC, rid DESC LIMIT 1")
huge_store() {
    start "$cols" "$rows_" "$MEMSCOPE" --db "$HUGE" --read-only
    wait_for "Every memory (100000), by date"
    ok $? "$at: a 100k store opens on the listing of every memory"
    row_of "$hfirst" >/dev/null
    ok $? "$at: its first row is the oldest memory ($hfirst)"
    keys Escape NPage NPage
    id_at=$(sql "$HUGE" "SELECT id FROM memories $ORDER_DATE LIMIT 1 OFFSET $((2 * (rows_ - 7)))")
    wait_for "$id_at"
    ok $? "$at: two PgDn page down to position $((2 * (rows_ - 7))) ($id_at)"
    keys G
    wait_for "$hlast"
    ok $? "$at: End shows the newest of the 100,000 ($hlast)"
    keys C-c
    is "$(wait_rc)" 0 "$at: Ctrl-C quits"
}
for_each_size huge_store 80x24 120x36

# ---- while the first screen loads, a line says so, and is gone after -------------------
# The browser's stderr is the pane here (run.sh sends it to a file): what the
# pane is sent is logged from before the browser starts.
# The browser on $BIG at 100x24 with its stderr on the pane, and what the
# pane is sent logged to $T/pane.log from before the browser starts.
# pane_logged COMMAND: the shell command line COMMAND in a pane of 100x24,
# its exit status to $T/rc, what the pane is sent logged to $T/pane.log.
pane_logged() {
    tm kill-server 2>/dev/null
    rm -f "$T/rc" "$T/pane.log"
    for ((try = 0; try < 50; try++)); do
        tm new-session -d -s t -x 100 -y 24 "sleep 1; env TERM=xterm-256color LANG=C.UTF-8 HOME=$HOME $1; echo \$? >$T/rc; exec sleep 600" 2>/dev/null && break
        sleep 0.1
    done
    tm pipe-pane -t t -o "cat >>$T/pane.log"
}
start_logged() { pane_logged "$MEMSCOPE --db $BIG"; }
start_logged
wait_for "Query ▸"
grep -qF "memscope: opening $BIG (reading its memories) ..." "$T/pane.log"
ok $? "a line on the terminal says what the browser is opening before its first screen"
keys C-c
is "$(wait_rc)" 0 "Ctrl-C quits"
screen
grep -q "memscope: opening" "$T/screen"
ok $((!$?)) "the line is erased: nothing of it is left on the terminal"
start 80 24 "$MEMSCOPE" --db "$BIG"
wait_for "Query ▸"
keys C-c
wait_rc >/dev/null
grep -q "opening" "$T/stderr"
ok $((!$?)) "with stderr not a terminal, nothing is written to it"

# ---- at quit, a line says that the snapshot file is being written ---------------------
# With no current snapshot file, the browser read the tables and writes the
# file when it quits (seconds at a million memories): a line says so while
# it does (the pane's log keeps it), erased after.
rm -f "$BIG.snap" "$BIG.snap.seal"
start_logged
wait_for "Query ▸"
keys C-c
is "$(wait_rc)" 0 "with no snapshot file, Ctrl-C quits"
grep -qF "memscope: saving the snapshot of $BIG for the next start ..." "$T/pane.log"
ok $? "while it writes the snapshot file, a line says so"
ok "$([ -s "$BIG.snap" ]; echo $?)" "and the file is written"
screen
grep -q "memscope: saving" "$T/screen"
ok $((!$?)) "the line is erased after"
start_logged
wait_for "Query ▸"
keys C-c
wait_rc >/dev/null
grep -q "memscope: saving" "$T/pane.log"
ok $((!$?)) "with the file current, nothing is written at quit and no line is shown"

# From 100,000 memories (MEMSCOPE_SNAPSHOT_SAVE=background here, at 10,000)
# the file is written by a child after the browser has quit: the terminal
# is the shell's at once, and a line that stays says which process writes
# what.
rm -f "$BIG.snap" "$BIG.snap.seal"
pane_logged "env MEMSCOPE_SNAPSHOT_SAVE=background MEMSCOPE_SNAPSHOT_SAVE_DELAY_MS=2000 $MEMSCOPE --db $BIG"
wait_for "Query ▸"
keys C-c
is "$(wait_rc)" 0 "background save: Ctrl-C quits"
ok "$([ ! -e "$BIG.snap" ]; echo $?)" "and the browser has gone before the file is written"
tm capture-pane -p -J -t t >"$T/screen" # -J: the line wraps at 100 columns
grep -qE "^memscope: process [0-9]+ writes the snapshot of $BIG for the next start in the background" "$T/screen"
ok $? "a line that stays on the terminal says which process writes the file" || diag "$(cat "$T/screen")"
for _ in $(seq 300); do [ -s "$BIG.snap" ] && break; sleep 0.1; done
ok "$([ -s "$BIG.snap" ]; echo $?)" "and the file is written after"

# ---- recall and the shell, too, say what they wait for -------------------------------
# The command in the pane, its answer to $T/answer and its stderr on the
# pane: with no snapshot file it reads the tables (a line says how far) and
# writes the file after the answer (a line says so); both are erased.
# waits_said WHO COMMAND-LINE (the store's snapshot file removed first)
waits_said() {
    rm -f "$BIG.snap" "$BIG.snap.seal" "$T/answer"
    pane_logged "$2 >$T/answer"
    is "$(wait_rc)" 0 "$1 with no snapshot file exits 0"
    grep -q "g00005" "$T/answer"
    ok $? "$1: and answers (g00005 in its output)"
    grep -qE "memscope: opening $BIG \(reading its (memories|vectors|entity links), [0-9]+ %\) \.\.\." "$T/pane.log"
    ok $? "$1: while it reads the tables, a line says how far"
    grep -qF "memscope: saving the snapshot of $BIG for the next recall ..." "$T/pane.log"
    ok $? "$1: while it writes the snapshot file, a line says so"
    ok "$([ -s "$BIG.snap" ]; echo $?)" "$1: and the file is written"
    screen
    grep -q "memscope:" "$T/screen"
    ok $((!$?)) "$1: both lines are erased: nothing of them is left on the terminal"
}
waits_said recall "$MEMSCOPE recall --db $BIG turn 5 of the log"
pane_logged "$MEMSCOPE recall --db $BIG turn 5 of the log >$T/answer"
is "$(wait_rc)" 0 "recall with the file current exits 0"
grep -q "memscope:" "$T/pane.log"
ok $((!$?)) "and shows no line: nothing to wait for"
# the shell, its commands from a file
printf 'recall turn 5 of the log\nquit\n' >"$T/shell.in"
waits_said shell "$MEMSCOPE shell --db $BIG <$T/shell.in"
rm -f "$BIG.snap" "$BIG.snap.seal"
"$MEMSCOPE" recall --db "$BIG" turn 5 of the log >"$T/recall.out" 2>"$T/recall.err"
is "$?:$(wc -c <"$T/recall.err")" "0:0" "with stderr not a terminal, recall writes nothing to it"
ok "$([ -s "$BIG.snap" ]; echo $?)" "and still writes the snapshot file"

# ---- import says how far it has got, and when it commits -------------------------------
# On a terminal, import's stderr counts the memories; at the end, while the
# index's last words are written and the transaction commits (seconds at a
# million memories), the line says "committing", then gives the final
# count and pace, which stay.
pane_logged "$MEMSCOPE import --db $T/imp.db $T/big.jsonl >$T/answer"
is "$(wait_rc)" 0 "import on a terminal exits 0"
grep -q "imported 10000 memories (10000 new" "$T/answer"
ok $? "and imports the 10,000"
grep -qE "importing: 10000 memories, [0-9.]+ MB: committing \.\.\." "$T/pane.log"
ok $? "while it commits, the line says so"
screen
grep -qE "^importing: 10000 memories, [0-9.]+ MB, [0-9]+/s *$" "$T/screen"
ok $? "then it gives the count and the pace: '$(grep -m1 importing "$T/screen")'"
grep -q "committing" "$T/screen"
ok $((!$?)) "and nothing of the commit's line is left"
rm -f "$T/imp.db"
"$MEMSCOPE" import --db "$T/imp.db" "$T/big.jsonl" >"$T/answer" 2>"$T/import.err"
is "$?:$(wc -c <"$T/import.err")" "0:0" "with stderr not a terminal, import writes nothing to it"

# ---- the line says how far the load has got, at the terminal's width --------------------
# MEMSCOPE_SNAPSHOT=off reads the snapshot from the tables, as a stale file
# does; MEMSCOPE_BROWSE_LOAD_DELAY_MS=10 holds each step it shows 10 ms, so
# that the 10k store loads for seconds.
load_line() {
    tm kill-server 2>/dev/null
    rm -f "$T/rc" "$T/pane.log"
    for ((try = 0; try < 50; try++)); do
        tm new-session -d -s t -x "$cols" -y "$rows_" "sleep 1; env TERM=xterm-256color LANG=C.UTF-8 HOME=$HOME MEMSCOPE_SNAPSHOT=off MEMSCOPE_BROWSE_LOAD_DELAY_MS=10 $MEMSCOPE --db $BIG; echo \$? >$T/rc; exec sleep 600" 2>/dev/null && break
        sleep 0.1
    done
    tm pipe-pane -t t -o "cat >>$T/pane.log"
    seen=""
    for ((i = 0; i < WAIT * 2; i++)); do
        screen
        seen=$(grep -E "^memscope: opening .* \(reading its vectors, [0-9]+ %\) \.\.\." "$T/screen") && break
        sleep 0.05
    done
    ok "$([ -n "$seen" ]; echo $?)" "$at: while the vectors load, the line says how far: '$seen'"
    is "$(python3 -c 'import sys, unicodedata; s = sys.argv[1].rstrip(); print(len(s) < int(sys.argv[2]))' "$seen" "$cols")" \
        True "$at: the line is narrower than the terminal (it never wraps)"
    if [ "$cols" -lt 100 ]; then
        tail=${seen#memscope: opening ...}
        tail=${tail%% (reading*}
        ok "$([ "$tail" != "$seen" ] && [ ${#tail} -lt ${#BIG} ] && [ "${BIG: -${#tail}}" = "$tail" ]; echo $?)" \
            "$at: the store's path is cut from its start to fit ('...$tail')"
    else
        ok "$(echo "$seen" | grep -qF "memscope: opening $BIG (reading"; echo $?)" "$at: the whole path fits"
    fi
    wait_for "Every memory (10000), by date"
    ok $? "$at: then the first screen"
    steps=$(python3 - "$T/pane.log" <<'PY'
import re, sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
parts, bad = [], []
for m in re.finditer(r"reading its ([a-z ]+), (\d+) %", text):
    what, pct = m.group(1), int(m.group(2))
    if not parts or parts[-1][0] != what:
        parts.append((what, []))
    parts[-1][1].append(pct)
names = [p[0] for p in parts]
for what, v in parts:
    if v[0] != 0 or v[-1] != 100 or any(b <= a for a, b in zip(v, v[1:])):
        bad.append(what)
print(" ".join(names).replace("entity links", "entity-links"), "bad:" + ",".join(bad) if bad else "rising")
PY
)
    is "$steps" "memories vectors entity-links rising" \
        "$at: memories, vectors and entity links, each from 0 % to 100 %, rising"
    keys C-c
    is "$(wait_rc)" 0 "$at: Ctrl-C quits"
    screen
    grep -q "memscope: opening" "$T/screen"
    ok $((!$?)) "$at: nothing of the line is left"
}
for_each_size load_line 80x24 120x36

# ---- after a change, the bottom line says how far the reload has got --------------------
# A delete makes the engine read the snapshot from the tables again: seconds
# at a million memories, while the screen still showed the question "delete
# ...?". MEMSCOPE_BROWSE_LOAD_DELAY_MS=10 makes the 10k store's reload slow
# enough to see, and shows every step of it.
cp "$BIG" "$T/bigw.db"
tm_start 120 36 "env MEMSCOPE_SNAPSHOT=off MEMSCOPE_BROWSE_LOAD_DELAY_MS=10 $T/run.sh $MEMSCOPE --db $T/bigw.db"
wait_for "Every memory (10000), by date"
ok $? "a writable copy of the 10k store opens"
keys "turn 4242" Enter
wait_for "turn 4242 of the log"
keys Escape
sleep 0.3
keys Down
sleep 0.3
keys d
wait_for "y deletes it"
ok $? "d asks before it deletes"
: >"$T/seen"
keys y
for ((i = 0; i < WAIT * 2; i++)); do
    screen
    grep -oE "reading the store again after the change \(its [a-z ]+, [0-9]+ %\) \.\.\." "$T/screen" >>"$T/seen"
    grep -q "; u brings it back" "$T/screen" && break
    sleep 0.05
done
seen=$(head -1 "$T/seen")
ok "$([ -n "$seen" ]; echo $?)" "while the store is read again, the bottom line says how far: '$seen'"
wait_for "; u brings it back"
ok $? "then the screen says what was deleted"
# The screen sampled every 50 ms: the parts in the order the store reads
# them, each one's percent never going back.
steps=$(python3 - "$T/seen" <<'PY'
import re, sys
order = ["memories", "vectors", "entity links"]
seen, last, ok = [], {}, True
for line in open(sys.argv[1]):
    m = re.search(r"\(its ([a-z ]+), (\d+) %\)", line)
    what, pct = m.group(1), int(m.group(2))
    if not seen or seen[-1] != what:
        seen.append(what)
    ok = ok and pct >= last.get(what, 0)
    last[what] = pct
ok = ok and len(seen) >= 2 and seen == sorted(seen, key=order.index) and len(set(seen)) == len(seen)
print("in order" if ok else "out of order: " + " ".join(seen))
PY
)
is "$steps" "in order" "its parts come in the order they are read (of memories, vectors, entity links), each rising"
grep -q "reading the store again" "$T/screen"
ok $((!$?)) "and nothing of the line is left"
is "$(sql "$T/bigw.db" "SELECT count(*) FROM memories")" 9999 "and the memory is gone from the store"
keys q
is "$(wait_rc)" 0 "q quits"

tap_done
