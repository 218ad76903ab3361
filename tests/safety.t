#!/bin/bash
# safety.t - the browser never writes by accident, and curates safely:
# bracketed paste (a paste of text full of command letters changes neither
# the store's bytes nor its feedback table, and never quits), the focus rule
# (after Enter, letters do not write until a row is chosen with an arrow,
# PgUp/PgDn, Home/End, Tab or the mouse), Down at the newest history entry
# keeps the line; TERM=dumb gets a one-line refusal. Curation: feedback
# as a toggle, edit in $EDITOR, delete after asking, supersedes and
# contradicts, each shown on the row and undone with u; read-only refuses.
# Why-not's defects. Driven in tmux at 80x24, 80x30 and 120x36.
#
# Needs $MEMSCOPE (absolute path of the binary; `make test` sets it) and
# tmux. A private tmux server and a temporary directory are removed at the
# end. Waits poll the screen; no fixed sleeps. Each section is a function
# run at each size by for_each_size (tmux.sh).
set -u

. "$(dirname "$0")/tap.sh"
if ! command -v tmux >/dev/null; then
    echo "1..0 # SKIP tmux is needed"
    exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-safety-t.XXXXXX") || bail "mktemp failed"
SOCK="memscope-safety-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
unset MEMSCOPE_DB MEMSCOPE_PROFILE NO_COLOR
export HOME="$T/home" XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config" \
    XDG_DATA_HOME="$T/data" LANG=C.UTF-8 LC_ALL=C.UTF-8
mkdir -p "$HOME"
DB="$T/demo.db"
"$MEMSCOPE" demo --db "$DB" --force >/dev/null || bail "cannot write the demo store"
WAIT=${MEMSCOPE_TEST_WAIT:-300} # tenths of a second a wait may take (ASan is slow)

# The program each session runs; its exit status goes to $T/rc. TERM is
# the session's (start's third argument).
cat >"$T/run.sh" <<EOS
#!/bin/bash
export TERM="\$1" LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME="$HOME"
shift
export XDG_STATE_HOME="$XDG_STATE_HOME" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" XDG_DATA_HOME="$XDG_DATA_HOME"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}"
"\$@" 2>"$T/stderr"
echo \$? >"$T/rc"
exec sleep 600
EOS
chmod +x "$T/run.sh"

# start COLS ROWS TERM ARGS...: a fresh tmux session running ARGS.
start() {
    local cols=$1 rows=$2 term=$3
    shift 3
    tm_start "$cols" "$rows" "$T/run.sh $term $*"
}
. "$(dirname "$0")/tmux.sh" # screen, settle, wait_for, ..., for_each_size
# browse COMMAND...: COMMAND (memscope's browser) at the size for_each_size
# set, TERM=xterm-256color, once it shows the query line.
browse() {
    start "$cols" "$rows_" xterm-256color "$@"
    wait_for "Query ▸"
}
# synced KEYS...: send the keys, then open and close the help, which shows
# only once every key before it was handled (no sleep that may be too short).
synced() {
    keys "$@" F1
    wait_for "every key (Esc closes"
    keys Escape
    wait_gone "every key (Esc closes"
}
# paste TEXT: paste it as a terminal does, bracketed when the program asked.
paste() {
    tm set-buffer -b p -- "$1"
    tm paste-buffer -p -d -b p -t t
}
# The store's bytes and its feedback table, to compare before and after.
store_state() {
    sha "$1"
    "$MEMSCOPE" feedback --db "$1" --list --read-only
}
running() { [ ! -s "$T/rc" ]; }
# wait_err TEXT: poll the session's standard error (a file) for TEXT.
wait_err() {
    for ((i = 0; i < WAIT; i++)); do
        grep -qF -- "$1" "$T/stderr" 2>/dev/null && return 0
        sleep 0.1
    done
    diag "timed out waiting for '$1' on stderr"
    return 1
}

Q="When is my dentist appointment?"
PASTE=$'my dentist\nmy yoga class\ny\n+\nq\nr\ni m0001\nx\nquick question\n'

# ---- a paste into the query line -------------------------------------------------

