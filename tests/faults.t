#!/bin/bash
# faults.t - store faults: kill -9 in the middle of a large import (and in
# the checkpoint after its commit), a file that is not SQLite, a truncated
# and a corrupt store, a store of a newer schema, a read-only file, a full
# disk (a 2 MiB tmpfs when we may mount one, and `ulimit -f` always).
# Each refusal is one line on stderr that names the file, exit status 1, and
# the file byte-for-byte as it was (sha256 before and after).
#
# Needs $MEMSCOPE (absolute path of the binary; `make test` sets it), sqlite3,
# sha256sum and awk. Runs as root or not: as root, the read-only case runs
# memscope as nobody (setpriv), since root may write a 0444 file.
set -u

. "$(dirname "$0")/tap.sh"
for tool in sqlite3 sha256sum awk; do
    command -v $tool >/dev/null || bail "$tool is needed"
done

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-faults-t.XXXXXX") || bail "mktemp failed"
MNT=""
cleanup() {
    [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg"
mkdir -p "$HOME"

count() { sqlite3 "$1" 'SELECT count(*) FROM memories'; }

# refused NAME DB WORDS CMD...: CMD must exit 1 with exactly one stderr line
# "memscope: ..." that names DB and matches the extended regexp WORDS, and
# leave DB byte-for-byte as it was.
refused() {
    local name=$1 db=$2 words=$3
    shift 3
    local before
    before=$(sha "$db")
    run "$@"
    is "$rc" 1 "$name: exit status 1"
    is "$(lines err)" 1 "$name: one line on stderr"
    local line
    line=$(head -n 1 err)
    case "$line" in
    "memscope: "*"$db"*) ok 0 "$name: the message names $db" ;;
    *) ok 1 "$name: the message names $db"; diag "got: $line" ;;
    esac
    printf '%s\n' "$line" | grep -Eqi -- "$words"
    ok $? "$name: the message says /$words/"
    is "$(sha "$db")" "$before" "$name: $db is byte-for-byte unchanged"
}

# A real store to damage: the demo store (329 memories, 400+ pages).
run demo --db base.db
[ "$rc" -eq 0 ] || bail "cannot write the demo store: $(cat err)"
base_count=$(count base.db)
pages=$(sqlite3 base.db 'PRAGMA page_count')
psize=$(sqlite3 base.db 'PRAGMA page_size')
printf '{"id":"new1","content":"a new memory for a damaged store"}\n' >one.jsonl

# ---- not an SQLite file ---------------------------------------------------

head -c 65536 /dev/urandom >junk.db
cp junk.db junk.orig
for cmd in "list" "show m0001" "recall Leah" "health" "export" "add text" "import one.jsonl" \
    "delete m0001" "reembed"; do
    # shellcheck disable=SC2086
    refused "random bytes: ${cmd%% *}" junk.db "not a memscope store" $cmd --db junk.db
done
ok "$([ ! -e junk.db-wal ] && [ ! -e junk.db-shm ]; echo $?)" "random bytes: no side files appear"

# The SQLite magic string followed by junk: SQLite itself must refuse it.
{ printf 'SQLite format 3\0'; head -c 8176 /dev/urandom; } >magic.db
for cmd in "list" "recall Leah" "import one.jsonl"; do
    # shellcheck disable=SC2086
    refused "SQLite magic then junk: ${cmd%% *}" magic.db "not a memscope store|corrupt" $cmd --db magic.db
done

# A directory where the store should be.
mkdir dir.db
run list --db dir.db
is "$rc" 1 "a directory as the store: exit status 1"
is "$(lines err)" 1 "a directory as the store: one line"
grep -q "dir.db is a directory, not a memscope store" err
ok $? "a directory as the store: says so"

# ---- truncated ------------------------------------------------------------

cp base.db trunc.db
truncate -s $((pages / 2 * psize)) trunc.db
for cmd in "add text" "import one.jsonl" "delete m0001"; do
    # shellcheck disable=SC2086
    refused "truncated store: ${cmd%% *}" trunc.db "corrupt" $cmd --db trunc.db
done
# Readers may get what is readable, or a clear refusal; never a crash.
for cmd in "list" "recall Leah" "export" "health"; do
    before=$(sha trunc.db)
    # shellcheck disable=SC2086
    run $cmd --db trunc.db
    ok "$([ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && [ "$(lines err)" -eq 1 ] &&
        grep -q "trunc.db" err; }; echo $?)" \
        "truncated store: ${cmd%% *} answers or refuses in one line (rc $rc)"
    is "$(sha trunc.db)" "$before" "truncated store: ${cmd%% *} leaves it unchanged"
done

