#!/bin/bash
# reading.t - what a read touches (docs/ENGINE.md, "What a read touches"):
# never the store's bytes. A reader that closes last after another process
# wrote does not checkpoint that process's log into the store; a reader of a
# store whose -wal and -shm are there reads through them and creates or
# removes no file; a read of a store no one else has open leaves the
# directory's files as they were (SQLite's -wal and -shm come and go with
# it; the snapshot file and its seal are the cache docs/ENGINE.md
# describes, and snapfile.t's). Read-only
# directories and mounts are hostile.t's (reads_ok) and recall.t's.
#
# Needs $MEMSCOPE. Works in a temporary directory it removes.
set -u

. "$(dirname "$0")/tap.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-reading-t.XXXXXX") || bail "mktemp failed"
trap 'exec 3>&- 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg" XDG_CACHE_HOME="$T/cache"
mkdir -p "$HOME" d

"$MEMSCOPE" demo --db d/s.db >/dev/null || bail "cannot write the demo store"
# files: each file of d with its size and modification time (ns)
files() { (cd d && stat -c '%n %s %Y.%y' -- * | sort); }
# names: each file of d with its size
names() { (cd d && stat -c '%n %s' -- * | sort); }
dir_time() { stat -c %y d; }

# ---- a read of a store no one else has open -------------------------------------
MEMSCOPE_SNAPSHOT=always "$MEMSCOPE" recall --db d/s.db dentist >/dev/null 2>&1 ||
    bail "the first recall failed"
ok "$([ -e d/s.db.snap ]; echo $?)" "the first read writes the snapshot file beside the store"
# From here no read uses the snapshot file (a read may write its seal
# when the file is 2 s old, tests/snapfile.t): what is left is SQLite's.
export MEMSCOPE_SNAPSHOT=off
before=$(files)
sum=$(sha d/s.db)
for cmd in "recall dentist" "recall --json --trace dentist" "list --limit 3" "show m0001" \
    "profiles" "health" "export" "feedback --list"; do
    # shellcheck disable=SC2086
    "$MEMSCOPE" $cmd --db d/s.db >out 2>err </dev/null
    is "$?:$(cat err)" "0:" "$cmd works"
    is "$(files)" "$before" "$cmd leaves every file of the directory as it was"
done
is "$(sha d/s.db)" "$sum" "and the store's bytes"

# ---- a reader that closes last after another process wrote ---------------------
mkfifo in
"$MEMSCOPE" shell --db d/s.db --read-only <in >sh.out 2>&1 &
reader=$!
exec 3>in
echo "recall dentist" >&3
for ((i = 0; i < 100; i++)); do grep -q '^query: ' sh.out && break; sleep 0.05; done
grep -q '^query: ' sh.out
ok $? "a read-only shell holds the store open"
"$MEMSCOPE" add --db d/s.db "the kayak club meets on the canal every Thursday" >/dev/null
is "$?" 0 "another process adds a memory meanwhile"
ok "$([ -s d/s.db-wal ]; echo $?)" "the memory is in the log (the reader holds the store open)"
sum=$(sha d/s.db)
wal=$(sha d/s.db-wal)
exec 3>&-
wait "$reader"
is "$?" 0 "the shell quits, the last to close the store"
is "$(sha d/s.db)" "$sum" "its close checkpointed nothing into the store"
is "$(sha d/s.db-wal 2>/dev/null)" "$wal" "the writer's log stays as it was, with its -shm"

# ---- a read of a store whose -wal and -shm are there -----------------------------
before=$(names)
mtime=$(dir_time)
for cmd in "recall kayak" "list --limit 3" "show m0001" "health"; do
    # shellcheck disable=SC2086
    "$MEMSCOPE" $cmd --db d/s.db >out 2>err </dev/null
    is "$?:$(cat err)" "0:" "with the log there: $cmd works"
    is "$(names)" "$before" "with the log there: $cmd creates and removes no file"
done
"$MEMSCOPE" recall --db d/s.db --json kayak >out 2>err </dev/null
grep -q 'kayak club meets on the canal' out
ok $? "a read sees the memory that is only in the log"
is "$(dir_time)" "$mtime" "the directory was not written (no file made and unlinked)"
is "$(sha d/s.db)" "$sum" "the store's bytes are unchanged"
is "$(sha d/s.db-wal)" "$wal" "and so is the log"
"$MEMSCOPE" add --db d/s.db "one more" >/dev/null
ok "$([ ! -e d/s.db-wal ] && [ ! -e d/s.db-shm ]; echo $?)" \
    "the next writer, closing last, checkpoints the log and removes it"
"$MEMSCOPE" recall --db d/s.db --json kayak >out 2>err </dev/null
grep -q 'kayak club meets on the canal' out
ok $? "and the memory is in the store"

tap_done
