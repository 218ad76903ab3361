#!/bin/bash
# snapgrow.t - the snapshot file grown for appends (engine/snapgrow.c): when
# the store only appended memories since the file was made, the next recall
# extends that snapshot with the new rows instead of reading every table,
# and the file it writes is byte for byte the one a full read writes (but
# for the header's note of what it grew from); recall answers exactly as
# from the tables. An append whose memory supersedes an older one (a
# relation found) still grows it: the file holds no relations, and a
# mapped or grown file answers with the store's, as the tables do. Any
# other write (a replacement, a delete) makes the next file a full read
# again. A kill
# -9 while a grown file is written leaves the old file or none, never half
# of one.
#
# Needs $MEMSCOPE and python3.
set -u

. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/answers.sh" # answers
command -v python3 >/dev/null || bail "python3 is needed"

scratch snapgrow-t
export MEMSCOPE_SNAPSHOT=always

ASOF=(--as-of 2025-01-01T00:00:00Z)
QUERIES=("What is the latest on the dinner?" "When did Nora go to the journal?" "Zorvan Quell"
    "Where does Lena work?")

# head_field FILE OFFSET: the little-endian int64 at OFFSET of the header
# (64: the generation it was made under; 4088: the generation it grew from).
head_field() { python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(4096); print(struct.unpack_from("<q", d, int(sys.argv[2]))[0])' "$1" "$2"; }

# same_but_grown A B: the two files are equal but for the grown-from note.
same_but_grown() {
    python3 -c 'import sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
sys.exit(0 if len(a) == len(b) > 4096 and a[:4088] == b[:4088] and a[4096:] == b[4096:] else 1)' "$1" "$2"
}

# turns FIRST COUNT [TEXT]: COUNT JSONL turns with ids g<FIRST>..: some in
# sessions the bench store has (s00001..), some in new ones; some by its
# speakers, some by a new one; new names (entities), event times; some say
# when ("last week") or that something was just done (the time marks);
# TEXT replaces the content of the first.
turns() {
    python3 - "$@" <<'EOF'
import json, sys
first, count = int(sys.argv[1]), int(sys.argv[2])
text = sys.argv[3] if len(sys.argv) > 3 else None
names = ["Zorvan Quell", "Brimwick", "Lena", "Nora", "Amir"]
for k in range(first, first + count):
    sess = "s%05d" % (k % 7 + 1) if k % 3 else "g%03d" % (k // 10)
    who = ["Lena", "Nora", "Tamsin Orr"][k % 3]
    said = ["%s lit the lantern near the harbour", "I just finished the lantern for %s",
            "%s lit the lantern last week"][k % 3 if k % 2 else 0] % names[k % 5]
    d = {"id": "g%05d" % k, "speaker": who, "session": sess,
         "content": "%s: %s, turn %d." % (who, said, k),
         "created_at": "2024-12-%02dT10:%02d:00Z" % (k % 28 + 1, k % 60)}
    if k % 4 == 0:
        d["event_time"] = "2024-%02d-%02dT09:00:00Z" % (k % 12 + 1, k % 27 + 1)
    if text and k == first:
        d["content"] = text
    print(json.dumps(d))
EOF
}

"$MEMSCOPE" bench --memories 4000 --queries 1 --keep big.db >/dev/null 2>err || bail "bench --keep failed: $(cat err)"
answers big.db first.txt
[ -s big.db.snap ] || bail "the first recall wrote no snapshot file"
gen0=$(head_field big.db.snap 64)
is "$(head_field big.db.snap 4088)" 0 "a file read from the tables says it grew from nothing"

# ---- appends: the file grows ------------------------------------------------

turns 1 300 >a.jsonl
"$MEMSCOPE" import --db big.db a.jsonl >/dev/null 2>err || bail "import failed: $(cat err)"
answers big.db off1.txt MEMSCOPE_SNAPSHOT=off
answers big.db grown1.txt
ok "$(grep -q '"g00' off1.txt && grep -q 'Zorvan' off1.txt && cmp -s off1.txt grown1.txt && [ ! -s grown1.txt.err ]; echo $?)" \
    "after an import of 300 appended memories, recall answers as from the tables (${#QUERIES[@]} queries, traces), silently"
gen1=$(head_field big.db.snap 64)
ok "$([ "$gen1" -gt "$gen0" ]; echo $?)" "the file is for the new generation"
is "$(head_field big.db.snap 4088)" "$gen0" "and it was grown from the file before, not read from the tables"
cp big.db.snap grown1.snap
rm big.db.snap
answers big.db full1.txt
is "$(head_field big.db.snap 4088)" 0 "without a file, the tables are read whole"
ok "$(same_but_grown grown1.snap big.db.snap; echo $?)" \
    "the grown file is byte for byte the one read from the tables, but for that note"
ok "$(cmp -s off1.txt full1.txt; echo $?)" "and both answer the same"

turns 301 40 >b.jsonl
"$MEMSCOPE" add --db big.db --speaker Nora "Nora: Lena works at Brimwick now." >/dev/null 2>err || bail "add failed: $(cat err)"
"$MEMSCOPE" import --db big.db b.jsonl >/dev/null 2>err || bail "import failed: $(cat err)"
answers big.db off2.txt MEMSCOPE_SNAPSHOT=off
answers big.db grown2.txt
ok "$(cmp -s off2.txt grown2.txt && [ ! -s grown2.txt.err ]; echo $?)" \
    "an add and another import later, recall answers as from the tables"
is "$(head_field big.db.snap 4088)" "$gen1" "grown again, from the grown file"
cp big.db.snap grown2.snap
rm big.db.snap
answers big.db full2.txt
ok "$(same_but_grown grown2.snap big.db.snap; echo $?)" "and again the same bytes as a full read"

# ---- a base of whole segments: its codes are the file's pages -----------------

# From 65,536 memories (a segment: 128 blocks of 512) the int8 codes of the
# base file's whole segments are not copied but that file's pages, mapped
# privately (engine/vectors.c vectors_alloc_from); the grown file is still
# the full read's, byte for byte.
"$MEMSCOPE" bench --memories 70000 --queries 1 --keep seg.db >/dev/null 2>err || bail "bench --keep failed: $(cat err)"
answers seg.db seg0.txt
[ -s seg.db.snap ] || bail "the first recall of seg.db wrote no snapshot file"
seg_gen=$(head_field seg.db.snap 64)
turns 1 300 >s.jsonl
"$MEMSCOPE" import --db seg.db s.jsonl >/dev/null 2>err || bail "import failed: $(cat err)"
answers seg.db seg-off.txt MEMSCOPE_SNAPSHOT=off
answers seg.db seg-grown.txt
ok "$(grep -q Zorvan seg-off.txt && cmp -s seg-off.txt seg-grown.txt && [ ! -s seg-grown.txt.err ]; echo $?)" \
    "70,000 memories and 300 appended: the grown snapshot answers as the tables"
is "$(head_field seg.db.snap 4088)" "$seg_gen" "it was grown from the file before"
cp seg.db.snap seg-grown.snap
rm seg.db.snap
answers seg.db seg-full.txt
ok "$(same_but_grown seg-grown.snap seg.db.snap; echo $?)" \
    "and the file it wrote is byte for byte the full read's, but for that note"
rm -f seg.db seg.db.snap seg-grown.snap

# ---- a process that holds the snapshot grows its own -------------------------

# The shell recalls, another process appends, the shell recalls again: its
# second table is a fresh process's, and the file it leaves (there is none
# to grow from: it is removed in between) grew from its own snapshot.
mkfifo in.fifo
"$MEMSCOPE" shell --db big.db "${ASOF[@]}" <in.fifo >shell.out 2>shell.err &
spid=$!
exec 3>in.fifo
echo "recall lantern harbour Zorvan" >&3
for _ in $(seq 200); do [ -s shell.out ] && break; sleep 0.05; done
gen2=$(head_field big.db.snap 64)
rm big.db.snap
turns 800 50 >d.jsonl
"$MEMSCOPE" import --db big.db d.jsonl >/dev/null 2>err || bail "import failed: $(cat err)"
echo "recall lantern harbour Zorvan" >&3
echo quit >&3
exec 3>&-
wait "$spid"
echo "recall lantern harbour Zorvan" |
    MEMSCOPE_SNAPSHOT=off "$MEMSCOPE" shell --db big.db "${ASOF[@]}" >fresh.out 2>&1
untimed() { sed -E 's/\(?[0-9.]+ ms\)?//g' "$1"; }
untimed shell.out >shell.txt
untimed fresh.out >fresh.txt
ok "$(python3 -c 'import sys; a, b = open(sys.argv[1]).read(), open(sys.argv[2]).read(); sys.exit(0 if "Zorvan" in b and a.endswith(b) and a != b else 1)' shell.txt fresh.txt && [ ! -s shell.err ]; echo $?)" \
    "a shell that recalled before another process appended answers after it as a fresh process does"
is "$(head_field big.db.snap 4088)" "$gen2" "and the file it wrote at its end grew from the snapshot it held"
cp big.db.snap grown3.snap
rm big.db.snap
answers big.db full3.txt
ok "$(same_but_grown grown3.snap big.db.snap; echo $?)" "the same bytes as a full read"

# ---- other writes: the tables are read whole -------------------------------

# rewrite WHAT CMD...: after CMD the next file is a full read, answering as
# from the tables.
rewrite() {
    local what=$1
    shift
    "$@" >/dev/null 2>err || bail "$what failed: $(cat err)"
    answers big.db offw.txt MEMSCOPE_SNAPSHOT=off
    answers big.db w.txt
    ok "$(cmp -s offw.txt w.txt && [ ! -s w.txt.err ] && [ "$(head_field big.db.snap 4088)" = 0 ]; echo $?)" \
        "after $what, the file is read from the tables whole and answers as they do"
}
turns 1 1 "Nora: Lena lit the lantern in Brimwick twice." >r.jsonl
rewrite "a replacement" "$MEMSCOPE" import --db big.db --on-duplicate replace r.jsonl
rewrite "a delete" "$MEMSCOPE" delete --db big.db g00002

# ---- supersession found: a relation, and the file still grows ------------------

gen_s=$(head_field big.db.snap 64)
rels=$(sqlite3 big.db 'SELECT count(*) FROM relations')
turns 400 1 "Nora: Lena works at Quellmark these days." >s.jsonl
"$MEMSCOPE" import --db big.db s.jsonl >s.out 2>err || bail "import failed: $(cat err)"
ok "$(grep -q 'supersedes relations found' s.out &&
    [ "$(sqlite3 big.db 'SELECT count(*) FROM relations')" -gt "$rels" ]; echo $?)" \
    "an import whose memory supersedes an older one records the relation it found"
answers big.db offs.txt MEMSCOPE_SNAPSHOT=off
answers big.db grown4.txt
ok "$(grep -q Quellmark offs.txt && cmp -s offs.txt grown4.txt && [ ! -s grown4.txt.err ]; echo $?)" \
    "after it, recall answers as from the tables, silently"
is "$(head_field big.db.snap 4088)" "$gen_s" "the file grew from the one before: found supersession is no rewrite"
cp big.db.snap grown4.snap
rm big.db.snap
answers big.db full4.txt
ok "$(same_but_grown grown4.snap big.db.snap && cmp -s offs.txt full4.txt; echo $?)" \
    "the same bytes as a full read, which answers the same"

# ---- SIGKILL while a grown file is written ---------------------------------

cp big.db.snap stale.snap
turns 500 200 >c.jsonl
"$MEMSCOPE" import --db big.db c.jsonl >/dev/null 2>err || bail "import failed: $(cat err)"
answers big.db offk.txt MEMSCOPE_SNAPSHOT=off
killed_mid=0
for delay in 0.01 0.03 0.1 0.2; do
    cp stale.snap big.db.snap
    "$MEMSCOPE" recall --db big.db "${ASOF[@]}" -- dinner >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    [ -e big.db.snap.tmp ] && killed_mid=$((killed_mid + 1))
    answers big.db k.txt
    ok "$(cmp -s offk.txt k.txt && [ ! -s k.txt.err ]; echo $?)" \
        "killed after ${delay}s while growing: the next recall answers as from the tables, silently"
done
diag "$killed_mid of 4 kills left a half-written temporary file behind"
ok "$(same_but_grown big.db.snap stale.snap; [ $? -ne 0 ] && [ "$(head_field big.db.snap 64)" -gt "$(head_field stale.snap 64)" ]; echo $?)" \
    "and the file left is for the new generation"

# ---- a store without entity links ---------------------------------------------

# Its file's link sections are empty (mapped as NULL): growing them copies
# nothing (under make asan, a copy from NULL was an error).
QUERIES=("lantern harbour" "what went out by the harbour?")
for k in 1 2 3; do
    echo "{\"id\": \"p$k\", \"content\": \"the lantern was lit near the harbour, turn $k\"}"
done >plain.jsonl
"$MEMSCOPE" import --db plain.db plain.jsonl >/dev/null 2>err || bail "import failed: $(cat err)"
answers plain.db plain1.txt
echo '{"id": "p4", "content": "the lantern went out by the harbour"}' >plain2.jsonl
"$MEMSCOPE" import --db plain.db plain2.jsonl >/dev/null 2>err || bail "import failed: $(cat err)"
is "$(sqlite3 plain.db 'SELECT count(*) FROM memory_entities')" 0 "a store whose memories link no entity"
answers plain.db plainoff.txt MEMSCOPE_SNAPSHOT=off
answers plain.db plaingrown.txt
ok "$(grep -q '"p4"' plainoff.txt && cmp -s plainoff.txt plaingrown.txt && [ ! -s plaingrown.txt.err ] &&
    [ "$(head_field plain.db.snap 4088)" -gt 0 ]; echo $?)" \
    "its file grows for an append, and recall answers as from the tables, silently"

tap_done
