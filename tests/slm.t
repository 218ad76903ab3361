#!/bin/bash
# slm.t - `memscope import --format slm`: SuperLocalMemory stores made by the
# project's fixture maker (tests/slm/make-store.sh, from our own DDL) with a
# row for every rule (docs/STORES.md), then the real store SLM wrote,
# ../shared/fixtures/slm-demo/memory.db (skipped when it is absent):
# visibility, trust and confidence as SLM derives them, supersession, vectors
# with their model, edges, metadata, re-import bringing memscope up to date,
# the source never written (checksums, no -wal or -shm), a live SLM holding
# the store in WAL mode, bad input (one line, the store unchanged), eval
# parity with the JSONL import of the same memories.
#
# Needs $MEMSCOPE, sqlite3 and python3 (the trust derivation, the live
# writer). Works in a temporary directory that it removes.
set -u

. "$(dirname "$0")/tap.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
if ! command -v sqlite3 >/dev/null || ! command -v python3 >/dev/null; then
    echo "1..0 # SKIP sqlite3 and python3 are needed"
    exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-slm-t.XXXXXX") || bail "mktemp failed"
trap 'kill $writer 2>/dev/null; rm -rf "$T"' EXIT
writer=
cd "$T" || bail "cd $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/data" XDG_STATE_HOME="$T/state"
mkdir -p "$HOME"
MAKE="$HERE/slm/make-store.sh"

"$MAKE" current cur >/dev/null || bail "make-store.sh current failed"
"$MAKE" old old >/dev/null || bail "make-store.sh old failed"
"$MAKE" newer newer >/dev/null || bail "make-store.sh newer failed"

# trust.py DB MEMSCOPE_EXPORT: SLM's trust derivation (trust/scorer.py: the
# fact's trust_scores row as Beta(t(n+2), (1-t)(n+2)), else its agent's row
# through provenance.created_by, else 0.5) and confidence clamped to 0..1,
# for every fact memscope exported; prints one line per mismatch and a
# summary "checked N".
cat >trust.py <<'EOF'
import json, sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro&immutable=1" % sys.argv[1], uri=True)
tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
def row(target_type, target_id):
    if "trust_scores" not in tables or target_id is None:
        return None
    return db.execute("SELECT trust_score, evidence_count FROM trust_scores WHERE "
                      "target_type=? AND target_id=?", (target_type, target_id)).fetchone()
checked = bad = 0
for line in open(sys.argv[2], encoding="utf-8"):
    m = json.loads(line)
    fid = m["id"]
    t = row("fact", fid)
    if t is None and "provenance" in tables:
        agent = db.execute("SELECT created_by FROM provenance WHERE fact_id=?", (fid,)).fetchone()
        t = row("agent", agent[0]) if agent else None
    want = t[0] if t else 0.5
    a, b = m["trust"]["alpha"], m["trust"]["beta"]
    got = a / (a + b)
    conf = db.execute("SELECT confidence FROM atomic_facts WHERE fact_id=?", (fid,)).fetchone()[0]
    conf = min(1.0, max(0.0, conf))
    checked += 1
    if abs(got - want) > 1e-6 or (t and abs(a + b - (t[1] + 2)) > 1e-6):
        bad += 1
        print("trust of %s: memscope %.6f (%g, %g), SLM %s" % (fid, got, a, b, t))
    if abs(m["memory_confidence"] - conf) > 1e-9:
        bad += 1
        print("confidence of %s: memscope %g, SLM %g" % (fid, m["memory_confidence"], conf))
print("checked %d, %d wrong" % (checked, bad))
EOF

# ---- the project's own fixture: every rule -------------------------------------------