cp "$DB" "$T/p.db"
before=$(store_state "$T/p.db")
paste_in_query() {
    browse "$MEMSCOPE" --db "$T/p.db"
    paste "$PASTE"
    wait_for "quick question"
    ok $? "$at: the paste lands in the query line"
    grep -q "Query ▸ my dentist my yoga class y + q r i m0001 x quick" "$T/screen"
    ok $? "$at: its newlines became spaces"
    running
    ok $? "$at: the q in the paste did not quit"
    keys C-c
    is "$(wait_rc)" 0 "$at: Ctrl-C still quits"
    is "$(store_state "$T/p.db")" "$before" "$at: the store's bytes and feedback table are unchanged"
}
for_each_size paste_in_query 80x24 120x36

# ---- a paste after Enter (the results have the focus) ------------------------------
paste_after_enter() {
    browse "$MEMSCOPE" --db "$T/p.db"
    type_text "$Q"
    keys Enter
    wait_for "Trace of"
    keys Down Up
    paste "$PASTE"
    wait_for "quick question"
    ok $? "$at: a paste in the result pane goes to the query line"
    running
    ok $? "$at: the paste ran no command"
    grep -q "Mem.Conf" "$T/screen"
    ok $? "$at: the Ranking column is still shown (r in the paste did nothing)"
    grep -q "Pin id" "$T/screen"
    ok $((!$?)) "$at: no pin prompt opened (i in the paste did nothing)"
    keys C-c
    wait_rc >/dev/null
    is "$(store_state "$T/p.db")" "$before" "$at: the store's bytes and feedback table are unchanged"
}
for_each_size paste_after_enter 80x24 120x36

# ---- typing after Enter: letters never write until a row is chosen ----------------------------
typing_after_enter() {
    browse "$MEMSCOPE" --db "$T/p.db"
    # the status and hint lines keep what matters at either width (defect 14)
    grep -q " 329 mem · default · writable │" "$T/screen" && tail -n 1 "$T/screen" | grep -q "T tour  q quit *$"
    ok $? "$at: the status line shows the count, profile and writable; the hints end in T tour q quit"
    if [ "$cols" -ge 120 ]; then
        grep -Eq "[0-9] (KiB|MiB) · 329 mem" "$T/screen"
        ok $? "$at: the store's size in binary units (KiB or MiB)"
    fi
    type_text "$Q"
    keys Enter
    wait_for "Trace of"
    type_text "y"
    wait_for "keys that write act on a row you choose"
    ok $? "$at: y right after Enter is refused with the reason"
    type_text "x"
    screen
    grep -q "marked" "$T/screen"
    ok $((!$?)) "$at: so is x"
    keys Down
    wait_gone "keys that write act on a row you choose"
    tail -n 1 "$T/screen" | grep -q "q quit *$"
    ok $? "$at: the next key clears the message: the hints are back"
    keys C-c
    wait_rc >/dev/null
    is "$(store_state "$T/p.db")" "$before" "$at: typing after Enter wrote nothing"
}
for_each_size typing_after_enter 80x24 120x36

# ---- Down at the newest history entry keeps the line ---------------------------------------
history_down() {
    rm -rf "$XDG_STATE_HOME/memscope" # no history
    browse "$MEMSCOPE" --db "$T/p.db"
    type_text "$Q"
    wait_for "Trace of"
    synced Down
    wait_for "Query ▸ $Q"
    ok $? "$at: Down with no history keeps the typed query"
    grep -q "Trace of" "$T/screen"
    ok $? "$at: and its results"
    keys Enter / C-u
    type_text "another question"
    keys Up
    wait_for "Query ▸ $Q"
    ok $? "$at: Up shows the older entry"
    keys Down
    wait_for "Query ▸ another question"
    ok $? "$at: Down comes back to the line being typed"
    synced Down
    wait_for "Query ▸ another question"
    ok $? "$at: and Down again keeps it"
    keys C-c
    wait_rc >/dev/null
}
for_each_size history_down 80x24 120x36