# ---- corrupt pages in the middle -------------------------------------------

cp base.db corrupt.db
mid=$((pages / 3))
yes 'hostile page junk 0123456789' | head -c $((40 * psize)) |
    dd of=corrupt.db bs="$psize" seek="$mid" conv=notrunc status=none
is "$(sqlite3 corrupt.db 'PRAGMA quick_check(1)' 2>/dev/null | head -n 1 | grep -c '^ok$')" 0 \
    "the corrupt copy really is corrupt"
for cmd in "add text" "import one.jsonl" "delete m0001"; do
    # shellcheck disable=SC2086
    refused "corrupt store: ${cmd%% *}" corrupt.db "corrupt" $cmd --db corrupt.db
done
for cmd in "list" "recall Leah" "recall --json when did Leah start" "show m0001" "export"; do
    before=$(sha corrupt.db)
    # shellcheck disable=SC2086
    run $cmd --db corrupt.db
    ok "$([ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && [ "$(lines err)" -eq 1 ] &&
        grep -q "corrupt.db" err; }; echo $?)" \
        "corrupt store: ${cmd%% *} answers or refuses in one line (rc $rc)"
    is "$(sha corrupt.db)" "$before" "corrupt store: ${cmd%% *} leaves it unchanged"
done

# ---- a newer schema -------------------------------------------------------

cp base.db newer.db
sqlite3 newer.db 'PRAGMA user_version=99'
for cmd in "list" "recall Leah" "export" "add text" "import one.jsonl" "delete m0001" "health"; do
    # shellcheck disable=SC2086
    refused "schema 99: ${cmd%% *}" newer.db "upgrade memscope" $cmd --db newer.db
done

# ---- a read-only file -----------------------------------------------------

# as_user CMD...: CMD as a user who may not write a 0444 file.
if [ "$(id -u)" -eq 0 ]; then
    if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
        as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    else
        as_user=""
    fi
else
    as_user() { "$@"; }
fi
if declare -F as_user >/dev/null; then
    mkdir -p ro && chmod 0777 ro && chmod 0755 "$T"
    cp base.db ro/s.db && chmod 0444 ro/s.db
    ro_run() { as_user "$MEMSCOPE" "$@" >out 2>err </dev/null; rc=$?; }
    for cmd in "add text" "import one.jsonl" "delete m0001"; do
        before=$(sha ro/s.db)
        # shellcheck disable=SC2086
        ro_run $cmd --db ro/s.db
        is "$rc" 1 "read-only file: ${cmd%% *}: exit status 1"
        is "$(lines err)" 1 "read-only file: ${cmd%% *}: one line on stderr"
        grep -q "ro/s.db is not writable (Permission denied)" err
        st=$?
        ok $st "read-only file: ${cmd%% *}: says the store is not writable"
        [ $st -eq 0 ] || diag "got: $(cat err)"
        is "$(sha ro/s.db)" "$before" "read-only file: ${cmd%% *}: unchanged"
    done
    for cmd in "list" "list --read-only" "recall Leah" "recall --read-only Leah" "export --read-only"; do
        # shellcheck disable=SC2086
        ro_run $cmd --db ro/s.db
        is "$rc" 0 "read-only file: $cmd works"
        ok "$([ -s out ] && [ ! -s err ]; echo $?)" "read-only file: $cmd prints results, no error"
    done
    ro_run list --read-only --db ro/s.db
    is "$(lines out)" "$base_count" "read-only file: list --read-only sees every memory"
    is "$(sha ro/s.db)" "$(sha base.db)" "read-only file: byte-for-byte the original"
else
    skip "root, and setpriv cannot drop to nobody here: the read-only file case needs a user who cannot write it" 24 # the 24 checks above
fi

# ---- a full disk ----------------------------------------------------------

awk 'BEGIN { for (i = 1; i <= 3000; i++)
    printf("{\"id\":\"f%d\",\"content\":\"Filler memory %d about the harbour office move and topic %d\"}\n", i, i, i % 37) }' >fill.jsonl

# full NAME DIR: the import of fill.jsonl into a copy of base.db in DIR must
# fail cleanly; a new store in DIR must leave no file behind.
full() {
    local name=$1 dir=$2
    cp base.db "$dir/s.db" || { ok 1 "$name: room for the store copy"; return; }
    refused "$name: import" "$dir/s.db" "full|too large|No space" import --db "$dir/s.db" fill.jsonl
    is "$(sqlite3 "$dir/s.db" 'PRAGMA integrity_check')" ok "$name: integrity_check is ok"
    is "$(count "$dir/s.db")" "$base_count" "$name: no memory was added"
    run list --db "$dir/s.db"
    is "$(lines out)" "$base_count" "$name: the store still lists every memory"
    rm -f "$dir/s.db" "$dir/s.db-wal" "$dir/s.db-shm"
    run import --db "$dir/new.db" fill.jsonl
    is "$rc" 1 "$name: import into a new store: exit status 1"
    is "$(lines err)" 1 "$name: import into a new store: one line"
    ok "$([ ! -e "$dir/new.db" ] && [ ! -e "$dir/new.db-wal" ]; echo $?)" \
        "$name: import into a new store: no file is left behind"
}

