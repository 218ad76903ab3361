#!/bin/bash
# hostile.t - hostile paths, inputs and outputs, as a new user would try
# them (issue 16): export -o over the store, a symbolic link, a FIFO, a
# device or a stranger's file; demo --force on files that are not memscope
# stores; reading commands on a zero-byte file; a write whose summary
# cannot be printed; FIFOs as --db and as import sources; read-only stores;
# no usable HOME; the exact wording of messages that used to mislead; and
# over every command (calibrate and the import formats included): a command
# that fails changes no file, a command that reads writes none.
#
# Each refusal is checked for its exit status, its one line on stderr, and
# the bytes of every file it must not touch (sha256 before and after).
#
# Needs $MEMSCOPE (make test sets it), sqlite3, sha256sum, timeout.
set -u

. "$(dirname "$0")/tap.sh"
for tool in sqlite3 sha256sum timeout; do
    command -v $tool >/dev/null || bail "$tool is needed"
done
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-hostile-t.XXXXXX") || bail "mktemp failed"
trap 'umount "$T/ro-mnt" "$T/full-mnt" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg"
mkdir -p "$HOME"

# run_t ARGS...: run, but killed after 10 s (a command that could block).
run_t() {
    timeout 10 "$MEMSCOPE" "$@" >out 2>err </dev/null
    rc=$?
}

# refused NAME WORDS ARGS...: memscope ARGS (through $RUN, default run) exits
# $RC (default 1) with one stderr line "memscope: ..." matching the extended
# regexp WORDS.
refused() {
    local name=$1 words=$2
    shift 2
    ${RUN:-run} "$@"
    is "$rc" "${RC:-1}" "$name: exit status ${RC:-1}"
    is "$(lines err)" 1 "$name: one line on stderr"
    if grep -Eq -- "^memscope: .*($words)" err; then
        ok 0 "$name: the message says /$words/"
    else
        ok 1 "$name: the message says /$words/"
        diag "got: $(cat err)"
    fi
}

run demo --db base.db
[ "$rc" -eq 0 ] || bail "cannot write the demo store: $(cat err)"
base_sha=$(sha base.db)

# ---- 1. text after a JSONL object is refused, not dropped --------------------

printf '{"content":"x"} {"content":"y"}\n' >two.jsonl
refused "two objects on a line" "two.jsonl:1:17: unexpected text after the JSON object" \
    import --db new1.db two.jsonl
ok "$([ ! -e new1.db ]; echo $?)" "two objects on a line: no store is left behind"
printf '{"content":"x"}garbage\n' >glued.jsonl
refused "text glued to an object" "glued.jsonl:1:16: unexpected text" import --db base.db glued.jsonl
is "$(sha base.db)" "$base_sha" "text glued to an object: the store is unchanged"

# ---- 2. export -o never writes over the store, a device or a stranger -------

cp base.db self.db
self_sha=$(sha self.db)
refused "export -o the store itself" "it is the store being exported" \
    export --db self.db -o self.db
refused "export -o ./the store" "it is the store being exported" export --db self.db -o ./self.db
refused "export -o the store's -wal" "it is the store being exported" \
    export --db self.db -o self.db-wal
ok "$([ ! -e self.db-wal ]; echo $?)" "export -o the store's -wal: no -wal file appears"
ln -s self.db link.db
refused "export -o a symlink to the store" "it is the store being exported" \
    export --db self.db -o link.db
ok "$([ -L link.db ]; echo $?)" "export -o a symlink to the store: the link stays a link"
is "$(sha self.db)" "$self_sha" "after every refusal the store is byte-for-byte unchanged"

mkfifo fifo.out
timeout 10 cat fifo.out >from-fifo &
reader=$!
sleep 0.2
run export --db self.db -o fifo.out
wait $reader
is "$rc" 0 "export -o a FIFO with a reader: exit status 0"
is "$(lines from-fifo)" 329 "export -o a FIFO: the reader gets every memory"
ok "$([ -p fifo.out ]; echo $?)" "export -o a FIFO: it stays a FIFO"
RUN=run_t refused "export -o a FIFO nobody reads" \
    "cannot write fifo.out: no process is reading the FIFO" export --db self.db -o fifo.out
