#!/bin/bash
# terminal.t - hostile text never reaches a terminal as a control: the
# recall table (with --trace and --explain), list, show,
# health, the JSON outputs and error messages, each run on a real terminal
# (a tmux pane, private server, 160x200, TERM=xterm-256color, C.UTF-8) over a
# store whose memory text, speaker, ids, entity names and embedder record
# hold CSI (clear screen, cursor home), OSC 0/2 (window title), OSC 8
# (hyperlink), OSC 52 (clipboard), tmux's ESC k (window name) and DCS
# passthrough, C0 (BEL, BS, CR, VT), DEL, C1 (U+009B and a raw 0x9b byte),
# overlong and invalid UTF-8, zero-width and bidi characters (U+200B,
# U+202E, U+2066). Afterwards the pane title, the window name and tmux's
# paste buffers (what OSC 52 would fill) are as they were, the screen still
# shows what was printed before, and the escapes show as text (\x1b,
# <U+202E>) in reverse video. Over a store with a payload in every text
# column, the browser's screens too (main screen, trace, detail view, help),
# 160x50; the rest of the browser is browser.t's.
#
# Needs $MEMSCOPE, tmux, sqlite3 and python3; skips without tmux.
set -u

. "$(dirname "$0")/tap.sh"
SRC=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v tmux >/dev/null || ! command -v python3 >/dev/null || ! command -v sqlite3 >/dev/null; then
    echo "1..0 # SKIP tmux, python3 and sqlite3 are needed"
    exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-terminal-t.XXXXXX") || bail "mktemp failed"
SOCK="memscope-sec-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
. "$(dirname "$0")/tmux.sh" # tm_start
# KEEP=1 keeps the temporary folder (screens, state) for a look afterwards.
trap 'tm kill-server 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE NO_COLOR
export HOME="$T/home" XDG_DATA_HOME="$T/xdg" LANG=C.UTF-8 LC_ALL=C.UTF-8
mkdir -p "$HOME"
WAIT=${MEMSCOPE_TEST_WAIT:-300} # tenths of a second (ASan is slow)

# ---- the hostile store ---------------------------------------------------------

E='\u001b'
HOSTILE="lighthouse ${E}[2J${E}[H CLEARED ${E}]2;PWNED-TITLE\u0007 ${E}]0;PWNED-ZERO\u0007"
HOSTILE="$HOSTILE ${E}]8;;http://evil.example/${E}\\\\link${E}]8;;${E}\\\\ ${E}]52;c;cGF3bmVk\u0007"
HOSTILE="$HOSTILE \u009b2J \u007fdel \u0007bel \u0008bs \r cr \u000bvt \u200bzw \u202eRLO \u2066iso"
HOSTILE="$HOSTILE ${E}kWINNAME${E}\\\\ ${E}Ptmux;${E}${E}]2;DCS-TITLE\u0007${E}\\\\ end"
EVIL_ID="evil${E}]2;ID-TITLE\u0007id"
cat >hostile.jsonl <<EOF
{"id":"plain","content":"A plain memory about the lighthouse keeper","speaker":"Ann","session":"s1"}
{"id":"$EVIL_ID","content":"$HOSTILE","speaker":"${E}[2JSpk${E}]2;SPK-TITLE\u0007","session":"s1","entities":["${E}]2;ENT-TITLE\u0007Ent","Bidi\u202eEnt"]}
EOF
"$MEMSCOPE" import --db h.db hostile.jsonl >/dev/null 2>err || bail "cannot import: $(cat err)"
# What memscope itself would refuse, a hostile file can hold: invalid and
# overlong UTF-8 and a raw C1 byte, written behind its back.
sqlite3 h.db "UPDATE memories SET speaker = CAST(X'c0afe080af9b32' AS TEXT) || 'raw' WHERE id = 'plain';
    INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder_id', char(27) || ']2;EMB-TITLE' || char(7) || 'hash');" ||
    bail "cannot write the raw bytes"
evil_id=$(printf 'evil\033]2;ID-TITLE\007id')

# ---- running commands on a terminal -------------------------------------------

cat >run.sh <<EOF
#!/bin/bash
export TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME="$HOME" XDG_DATA_HOME="$XDG_DATA_HOME"
export ASAN_OPTIONS="\${ASAN_OPTIONS:-}" UBSAN_OPTIONS="\${UBSAN_OPTIONS:-}"
cd "$T"
echo MARKER-BEFORE
"\$@"
echo "MARKER-AFTER rc=\$?"
exec sleep 600
EOF
chmod +x run.sh