MNT="$T/tmpfs"
mkdir -p "$MNT"
size=$(( $(stat -c %s base.db) / 1024 + 320 ))
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=${size}k tmpfs "$MNT" 2>/dev/null; then
    full "full tmpfs" "$MNT"
    cp base.db "$MNT/s.db"
    # Leave 48 KiB: room for the -shm file, not for the export.
    avail=$(df --output=avail -k "$MNT" | tail -n 1 | tr -d ' ')
    head -c $(((avail - 48) * 1024)) /dev/zero >"$MNT/s.db.filler"
    before=$(sha "$MNT/s.db")
    run export --db "$MNT/s.db" -o "$MNT/out.jsonl"
    is "$rc" 1 "full tmpfs: export -o: exit status 1"
    grep -q "cannot write $MNT/out.jsonl: No space left on device" err
    ok $? "full tmpfs: export -o says it cannot write the file and why"
    ok "$([ -z "$(ls "$MNT" | grep -v '^s\.db')" ]; echo $?)" "full tmpfs: export leaves no partial file"
    is "$(sha "$MNT/s.db")" "$before" "full tmpfs: export leaves the store unchanged"
    umount "$MNT"
else
    MNT=""
    skip "cannot mount a tmpfs here (not root, or no permission): the ulimit -f cases still run" 15 # the 15 checks above
fi

# ulimit -f: past the limit a write fails with EFBIG (SIGXFSZ is ignored)
# instead of the signal killing memscope half-way.
mkdir -p lim
limit=$(( $(stat -c %s base.db) / 1024 + 256 ))
cp base.db lim/s.db
before=$(sha lim/s.db)
(ulimit -f "$limit"; exec "$MEMSCOPE" import --db lim/s.db fill.jsonl) >out 2>err </dev/null
rc=$?
is "$rc" 1 "ulimit -f: import exits 1 (not killed by SIGXFSZ)"
is "$(lines err)" 1 "ulimit -f: one line on stderr"
grep -q "File too large (store lim/s.db); nothing was written" err
st=$?
ok $st "ulimit -f: the message names the store and the cause"
[ $st -eq 0 ] || diag "got: $(cat err)"
is "$(sha lim/s.db)" "$before" "ulimit -f: the store is unchanged"
is "$(sqlite3 lim/s.db 'PRAGMA integrity_check')" ok "ulimit -f: integrity_check is ok"
# 40 KiB: room for the 32 KiB -shm file, not for the output.
(ulimit -f 40; exec "$MEMSCOPE" export --db base.db -o lim/out.jsonl) >out 2>err </dev/null
rc=$?
is "$rc" 1 "ulimit -f: export -o exits 1"
grep -q "cannot write lim/out.jsonl: File too large" err
ok $? "ulimit -f: export -o names the file and the cause"
ok "$([ ! -e lim/out.jsonl ] && [ -z "$(ls lim | grep tmp)" ]; echo $?)" "ulimit -f: export -o leaves no file"
(ulimit -f 40; exec "$MEMSCOPE" list --db base.db) >lim/list.txt 2>err </dev/null
rc=$?
is "$rc" 1 "ulimit -f: list into a file that cannot grow exits 1, not 0"
grep -q "cannot write standard output: File too large" err
ok $? "ulimit -f: list says its output could not be written"

# ---- file modes: the store is private -----------------------------------------

# Even under umask 000: the store, its -wal and -shm files and an export
# are 0600, new folders 0700.
(
    umask 000
    "$MEMSCOPE" import --db "$T/private/deeper/m.db" one.jsonl >/dev/null 2>&1
    "$MEMSCOPE" export --db "$T/private/deeper/m.db" -o "$T/private/out.jsonl" 2>/dev/null
)
is "$(stat -c %a private/deeper/m.db 2>/dev/null)" 600 "a new store is mode 0600, whatever the umask"
is "$(stat -c %a private 2>/dev/null) $(stat -c %a private/deeper 2>/dev/null)" "700 700" \
    "the folders made for it are 0700"
