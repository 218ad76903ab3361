#!/bin/sh
# check-identical.sh - do optimisations keep the store and the engine's answers
# exactly as they were?
#
#   tools/check-identical.sh save DIR    record the reference into DIR
#   tools/check-identical.sh check DIR   compare against it; exit 1 on a change
#
# Two stores are built from scratch each time: a bench store
# (`memscope bench --memories 10000 --seed 1 --keep`) and the demo store
# (`memscope demo`). For each:
#   - a digest of every table the import writes (memories with their
#     neighbour-text context, entities, links, edges, vectors as hex), so an
#     import optimisation must write the same bytes;
#   - `memscope recall --json --trace --as-of 2025-01-01T00:00:00Z` (demo:
#     --as-of 2026-11-01) for 50 queries, with the timing fields ("timing_ms"
#     and each channel's "ms") removed, compared byte for byte.
# The bench queries come from `memscope bench --list-queries --queries 50`;
# the demo queries are listed below.
#
# Needs sqlite3 and python3. MEMSCOPE names the binary (default ./memscope).
set -eu

mode=${1:-}
dir=${2:-}
if [ "$mode" != save ] && [ "$mode" != check ] || [ -z "$dir" ]; then
    echo "usage: $0 save|check DIR" >&2
    exit 2
fi
MEMSCOPE=${MEMSCOPE:-./memscope}
mkdir -p "$dir"
work=$(mktemp -d "${TMPDIR:-/tmp}/memscope-identical-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

demo_queries() {
    cat <<'EOF'
when did Leah go to Lisbon
What is Sam allergic to?
Who is Leah's manager at Westway Buses?
When is the Kestrel go-live?
What breed is Biscuit?
Where does Leah live now?
When did Leah move house?
How did the marathon go?
What happened with Dad's hip?
Who is Jun Watanabe?
What did Leah say about Cartwheel Labs?
When is Leah's birthday?
What is the address of the new flat?
Tell me about the deposit dispute with Gerald
What did the physio say about the knee?
Leah's sister Róisín
What did Declan say about Frank?
running club Easton Striders
half marathon personal best
What happened in November 2025?
What did we talk about on 18 September 2025?
What is the latest on Project Kestrel?
When did Leah resign?
What is the Tideline project?
Who is Inês Duarte?
What does Leah think about her new job?
dentist appointment Clifton
GP Dr Osei knee pain
Greyhound Rescue West adoption
Kinsale holiday
Osaka trip
Who is Priya Shah?
What did Marcus say about the handover?
How many times did Leah run a race?
What did Sam teach?
When did Leah meet Inês?
vet appointment for Biscuit
What did Leah do last week?
flights and hotel for the conference
Eastville 10k
quantum chromodynamics lattice gauge theory
submarine periscope calibration
How tall is Mount Kilimanjaro?
recipe for sourdough bread
What is the capital of Mongolia?
cashew nuts
shellfish allergy
What is Leah rubbish at remembering?
Which bus routes changed in North Bristol?
what happened in the summer of 2026
EOF
}

# Every table the import writes, in a fixed order, as one digest per table
# (not the store's bookkeeping: its id, generation, last rewrite, last marked
# supersession and the mark of its fact candidates, a list derived from the
# memories' texts).
digest_store() { # digest_store DB OUT
    for q in \
        "SELECT rid, profile, id, content, ptag, context, created_at, created_ts, event_time, event_ts, speaker, session, source, memory_confidence, trust_alpha, trust_beta, importance, pinned FROM memories ORDER BY rid" \
        "SELECT eid, profile, name, norm, kind FROM entities ORDER BY eid" \
        "SELECT rid, eid, given FROM memory_entities ORDER BY rid, eid" \
        "SELECT src, dst, type, weight FROM edges ORDER BY src, dst, type" \
        "SELECT key, value FROM meta WHERE key NOT IN ('store_uid', 'generation', 'rewritten', 'fact_candidates_through', 'superseded_marked') ORDER BY key"; do
        printf '%s  %s\n' "$(sqlite3 "$1" "$q" | md5sum | cut -d' ' -f1)" "$(echo "$q" | cut -c1-50)"
    done >"$2"
    printf '%s  %s\n' "$(dense_vectors "$1" | md5sum | cut -d' ' -f1)" "vectors, dense" >>"$2"
}

# Every vector as "rid|HEX" of its dense floats, as `SELECT rid, hex(vec)`
# printed before vectors could be stored sparse or with a palette
# (store/vector.c): the digest compares what the vectors are, not how they
# are written.
dense_vectors() { # dense_vectors DB
    python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
row = db.execute("SELECT value FROM meta WHERE key='embedder_dim'").fetchone()
dim = int(row[0]) if row else 0
for rid, b in db.execute("SELECT rid, vec FROM vectors ORDER BY rid"):
    if len(b) != 4 * dim and b[1] == 1:  # sparse: 'S', 1, dim, indices, floats
        n = (len(b) - 4) // 6
        out = bytearray(4 * dim)
        for i in range(n):
            j = b[4 + 2 * i] | b[5 + 2 * i] << 8
            out[4 * j:4 * j + 4] = b[4 + 2 * n + 4 * i:8 + 2 * n + 4 * i]
        b = bytes(out)
    elif len(b) != 4 * dim:  # palette: 'S', 2, dim, k, k floats, varints
        k = b[4]
        bits = max(k - 1, 0).bit_length()
        at, j, out = 5 + 4 * k, -1, bytearray(4 * dim)
        while at < len(b):
            x = shift = 0
            while True:
                x |= (b[at] & 0x7F) << shift
                shift += 7
                at += 1
                if not b[at - 1] & 0x80:
                    break
            j += (x >> bits) + 1
            i = x & ((1 << bits) - 1)
            out[4 * j:4 * j + 4] = b[5 + 4 * i:9 + 4 * i]
        b = bytes(out)
    print("%d|%s" % (rid, b.hex().upper()))
PY
}

# Recall each query of file Q against DB, timings removed, one line each.
recall_all() { # recall_all DB QUERIES AS_OF OUT
    : >"$4"
    while IFS= read -r q; do
        "$MEMSCOPE" recall --db "$1" --json --trace --as-of "$3" -- "$q" |
            python3 -c '
import json, sys
r = json.load(sys.stdin)
r.pop("timing_ms", None)
for c in r.get("channels", {}).values():
    c.pop("ms", None)
print(json.dumps(r, sort_keys=True, ensure_ascii=False))' >>"$4"
    done <"$2"
}

"$MEMSCOPE" bench --memories 10000 --queries 50 --seed 1 --keep "$work/bench.db" --json >/dev/null
"$MEMSCOPE" bench --list-queries --queries 50 --seed 1 >"$work/bench.queries"
"$MEMSCOPE" demo --db "$work/demo.db" >/dev/null
demo_queries >"$work/demo.queries"

digest_store "$work/bench.db" "$work/bench.tables"
digest_store "$work/demo.db" "$work/demo.tables"
recall_all "$work/bench.db" "$work/bench.queries" 2025-01-01T00:00:00Z "$work/bench.recall"
recall_all "$work/demo.db" "$work/demo.queries" 2026-11-01T00:00:00Z "$work/demo.recall"

if [ "$mode" = save ]; then
    cp "$work"/bench.tables "$work"/demo.tables "$work"/bench.recall "$work"/demo.recall \
        "$work"/bench.queries "$work"/demo.queries "$dir"/
    echo "saved the reference in $dir ($(wc -l <"$dir/bench.recall") bench and" \
        "$(wc -l <"$dir/demo.recall") demo recalls)"
    exit 0
fi
status=0
for f in bench.tables demo.tables bench.recall demo.recall; do
    if cmp -s "$dir/$f" "$work/$f"; then
        echo "ok   $f identical"
    else
        echo "DIFF $f"
        diff "$dir/$f" "$work/$f" | head -5 | cut -c1-300
        status=1
    fi
done
exit $status