# on_terminal ARGS...: run memscope ARGS in a fresh pane; leaves the screen
# (text) in screen.txt, with attributes in screen.esc, and the pane's
# title, window name and paste buffers in state.txt.
on_terminal() {
    fresh_pane 160 200
    # respawn, so the pane keeps its title and the window its name
    local args="" a
    for a in "$@"; do args="$args $(printf '%q' "$a")"; done
    tm respawn-pane -k -t t "$T/run.sh ${PRE:-} $MEMSCOPE $args"
    for ((try = 0; try < WAIT; try++)); do
        tm capture-pane -p -J -t t >screen.txt
        grep -q "^MARKER-AFTER" screen.txt && break
        sleep 0.1
    done
    tm capture-pane -p -J -e -t t >screen.esc
    pane_state
}
# fresh_pane COLS ROWS: a new private server with one pane of that size, a
# known title and window name, OSC 52 and ESC k allowed, no paste buffer.
fresh_pane() {
    tm_start "$1" "$2" "sleep 600"
    tm set -g set-clipboard on          # OSC 52 would fill a paste buffer
    tm set -g allow-rename on           # ESC k would rename the window
    tm set -g automatic-rename off
    tm rename-window KNOWN-WINDOW
    tm select-pane -t t -T KNOWN-TITLE
    tm set -g status off
}
# pane_state: the pane's title, window name and paste buffer count into
# state.txt.
pane_state() {
    {
        tm display -p -t t '#{pane_title}'
        tm display -p -t t '#{window_name}'
        tm list-buffers 2>/dev/null | wc -l | tr -d ' '
    } >state.txt
}

# safe NAME ARGS...: the checks every command must pass.
safe() {
    local name=$1
    shift
    on_terminal "$@"
    grep -q "^MARKER-AFTER" screen.txt
    ok $? "$name: ran to the end"
    grep -q "^MARKER-BEFORE" screen.txt
    local st=$?
    ok $st "$name: the screen was neither cleared nor overwritten from the top"
    [ $st -eq 0 ] || diag "the screen:" "$(head -n 5 screen.txt)"
    state_safe "$name"
}
# state_safe NAME: the pane's title, window name and paste buffers are as
# fresh_pane left them.
state_safe() {
    is "$(sed -n 1p state.txt)" KNOWN-TITLE "$1: the pane title is unchanged"
    is "$(sed -n 2p state.txt)" KNOWN-WINDOW "$1: the window name is unchanged"
    is "$(sed -n 3p state.txt)" 0 "$1: no paste buffer was set (OSC 52)"
    ok "$(! grep -q 'PWNED\|DCS-TITLE\|COL-TITLE' state.txt; echo $?)" "$1: no hostile text in the pane's state"
}
shows() { # shows NAME FIXED-TEXT: the screen shows the text literally
    grep -qF -- "$2" screen.txt
    local st=$?
    ok $st "$1: shows $2"
    [ $st -eq 0 ] || diag "the screen:" "$(grep -v '^$' screen.txt | head -n 12)"
}

safe "recall table" recall --db h.db --limit 5 lighthouse
shows "recall table" '\x1b[2JSp'
shows "recall table" 'lighthouse \x1b[2J\x1b[H CLEARED \x1b]2;PWNED-TITLE\x07'
shows "recall table" '\xc0\xaf'
# The escapes are marked: reverse video (SGR 7) right before "\x1b".
# (tmux writes the attributes back one a sequence: ESC[7m ESC[35m.)
grep -q $'\033\\[7m\033\\[35m\\\\x1b' screen.esc
ok $? "recall table: the escapes are shown in reverse video and colour"
safe "recall --trace" recall --db h.db --trace --limit 5 lighthouse
safe "recall --explain" recall --db h.db --explain "$evil_id" lighthouse
shows "recall --explain" 'Why not evil\x1b]2;ID-TITLE\x07id?'
safe "recall with a hostile query" recall --db h.db "$(printf 'lighthouse \033]2;QUERY-TITLE\007 \342\200\256x')"
shows "recall with a hostile query" 'query: lighthouse \x1b]2;QUERY-TITLE\x07 <U+202E>x'