is "$(stat -c %a private/out.jsonl 2>/dev/null)" 600 "export -o writes a 0600 file"
# The side files exist while a connection is open; hold one open until the
# modes are read. The holder must have its connection before the add ends,
# or the add, as the last connection, removes them (a loaded CI machine
# once started sqlite3 too late for a fixed sleep).
mkfifo hold.fifo
sqlite3 private/deeper/m.db <hold.fifo >/dev/null &
holder=$!
exec 9>hold.fifo
echo "SELECT count(*) FROM memories;" >&9
i=0
while [ ! -e private/deeper/m.db-shm ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
(umask 000; "$MEMSCOPE" add --db private/deeper/m.db side files >/dev/null 2>&1)
is "$(stat -c %a private/deeper/m.db-wal 2>/dev/null) $(stat -c %a private/deeper/m.db-shm 2>/dev/null)" \
    "600 600" "its -wal and -shm files are 0600 too"
exec 9>&-
wait $holder

# ---- kill -9 in the middle of a large import --------------------------------

N=${MEMSCOPE_FAULTS_LINES:-30000}
awk -v n="$N" 'BEGIN { for (i = 1; i <= n; i++)
    printf("{\"id\":\"k%d\",\"content\":\"Bulk memory %d: person P%d met Q%d about topic %d\",\"created_at\":\"2024-01-01T00:00:00Z\",\"session\":\"s%d\"}\n", i, i, i % 113, i % 89, i % 97, int(i / 20)) }' >big.jsonl

# wait_for SECONDS TEST: poll TEST every 20 ms until it holds or the time is up.
wait_for() {
    local end=$((SECONDS + $1))
    shift
    while [ $SECONDS -lt "$end" ]; do
        "$@" && return 0
        sleep 0.02
    done
    return 1
}
size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }
wal_over() { [ "$(size_of "$1-wal")" -gt "$2" ]; }
grew() { [ "$(size_of "$1")" -gt "$2" ]; }
alive() { kill -0 "$1" 2>/dev/null; }
# wal_or_done DB BYTES PID: the log is past BYTES, or the import is over.
wal_or_done() { wal_over "$1" "$2" || ! alive "$3"; }
grew_or_done() { grew "$1" "$2" || ! alive "$3"; }

# Killed while the transaction is open: none of it. The import holds
# before its COMMIT (MEMSCOPE_TEST_HOLD_COMMIT, store.c hold_commit: every
# row written, the count of rows it changed in the file), so the kill
# always lands there, never in the commit.
cp base.db kill.db
before=$(sha kill.db)
rm -f held
MEMSCOPE_TEST_HOLD_COMMIT="$PWD/held" "$MEMSCOPE" import --db kill.db big.jsonl >/dev/null 2>&1 &
pid=$!
held_or_done() { [ -e held ] || ! alive "$1"; }
wait_for 300 held_or_done $pid
ok "$([ -e held ] && alive $pid; echo $?)" \
    "kill -9 mid-import: the import holds before its commit, alive"
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
changed=$(cat held 2>/dev/null)
diag "killed the import before its commit, $changed rows changed, a $(size_of kill.db-wal)-byte log"
ok "$([ "${changed:-0}" -ge "$N" ]; echo $?)" \
    "kill -9 mid-import: the transaction it held had written all $N memories"
is "$(sha kill.db)" "$before" "kill -9 mid-import: the main file is untouched"
is "$(sqlite3 kill.db 'PRAGMA integrity_check')" ok "kill -9 mid-import: integrity_check is ok"
is "$(count kill.db)" "$base_count" "kill -9 mid-import: none of the import is in the store"
run list --db kill.db
is "$rc" 0 "kill -9 mid-import: memscope opens the store again"
run import --db kill.db one.jsonl
is "$rc" 0 "kill -9 mid-import: and imports into it"
is "$(count kill.db)" "$((base_count + 1))" "kill -9 mid-import: with the new memory counted once"

# Killed after the commit, while the log is copied into the store: all of
# it. In WAL mode the main file grows only when committed pages are copied
# into it, so a bigger file means the commit is done.
cp base.db kill2.db
size0=$(size_of kill2.db)
"$MEMSCOPE" import --db kill2.db big.jsonl >/dev/null 2>&1 &
pid=$!
if wait_for 300 grew_or_done kill2.db "$size0" $pid && alive $pid; then
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    diag "killed the import during its checkpoint"
else
    wait $pid 2>/dev/null
    diag "the import finished before it could be killed during the checkpoint"
fi
is "$(sqlite3 kill2.db 'PRAGMA integrity_check')" ok "kill -9 after commit: integrity_check is ok"
is "$(count kill2.db)" "$((base_count + N))" "kill -9 after commit: all of the import is in the store"