ok "$([ -p fifo.out ]; echo $?)" "export -o a FIFO nobody reads: it stays a FIFO"

refused "export -o /dev/full" "cannot write /dev/full: No space left on device" \
    export --db self.db -o /dev/full
ok "$([ -c /dev/full ]; echo $?)" "export -o /dev/full: it is still a character device"
run export --db self.db -o /dev/null
is "$rc" 0 "export -o /dev/null: exit status 0"
ok "$([ -c /dev/null ]; echo $?)" "export -o /dev/null: it is still a character device"
mkdir adir
refused "export -o a directory" "cannot write adir: it is a directory" export --db self.db -o adir

printf 'my notes\n' >notes.txt
notes_sha=$(sha notes.txt)
refused "export -o a file that is not an export" \
    "notes.txt exists and is not a memscope export; use --force" export --db self.db -o notes.txt
is "$(sha notes.txt)" "$notes_sha" "export -o a file that is not an export: the file is unchanged"
run export --db self.db -o notes.txt --force
is "$rc" 0 "export -o a stranger's file with --force: exit status 0"
is "$(lines notes.txt)" 329 "export --force: the file is the export"
run export --db self.db --profile nobody -o notes.txt
is "$rc" 0 "export -o a previous export: replaced without --force"
is "$(lines notes.txt)" 0 "export -o a previous export: it holds the new (empty) export"
run export --db self.db -o notes.txt
is "$rc" 0 "export -o an empty previous export: replaced without --force"
ln -s notes.txt notes-link
run export --db self.db -o notes-link
is "$rc" 0 "export -o a symlink to an export: exit status 0"
ok "$([ -L notes-link ] && [ "$(lines notes.txt)" = 329 ]; echo $?)" \
    "export -o a symlink to an export: the link stays, its target gets the export"