before=$(sha cur/memory.db)
run import --db m.db --format slm cur/memory.db
is "$rc" 0 "import --format slm reads a SuperLocalMemory memory.db"
grep -q '^SuperLocalMemory profile "work" -> "work": 10 added, 0 replaced, 0 unchanged, 0 removed; never imported: 1 archived, 1 quarantined, 1 in retention zones archive/forgotten; 4 superseded; 2 vectors from test-model, 4-d (1 left out: another model); 3 edges (1 of types memscope has not); 1 contradiction$' out
ok $? "the work profile's report: what was imported, hidden, skipped"
is "$(sqlite3 m.db "SELECT group_concat(x, ' ') FROM (SELECT a.id || '-' || b.id || ':' || e.type AS x FROM edges e JOIN memories a ON a.rid = e.src JOIN memories b ON b.rid = e.dst WHERE e.type = 4 ORDER BY 1)")" \
    "f1-f11:4" "SLM's semantic edge is a relation edge, as the evidence bundle maps it"
is "$(sqlite3 m.db "SELECT a.id || ' ' || b.id || ': ' || r.reason FROM relations r JOIN memories a ON a.rid = r.src JOIN memories b ON b.rid = r.dst WHERE r.kind = 2")" \
    "f6 f10: contradiction edge (SuperLocalMemory)" "SLM's contradiction edge is a contradicts relation, f6 -> f10"
grep -q '^SuperLocalMemory profile "home" -> "home": 3 added' out
ok $? "one memscope profile per SLM profile"
is "$(sha cur/memory.db)" "$before" "the source is byte for byte as it was"
ok "$(ls cur | grep -c -e -wal -e -shm)" "and no -wal or -shm was made beside it"

run list --db m.db --profile work
is "$(cut -f1 out | sort | tr '\n' ' ')" "f1 f10 f11 f5 f6 f7 f8 f9 g1 h1 " \
    "work sees its own facts, the global one and the one shared with it; not archived, quarantined or forgotten ones"
run list --db m.db --profile home
is "$(cut -f1 out | sort | tr '\n' ' ')" "g1 h1 h2 " "home sees only its own"
run export --db m.db
grep -q ZZ out
ok $((!$?)) "export has none of the hidden facts"
run recall --db m.db --profile work --json --no-floor ZZARCHIVED ZZQUARANTINE ZZFORGOTTEN copy
grep -q '"content": *"ZZ' out
ok $((!$?)) "recall never returns them"

show() { "$MEMSCOPE" show --db m.db --profile work "$1" >out 2>err; }
show f5
grep -q '^status  *superseded by f6 (2026-02-10)$' out && grep -q '^superseded_reason  *corrected by a later memory$' out
ok $? "an expired fact: superseded by its invalidator since the successor's time, with SLM's reason"
show f7
grep -q '^status  *superseded by f8 (2026-03-01)$' out && grep -q 'supersedes edge' out
ok $? "a supersedes edge makes its target superseded"
show f9
grep -q '^status  *superseded by f8 (2026-03-01)$' out && grep -q 'user_correction' out
ok $? "an applied correction case supersedes its predecessor"
show f10
grep -q '^status  *superseded (2020-01-01)$' out && grep -q 'valid_until passed' out
ok $? "a passed valid_until supersedes the fact"
show f6
grep -q '^status  *current$' out
ok $? "a successor is current"

