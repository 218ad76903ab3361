#!/bin/bash
# store-writes.t - what the store derives while writing, checked against
# independent recomputations after a mixed history: imports that append,
# replace (same text, edited text, moved to another session, new given
# entities), delete, add one memory at a time, a failed import rolled back,
# and two profiles in one file. Since schema 4 the text index is written by
# store code (store/fts.c), appends answer from a write cache
# (store/wcache.c) and the neighbour text of a new turn goes in with it
# (store/context.c): these must leave the tables as the triggers and plain
# queries did.
#   - FTS5's own integrity check (the index matches the table, row by row);
#   - every memory's neighbour-text column equals its session neighbours'
#     words, recomputed here from the table;
#   - ranked search (ms_bm25, store/bm25.c) gives FTS5's bm25() scores for
#     the channel's rows (bit for bit in tests/bm25-test.c; here through
#     JSON, which keeps a double to within an ulp);
#   - one copy of each vector, well formed (the int8 forms are computed
#     from it as it is read, store/vector.c), and none without its memory;
#   - the engine and the TUI never touch SQLite (the interface boundary of
#     docs/SCALING.md): no sqlite3 in engine/ or tui/, no store_int.h.
#
# Needs $MEMSCOPE (make test sets it), sqlite3 and python3.
set -u

. "$(dirname "$0")/tap.sh"
command -v sqlite3 >/dev/null || bail "sqlite3 is needed"
command -v python3 >/dev/null || bail "python3 is needed"
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-writes-t.XXXXXX") || bail "mktemp failed"
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg"
mkdir -p "$HOME"

# ---- a history of writes ------------------------------------------------------