ls ./*.tmp-* >/dev/null 2>&1
ok "$([ $? -ne 0 ]; echo $?)" "no temporary file is left behind"

# ---- 3. demo --force replaces only a memscope store --------------------------

sqlite3 theirs.db 'CREATE TABLE t(x); INSERT INTO t VALUES (1)'
theirs_sha=$(sha theirs.db)
refused "demo --force on another program's SQLite database" \
    "theirs.db is another file, not a memscope store: demo --force replaces only a memscope store" \
    demo --db theirs.db --force
is "$(sha theirs.db)" "$theirs_sha" "demo --force: the other database is byte-for-byte unchanged"
printf 'precious\n' >precious.txt
refused "demo --force on a text file" "precious.txt is another file, not a memscope store" \
    demo --db precious.txt --force
is "$(cat precious.txt)" precious "demo --force: the text file is unchanged"
mkdir demo-dir
refused "demo --force on a directory" "demo-dir is a directory, not a memscope store" \
    demo --db demo-dir --force
ok "$([ -d demo-dir ]; echo $?)" "demo --force on a directory: it is still there"
cp base.db old-demo.db
run demo --db old-demo.db --force
is "$rc" 0 "demo --force on a memscope store: replaced"
is "$(sqlite3 old-demo.db 'SELECT count(*) FROM memories')" 329 "demo --force: the new demo store"

# ---- 4. a reading command never creates or initialises a store -------------

for cmd in "list" "export" "show x" "recall dentist" "health" "feedback --list"; do
    : >zero.db
    # shellcheck disable=SC2086
    refused "$cmd on a zero-byte file" "zero.db is empty: no store yet" $cmd --db zero.db
    is "$(wc -c <zero.db | tr -d ' ')" 0 "$cmd on a zero-byte file: it stays zero bytes"
    ok "$([ ! -e zero.db-wal ] && [ ! -e zero.db-shm ] && [ ! -e zero.db-journal ]; echo $?)" \
        "$cmd on a zero-byte file: no -wal, -shm or -journal"
done
sqlite3 bare.db 'PRAGMA user_version=0; CREATE TABLE x(a); DROP TABLE x'
bare_sha=$(sha bare.db)
refused "list on an SQLite file with no tables" "bare.db is an empty SQLite database: no store yet" \
    list --db bare.db
is "$(sha bare.db)" "$bare_sha" "list on an SQLite file with no tables: unchanged"

# ---- 15. a --db that is not a regular file is refused, never waited on ------

refused "list --db /dev/null" "/dev/null is a device, not a memscope store" list --db /dev/null
ok "$([ ! -e /dev/null-journal ] && [ ! -e /dev/null-wal ]; echo $?)" \
    "list --db /dev/null: no /dev/null-journal or -wal"
mkfifo db.fifo
RUN=run_t refused "list --db a FIFO" "db.fifo is a FIFO, not a memscope store" list --db db.fifo
RUN=run_t refused "import --db a FIFO" "db.fifo is a FIFO, not a memscope store" \
    import --db db.fifo glued.jsonl
refused "list --db a directory" "demo-dir is a directory, not a memscope store" \
    list --db demo-dir

# ---- 11. a committed write is reported as done, even when stdout fails -------

count() { sqlite3 "$1" 'SELECT count(*) FROM memories'; }
cp base.db full.db
# committed NAME WORDS ARGS...: memscope ARGS >/dev/full exits 0 with one
# stderr note matching WORDS.
committed() {
    local name=$1 words=$2
    shift 2
    "$MEMSCOPE" "$@" >/dev/full 2>err </dev/null
    is "$?" 0 "$name > /dev/full: exit status 0 (the write was committed)"
    is "$(lines err)" 1 "$name > /dev/full: one line on stderr"
    if grep -Eq -- "^memscope: note: ($words) was saved, but its report could not be written to standard output \(No space left on device\)$" err; then
        ok 0 "$name > /dev/full: the note says it was saved"
    else
        ok 1 "$name > /dev/full: the note says it was saved"
        diag "got: $(cat err)"
    fi
}
committed "add" "memory full-1" add --db full.db --id full-1 a memory to keep
is "$(count full.db)" 330 "add > /dev/full: the memory is in the store once"
printf '{"id":"full-2","content":"imported once"}\n' >full.jsonl
committed "import" "the import" import --db full.db full.jsonl
is "$(count full.db)" 331 "import > /dev/full: the memory is in the store once"
committed "delete" "the deletion" delete --db full.db full-1
is "$(count full.db)" 330 "delete > /dev/full: the memory is gone"
committed "feedback" "the judgement" feedback --db full.db --query 'imported once' full-2 +
is "$(sqlite3 full.db 'SELECT count(*) FROM feedback')" 1 "feedback > /dev/full: recorded"
committed "feedback --reset" "the reset" feedback --db full.db --reset --yes
committed "reembed" "the reembedding" reembed --db full.db
committed "demo" "the demo store" demo --db full-demo.db
is "$(count full-demo.db)" 329 "demo > /dev/full: the store is written"
"$MEMSCOPE" list --db full.db >/dev/full 2>err
is "$?" 1 "a reading command whose output fails still exits 1"
is "$(cat err)" "memscope: cannot write standard output: No space left on device" \
    "list > /dev/full: says so"

# ---- 9. times stay within years 0000-9999, so every export re-imports -------

printf '{"content":"x","created_at":"9999-12-31T23:59:60Z"}\n' >y10k.jsonl
refused "a leap second into year 10000" \
    'y10k.jsonl:1:29: "created_at" is outside the years 0000 to 9999 \(in UTC\)' \
    import --db base.db y10k.jsonl
is "$(sha base.db)" "$base_sha" "year 10000: the store is unchanged"
printf '{"id":"edge","content":"x","created_at":"9999-12-31T23:59:59Z","event_time":"0000-01-01T00:00:00Z"}\n' >edge.jsonl
run import --db edge.db edge.jsonl
is "$rc" 0 "the last and first second of the range import"
"$MEMSCOPE" export --db edge.db >edge-out.jsonl 2>err
run import --db edge2.db edge-out.jsonl
is "$rc" 0 "their export imports again"
"$MEMSCOPE" export --db edge2.db >edge-out2.jsonl 2>err
is "$(sha edge-out2.jsonl)" "$(sha edge-out.jsonl)" "and exports the same bytes"
RC=2 refused "add --event-time past 9999" "add: --event-time '9999-12-31T23:59:60Z' is outside the years 0000 to 9999" \
    add --db edge.db --event-time 9999-12-31T23:59:60Z text

# ---- 15. an import from a FIFO says it waits, and Ctrl-C leaves nothing -----

mkfifo src.fifo
# interrupt CMD...: run memscope CMD in the background; once it has said it
# waits (its note is on stderr), send SIGINT as Ctrl-C would; rc its status.
interrupt() {
    "$MEMSCOPE" "$@" >out 2>err </dev/null &
    local pid=$! i
    for ((i = 0; i < 300; i++)); do
        grep -q "waiting for a process" err 2>/dev/null && break
        sleep 0.1
    done
    # Ctrl-C again while it runs: a first one that lands between the
    # import's last check and its open(2) only sets the flag.
    for ((i = 0; i < 50; i++)); do
        kill -INT $pid 2>/dev/null || break
        sleep 0.2
    done
    wait $pid
    rc=$?
}
interrupt import --db fifo-new.db src.fifo
is "$rc" 1 "import FIFO with no writer, then Ctrl-C: exit status 1"
is "$(cat err)" "memscope: note: src.fifo is a FIFO: waiting for a process to write it (Ctrl-C stops, importing nothing)
memscope: interrupted (Ctrl-C): nothing was imported (store fifo-new.db)" \
    "import FIFO: it says it waits, and that Ctrl-C imported nothing"
ok "$([ ! -e fifo-new.db ] && [ ! -e fifo-new.db-wal ]; echo $?)" \
    "import FIFO, Ctrl-C: no store is left behind"
cp base.db fifo-old.db
interrupt import --db fifo-old.db src.fifo
is "$rc" 1 "import FIFO into a store, Ctrl-C: exit status 1"
is "$(sha fifo-old.db)" "$base_sha" "import FIFO into a store, Ctrl-C: the store is unchanged"
(sleep 0.3 && printf '{"content":"through a FIFO"}\n' >src.fifo) &
run_t import --db fifo-new.db src.fifo
wait
is "$rc" 0 "import FIFO with a late writer: exit status 0"
is "$(sqlite3 fifo-new.db 'SELECT content FROM memories')" "through a FIFO" \
    "import FIFO with a late writer: the memory is imported"

# ---- 6. one printing layer: no command prints but through tui/cli/cli.c --------

# printf, fprintf to a terminal stream, puts, fputs, fwrite, vprintf: only
# cli.c (the layer) may call them; bench_corpus.c's fprintf into its own data
# file is the one write to a FILE it opened.
raw=$(cd "$SRC" && grep -nE '(^|[^a-z_])(printf|puts|fputs|fwrite|vprintf|vfprintf)\(|fprintf\((stdout|stderr)|fputc\([^'"'"']|putchar\([^'"'"']' \
    tui/cli/cmd_*.c tui/shell/*.c tui/cli/main.c tui/browser/browse.c tui/browser/tour.c | grep -v '^tui/cli/cli\.c')
ok "$([ -f "$SRC/tui/cli/cmd_store.c" ] && [ -f "$SRC/tui/shell/shell.c" ]; echo $?)" "the sources are found"
is "$raw" "" "no command writes to stdout or stderr except through the output layer (tui/cli/cli.c)"

# ---- 12. no usable HOME: refuse, naming --db and MEMSCOPE_DB ----------------

mkdir -p nohome && cd nohome || bail "cannot enter nohome"
nohome_msg="no place for the default store: HOME is not an existing directory and XDG_DATA_HOME is not an absolute path; give --db PATH or set MEMSCOPE_DB"
for h in unset "" /nonexistent relative/home; do
    for cmd in "import ../glued.jsonl" "add a memory" "list"; do
        # shellcheck disable=SC2086
        if [ "$h" = unset ]; then
            env -u HOME -u XDG_DATA_HOME "$MEMSCOPE" $cmd >../out 2>../err </dev/null
        else
            env -u XDG_DATA_HOME HOME="$h" XDG_DATA_HOME=relative "$MEMSCOPE" $cmd >../out 2>../err </dev/null
        fi
        is "$?:$(cat ../err)" "1:memscope: $nohome_msg (environment)" "HOME=$h, ${cmd%% *}: refused, naming --db and MEMSCOPE_DB"
    done
done
env -u HOME -u XDG_DATA_HOME "$MEMSCOPE" demo >../out 2>../err </dev/null
is "$?" 1 "no HOME: demo refuses"
is "$(find . -mindepth 1 | wc -l | tr -d ' ')" 0 "no HOME: nothing was written under the current directory"
ok "$([ ! -e /nonexistent ]; echo $?)" "HOME=/nonexistent: it is not created"
env -u HOME -u XDG_DATA_HOME MEMSCOPE_DB="$T/base.db" "$MEMSCOPE" list --limit 1 >../out 2>../err </dev/null
is "$?" 0 "no HOME but MEMSCOPE_DB: works"
XDG_DATA_HOME="$T/xdg-new" HOME=/nonexistent "$MEMSCOPE" add --id x a memory >../out 2>../err </dev/null
is "$?" 0 "an absolute XDG_DATA_HOME is used whatever HOME is"
ok "$([ -f "$T/xdg-new/memscope/memory.db" ]; echo $?)" "and the store is under it"
cd "$T" || bail "cannot return to $T"

# ---- 8. read-only stores: a 0444 store in a directory we cannot write, a
# read-only mount (as nobody through setpriv, when we are root) ---------------

AS_NOBODY=""
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$MEMSCOPE" --version >/dev/null 2>&1; then
    AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
fi
# reads_ok NAME DB: every reading command works on DB, a write says why
# not, and DB (with its directory) is unchanged.
reads_ok() {
    local name=$1 db=$2 before listing
    before=$(sha "$db")
    listing=$(ls -a "$(dirname "$db")")
    for cmd in "list --limit 1" "list --read-only --limit 1" "show m0001" "recall dentist" "health" \
        "export" "feedback --list"; do
        # shellcheck disable=SC2086
        $AS_NOBODY "$MEMSCOPE" $cmd --db "$db" >out 2>err </dev/null
        is "$?:$(cat err)" "0:" "$name: ${cmd} works"
    done
    $AS_NOBODY "$MEMSCOPE" export --db "$db" -o /dev/null >out 2>err </dev/null
    is "$?:$(cat err)" "0:" "$name: export -o /dev/null works"
    $AS_NOBODY "$MEMSCOPE" add --db "$db" a new memory >out 2>err </dev/null
    is "$?" 1 "$name: add refuses"
    grep -Eq "^memscope: cannot write: store $db is not writable \((Permission denied|Read-only file system)\)$" err
    ok $? "$name: add says the store is not writable, and why"
    is "$(sha "$db")" "$before" "$name: the store is unchanged"
    is "$(ls -a "$(dirname "$db")")" "$listing" "$name: no -wal, -shm or -journal appeared"
}
if [ -n "$AS_NOBODY" ]; then
    mkdir -p ro-dir
    cp base.db ro-dir/s.db
    chmod 444 ro-dir/s.db
    chmod 755 "$T" ro-dir
    reads_ok "a 0444 store in a directory nobody may write (as nobody)" "$T/ro-dir/s.db"
    chmod 700 "$T"
else
    ok 0 "# SKIP a 0444 store as another user: needs root and setpriv"
fi
AS_NOBODY=""
MNT="$T/ro-mnt"
mkdir -p "$MNT"
if mount -t tmpfs -o size=8m memscope-ro "$MNT" 2>/dev/null; then
    cp base.db "$MNT/s.db"
    if mount -o remount,ro "$MNT" 2>/dev/null; then
        reads_ok "a store on a read-only tmpfs mount" "$MNT/s.db"
    else
        ok 0 "# SKIP a read-only mount: cannot remount read-only"
    fi
    umount "$MNT"
else
    ok 0 "# SKIP a read-only mount: cannot mount a tmpfs here (not root, or no CAP_SYS_ADMIN)"
fi

# ---- misleading messages ------------------------------------------------------

RC=2 refused "recall -dentist" \
    "recall: unknown option '-d' in '-dentist' \(a word that starts with '-' goes after '--'\)" \
    recall --db base.db -dentist
RC=2 refused "recall -dentist before --json" "unknown option '-d' in '-dentist'" \
    recall -dentist --json --db base.db
printf '{"content":"x","importance":1.0000001}\n' >imp.jsonl
refused "importance 1.0000001" 'imp.jsonl:1:29: "importance" must be a number from 0 to 1 \(got 1.0000001\)$' \
    import --db base.db imp.jsonl
FULL="$T/full-mnt"
mkdir -p "$FULL"
if mount -t tmpfs -o size=3m memscope-full "$FULL" 2>/dev/null; then
    cp edge.db "$FULL/s.db"
    dd if=/dev/zero of="$FULL/fill" bs=64k 2>/dev/null
    for cmd in list "recall x"; do
        # shellcheck disable=SC2086
        refused "$cmd on a full disk" "No space left on device \(store $FULL/s.db\); the store is unchanged$" \
            $cmd --db "$FULL/s.db"
    done
    refused "add on a full disk" "No space left on device \(store $FULL/s.db\); (nothing was written|the store is unchanged)$" \
        add --db "$FULL/s.db" x
    umount "$FULL"
else
    ok 0 "# SKIP a full disk: cannot mount a tmpfs here"
fi

# ---- properties: over every command ------------------------------------------
# A command that fails changes nothing: not the store's bytes, not its -wal,
# not the file it was told to write. A command that only reads writes no file
# at all. (That no untrusted byte reaches a terminal is tests/terminal.t's,
# which runs every command in tmux.)

mkdir -p prop && cp base.db prop/s.db
printf 'keep me\n' >prop/target.txt
printf '{"content":"ok"}\n{"content":' >prop/bad.jsonl
printf '{"qid":"q1","question":"dentist","category":1,"evidence":["m0001"]}\n' >prop/q.jsonl
# snapshot: every file under prop/ with its bytes, mode and size.
snapshot() { (cd prop && find . -printf '%p %m %s\n' | sort && find . -type f -exec sha256sum {} + | sort); }
# unchanged NAME WANT_RC CMD...: run memscope CMD in prop/; its exit status is
# WANT_RC ("fail": non-zero), and prop/ is exactly as it was.
unchanged() {
    local name=$1 want=$2 before after got
    shift 2
    before=$(snapshot)
    (cd prop && "$MEMSCOPE" "$@" >../out 2>../err </dev/null)
    got=$?
    after=$(snapshot)
    if [ "$want" = fail ]; then
        ok "$([ $got -ne 0 ]; echo $?)" "$name: fails (exit $got)"
    else
        is "$got" "$want" "$name: exit status $want"
    fi
    is "$after" "$before" "$name: no file under the store's directory changed"
}
F=fail
unchanged "failing import" $F import --db s.db bad.jsonl
unchanged "failing export -o" $F export --db s.db -o target.txt
unchanged "failing add (duplicate id)" $F add --db s.db --id m0001 again
unchanged "failing list (usage)" $F list --db s.db --limit x
unchanged "failing show" $F show --db s.db no-such-id
unchanged "failing delete (one id unknown)" $F delete --db s.db m0001 no-such-id
unchanged "failing demo (exists)" $F demo --db s.db
unchanged "failing demo --force (not a store)" $F demo --db target.txt --force
unchanged "failing recall (usage)" $F recall --db s.db --limit 0 dentist
unchanged "failing health (usage)" $F health --db s.db extra
unchanged "failing eval (no query file)" $F eval --db s.db --queries missing.jsonl
unchanged "failing reembed (no embedder)" $F reembed --db s.db --embedder cmd:/nonexistent/emb
unchanged "failing bench (usage)" $F bench --db s.db --queries -1
unchanged "failing feedback (unknown id)" $F feedback --db s.db --query dentist no-such-id +
unchanged "failing feedback --reset (read-only)" $F feedback --db s.db --read-only --reset
unchanged "failing browse (usage)" $F browse --db s.db --no-such-option
unchanged "failing import into a new store" $F import --db new.db bad.jsonl
unchanged "list" 0 list --db s.db
unchanged "list --json" 0 list --db s.db --json
unchanged "show" 0 show --db s.db m0001
unchanged "show --json" 0 show --db s.db --json m0001
unchanged "export" 0 export --db s.db
unchanged "recall" 0 recall --db s.db dentist
unchanged "recall --json --trace" 0 recall --db s.db --json --trace dentist
unchanged "recall --explain" 0 recall --db s.db --explain m0001 dentist
unchanged "health" 0 health --db s.db
unchanged "eval" 0 eval --db s.db --queries q.jsonl
unchanged "bench on the store" 0 bench --db s.db --queries 3
unchanged "feedback --list" 0 feedback --db s.db --list
unchanged "--read-only list" 0 list --db s.db --read-only

# The commands of the second round: calibrate, the other import formats
# failing on bad input, list --where, health with a calibration report.
q_of() { # q_of PARITY: a question from each memory of that rowid parity
    sqlite3 prop/s.db "SELECT json_object('question', substr(content, 1, 80), 'evidence', json_array(id))
                       FROM memories WHERE rowid % 2 = $1"
}
q_of 0 >prop/fit.jsonl
q_of 1 >prop/held.jsonl
head -n 50 prop/held.jsonl >prop/small.jsonl
printf 'not a database\n' >prop/bad-slm.db
printf '{"type":"entity","name":"A","entityType":"person","observations":["x"]}\n{"type":' >prop/bad-mcp.jsonl
printf '[{"id":"a","memory":"x"},{"id":' >prop/bad-mem0.json
mkdir -p prop/bundle && printf '{"x":' >prop/bundle/manifest.json
unchanged "failing calibrate (50 held-out examples)" $F calibrate --db s.db --queries fit.jsonl \
    --eval --db s.db --queries small.jsonl
grep -q "at least 100" err
ok $? "failing calibrate: it says why"
unchanged "failing calibrate (no question file)" $F calibrate --db s.db --queries missing.jsonl \
    --eval --db s.db --queries held.jsonl
unchanged "failing import --format slm" $F import --db s.db --format slm bad-slm.db
unchanged "failing import --format mcp-memory" $F import --db s.db --format mcp-memory bad-mcp.jsonl
grep -q "bad-mcp.jsonl:2:" err
ok $? "failing import --format mcp-memory: at the second line"
unchanged "failing import --format mem0" $F import --db s.db --format mem0 bad-mem0.json
unchanged "failing import --format slm-bundle" $F import --db s.db --format slm-bundle bundle
unchanged "failing import --format mem0 into a new store" $F import --db new.db --format mem0 bad-mem0.json
unchanged "failing list --where (usage)" $F list --db s.db --where nokey
unchanged "list --where" 0 list --db s.db --where kind=note
# A calibrate that succeeds writes one file: the report beside the store.
before=$(snapshot)
(cd prop && "$MEMSCOPE" calibrate --db s.db --queries fit.jsonl --eval --db s.db --queries held.jsonl \
    >../out 2>../err </dev/null)
is "$?" 0 "calibrate: exit status 0"
after=$(snapshot)
[ -s prop/s.db.calibration.json ]
ok $? "calibrate: writes STORE.calibration.json beside the store"
is "$(printf '%s\n' "$after" | grep -v '[ /]s\.db\.calibration\.json\( \|$\)')" "$before" \
    "calibrate: no other file under the store's directory changed"
unchanged "health with a calibration report" 0 health --db s.db
grep -qi "calibrat" out
ok $? "health with a calibration report: reports on it"
unchanged "health --json with a calibration report" 0 health --db s.db --json

tap_done