# Killed at other moments (as soon as the log exists, and at 1, 16 and 48
# MB of log): always all or nothing.
for at in 0 1000000 16000000 48000000; do
    cp base.db kill3.db
    rm -f kill3.db-wal kill3.db-shm
    "$MEMSCOPE" import --db kill3.db big.jsonl >/dev/null 2>&1 &
    pid=$!
    wait_for 300 wal_or_done kill3.db "$at" $pid
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    got=$(count kill3.db)
    ok "$([ "$(sqlite3 kill3.db 'PRAGMA integrity_check')" = ok ] &&
        { [ "$got" -eq "$base_count" ] || [ "$got" -eq $((base_count + N)) ]; }; echo $?)" \
        "kill -9 at a $at-byte log: integrity ok and all or nothing ($got memories)"
done

# ---- a new store's first import: all or nothing without a write-ahead log ----
# A store that `memscope import` makes is written in SQLite's rollback-journal
# mode until its first write ends (store.c, "a new store"), then turned to WAL
# mode. Lines of a kilobyte, so that the import spills pages into the file
# before its commit; killed there, the journal takes the file back to the
# empty store.
awk 'BEGIN { pad = ""; for (j = 0; j < 120; j++) pad = pad " word" j
    for (i = 1; i <= 40000; i++)
        printf("{\"id\":\"f%d\",\"content\":\"Fresh memory %d: person P%d met Q%d%s\",\"created_at\":\"2024-01-01T00:00:00Z\",\"session\":\"s%d\"}\n", i, i, i % 113, i % 89, pad, int(i / 20)) }' >fresh.jsonl
rm -f held
MEMSCOPE_TEST_HOLD_COMMIT="$PWD/held" "$MEMSCOPE" import --db new.db fresh.jsonl >/dev/null 2>&1 &
pid=$!
wait_for 300 held_or_done $pid
ok "$([ -e held ] && alive $pid; echo $?)" "a new store's import holds before its commit, alive"
spilled=$(size_of new.db)
diag "a new store's import held before its commit: a $spilled-byte file, a $(size_of new.db-journal)-byte journal"
ok "$([ "$spilled" -gt 16000000 ] && [ -e new.db-journal ] && [ ! -e new.db-wal ]; echo $?)" \
    "a new store's import writes its pages into the file, with a rollback journal and no log"
run list --db new.db
is "$rc" 1 "a reader of a store being made: exit status 1"
is "$(lines err)" 1 "a reader of a store being made: one line on stderr"
grep -q "store new.db is locked by another process, which is writing it for the first time" err
ok $? "a reader of a store being made: the store is locked by its first write"
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
# A copy of it with its journal, in a folder nobody may write: SQLite cannot
# roll the journal back there, so it is not read (as immutable it would
# read the uncommitted pages) and the refusal says why.
if declare -F as_user >/dev/null; then
    mkdir -p rojournal && cp new.db new.db-journal rojournal/ &&
        chmod 0444 rojournal/new.db rojournal/new.db-journal && chmod 0555 rojournal
    as_user "$MEMSCOPE" list --db rojournal/new.db >out 2>err </dev/null
    is "$?:$(lines err)" "1:1" "a killed new store, its folder not writable: refused, one line"
    grep -q "store rojournal/new.db has a write that never finished (rojournal/new.db-journal)" err
    ok $? "a killed new store, its folder not writable: the line says there is a write to roll back"
    chmod 0755 rojournal
else
    skip "root, and setpriv cannot drop to nobody here" 2
fi
is "$(sqlite3 new.db 'PRAGMA integrity_check')" ok "kill -9 in a new store's import: integrity_check is ok"
is "$(count new.db)" 0 "kill -9 in a new store's import: none of it is in the store"
ok "$([ "$(size_of new.db)" -lt 1000000 ]; echo $?)" \
    "kill -9 in a new store's import: the file is back to the empty store's size"
run import --db new.db one.jsonl
is "$rc" 0 "kill -9 in a new store's import: memscope imports into it after"
is "$(count new.db)" 1 "kill -9 in a new store's import: the new memory is there"
is "$(sqlite3 new.db 'PRAGMA journal_mode')" wal "kill -9 in a new store's import: its next write turns it to WAL mode"
run import --db new2.db fresh.jsonl
is "$rc" 0 "a new store's import: done"
is "$(count new2.db) $(sqlite3 new2.db 'PRAGMA journal_mode')" "40000 wal" \
    "a new store's import: every memory, and the store in WAL mode after it"
ok "$([ ! -e new2.db-journal ]; echo $?)" "a new store's import: no journal left"

tap_done