show f1
grep -q '^event_time  *1843-09-01T00:00:00Z$' out
ok $? "event_time from referenced_date"
grep -q '^speaker  *Ada$' out && grep -q '^session  *sess-a$' out
ok $? "speaker and session from the raw memory"
grep -q '^pinned  *yes$' out && grep -q '^importance  *0.900$' out && grep -q '^access_count  *4$' out
ok $? "pinned, importance and access_count"
grep -q '^memory_confidence  *1.000$' out
ok $? "confidence 1.2 is clamped to 1"
grep -q '^\(entities\)\? *Ada Lovelace$' out && grep -q '^ *Bletchley$' out
ok $? "entities by their canonical names"
grep -q '^metadata  *origin = superlocalmemory$' out && grep -q 'entity_aliases = {"Ada Lovelace":\["Ada"\]}' out
ok $? "metadata: the origin, fact_type, scope and the entities' aliases"
grep -q '^vector  *test-model, 4-d$' out
ok $? "the vector, with its model and dimension"
grep -q '^edges  *temporal 0.70 -> f6$' out || grep -q '^  *temporal 0.70 -> f6$' out
ok $? "SLM's temporal edge is a temporal edge, its weight kept"
grep -q ' entity 0.40 -> f8$' out
ok $? "SLM's entity edge is an entity edge"
show f11
grep -q '^event_time  *1947-09-09T15:45:00Z$' out && grep -q '^vector  *-$' out
ok $? "interval_start as event_time; a vector of another model is left out"
show f6
grep -q '^vector  *test-model, 4-d$' out
ok $? "a vector stored as JSON text is read too"

run export --db m.db --profile work
cp out work.jsonl
python3 trust.py cur/memory.db work.jsonl >trust.out
grep -q '^checked 10, 0 wrong$' trust.out
st=$?
ok $st "trust and confidence equal SLM's derivation for every fact (fact row, agent row, prior)"
[ $st -eq 0 ] || diag "$(cat trust.out)"

run list --db m.db --profile work --where fact_type=temporal
is "$(cut -f1 out | tr '\n' ' ')" "f7 f8 f9 " "fact_type can be filtered on"
run list --db m.db --profile work --where scope=global
is "$(cut -f1 out)" "g1" "and scope"

# Again: nothing changed, nothing written.
cp m.db m1.db
run import --db m.db cur
is "$rc" 0 "import again (auto: a folder holding memory.db)"
grep -q '"work": 0 added, 0 replaced, 10 unchanged, 0 removed' out
ok $? "an unchanged store: everything unchanged"
run export --db m.db
cp out e2
"$MEMSCOPE" export --db m1.db >e1
cmp -s e1 e2
ok $? "and the memories are as they were"

# Again, after SLM changed: one edited, one archived, one unshared, one new.
cp -r cur cur2
sqlite3 cur2/memory.db "UPDATE atomic_facts SET content='Ada Lovelace wrote the first published program' WHERE fact_id='f1';
UPDATE atomic_facts SET archive_status='archived' WHERE fact_id='f6';
UPDATE atomic_facts SET shared_with=NULL WHERE fact_id='h1';
INSERT INTO atomic_facts(fact_id, memory_id, profile_id, content, observation_date, created_at)
 VALUES ('f12','r1','work','Babbage built the difference engine','2026-04-01T10:00:00Z','2026-04-01T10:00:00Z');
PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
run import --db m.db --slm-profile work cur2
grep -q '"work": 1 added, 1 replaced, 7 unchanged, 2 removed; never imported: 2 archived' out
ok $? "a re-import reports each change"
run list --db m.db --profile work
is "$(cut -f1 out | sort | tr '\n' ' ')" "f1 f10 f11 f12 f5 f7 f8 f9 g1 " "and applies them"
run show --db m.db --profile work f1
grep -q 'first published program' out
ok $? "the changed fact is replaced"

# One profile, renamed.
run import --db m2.db --slm-profile home --profile casa cur
grep -q '^SuperLocalMemory profile "home" -> "casa": 3 added' out
ok $? "--slm-profile picks one, --profile renames it"
run list --db m2.db --profile casa
is "$(lines out)" 3 "into that profile"

# ---- the engine: supersession traced, vectors only with their model ------------------

"$MEMSCOPE" import --db e.db cur >/dev/null 2>&1
run health --db e.db --profile work
grep -q '^semantic   inactive: embedder_mismatch (store vectors from test-model, 4-d; no query embedder for that model - see docs/EMBEDDERS.md)$' out &&
    grep -q '^hopfield   inactive: embedder_mismatch (store vectors from test-model' out