safe "list" list --db h.db
shows "list" 'evil\x1b]2;ID-TITLE\x07id'
shows "list" '\x1b]8;;http://evil.example/\x1b\link\x1b]8;;\x1b\'
shows "list" '\x1b]52;c;cGF3bmVk\x07'
shows "list" '\x9b2J \x7fdel \x07bel \x08bs \x0d cr \x0bvt <U+200B>zw <U+202E>RLO <U+2066>iso'
shows "list" '\x1bkWINNAME\x1b\ \x1bPtmux;\x1b\x1b]2;DCS-TITLE\x07\x1b\ end'
shows "list" '\xc0\xaf\xe0\x80\xaf\x9b2raw'

safe "show" show --db h.db "$evil_id"
shows "show" '\x1b]2;ENT-TITLE\x07Ent'
shows "show" 'Bidi<U+202E>Ent'
safe "show of the raw bytes" show --db h.db plain
shows "show of the raw bytes" '\xc0\xaf\xe0\x80\xaf\x9b2raw'

safe "health" health --db h.db
shows "health" 'stored vectors from \x1b]2;EMB-TITLE\x07hash'

# JSON on a terminal: the same JSON, with \u escapes for what would act.
safe "recall --json" recall --db h.db --json --limit 5 lighthouse
shows "recall --json" '\u001b]2;PWNED-TITLE\u0007'
shows "recall --json" '\u009b2J \u007fdel'
shows "recall --json" '\u200bzw \u202eRLO \u2066iso'
safe "show --json" show --db h.db --json plain
shows "show --json" '\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd2raw'
safe "export" export --db h.db
shows "export" '\u202eRLO'
safe "list --json" list --db h.db --json
# ...while a pipe still gets the stored bytes as they are.
"$MEMSCOPE" export --db h.db | grep -q $'\342\200\256RLO'
ok $? "export into a pipe keeps the stored characters"

# Error messages on stderr.
safe "an error naming a hostile id" show --db h.db "$(printf 'nope\033]2;ERR-TITLE\007\342\200\256')"
shows "an error naming a hostile id" 'no memory with id "nope\x1b]2;ERR-TITLE\x07<U+202E>"'
printf '{"content":"x"}\n{"content":' >"$(printf 'bad\033]2;FILE-TITLE\007.jsonl')"
safe "an import error naming a hostile file" import --db h.db "$(printf 'bad\033]2;FILE-TITLE\007.jsonl')"
shows "an import error naming a hostile file" 'bad\x1b]2;FILE-TITLE\x07.jsonl:2:'
safe "a hostile profile" recall --db h.db --profile "$(printf 'p\033]2;PROFILE-TITLE\007')" lighthouse
shows "a hostile profile" 'the profile "p\x1b]2;PROFILE-TITLE\x07" holds no memories'
safe "a hostile --db path" list --db "$(printf 'none\033]2;PATH-TITLE\007.db')"
shows "a hostile --db path" 'none\x1b]2;PATH-TITLE\x07.db'

# Text from a crafted store and from the command line in the messages of
# writing commands (issue 16, items 5 and 6): the store's embedder id in the
# note of import and add, a feedback row's query type, a --db path in the
# import summary, demo, bench and the shell banner, a --profile in
# feedback --reset.
cp h.db w.db
printf '{"content":"one more"}\n' >more.jsonl
safe "import: the store's embedder id" import --db w.db more.jsonl
shows "import: the store's embedder id" 'come from \x1b]2;EMB-TITLE\x07hash'
safe "add: the store's embedder id" add --db w.db another memory
shows "add: the store's embedder id" 'come from \x1b]2;EMB-TITLE\x07hash'
"$MEMSCOPE" feedback --db w.db --query lighthouse plain + >/dev/null 2>&1
sqlite3 w.db "UPDATE feedback SET query_type = char(27) || ']0;QT-TITLE' || char(7) || 'qt'"
safe "feedback --list: a stored query type" feedback --db w.db --list
shows "feedback --list: a stored query type" '\x1b]0;QT-TITLE\x07qt'
HDB=$(printf 'w\033]0;DB-TITLE\007.db')
safe "import summary: a hostile --db" import --db "$HDB" more.jsonl
shows "import summary: a hostile --db" 'into w\x1b]0;DB-TITLE\x07.db'
DDB=$(printf 'd\033]0;DEMO-TITLE\007.db')
safe "demo: a hostile --db" demo --db "$DDB"
shows "demo: a hostile --db" 'demo store to d\x1b]0;DEMO-TITLE\x07.db'
safe "feedback --reset: a hostile --profile" feedback --db w.db --reset --yes \
    --profile "$(printf 'p\033]0;PROF-TITLE\007')"