python3 - "$SRC/data/demo.jsonl" <<'EOF' || bail "cannot write the inputs"
import json, random, sys
random.seed(5)
lines = [json.loads(l) for l in open(sys.argv[1])]
def write(name, rows):
    with open(name, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
write("a.jsonl", lines[:180])
# replacements of earlier memories interleaved with new ones, in one file
edits = []
for m in random.sample(lines[:180], 30):
    m = dict(m)
    r = random.random()
    if r < 0.3:
        m["content"] = m["content"] + " Biscuit again."
    elif r < 0.6:
        m["session"] = "moved-" + str(random.randint(1, 3))
    elif r < 0.8:
        m["entities"] = ["Sam Okoro", "Kinsale"]
    edits.append(m)  # the rest: the same memory again
mixed = []
for i, m in enumerate(lines[180:280]):
    mixed.append(m)
    if i % 4 == 3 and edits:
        mixed.append(edits.pop())
write("b.jsonl", mixed + edits)
# a second profile in the same file
other = [dict(m, profile="other", id="o" + m["id"]) for m in lines[280:300]]
write("c.jsonl", lines[280:329] + other)
# a file that fails on its last line: nothing of it may stay
write("bad.jsonl", [dict(m, id="x" + m["id"]) for m in lines[:20]])
with open("bad.jsonl", "a") as f:
    f.write('{"id": "broken", "content": 7}\n')
EOF

run import --db s.db a.jsonl
is "$rc" 0 "import appends"
run import --db s.db --on-duplicate replace b.jsonl
is "$rc" 0 "import with replacements interleaved"
run delete --db s.db m0005 m0010 m0150
is "$rc" 0 "delete three memories"
run import --db s.db bad.jsonl
is "$rc" 1 "a malformed file fails"
run import --db s.db c.jsonl
is "$rc" 0 "import into two profiles"
run add --db s.db --id late1 --session chat-2025-04-12 --speaker Leah "Leah: one more about Lisbon"
is "$rc" 0 "add one memory to an old session"
run add --db s.db --id late2 "a note with no session"
is "$rc" 0 "add one without a session"
is "$(sqlite3 s.db "SELECT count(*) FROM memories WHERE id LIKE 'x%'")" 0 \
    "the failed import left nothing"

# ---- the text index --------------------------------------------------------------

sqlite3 s.db "INSERT INTO memories_fts(memories_fts, rank) VALUES('integrity-check', 1)" 2>err
ok $? "FTS5 integrity check: the index matches the table"
# foreign keys are not enforced on the store's connections; its code keeps
# them: after replacements and deletes, no row names a missing memory
is "$(sqlite3 s.db "SELECT count(*) FROM pragma_foreign_key_check")" 0 \
    "PRAGMA foreign_key_check finds no row naming a missing parent"
is "$(sqlite3 s.db "SELECT count(*) FROM sqlite_master WHERE type='trigger'")" 0 \
    "no triggers write the index (store/fts.c does)"

# ---- the neighbour-text column ----------------------------------------------------

python3 - <<'EOF' >ctx.out
import sqlite3
db = sqlite3.connect("s.db")
rows = db.execute("SELECT rid, profile, session, content, speaker, context FROM memories"
                  " ORDER BY rid").fetchall()
def body(content, speaker):
    n = len(speaker) if speaker else 0
    if n and content.startswith(speaker) and content[n:n + 1] == ":":
        content = content[n + 1 + (content[n + 1:n + 2] == " "):]
    return content
by_session = {}
for r in rows:
    if r[2] is not None:
        by_session.setdefault((r[1], r[2]), []).append(r)
bad = 0
for turns in by_session.values():
    for i, r in enumerate(turns):
        parts = []
        if i > 0:
            parts.append(body(turns[i - 1][3], turns[i - 1][4]))
        if i + 1 < len(turns):
            parts.append(body(turns[i + 1][3], turns[i + 1][4]))
        want = ""
        for p in parts:
            want = want + (" " if want else "") + p
        bad += r[5] != want
bad += sum(1 for r in rows if r[2] is None and r[5] != "")
print(bad, len(rows))
EOF
read -r bad total <ctx.out
is "$bad" 0 "the neighbour text of all $total memories is their neighbours' words"

# ---- ranked search: ms_bm25 is bm25 ------------------------------------------------

# queries of words that are not stop words: the engine's match quotes each
for q in "lisbon conference" "biscuit greyhound" "marathon knee physio" "kinsale holiday"; do
    run recall --db s.db --json --trace --no-floor --limit 30 --as-of 2026-11-01T00:00:00Z "$q"
    python3 - "$q" <<'EOF' >bm25.out
import json, sqlite3, sys
words = sys.argv[1].split()
r = json.load(open("out"))
if len(r["analysis"]["terms"]) != len(words):
    print(0, 0)
    sys.exit()
# store_fts's expression with two profiles in the store: the profile filter
match = ("{content context} : ( " + " OR ".join('"%s"' % w for w in words) +
         ' ) AND ptag : "p64656661756c74"')
sql = ("SELECT m.id, -bm25(memories_fts, 1.0, 0.5, 0.0) FROM memories_fts"
       " JOIN memories m ON m.rid = memories_fts.rowid WHERE memories_fts MATCH ?")
want = dict(sqlite3.connect("s.db").execute(sql, (match,)).fetchall())
got = [(h["id"], h["trace"]["channels"]["bm25"]["raw"]) for h in r["results"]
       if "bm25" in h["trace"]["channels"]]
# JSON carries a double to within an ulp (cJSON prints 15 digits when they
# read back within DBL_EPSILON); tests/bm25-test.c compares the bits
bad = [i for i, raw in got if i not in want or abs(want[i] - raw) > 4e-16 * abs(raw)]
print(len(got), len(bad))
EOF
    read -r seen bad <bm25.out
    ok $((seen == 0 || bad != 0)) "\"$q\": the bm25 scores of $seen results are FTS5's bm25()"
done

# ---- vectors and their int8 forms ------------------------------------------------

is "$(sqlite3 s.db "SELECT count(*) FROM sqlite_master WHERE name = 'vectors_q8'")" 0 \
    "no second copy of the vectors: their int8 forms are computed from them"
is "$(sqlite3 s.db "SELECT count(*) FROM vectors v LEFT JOIN memories m USING (rid)
                    WHERE m.rid IS NULL")" 0 "no vector is left without its memory"
is "$(sqlite3 s.db "SELECT count(*) FROM vectors WHERE NOT (length(vec) = 2048
                    OR (hex(substr(vec, 1, 2)) IN ('5301', '5302')))")" 0 \
    "every vector blob is dense, sparse or a palette"
palettes=$(sqlite3 s.db "SELECT count(*) FROM vectors WHERE hex(substr(vec, 2, 1)) = '02'")
ok $((palettes == 0)) "the built-in embedder's vectors are written as palettes ($palettes)"

# ---- the interface boundary ------------------------------------------------------

hits=$(grep -lE 'sqlite3|store_int\.h' "$SRC"/engine/*.[ch] "$SRC"/tui/*/*.[ch] 2>/dev/null)
is "$hits" "" "engine/ and tui/ reach the store only through store.h (no sqlite3, no store_int.h)"

tap_done