ok $? "semantic and hopfield are inactive, naming the stored vectors' model"
run recall --db e.db --profile work --require-channels semantic Grace
[ "$rc" -eq 1 ] && grep -q "required channel semantic is inactive (embedder_mismatch: store vectors from test-model, 4-d" err
ok $? "--require-channels semantic fails, naming the model"
adj() { # adj ID: the adjustments of ID in out (recall --json --trace)
    python3 -c '
import json, sys
for r in json.load(open("out"))["results"]:
    if r["id"] == sys.argv[1]:
        print(" ".join("%s=%g:%s" % (a["name"], a["factor"], a["detail"]) for a in r["trace"]["adjustments"]))' "$1"
}
run recall --db e.db --profile work --json --trace --no-floor --limit 20 Grace Harvard lab Navy
adj f5 | grep -q "superseded=0.25:superseded by f6 (2026-02-10)"
ok $? "a superseded memory's ranking gets a traced adjustment x0.25, saying by what and since when"
adj f6 | grep -q superseded
ok $((!$?)) "its successor gets none"
run recall --db e.db --profile work --json --trace --no-floor --limit 20 lab badge valid
adj f10 | grep -q "superseded=0.5:superseded (2020-01-01)"
ok $? "an expired one (valid_until passed) x0.5"
run recall --db e.db --profile work --trace --no-floor Grace Harvard lab Navy
grep -q '^      superseded x 0\.2500  superseded by f6 (2026-02-10)$' out
ok $? "the text trace says it too (its adjustment row, as the browser's trace)"
emb="cmd:perl $HERE/tools/embedder.pl"
EMB_MODEL=test-model EMB_DIM=4 "$MEMSCOPE" recall --db e.db --profile work --json --embedder "$emb" Grace >out 2>err
python3 -c 'import json; c = json.load(open("out"))["channels"]; exit(0 if c["semantic"]["active"] and c["hopfield"]["active"] else 1)'
ok $? "a query embedder that declares the stored model (\"model\" in its info) makes semantic and hopfield active"
EMB_DIM=4 "$MEMSCOPE" recall --db e.db --profile work --json --embedder "$emb" Grace >out 2>err
python3 -c 'import json; c = json.load(open("out"))["channels"]["semantic"]; exit(0 if not c["active"] and "test-model" in c["note"] else 1)'
ok $? "one that declares no model leaves them inactive"
run reembed --db e.db
is "$rc" 0 "reembed replaces the imported vectors"
run health --db e.db --profile work
grep -q '^semantic   active$' out
ok $? "and semantic is active with the built-in embedder"
run show --db e.db --profile work f1
grep -q '^vector  *hash-ngram-v2:512, 512-d$' out
ok $? "f1's vector is now the built-in embedder's"
run import --db e.db --slm-profile work cur
grep -q '"work": 0 added, 0 replaced, 10 unchanged, 0 removed; .*0 vectors from test-model, 4-d (3 left out: the store.s vectors come from another model)' out
st=$?
ok $st "importing again leaves them: the store's vectors are another model's, never mixed"
[ $st -eq 0 ] || diag "$(cat out)"
run show --db e.db --profile work f1
grep -q '^vector  *hash-ngram-v2:512, 512-d$' out
ok $? "f1 keeps the built-in embedder's vector"