shows "feedback --reset: a hostile --profile" 'profile p\x1b]0;PROF-TITLE\x07'
safe "bench: a hostile --db" bench --db "$DDB" --queries 3
shows "bench: a hostile --db" 'an existing store: d\x1b]0;DEMO-TITLE\x07.db'
# The banner is for a terminal: type quit once it shows.
(for ((i = 0; i < WAIT; i++)); do
    sleep 0.1
    if tm capture-pane -p -t t 2>/dev/null | grep -q "^memscope shell on"; then
        tm send-keys -t t quit Enter
        break
    fi
done) &
safe "shell banner: a hostile --db" shell --db "$DDB"
wait
shows "shell banner: a hostile --db" 'memscope shell on d\x1b]0;DEMO-TITLE\x07.db'

# Every text column of every table holding a payload (issue 16, item 7):
# memories (every text field), entities, feedback and meta; edges hold no
# text. Written with sqlite3 behind memscope's back, as a crafted file would.
cp h.db all.db
"$MEMSCOPE" feedback --db all.db --query lighthouse plain + >/dev/null 2>&1
P="char(27)||'[2J'||char(27)||']0;COL-TITLE'||char(7)||char(27)||']52;c;cGF3bmVk'||char(7)||char(27)||'P+q'||char(27)||'\\'||char(155)||'2J'||char(8238)||char(8203)"
sqlite3 all.db "
UPDATE memories SET content = content || $P, speaker = coalesce(speaker, '') || $P,
  session = coalesce(session, '') || $P, source = coalesce(source, '') || $P,
  event_time = $P, last_accessed = $P, context = context || $P;
UPDATE entities SET name = name || $P;
UPDATE feedback SET query = query || $P, query_type = $P;
INSERT OR REPLACE INTO meta(key, value) VALUES ('note' || $P, 'value' || $P);
INSERT INTO memories(profile, id, content, ptag, created_at, created_ts)
  SELECT 'prof' || $P, 'id' || $P, 'in a hostile profile' || $P, 'x', '2024-01-01T00:00:00Z', 1704067200;" ||
    bail "cannot write the payloads"
for cmd in "list" "list --json" "show plain" "show --json plain" "export" "recall --trace --limit 5 lighthouse" \
    "health" "health --json" "feedback --list"; do
    # shellcheck disable=SC2086
    safe "every text column: $cmd" $cmd --db all.db
done
shows "every text column: feedback --list" '\x1b]0;COL-TITLE\x07'

# The browser's screens over the same store (issue 16, item 7): the main
# screen with a query that returns the hostile memories, the trace pane of
# the hostile one, its detail view and the help. After each: the title,
# window name and paste buffers as they were, the browser's own frame still
# on the screen (a payload's clear or cursor move would break it), and the
# payloads shown as text. After q, the screen from before the browser is back.
# browse_wait TEXT: poll the pane until it shows TEXT; 1 on timeout.
browse_wait() {
    for ((try = 0; try < WAIT; try++)); do
        tm capture-pane -p -J -t t >screen.txt
        grep -qF -- "$1" screen.txt && return 0
        sleep 0.1
    done
    diag "timed out waiting for '$1'; the screen:" "$(grep -v '^$' screen.txt | head -n 12)"
    return 1
}
# browse_safe NAME: the checks every browser screen must pass.
browse_safe() {
    pane_state
    state_safe "browser $1"
    grep -qF "Query ▸" screen.txt && grep -qF "Relevance is query-relative" screen.txt
    ok $? "browser $1: the query line and the legend are still drawn"
}
fresh_pane 160 50
tm respawn-pane -k -t t "$T/run.sh $MEMSCOPE --db all.db"
browse_wait "Query ▸"
ok $? "browser: starts over the hostile store"
tm send-keys -t t -l -- "lighthouse"
tm send-keys -t t Enter
browse_wait "Trace of "
ok $? "browser main screen: the query returns memories"
browse_wait 'COL-TITLE\x07'
ok $? "browser main screen: the payloads show as text"
browse_safe "main screen"
for ((k = 0; k < 5; k++)); do # Down to the hostile memory
    tm capture-pane -p -J -t t >screen.txt
    grep -qF 'Trace of evil\x1b]2;ID-TITLE\x07id' screen.txt && break
    tm send-keys -t t Down
    sleep 0.3