# ---- feedback is a toggle per memory and query, shown on the row, undone with u ---------
feedback_toggle() {
    cp "$DB" "$T/fb.db"
    fb_rows() { sqlite3 "$T/fb.db" "SELECT count(*) FROM feedback"; }
    fb_label() { sqlite3 "$T/fb.db" "SELECT group_concat(label) FROM feedback"; }
    browse "$MEMSCOPE" --db "$T/fb.db"
    grep -q "writable" "$T/screen"
    ok $? "$at: the status line says the browser can write"
    type_text "$Q"
    keys Enter
    wait_for "Trace of"
    keys Down Up
    synced y
    grep -qF "[judged +]" "$T/screen"
    ok $? "$at: y marks the row [judged +]"
    if [ "$cols" -ge 120 ]; then # ten in all once (make test's time)
        synced y y y y y y y y y
    else
        synced y
    fi
    grep -qF "[judged" "$T/screen"
    ok $((!$?)) "$at: $([ "$cols" -ge 120 ] && echo ten || echo two) y in all: no mark (a toggle, not a counter)"
    is "$(fb_rows)" 0 "$at: and no judgement in the store"
    keys y
    wait_for "[judged +]"
    ok $? "$at: one more y marks it: [judged +]"
    is "$(fb_rows)/$(fb_label)" "1/1" "$at: one judgement, relevant, in the store"
    keys x
    wait_for "[judged -]"
    ok $? "$at: x turns it into [judged -]"
    is "$(fb_rows)/$(fb_label)" "1/-1" "$at: still one judgement, now not relevant"
    keys u
    wait_for "[judged +]"
    ok $? "$at: u undoes x: [judged +] again"
    is "$(fb_rows)/$(fb_label)" "1/1" "$at: the store has the relevant judgement back"
    keys u
    wait_for "undone:"
    wait_gone_mark() {
        for ((i = 0; i < WAIT; i++)); do
            screen
            grep -qF "[judged" "$T/screen" || return 0
            sleep 0.1
        done
        return 1
    }
    wait_gone_mark
    ok $? "$at: u again: no mark"
    is "$(fb_rows)" 0 "$at: and no judgement"
    keys C-c
    wait_rc >/dev/null

    cp "$DB" "$T/ro.db"
    before_ro=$(store_state "$T/ro.db")
    browse "$MEMSCOPE" --db "$T/ro.db" --read-only
    grep -q "READ-ONLY" "$T/screen"
    ok $? "$at: --read-only: the status line says READ-ONLY"
    type_text "$Q"
    keys Enter
    wait_for "Trace of"
    keys Down y
    wait_for "read-only: this browser does not write"
    ok $? "$at: y on a read-only browser says it does not write"
    keys C-c
    wait_rc >/dev/null
    is "$(store_state "$T/ro.db")" "$before_ro" "$at: and nothing was written"
}
for_each_size feedback_toggle 80x24 120x36

# ---- edit in $EDITOR, delete with a question, both undone with u ---------------------------

