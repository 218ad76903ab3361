#!/bin/bash
# snapfile.t - the snapshot file (engine/snapfile.c): recall maps it and
# answers exactly as from the tables; a write makes it stale and it is
# rebuilt; a damaged, truncated, foreign or garbage file is never trusted
# (one line on stderr, the same answers, a new file); a store whose folder
# cannot be written keeps its file in the user's cache; two processes never
# see half a file, also when the one writing it is killed with SIGKILL.
#
# MEMSCOPE_SNAPSHOT=always makes the small stores here use a file (by
# default only profiles of 10,000 memories and more do). Needs $MEMSCOPE,
# sqlite3 and python3.
set -u

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/answers.sh" # answers
command -v sqlite3 >/dev/null || bail "sqlite3 is needed"
command -v python3 >/dev/null || bail "python3 is needed"

scratch snapfile-t

ASOF=(--as-of 2025-01-01T00:00:00Z)
QUERIES=("What does Caroline paint?" "When did Melanie go camping?" "dentist"
    "What is the latest on the adoption?" "penguin chromodynamics"
    "the e-mail about the dinner" "what did she say she would do next week with the kids")

# The header field of a snapshot file (generation, n) by its offset.
generation() { python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(4096); print(struct.unpack_from("<q", d, 64)[0])' "$1"; }

"$MEMSCOPE" demo --db demo.db >/dev/null 2>err || bail "cannot write the demo store: $(cat err)"
demo_sha=$(sha demo.db)

# ---- mapped answers are the tables' answers ---------------------------------

answers demo.db off.txt MEMSCOPE_SNAPSHOT=off
ok "$([ -s off.txt ] && [ ! -e demo.db.snap ]; echo $?)" "MEMSCOPE_SNAPSHOT=off: answers, no file"
answers demo.db auto.txt
ok "$([ ! -e demo.db.snap ]; echo $?)" "by default a store this small gets no file"
answers demo.db first.txt MEMSCOPE_SNAPSHOT=always
ok "$([ -s demo.db.snap ]; echo $?)" "the first recall writes demo.db.snap beside the store"
is "$(stat -c %a demo.db.snap)" "600" "readable by its owner only, like the store"
ok "$([ ! -e demo.db.snap.tmp ]; echo $?)" "no temporary file is left"
answers demo.db mapped.txt MEMSCOPE_SNAPSHOT=always
ok "$(cmp -s off.txt first.txt && cmp -s off.txt mapped.txt; echo $?)" \
    "recall from the mapped file answers byte for byte as from the tables (${#QUERIES[@]} queries, traces)"
ok "$([ ! -s mapped.txt.err ] && [ ! -s first.txt.err ]; echo $?)" "and says nothing on stderr"
is "$(sha demo.db)" "$demo_sha" "the store is byte-for-byte unchanged"
gen0=$(generation demo.db.snap)
# Without --as-of, recency counts from the profile's newest memory, so the
# file carries that time too (it did not: a mapped store ranked the latest
# news against 1970 and a second process answered otherwise).
ASOF=()
answers demo.db off-now.txt MEMSCOPE_SNAPSHOT=off
answers demo.db mapped-now.txt MEMSCOPE_SNAPSHOT=always
ok "$(cmp -s off-now.txt mapped-now.txt; echo $?)" \
    "without --as-of too, the mapped file answers byte for byte as the tables"
ASOF=(--as-of 2025-01-01T00:00:00Z)

# ---- a write makes it stale ----------------------------------------------

"$MEMSCOPE" add --db demo.db --id snapnew --speaker Caroline "Caroline: I paint penguins on Sundays" >/dev/null 2>err ||
    bail "add failed: $(cat err)"
answers demo.db off2.txt MEMSCOPE_SNAPSHOT=off
answers demo.db after.txt MEMSCOPE_SNAPSHOT=always
ok "$(grep -q snapnew off2.txt && cmp -s off2.txt after.txt; echo $?)" \
    "after a write, recall answers with the new memory, as from the tables"
ok "$([ "$(generation demo.db.snap)" -gt "$gen0" ]; echo $?)" "and the file was rebuilt for the new generation"
ok "$([ ! -s after.txt.err ]; echo $?)" "a stale file is rebuilt without a word"

# Judgements are not in the file: adding one, replacing it and withdrawing
# it leave the store's generation, so the file stays valid (replacing one
# once moved it, and a 1M store's next process read its tables again).
gen_store() { sqlite3 -readonly demo.db "SELECT value FROM meta WHERE key='generation'"; }
g0=$(gen_store)
snap_id=$(stat -c %i.%Z demo.db.snap)
for label in + - +; do
    "$MEMSCOPE" feedback --db demo.db --query "What does Caroline paint?" snapnew "$label" >/dev/null 2>err ||
        bail "feedback failed: $(cat err)"
done
"$MEMSCOPE" feedback --db demo.db --reset --yes >/dev/null 2>err || bail "feedback --reset failed: $(cat err)"
is "$(gen_store)" "$g0" "judging a memory, judging it again otherwise and forgetting all judgements move no generation"
answers demo.db after-fb.txt MEMSCOPE_SNAPSHOT=always
ok "$(cmp -s after.txt after-fb.txt && [ "$(stat -c %i.%Z demo.db.snap)" = "$snap_id" ]; echo $?)" \
    "and the next recall maps the same file and answers as before"

# ---- a file checked whole once is sealed -------------------------------------

# seal_is FILE: "yes" when the seal beside FILE names it as stat sees it
# now, else which of device, inode, size and change time differ.
seal_is() {
    python3 - "$1" <<'PY'
import os, struct, sys
f = sys.argv[1]
try:
    d = open(f + ".seal", "rb").read()
except OSError:
    sys.exit(print("no seal"))
magic, fmt, zero, dev, ino, size, cs, cns = struct.unpack_from("<8sIIQQQqq", d)
st = os.stat(f)
want = {"device": st.st_dev, "inode": st.st_ino, "size": st.st_size,
        "change time": (st.st_ctime_ns // 10**9, st.st_ctime_ns % 10**9)}
got = {"device": dev, "inode": ino, "size": size, "change time": (cs, cns)}
bad = [k for k in want if want[k] != got[k]]
if magic != b"MSSEAL\r\n" or len(d) != 72:
    bad.insert(0, "magic or length")
print("differs: " + ", ".join(bad) if bad else "yes")
PY
}
# A file changed in the last SEAL_AGE (2) seconds is checked but not sealed.
sleep 2.1
answers demo.db seal1.txt MEMSCOPE_SNAPSHOT=always
is "$(seal_is demo.db.snap)" "yes" "a recall that checked the file whole writes demo.db.snap.seal naming it"
ok "$([ ! -e demo.db.snap.seal.tmp ]; echo $?)" "and leaves no temporary seal"
answers demo.db seal2.txt MEMSCOPE_SNAPSHOT=always
ok "$(cmp -s off2.txt seal1.txt && cmp -s off2.txt seal2.txt && [ ! -s seal1.txt.err ] &&
    [ ! -s seal2.txt.err ]; echo $?)" "recall from a sealed file answers as from the tables, silently"

# ---- damaged files are never trusted ----------------------------------------

cp demo.db.snap good.snap
# damage DESCRIPTION WANT: with demo.db.snap damaged, recall says WANT on
# stderr once, answers as from the tables, and the next recall maps a
# sound new file silently.
damage() {
    answers demo.db bad.txt MEMSCOPE_SNAPSHOT=always
    ok "$(cmp -s off2.txt bad.txt; echo $?)" "$1: the same answers"
    is "$(sort -u bad.txt.err | wc -l | tr -d ' ')" 1 "$1: one line on stderr"
    ok "$(grep -q "^memscope: snapshot file .*demo.db.snap is $2" bad.txt.err; echo $?)" "$1: it says '$2'"
    diag "$(sort -u bad.txt.err)"
    answers demo.db again.txt MEMSCOPE_SNAPSHOT=always
    ok "$(cmp -s off2.txt again.txt && [ ! -s again.txt.err ]; echo $?)" "$1: then a sound file, silently"
}
flip() { # flip FILE OFFSET: invert one byte
    python3 -c 'import sys; f=open(sys.argv[1],"r+b"); o=int(sys.argv[2]); f.seek(o); b=f.read(1); f.seek(o); f.write(bytes([b[0]^0xff]))' "$1" "$2"
}
flip demo.db.snap 5000
is "$(seal_is demo.db.snap)" "differs: change time" \
    "a byte flipped in a sealed file: its seal names the same inode and size, not the change time"
damage "a byte flipped in the rids, under the file's seal" "damaged"
cp good.snap demo.db.snap && flip demo.db.snap 5000
damage "a byte flipped in the rids" "damaged"
cp good.snap demo.db.snap && flip demo.db.snap 70
damage "a byte flipped in the header" "damaged"
# The middle of bm25's posting lists (not in the checksum: each list has its
# own hash, which the process that checks the file whole checks too): the
# header's section offsets begin at byte 368, S_COUNT (43) of them, then as
# many lengths; the lists are section 33.
lists_mid() { python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(4096); o=struct.unpack_from("<Q",d,368+33*8)[0]; n=struct.unpack_from("<Q",d,368+43*8+33*8)[0]; print(o+n//2 if n else 0)' "$1"; }
mid=$(lists_mid good.snap)
ok "$([ "$mid" -gt 4096 ]; echo $?)" "the file holds bm25's posting lists (at byte $mid)"
cp good.snap demo.db.snap && flip demo.db.snap "$mid"
damage "a byte flipped in bm25's posting lists" "damaged (its postings do not add up)"
cp good.snap demo.db.snap && truncate -s 100000 demo.db.snap
damage "a file cut short" "damaged"
cp good.snap demo.db.snap && truncate -s 100 demo.db.snap
damage "a file shorter than its header" "damaged"
# A file of the format before this one (8: its time marks without the
# memories that say something was just done): rebuilt, not read as this
# format.
cp good.snap demo.db.snap &&
    python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(8); f.write((8).to_bytes(4,"little"))' demo.db.snap
damage "a file of format 8" "made by another version of memscope"
head -c 10000 /dev/urandom >demo.db.snap
damage "random bytes" "not a memscope snapshot file"
"$MEMSCOPE" demo --db other.db >/dev/null 2>&1
MEMSCOPE_SNAPSHOT=always "$MEMSCOPE" recall --db other.db "${ASOF[@]}" -- dentist >/dev/null 2>&1
cp other.db.snap demo.db.snap
damage "another store's file" "made for another store"

# ---- a folder that cannot be written: the user's cache ------------------------

as_user=()
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
if [ "$(id -u)" -eq 0 ] && [ ${#as_user[@]} -eq 0 ]; then
    ok 0 "# SKIP a read-only folder: running as root without setpriv"
else
    chmod 0755 "$T"
    mkdir ro rocache && cp demo.db ro/demo.db && chmod 0444 ro/demo.db && chmod 0555 ro
    [ "$(id -u)" -eq 0 ] && chown 65534 rocache
    ro_sha=$(sha ro/demo.db)
    for i in 1 2; do
        "${as_user[@]}" env MEMSCOPE_SNAPSHOT=always XDG_CACHE_HOME="$T/rocache" "$MEMSCOPE" recall \
            --db "$T/ro/demo.db" --json --trace "${ASOF[@]}" -- "${QUERIES[0]}" 2>ro$i.err |
            grep -v '"ms":\|"timing_ms"' >ro$i.txt
    done
    is "$(ls ro | tr '\n' ' ')" "demo.db " "a read-only folder: nothing is written beside the store"
    is "$(sha ro/demo.db)" "$ro_sha" "a read-only folder: the store is unchanged"
    ok "$(ls rocache/memscope/*-demo.db.snap >/dev/null 2>&1; echo $?)" "the file is in \$XDG_CACHE_HOME/memscope"
    head -n "$(lines ro1.txt)" off2.txt >ro-want.txt
    ok "$(cmp -s ro1.txt ro2.txt && [ ! -s ro1.err ] && [ ! -s ro2.err ] &&
        grep -q '"query"' ro2.txt; echo $?)" "and recall answers from it, silently"
fi

# ---- SIGKILL while the file is written, and two writers ---------------------------

"$MEMSCOPE" bench --memories 4000 --queries 1 --keep big.db >/dev/null 2>err || bail "bench --keep failed: $(cat err)"
QUERIES=("What is the latest on the dinner?" "When did Nora go to the journal?")
answers big.db bigoff.txt MEMSCOPE_SNAPSHOT=off
killed_mid=0
for delay in 0.02 0.05 0.1 0.2 0.3 0.5; do
    rm -f big.db.snap
    MEMSCOPE_SNAPSHOT=always "$MEMSCOPE" recall --db big.db "${ASOF[@]}" -- dinner >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    [ -e big.db.snap.tmp ] && [ ! -e big.db.snap ] && killed_mid=$((killed_mid + 1))
    answers big.db bigk.txt MEMSCOPE_SNAPSHOT=always
    ok "$(cmp -s bigoff.txt bigk.txt && [ ! -s bigk.txt.err ] && [ -s big.db.snap ]; echo $?)" \
        "killed after ${delay}s: the next recall answers as from the tables, silently, and leaves a sound file"
done
diag "$killed_mid of 6 kills left a half-written temporary file (and no snapshot file) behind"
# Four processes at once, none with a file to map.
rm -f big.db.snap big.db.snap.tmp
for i in 1 2 3 4; do
    (answers big.db par$i.txt MEMSCOPE_SNAPSHOT=always) &
done
wait
same=0
for i in 1 2 3 4; do cmp -s bigoff.txt par$i.txt && [ ! -s par$i.txt.err ] && same=$((same + 1)); done
is "$same" 4 "four processes recalling at once, each writing or mapping the file, all answer as from the tables"
answers big.db bigafter.txt MEMSCOPE_SNAPSHOT=always
ok "$(cmp -s bigoff.txt bigafter.txt && [ ! -s bigafter.txt.err ]; echo $?)" "and the file they left is sound"


# ---- a large store's file is written by a child, after the answer ---------------

# From 100,000 memories (tui/cli/closing.h) a process that read the tables
# leaves the file to a child that outlives it, so that the prompt does not
# wait seconds for it; MEMSCOPE_SNAPSHOT_SAVE=background does so at any size
# and =wait never. The child's test delay holds its write back long enough
# to see the command, and the pipe it wrote to, end first.
QUERIES=("${QUERIES[0]}")
answers big.db bg-want.txt MEMSCOPE_SNAPSHOT=off
BG=(MEMSCOPE_SNAPSHOT=always MEMSCOPE_SNAPSHOT_SAVE=background MEMSCOPE_SNAPSHOT_SAVE_DELAY_MS=3000)
# saver_gone: wait (up to 60 s) until no process recalls from big.db (or
# runs health or feedback on it);
# saver_gone now: 0 at once when one does (a child still waiting), else 1
saver_gone() {
    python3 - "$T/big.db" "${1:-}" <<'PY'
import os, sys, time
want, end = sys.argv[1].encode(), time.time() + 60
while time.time() < end:
    busy = False
    for p in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open("/proc/%s/cmdline" % p, "rb").read().split(b"\0")
        except OSError:
            continue
        busy = busy or (want in cmd and (b"recall" in cmd or b"health" in cmd or
                                         b"feedback" in cmd))
    if sys.argv[2] == "now":
        sys.exit(0 if busy else 1)
    if not busy:
        sys.exit(0)
    time.sleep(0.1)
sys.exit(1)
PY
}
rm -f big.db.snap
answers "$T/big.db" bg.txt "${BG[@]}"
ok "$([ ! -e big.db.snap ]; echo $?)" "background: the command and its pipe ended before the file was written"
ok "$(cmp -s bg-want.txt bg.txt && [ ! -s bg.txt.err ]; echo $?)" "and it answered as from the tables, silently"
ok "$(saver_gone; echo $?)" "the child that writes the file ends"
ok "$([ -s big.db.snap ] && [ ! -e big.db.snap.tmp ]; echo $?)" "and leaves the file beside the store"
is "$(seal_is big.db.snap)" "yes" "checked whole and sealed by the child (once 2 s old), not by the next recall"
snap_id=$(stat -c %i.%Z big.db.snap)
answers big.db bg-next.txt MEMSCOPE_SNAPSHOT=always
ok "$(cmp -s bg-want.txt bg-next.txt && [ ! -s bg-next.txt.err ] &&
    [ "$(stat -c %i.%Z big.db.snap)" = "$snap_id" ]; echo $?)" \
    "the next recall maps that file as it is and answers the same"
# The store written while the child waits: the child writes nothing.
rm -f big.db.snap
answers "$T/big.db" bg2.txt "${BG[@]}"
ok "$(saver_gone now; echo $?)" "the next command's child is there, waiting"
"$MEMSCOPE" add --db big.db --id bgnew "Nora: the dinner moved to Friday" >/dev/null 2>err || bail "add failed: $(cat err)"
saver_gone
ok "$([ ! -e big.db.snap ] && [ ! -e big.db.snap.tmp ]; echo $?)" \
    "a write while the child waits: it leaves no file (it would be stale)"
answers big.db bg-after-want.txt MEMSCOPE_SNAPSHOT=off
answers big.db bg-after.txt MEMSCOPE_SNAPSHOT=always
ok "$(grep -q bgnew bg-after.txt && cmp -s bg-after-want.txt bg-after.txt; echo $?)" \
    "and the next recall reads the tables: the new memory, as without a file"
ok "$([ -s big.db.snap ]; echo $?)" "and writes the file itself (the store is small)"
rm -f big.db.snap
answers big.db bg-wait.txt MEMSCOPE_SNAPSHOT=always MEMSCOPE_SNAPSHOT_SAVE=wait MEMSCOPE_SNAPSHOT_SAVE_DELAY_MS=3000
ok "$([ -s big.db.snap ]; echo $?)" "MEMSCOPE_SNAPSHOT_SAVE=wait: the file is there when the command ends"

# health and feedback read the snapshot as recall does, so after a write
# they leave its file to a child as recall does (at 1M they took 4-5 s
# after an add, 1.0 and 0.5 s so).
count=$("$MEMSCOPE" list --db big.db | wc -l)
rm -f big.db.snap
env "${BG[@]}" "$MEMSCOPE" health --db "$T/big.db" 2>health.err | cat >health.out
ok "$([ ! -e big.db.snap ] && grep -q "^memories   $count," health.out && [ ! -s health.err ]; echo $?)" \
    "health: its report ($count memories) and its pipe end before the file is written"
ok "$(saver_gone; echo $?)" "health: its child ends"
is "$(seal_is big.db.snap)" "yes" "health: the child leaves the file, sealed"
rm -f big.db.snap
env "${BG[@]}" "$MEMSCOPE" feedback --db "$T/big.db" --query "dinner on Friday" bgnew + 2>fb.err | cat >fb.out
ok "$([ ! -e big.db.snap ] && grep -q "^recorded: bgnew is relevant" fb.out && [ ! -s fb.err ]; echo $?)" \
    "feedback: the judgement is recorded and the command ends before the file is written"
ok "$(saver_gone; echo $?)" "feedback: its child ends"
is "$(seal_is big.db.snap)" "yes" "feedback: the child leaves the file, sealed"
answers big.db bg-fb.txt MEMSCOPE_SNAPSHOT=always
ok "$(grep -q bgnew bg-fb.txt && [ ! -s bg-fb.txt.err ] && [ "$("$MEMSCOPE" feedback --db big.db --list | grep -c bgnew)" = 1 ]; echo $?)" \
    "and the next recall answers from it; the judgement is listed once"

# ---- health's counts: kept in the file's header ------------------------------

# The file keeps what `memscope health` counts at its generation (at 1M
# 0.4 s of SQL, 0.58 s in all, against 0.01 s from the file), so that a
# process that maps it counts nothing. A link written behind memscope's
# back (sqlite3: the generation does not move) shows which source health
# read: the file's counts stay, the tables' move.
sqlite3 big.db ".backup cnt.db" || bail "cannot copy big.db"
answers cnt.db cnt.txt MEMSCOPE_SNAPSHOT=always MEMSCOPE_SNAPSHOT_SAVE=wait
health_counts() { env "$@" "$MEMSCOPE" health --db cnt.db 2>&1 | sed -n 2p; }
want=$(health_counts MEMSCOPE_SNAPSHOT=off)
got=$(health_counts MEMSCOPE_SNAPSHOT=always)
ok "$([ -s cnt.db.snap ] && [ "$got" = "$want" ] && case $want in memories*) true ;; *) false ;; esac; echo $?)" \
    "health on the mapped file: the counts the tables give ('$want')"
sqlite3 cnt.db "INSERT INTO memory_entities(rid, eid, given)
    SELECT m.rid, e.eid, 1 FROM memories m, entities e
    WHERE NOT EXISTS (SELECT 1 FROM memory_entities l WHERE l.rid = m.rid AND l.eid = e.eid)
    LIMIT 1" || bail "cannot add a link with sqlite3"
ok "$([ "$(health_counts MEMSCOPE_SNAPSHOT=always)" = "$got" ] &&
    [ "$(health_counts MEMSCOPE_SNAPSHOT=off)" != "$got" ]; echo $?)" \
    "they come from the file's header: a link added behind memscope's back moves only the tables'"
"$MEMSCOPE" add --db cnt.db --id cntnew "Nora: a second dinner, on Sunday" >/dev/null 2>err || bail "add failed: $(cat err)"
answers cnt.db cnt2.txt MEMSCOPE_SNAPSHOT=always MEMSCOPE_SNAPSHOT_SAVE=wait
want=$(health_counts MEMSCOPE_SNAPSHOT=off)
ok "$([ "$(health_counts MEMSCOPE_SNAPSHOT=always)" = "$want" ] && [ "$want" != "$got" ]; echo $?)" \
    "after a write the new file's counts are the tables' again ('$want')"

tap_done