# The browser: a superseded result says so in its row.
if command -v tmux >/dev/null; then
    SOCK="memscope-slm-$$"
    tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
    trap 'kill $writer 2>/dev/null; tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
    . "$HERE/tmux.sh" # tm_start
    browse() { # browse DB PROFILE QUERY [KEY...]: the browser's screen after QUERY (and KEYs)
        tm_start 140 30 "env TERM=xterm-256color LANG=C.UTF-8 HOME=$HOME $MEMSCOPE --db $1 --profile $2; sleep 60"
        local i
        for ((i = 0; i < 100; i++)); do
            tm capture-pane -p -t t >screen
            grep -q "Trace of\|Type a question" screen && break
            sleep 0.1
        done
        tm send-keys -t t /
        tm send-keys -t t C-u
        tm send-keys -t t -l -- "$3"
        tm send-keys -t t Enter
        for ((i = 0; i < 100; i++)); do
            sleep 0.1
            tm capture-pane -p -t t >screen
            grep -q "Trace of" screen && break
        done
        shift 3
        [ $# -gt 0 ] && tm send-keys -t t "$@"
        sleep 0.5
        tm capture-pane -p -t t >screen
        tm kill-server 2>/dev/null
    }
    "$MEMSCOPE" import --db b.db cur >/dev/null 2>&1
    browse b.db work "Grace Harvard lab"
    grep -q "\[superseded by f6 (2026-02-10)\] Grace works at the Harvard lab" screen
    st=$?
    ok $st "the browser's row of a superseded memory says by what and since when"
    [ $st -eq 0 ] || diag "$(cat screen)"
    browse b.db work "Grace Harvard lab" Down Down Down
    grep -q "Trace of f5" screen && grep -q "^superseded x 0.2500  superseded by f6 (2026-02-10)" screen
    st=$?
    ok $st "and its trace, the adjustment with the same words"
    [ $st -eq 0 ] || diag "$(cat screen)"
else
    skip "tmux is absent: the browser's row" 2 # the 2 checks above
fi

# An id memscope has from elsewhere (not an SLM import): --on-duplicate decides.
printf '%s\n' '{"id":"f1","profile":"work","content":"my own note"}' >own.jsonl
"$MEMSCOPE" import --db d.db own.jsonl >/dev/null 2>&1
dsha=$(sha d.db)
run import --db d.db --slm-profile work cur
[ "$rc" -eq 1 ] && grep -q 'fact f1: id "f1" already exists in profile "work" and did not come from SuperLocalMemory (see --on-duplicate)' err
ok $? "a memory of the same id from elsewhere is an error by default"
is "$(sha d.db)" "$dsha" "and the store is unchanged"
run import --db d.db --slm-profile work --on-duplicate skip cur
grep -q '"work": 9 added, 0 replaced, 0 unchanged, 0 removed; .*; 1 kept as they were' out &&
    "$MEMSCOPE" show --db d.db --profile work f1 | grep -q "my own note"
ok $? "--on-duplicate skip keeps it"
run import --db d.db --slm-profile work --on-duplicate replace cur
grep -q '"work": 0 added, 1 replaced, 9 unchanged' out &&
    "$MEMSCOPE" show --db d.db --profile work f1 | grep -q "first program"
ok $? "--on-duplicate replace replaces it"

# ---- bad input: one line naming the file and why, the store unchanged ----------------

cp m.db guard.db
guard=$(sha guard.db)
refused() { # refused WHAT PATTERN ARGS...
    local what=$1 pattern=$2
    shift 2
    run import --db guard.db "$@"
    [ "$rc" -ne 0 ] && [ "$(lines err)" = 1 ] && grep -q -- "$pattern" err
    st=$?
    ok $st "$what: one line naming it"
    [ $st -eq 0 ] || diag "rc $rc: $(cat err)"
    is "$(sha guard.db)" "$guard" "$what: memscope's store is unchanged"
}
echo "not a database" >text.db
refused "a text file" "text.db: not a SuperLocalMemory store (not an SQLite database)" --format slm text.db
refused "an SQLite file that is not SLM's" "m1.db: an SQLite database but not a SuperLocalMemory store" --format slm m1.db
refused "a newer SLM schema" "schema version 43 is newer than this memscope reads (up to 42)" newer
mkdir empty
refused "a folder without memory.db" "empty: no memory.db in this folder" --format slm empty
refused "an unknown SLM profile" 'no SuperLocalMemory profile "nope"' --slm-profile nope cur
refused "--profile with two SLM profiles" "holds 2 SuperLocalMemory profiles" --profile x cur
cp -r cur corrupt
root=$(sqlite3 corrupt/memory.db "SELECT rootpage FROM sqlite_master WHERE name='atomic_facts'")
printf 'garbage%.0s' $(seq 1 600) | dd of=corrupt/memory.db bs=4096 seek=$((root - 1)) conv=notrunc 2>/dev/null
refused "a corrupt store" "corrupt" corrupt

run import --db o.db old
is "$rc" 0 "an old SLM store (V3, before the migrations) imports"
grep -q "note: this SuperLocalMemory store (schema 1; memscope reads up to 42) has no .*fact_temporal_validity.*atomic_facts.archive_status" err
ok $? "saying which version it read and what is missing"
run show --db o.db o1
grep -q '^ *Charles Babbage$' out && grep -q '^trust  *0.600  (alpha 3, beta 2)$' out
ok $? "with what is there: entities from canonical_entities_json, trust"

# A vec0 table (sqlite-vec's, a derived copy) whose extension memscope lacks.
cp -r cur vec
sqlite3 vec/memory.db "PRAGMA writable_schema=ON;
INSERT INTO sqlite_master(type, name, tbl_name, rootpage, sql) VALUES ('table', 'fact_embeddings',
 'fact_embeddings', 0, 'CREATE VIRTUAL TABLE fact_embeddings USING vec0(embedding float[4])');" 2>/dev/null
run import --db v.db vec
is "$rc" 0 "a vec0 table without its extension is ignored (it is derived)"

# Locked: a writer holds the store (rollback journal) exclusively.
cp -r cur locked
sqlite3 locked/memory.db 'PRAGMA journal_mode=DELETE' >/dev/null
python3 -c '
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(30)' locked/memory.db locked.ready &
writer=$!
for ((i = 0; i < 100; i++)); do [ -e locked.ready ] && break; sleep 0.05; done
refused "a locked store" "locked by another process (waited 5000 ms)" locked
kill $writer 2>/dev/null
wait $writer 2>/dev/null

# Live: an SLM holds the store in WAL mode, with a committed fact still in
# its log. The import sees it, and neither the file nor the log changes.
cp -r cur live
python3 -c '
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("INSERT INTO atomic_facts(fact_id, memory_id, profile_id, content) VALUES (?,?,?,?)",
           ("f13", "r1", "work", "a fact still in the write-ahead log"))
open(sys.argv[2], "w").close()
time.sleep(30)' live/memory.db live.ready &
writer=$!
for ((i = 0; i < 100; i++)); do [ -e live.ready ] && break; sleep 0.05; done
main=$(sha live/memory.db)
wal=$(sha live/memory.db-wal)
run import --db l.db --slm-profile work live
is "$rc" 0 "an import while a live SLM holds the store in WAL mode"
run show --db l.db --profile work f13
grep -q "still in the write-ahead log" out
ok $? "reads what the live process committed to its log"
is "$(sha live/memory.db)" "$main" "the live store's file is unchanged"
is "$(sha live/memory.db-wal)" "$wal" "and its log"
kill $writer 2>/dev/null
wait $writer 2>/dev/null

# ---- the store SLM itself wrote ------------------------------------------------------

DEMO="$SRC/../shared/fixtures/slm-demo/memory.db"
if [ ! -r "$DEMO" ]; then
    skip "$DEMO is absent" 17 # the 17 checks below
    tap_done
    exit
fi
before=$(sha "$DEMO")
extra_before=$(ls "$(dirname "$DEMO")" | grep -c -e -wal -e -shm)
run import --db s.db --format slm "$DEMO"
is "$rc" 0 "SLM's own store imports"
grep -q '^SuperLocalMemory profile "default" -> "default": 329 added, 0 replaced, 0 unchanged, 0 removed; never imported: 6 archived, 6 quarantined, 0 in retention zones archive/forgotten; 3 superseded; 40 vectors from nomic-ai/nomic-embed-text-v1.5, 768-d' out
st=$?
ok $st "329 facts, the 12 decoys never imported, 3 superseded, 40 nomic vectors"
[ $st -eq 0 ] || diag "$(cat out)"
is "$(sha "$DEMO")" "$before" "SLM's store is byte for byte as it was"
is "$(ls "$(dirname "$DEMO")" | grep -c -e -wal -e -shm)" "$extra_before" "and nothing was made beside it"
run list --db s.db
grep -q ZZ out
ok $((!$?)) "no ZZARCHIVED or ZZQUARANTINE row in list"
run export --db s.db
cp out s.jsonl
grep -q ZZ out
ok $((!$?)) "nor in export"
hits=0
for q in "ZZARCHIVED" "ZZQUARANTINE" "Lisbon talk" "dentist" "Biscuit" "Mum rang"; do
    "$MEMSCOPE" recall --db s.db --json --no-floor --limit 50 "$q" >r.json 2>/dev/null
    grep -q '"content": *"ZZ' r.json && hits=$((hits + 1))
done
is "$hits" 0 "nor in recall, even asked for by their words"
for pair in "m0010 m0210 2026-03-08" "m0003 m0274 2026-07-08" "m0015 m0274 2026-07-08"; do
    set -- $pair
    run show --db s.db "$1"
    grep -q "^status  *superseded by $2 ($3)\$" out
    ok $? "$1 shows what superseded it: $2 ($3)"
done
python3 trust.py "$DEMO" s.jsonl >trust.out
grep -q '^checked 329, 0 wrong$' trust.out
st=$?
ok $st "trust and confidence equal SLM's derivation for every fact"
[ $st -eq 0 ] || diag "$(cat trust.out)"

run health --db s.db
grep -q '^semantic   inactive: embedder_mismatch (store vectors from nomic-ai/nomic-embed-text-v1.5, 768-d; no query embedder for that model - see docs/EMBEDDERS.md)$' out
ok $? "the semantic channel names the nomic model and is inactive"
if command -v tmux >/dev/null; then
    browse s.db default "Yes I will fly Mum rang"
    grep -q "Trace of" screen && ! grep -q ZZ screen
    st=$?
    ok $st "the browser shows results and none of the decoys, even asked for by their words"
    [ $st -eq 0 ] || diag "$(cat screen)"
else
    skip "tmux is absent: the browser" 1
fi

# A re-import after changing the source (in a copy) reports and applies
# exactly the change.
mkdir demo2
cp "$DEMO" demo2/memory.db
chmod u+w demo2/memory.db
sqlite3 demo2/memory.db "UPDATE atomic_facts SET content = content || ' (edited)' WHERE fact_id = 'm0042';
UPDATE atomic_facts SET quarantined = 1 WHERE fact_id = 'm0043'; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
run import --db s.db demo2
grep -q '"default": 0 added, 1 replaced, 327 unchanged, 1 removed; never imported: 6 archived, 7 quarantined' out
ok $? "a re-import after a change reports exactly it"
run show --db s.db m0042
grep -q "(edited)" out
ok $? "the edited fact is replaced"
run show --db s.db m0043
is "$rc" 1 "the newly quarantined one is gone"

# Eval parity: the same memories from JSONL give the same Recall@10.
"$MEMSCOPE" import --db j.db "$SRC/data/demo.jsonl" >/dev/null 2>&1
"$MEMSCOPE" import --db s2.db "$DEMO" >/dev/null 2>&1
r10() { "$MEMSCOPE" eval --db "$1" --queries "$HERE/data/demo-queries.jsonl" --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["recall"]["10"])'; }
j=$(r10 j.db)
s=$(r10 s2.db)
[ -n "$j" ] && [ "$j" = "$s" ]
ok $? "eval: Recall@10 from SLM's store ($s) equals that from its JSONL ($j)"

tap_done
