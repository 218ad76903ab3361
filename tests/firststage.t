#!/bin/bash
# firststage.t - `--first-stage SPEC` end to end (the lists themselves are
# tested in tests/firststage-test.c): recall --json names what was added to
# bm25's list, every score of a traced answer with all the options on
# recomputes from its trace (--audit), the answer is the same with the
# store's snapshot file (bm25 over its postings) as without it, by default
# bm25 names nothing (the default, seeds for sets, is spreading's), eval and
# shell take the option, and a malformed spec is one usage line (exit 2).
#
# Needs $MEMSCOPE and python3. Works in a temporary directory it removes.
set -u

. "$(dirname "$0")/tap.sh"
command -v python3 >/dev/null || bail "python3 is needed for the JSON checks"

scratch firststage-t
unset MEMSCOPE_SNAPSHOT

cat >m.jsonl <<'J'
{"id": "p1", "content": "Ana: Our hobby is pottery.", "speaker": "Ana", "session": "s1", "created_at": "2025-01-01T10:00:00Z"}
{"id": "p2", "content": "Ana: Pottery became my hobby this year.", "speaker": "Ana", "session": "s2", "created_at": "2025-01-02T10:00:00Z"}
{"id": "p3", "content": "Ana: The kiln fired the pottery bowls.", "speaker": "Ana", "session": "s3", "created_at": "2025-01-03T10:00:00Z"}
{"id": "f1", "content": "Ben: The train was crowded.", "speaker": "Ben", "session": "s3", "created_at": "2025-01-03T10:01:00Z"}
{"id": "f2", "content": "Ben: Rain all day again.", "speaker": "Ben", "session": "s4", "created_at": "2025-01-04T10:00:00Z"}
{"id": "f3", "content": "Ana: Dinner was late tonight.", "speaker": "Ana", "session": "s4", "created_at": "2025-01-04T10:01:00Z"}
J
run import --db s.db m.jsonl
[ "$rc" -eq 0 ] || bail "import failed: $(cat err)"
Q="Which hobby and which club?"
SPEC="prf=2:3:1,sessions=0.5,aspects=1,seeds=20:1"

# field FILE EXPR: a python expression over the JSON d, printed.
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>&1; }

# bm25's rank of p3 in the answer in out, or none.
p3_bm25() { field out '[r["trace"]["channels"].get("bm25", {}).get("rank") for r in d["results"] if r["id"] == "p3"] or None'; }

run recall --db s.db --json --trace --no-floor "$Q"
is "$rc" 0 "recall without --first-stage answers"
is "$(field out '"first_stage" in d["channels"]["bm25"]')" False "by default bm25 names nothing added (the default acts in spreading, for sets)"
is "$(p3_bm25)" "None" "the kiln memory, holding no word of the question, is not in bm25's list"

MEMSCOPE_SNAPSHOT=off run recall --db s.db --json --trace --no-floor --first-stage "$SPEC" "$Q"
grep -v '"ms":\|"timing_ms"' out >tables.json
is "$rc" 0 "recall --first-stage $SPEC answers"
is "$(field out 'd["channels"]["bm25"]["first_stage"]')" \
    "prf 2:3:1 pottery ana; sessions 0.5; aspects 1 (2)" "channels.bm25.first_stage names the lists added"
is "$(p3_bm25)" "[3]" "the kiln memory, sharing only pottery with the first two, is third in it"

MEMSCOPE_SNAPSHOT=always run recall --db s.db --json --no-floor "$Q" # writes the file
MEMSCOPE_SNAPSHOT=always run recall --db s.db --json --trace --no-floor --first-stage "$SPEC" "$Q"
grep -v '"ms":\|"timing_ms"' out >mapped.json
ok "$([ -s s.db.snap ] && cmp -s tables.json mapped.json; echo $?)" \
    "the same answer from the snapshot file (bm25 over its postings) as from the tables"

run recall --db s.db --audit --no-floor --first-stage "$SPEC" "$Q"
is "$rc" 0 "--audit: every score recomputes from its trace with the lists added"

# hops and sets: Ana's two turns saying hobby, one a session, for a question
# asking for a set; nothing for one asking about one time
H="hops=1:1,kinds=0.5,sets"
run recall --db s.db --json --trace --no-floor --first-stage "$H" "What hobbies has Ana tried?"
is "$rc" 0 "recall --first-stage $H answers"
is "$(field out 'd["channels"]["bm25"].get("first_stage")')" "hops 1 (2 words, 2 turns)" \
    "a set asked of Ana: the hop list of her two turns saying hobby, one a session"
run recall --db s.db --json --no-floor --first-stage "$H" "What hobby did Ana try?"
is "$(field out 'd["channels"]["bm25"].get("first_stage")')" "None" \
    "one time asked (what did Ana try): sets keeps every list off"
run recall --db s.db --audit --no-floor --first-stage "$H" "What hobbies has Ana tried?"
is "$rc" 0 "--audit: every score recomputes from its trace with the hop list added"

run recall --db s.db --first-stage "prf=5:10" "$Q"
is "$rc" 2 "a malformed spec is a usage error"
is "$(lines err)" 1 "one line on stderr"
ok "$(grep -q -- '--first-stage takes prf=K:T:W' err; echo $?)" "naming the option and its grammar"

run eval --db s.db --queries /dev/null --first-stage "$SPEC"
is "$rc" 0 "eval accepts --first-stage"
echo "recall $Q" | "$MEMSCOPE" shell --db s.db --no-floor --first-stage "$SPEC" >out 2>err
is "$?" 0 "shell accepts --first-stage"
ok "$(grep -q 'p3 ' out; echo $?)" "and its recall finds the kiln memory"

tap_done