cp "$DB" "$T/e.db"
cat >"$T/ed-good.sh" <<'EOS'
#!/bin/sh
sed -i 's/^speaker: .*/speaker: Zed/; s/^memory_confidence: .*/memory_confidence: 0.5/' "$1"
sed -i '/^content:$/{n;s/^/EDITED /}' "$1"
EOS
cat >"$T/ed-bad.sh" <<'EOS'
#!/bin/sh
sed -i 's/^speaker: .*/speaker: Zed\nbogus: 1/' "$1"
EOS
printf '#!/bin/sh\ntrue\n' >"$T/ed-same.sh"
chmod +x "$T"/ed-*.sh
field() { "$MEMSCOPE" show --db "$T/e.db" --json "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[sys.argv[1]])' "$2"; }
top=$("$MEMSCOPE" recall --db "$T/e.db" --json "$Q" | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
speaker0=$(field "$top" speaker)
content0=$(field "$top" content)
count() { "$MEMSCOPE" list --db "$T/e.db" | wc -l; }
n0=$(count)
edit_and_delete() {
    browse env EDITOR="$T/ed-good.sh" "$MEMSCOPE" --db "$T/e.db"
    type_text "$Q"
    keys Enter
    wait_for "Trace of $top"
    keys Down Up e
    wait_for "edited $top; u undoes it"
    ok $? "$at: e runs the editor and writes the change"
    is "$(field "$top" speaker)/$(field "$top" memory_confidence)" "Zed/0.5" "the store has the new speaker and confidence"
    is "$(field "$top" content)" "EDITED $content0" "and the new content"
    grep -q "\[edited\]" "$T/screen"
    ok $? "$at: the row shows [edited]"
    keys u
    wait_for "undone: $top is back as it was before the edit"
    ok $? "$at: u undoes the edit"
    is "$(field "$top" speaker)/$(field "$top" content)" "$speaker0/$content0" "the memory is as it was"
    keys d
    wait_for "Delete? y/N"
    ok $? "$at: d asks first"
    keys n
    wait_for "kept $top"
    is "$(count)" "$n0" "$at: n keeps it"
    keys d
    wait_for "Delete? y/N"
    paste "y"
    wait_for "kept $top"
    ok $? "$at: a pasted y does not confirm"
    keys Escape
    wait_for "↓ picks a row"
    keys Down
    keys Up
    keys d y
    wait_for "deleted $top; u brings it back"
    ok $? "$at: d y deletes"
    is "$(count)" "$((n0 - 1))" "$at: one memory fewer in the store"
    "$MEMSCOPE" show --db "$T/e.db" "$top" >/dev/null 2>&1
    ok $((!$?)) "$at: show no longer finds it"
    keys u
    wait_for "undone: $top is back as it was before the delete"
    ok $? "$at: u brings it back"
    is "$(count)/$(field "$top" content)" "$n0/$content0" "the memory is back with its content"
    keys C-c
    wait_rc >/dev/null
}
for_each_size edit_and_delete 120x36 80x24

before_e=$(sha "$T/e.db")
bad_and_empty_edit() {
    browse env EDITOR="$T/ed-bad.sh" "$MEMSCOPE" --db "$T/e.db"
    type_text "$Q"
    keys Enter
    wait_for "Trace of"
    keys Down Up e
    wait_for "no field 'bogus'"
    grep -Eq "no field 'bogus' \(/[^ ]*memscope-edit-[^ ]*\.txt:6:1\)" "$T/screen"
    ok $? "${cols}x${rows_}: a bad line in the edited file is named with FILE:LINE:COL"
    is "$(field "$top" speaker)" "$speaker0" "${cols}x${rows_}: and nothing was written"
    keys C-c
    wait_rc >/dev/null
    browse env EDITOR="$T/ed-same.sh" "$MEMSCOPE" --db "$T/e.db"
    type_text "$Q"
    keys Enter
    wait_for "Trace of"
    keys Down Up e
    wait_for "unchanged: nothing written"
    ok $? "${cols}x${rows_}: an editor that changes nothing writes nothing"
    keys C-c
    wait_rc >/dev/null
}
for_each_size bad_and_empty_edit 80x24 120x36
is "$(sha "$T/e.db")" "$before_e" "the store's bytes after a bad and an empty edit are the same"

# ---- inline edit: one field on the prompt line, checked, one transaction, undone --------------

inline_edit() {
    D="$T/inline-$cols.db"
    cp "$DB" "$D"
    ifield() { "$MEMSCOPE" show --db "$D" --json "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get(sys.argv[1]))' "$2"; }
    top=$("$MEMSCOPE" recall --db "$D" --json "$Q" | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
    conf0=$(ifield "$top" memory_confidence)
    sp0=$(ifield "$top" speaker)
    browse "$MEMSCOPE" --db "$D"
    type_text "$Q"
    keys Enter
    wait_for "Trace of $top"
    keys Down Up s
    wait_for "Edit field of $top ▸"
    ok $? "$at: s asks which field"
    type_text "conf"
    keys Enter
    wait_for "confidence of $top ▸ $conf0"
    ok $? "$at: a prefix names the field, and the prompt holds its value ($conf0)"
    before_i=$(sha "$D")
    keys C-u
    type_text "2"
    keys Enter
    wait_for "memscope: confidence '2' is not from 0 to 1 ($top), not written"
    ok $? "$at: confidence 2 is refused with a message naming the field and the memory"
    is "$(sha "$D")" "$before_i" "$at: and the store's bytes are unchanged"
    if [ "$cols" -ge 120 ]; then # the rest of the checks once (make test's time)
        keys s
        type_text "ev"
        keys Enter
        wait_for "event_time of $top ▸"
        keys C-u
        type_text "next tuesday"
        keys Enter
        wait_for "memscope: event_time 'next tuesday' is not ISO 8601 ($top), not written"
        ok $? "$at: a bad date is refused, naming event_time and the memory"
        is "$(sha "$D")" "$before_i" "$at: and nothing changed"
    fi
    keys s
    type_text "sp"
    keys Enter
    wait_for "speaker of $top ▸ $sp0"
    keys C-u
    type_text "Zed Inline"
    keys Enter
    wait_for "edited $top; u undoes it"
    ok $? "$at: Enter writes the new speaker"
    is "$(ifield "$top" speaker)" "Zed Inline" "$at: the store has it"
    grep -q "\[edited\]" "$T/screen"
    ok $? "$at: the row shows [edited]"
    if [ "$cols" -lt 120 ]; then
        keys u
        wait_for "undone: $top is back as it was before the edit"
        is "$(ifield "$top" speaker)" "$sp0" "$at: u takes it back"
        keys C-c
        wait_rc >/dev/null
        return
    fi
    keys s
    type_text "conf"
    keys Enter
    wait_for "confidence of $top ▸"
    keys C-u
    type_text "0.25"
    keys Enter
    wait_for "edited $top; u undoes it"
    is "$(ifield "$top" memory_confidence)" 0.25 "$at: and a new confidence"
    keys u
    wait_for "undone: $top is back as it was before the edit"
    is "$(ifield "$top" memory_confidence)/$(ifield "$top" speaker)" "$conf0/Zed Inline" "$at: u takes back the last edit only"
    keys u
    wait_for "(0 more to undo)"
    is "$(ifield "$top" speaker)" "$sp0" "$at: u again, the speaker is back"
    keys s
    type_text "c"
    keys Enter
    wait_for "more than one field 'c'"
    ok $? "$at: an ambiguous prefix says so"
    keys C-c
    wait_rc >/dev/null
    browse "$MEMSCOPE" --db "$D" --read-only
    type_text "$Q"
    keys Enter
    wait_for "Trace of"
    before_ro=$(sha "$D")
    keys Down s
    wait_for "read-only: this browser does not write"
    ok $? "$at: --read-only: s says the browser does not write"
    screen
    grep -q "Edit field of" "$T/screen"
    ok $((!$?)) "$at: and opens no prompt"
    keys C-c
    wait_rc >/dev/null
    is "$(sha "$D")" "$before_ro" "$at: nothing was written"
}
for_each_size inline_edit 80x24 120x36

# ---- an undone delete puts back every row: relations, edges, entities, feedback, pin -------

# rows DB: every row of the store's tables but the text index's own and meta
# (whose generation counts commits), in a fixed order.
rows() {
    sqlite3 "$1" "SELECT * FROM memories ORDER BY rid; SELECT * FROM entities ORDER BY eid;
        SELECT * FROM memory_entities ORDER BY rid, eid; SELECT * FROM edges ORDER BY src, dst, type;
        SELECT * FROM relations ORDER BY src, dst, kind; SELECT * FROM feedback ORDER BY fid;
        SELECT rid, hex(vec) FROM vectors ORDER BY rid;"
}
QK="Marcus told the board Kestrel is slipping"
undone_delete() {
    D="$T/undel-$cols.db"
    cp "$DB" "$D"
    # m0129 sits mid-session, supersedes m0056 and m0057 and is superseded by m0180
    # (found relations, which leave the older memories' fields alone); give it a
    # judgement and a pin too
    "$MEMSCOPE" feedback --db "$D" --query "$QK" m0129 + >/dev/null
    sqlite3 "$D" "UPDATE memories SET pinned=1 WHERE id='m0129'"
    top=$("$MEMSCOPE" recall --db "$D" --json "$QK" | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
    is "$top" m0129 "$at: the query finds m0129 first"
    browse "$MEMSCOPE" --db "$D"
    type_text "$QK"
    keys Enter
    wait_for "Trace of m0129"
    keys Down Up '!'
    wait_for "Contradicts id [reason] ▸"
    type_text "m0013 not what the board heard"
    keys Enter
    wait_for "recorded: m0129 contradicts m0013"
    before_rows=$(rows "$D")
    n_rel=$(sqlite3 "$D" "SELECT count(*) FROM relations WHERE src=129 OR dst=129")
    # its session and entity edges are worked out from its rows (store/graph.c)
    edges_of() {
        "$MEMSCOPE" show --db "$D" --json m0129 | python3 -c 'import json,sys; print(json.load(sys.stdin)["edges"])'
    }
    before_edges=$(edges_of)
    n_edge=$(printf '%s' "$before_edges" | grep -o "'to'" | wc -l)
    ok $([ "$n_rel" -ge 4 ] && [ "$n_edge" -ge 4 ]; echo $?) "$at: m0129 has $n_rel relations and $n_edge edges"
    keys d
    wait_for "Delete? y/N"
    keys y
    wait_for "deleted m0129; u brings it back"
    is "$(sqlite3 "$D" "SELECT count(*) FROM relations WHERE src=129 OR dst=129")/$(sqlite3 "$D" "SELECT count(*) FROM feedback WHERE rid=129")" \
        "0/0" "$at: the delete took its relations and feedback"
    keys u
    wait_for "undone: m0129 is back as it was before the delete"
    ok $? "$at: u brings it back"
    is "$(rows "$D")" "$before_rows" "$at: every row is as before the delete (memory, entities, links, edges, relations, feedback, vector)"
    is "$(edges_of)" "$before_edges" "$at: and so are its edges"
    keys C-c
    wait_rc >/dev/null
    sqlite3 "$D" "INSERT INTO memories_fts(memories_fts, rank) VALUES('integrity-check', 1)" 2>"$T/fts.err"
    ok $? "$at: the text index agrees with the memories"
    is "$("$MEMSCOPE" recall --db "$D" --json "$QK" | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')" \
        m0129 "$at: and recall finds it first again"
}
for_each_size undone_delete 80x24 120x36

# ---- supersedes and contradicts: recorded, shown on the row, trace and detail, undone -------
relations() {
    cp "$DB" "$T/rel.db"
    rel_rows() { sqlite3 "$T/rel.db" "SELECT count(*) FROM relations"; }
    by() { "$MEMSCOPE" show --db "$T/rel.db" --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("superseded_by"))'; }
    read -r top second < <("$MEMSCOPE" recall --db "$T/rel.db" --json "$Q" |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["results"]; print(r[0]["id"], r[1]["id"])')
    rel0=$(rel_rows)
    browse "$MEMSCOPE" --db "$T/rel.db"
    type_text "$Q"
    keys Enter
    wait_for "Trace of $top"
    keys Down Up '>'
    wait_for "Supersedes id [reason] ▸"
    ok $? "$at: > asks for the memory it supersedes"
    type_text "$second the appointment moved"
    keys Enter
    wait_for "recorded: $top supersedes $second; u undoes it"
    ok $? "$at: > records the relation"
    is "$(rel_rows)/$(by "$second")" "$((rel0 + 1))/$top" "the store has it, and $second is superseded by $top"
    grep -q "\[supersedes $second\]" "$T/screen"
    ok $? "$at: the row shows [supersedes $second]"
    # the trace's last lines (Tab to the trace, G to its end; Tab Tab back
    # through the query line, Down Up to choose the row again) and the detail
    # view's edges, scrolled to where the screen is short
    keys Tab G
    wait_for "relations  supersedes $second"
    grep -q "^relations  supersedes $second: the appointment moved" "$T/screen"
    ok $? "$at: the trace names the other memory and why"
    keys Tab Tab Down Up Enter
    wait_for "Memory $top"
    [ "$rows_" -lt 30 ] && keys Down
    wait_for "and relations (1)"
    grep -q "supersedes *$second *(the appointment moved" "$T/screen"
    ok $? "$at: the detail view names it too"
    keys Escape
    wait_for "Trace of $top"
    keys u
    wait_for "undone: the supersedes relation of $top is as it was"
    ok $? "$at: u undoes it"
    is "$(rel_rows)/$(by "$second")" "$rel0/None" "the relation and $second's superseded_by are gone"
    keys Down Up '!'
    wait_for "Contradicts id [reason] ▸"
    type_text "$second not the same day"
    keys Enter
    wait_for "recorded: $top contradicts $second"
    grep -q "\[contradicts $second\]" "$T/screen"
    ok $? "$at: ! records a contradiction, shown on the row"
    keys Tab G
    wait_for "relations  contradicts $second"
    grep -q "^relations  contradicts $second: not the same day" "$T/screen"
    ok $? "$at: and in the trace with its reason"
    keys Tab Tab Down Up
    keys '!'
    type_text "m9999"
    keys Enter
    wait_for "nothing recorded"
    ok $? "$at: ! with an unknown id records nothing and says so"
    keys u
    wait_for "undone: the contradicts relation"
    is "$(rel_rows)" "$rel0" "$at: u takes the contradiction back"
    keys C-c
    wait_rc >/dev/null
}
for_each_size relations 80x24 120x36

# ---- why-not: a non-candidate, a missing id, an empty line, a short screen ------------------

why_not() {
    browse "$MEMSCOPE" --db "$DB"
    type_text "$Q"
    keys Enter
    wait_for "Trace of"
    keys i
    wait_for "Pin id ▸"
    type_text m9999
    keys Enter
    wait_for "nothing pinned"
    ok $? "${cols}x${rows_}: i m9999 says there is no such memory and pins nothing"
    grep -q "Why not m9999" "$T/screen"
    ok $((!$?)) "${cols}x${rows_}: no why-not block for it"
    keys i
    type_text m0300
    keys Enter
    wait_for "Why not m0300?"
    grep -q "^ Why not m0300? not_a_candidate (p, or i and an empty line, unpins)" "$T/screen"
    ok $? "${cols}x${rows_}: the pane title names the why-not block and its verdict"
    grep -q "not among the [0-9]* fused candidates" "$T/screen"
    ok $? "${cols}x${rows_}: a non-candidate has no fused position (no 'position 0 of')"
    grep -q "position 0 of" "$T/screen"
    ok $((!$?)) "${cols}x${rows_}: 'position 0 of' is gone"
    grep -q "^ Trace of m[0-9]*, rank 1" "$T/screen" && grep -q "^spreading  active" "$T/screen" &&
        grep -q "^fused " "$T/screen"
    ok $? "${cols}x${rows_}: the selected row's trace still shows below it: every channel and the fused sum"
    keys i Enter
    wait_for "unpinned"
    screen
    grep -q "Why not" "$T/screen"
    ok $((!$?)) "${cols}x${rows_}: i with an empty line unpins"
    keys C-c
    wait_rc >/dev/null
}
for_each_size why_not 80x30 120x36

# ---- feedback --reset asks first ------------------------------------------------------------

cp "$DB" "$T/r.db"
top=$("$MEMSCOPE" recall --db "$T/r.db" --json "$Q" | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
"$MEMSCOPE" feedback --db "$T/r.db" --query "$Q" "$top" + >/dev/null
"$MEMSCOPE" feedback --db "$T/r.db" --query "$Q" "$top" + >/dev/null
n_fb() { sqlite3 "$T/r.db" "SELECT count(*) FROM feedback"; }
is "$(n_fb)" 1 "the CLI's feedback twice for one memory and query is one judgement"
"$MEMSCOPE" feedback --db "$T/r.db" --reset </dev/null >"$T/out" 2>"$T/err"
is "$?/$(lines "$T/err")" "2/1" "feedback --reset without a terminal or --yes: exit 2, one line"
grep -q "would forget 1 judgement of profile default; add --yes" "$T/err"
ok $? "it says what it would forget and how to confirm"
is "$(n_fb)" 1 "and forgets nothing"
start 80 24 xterm-256color "$MEMSCOPE" feedback --db "$T/r.db" --reset
wait_err "forget all 1 judgement of profile default? [y/N]"
ok $? "on a terminal it asks"
type_text "n"
keys Enter
is "$(wait_rc)" 1 "n: exit 1"
grep -q "not confirmed: nothing was forgotten" "$T/stderr"
ok $? "n: it says nothing was forgotten"
is "$(n_fb)" 1 "n: the judgement stays"
start 80 24 xterm-256color "$MEMSCOPE" feedback --db "$T/r.db" --reset
wait_err "[y/N]"
type_text "y"
keys Enter
is "$(wait_rc)" 0 "y: exit 0"
is "$(n_fb)" 0 "y: forgotten"

# ---- a query at its limit says so ----------------------------------------------------------
query_limit() {
    browse "$MEMSCOPE" --db "$DB"
    paste "$(printf 'dentist %.0s' $(seq 1 130))"
    wait_for "at its limit of 1000 characters: the rest was not taken"
    ok $? "$at: a paste past 1000 characters says the rest was not taken"
    type_text "x"
    wait_for "at its limit of 1000 characters"
    ok $? "$at: so does a key typed into the full line"
    keys C-c
    wait_rc >/dev/null
}
for_each_size query_limit 80x24 120x36

# ---- 8 colours: the Trust and Mem.Conf bars differ ----------------------------------------
eight_colours() {
    start "$cols" "$rows_" xterm "$MEMSCOPE" --db "$DB"
    wait_for "Query ▸"
    type_text "$Q"
    wait_for "Trace of"
    tm capture-pane -e -p -t t >"$T/escreen"
    # The colour (SGR) in force at the Trust and at the Mem.Conf level cell of
    # the second row (the first is drawn selected).
    bars=$(python3 - "$T/escreen" <<'EOS'
import re, sys
line = [l for l in open(sys.argv[1], encoding="utf-8") if re.search(r"^(\x1b\[[0-9;]*m)*  2 m", l)][0]
cells, sgr, pos = [], "", 0
for m in re.finditer(r"\x1b\[([0-9;]*)m|([^\x1b])", line):
    if m.group(1) is not None:
        sgr = "" if m.group(1) in ("0", "39", "") else sgr + ";" + m.group(1)
    else:
        cells.append((m.group(2), sgr))
text = "".join(c for c, _ in cells)
m = re.search(r" (\d\.\d\d) (\S) (\d\.\d\d) (\S) ", text)
t_at = m.start(2); c_at = m.start(4)
print(cells[t_at][1], "|", cells[c_at][1])
EOS
    )
    t_sgr=${bars%% |*}
    c_sgr=${bars##*| }
    ok $([ -n "$t_sgr" ] && [ -n "$c_sgr" ] && [ "$t_sgr" != "$c_sgr" ]; echo $?) \
        "$at: TERM=xterm (8 colours): the Trust and Mem.Conf bars have different colours ($bars)"
    keys C-c
    wait_rc >/dev/null
}
for_each_size eight_colours 80x24 120x36

# ---- the tour on a store that is not the demo's ------------------------------------------------
tour_elsewhere() {
    "$MEMSCOPE" add --db "$T/mine.db" "my own memory about the dentist" >/dev/null
    browse "$MEMSCOPE" --db "$T/mine.db"
    keys Escape
    sleep 0.2
    keys T
    wait_for "the tour needs the demo store: 'memscope demo --tour'"
    ok $? "$at: T on another store says the tour needs the demo store"
    grep -q "Tour 1/" "$T/screen"
    ok $((!$?)) "$at: and starts no tour"
    keys C-c
    wait_rc >/dev/null
}
for_each_size tour_elsewhere 80x24 120x36

# ---- a terminal that cannot move the cursor: a one-line refusal, exit 2 -------------------

for term in dumb nosuch-terminal; do
    start 80 24 "$term" "$MEMSCOPE" --db "$T/p.db"
    is "$(wait_rc)" 2 "TERM=$term: the browser exits 2"
    is "$(lines "$T/stderr")" 1 "TERM=$term: with one line"
    grep -q "TERM=$term.*'memscope recall' or 'memscope shell'" "$T/stderr"
    ok $? "TERM=$term: it names the terminal and points at recall and shell"
done
is "$(store_state "$T/p.db")" "$before" "the refusal wrote nothing"

tap_done