done
browse_wait 'Trace of evil\x1b]2;ID-TITLE\x07id'
ok $? "browser trace: the hostile memory's trace, its id as text"
browse_safe "trace"
tm send-keys -t t Enter
browse_wait 'Memory evil\x1b]2;ID-TITLE\x07id'
ok $? "browser detail view: opens on the hostile memory"
browse_wait '\x1b]0;COL-TITLE\x07\x1b]52;c;cGF3bmVk\x07'
ok $? "browser detail view: the payloads show as text"
browse_wait 'Bidi<U+202E>Ent'
ok $? "browser detail view: the entities' payloads show as text"
pane_state
state_safe "browser detail view"
tm send-keys -t t Escape
browse_wait "Trace of "
tm send-keys -t t '?'
browse_wait "memscope browser: every key"
ok $? "browser help: opens over the hostile store"
pane_state
state_safe "browser help"
tm send-keys -t t Escape
browse_wait "Trace of "
tm send-keys -t t q
browse_wait "MARKER-AFTER rc=0"
ok $? "browser: q exits 0"
grep -q "^MARKER-BEFORE" screen.txt
ok $? "browser: the screen from before the browser is back"
pane_state
state_safe "browser, after it quit"

# NO_COLOR: still reverse video, no colour.
PRE="env NO_COLOR=1" on_terminal list --db h.db
ok "$(! grep -q $'\033\\[35m' screen.esc; echo $?)" "NO_COLOR: no colour on the escapes"
grep -q $'\033\\[7m\\\\x1b' screen.esc
ok $? "NO_COLOR: the escapes are still in reverse video"

# A store of an older schema: on a terminal, a writing command says that its
# first write upgrades it (seconds at a million memories), once.
"$MEMSCOPE" demo --db v9.db >/dev/null
sqlite3 v9.db 'ALTER TABLE memory_entities DROP COLUMN speaker; PRAGMA user_version=9'
on_terminal add --db v9.db a note written after schema 9
grep -q "MARKER-AFTER rc=0" screen.txt
ok $? "a write to a schema 9 store succeeds on a terminal"
grep -q "store v9.db has schema 9; its first write upgrades it to [0-9]*, once" screen.txt
ok $? "saying that its first write upgrades it"
is "$(sqlite3 v9.db 'PRAGMA user_version')" "$(sed -n 's/^#define STORE_SCHEMA_VERSION \([0-9]*\).*/\1/p' "$SRC/store/store.h")" \
    "which it did"
on_terminal add --db v9.db another note
ok "$(! grep -q "upgrades it" screen.txt; echo $?)" "the next write says nothing of it"

# From schema 10 the upgrade only adds an empty table (the fact candidates):
# the notice says nothing of seconds.
"$MEMSCOPE" demo --db v10.db >/dev/null
sqlite3 v10.db 'DROP TABLE fact_candidates; PRAGMA user_version=10'
on_terminal add --db v10.db a note written after schema 10
grep -q "store v10.db has schema 10; its first write upgrades it to [0-9]*, once *$" screen.txt
ok $? "a schema 10 store's first write says it upgrades it"
ok "$(! grep -q "seconds" screen.txt && grep -q "MARKER-AFTER rc=0" screen.txt; echo $?)" \
    "without a word of seconds, and succeeds"
is "$(sqlite3 v10.db "SELECT count(*) FROM sqlite_master WHERE name='fact_candidates'")" 1 \
    "the upgrade made the table"

# The browser says it where it shows messages, when it opens such a store.
"$MEMSCOPE" demo --db v9b.db >/dev/null
sqlite3 v9b.db 'ALTER TABLE memory_entities DROP COLUMN speaker; PRAGMA user_version=9'
fresh_pane 160 50
tm respawn-pane -k -t t "$T/run.sh $MEMSCOPE --db v9b.db"
browse_wait "this store has schema 9: the first change made here upgrades it to"
ok $? "the browser on a schema 9 store says that its first change upgrades it"
tm send-keys -t t Escape
tm send-keys -t t q
browse_wait "MARKER-AFTER rc=0"
ok $? "and quits"
is "$(sqlite3 v9b.db 'PRAGMA user_version')" 9 "having changed nothing, it left the store at schema 9"

tap_done
