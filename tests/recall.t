#!/bin/bash
# recall.t - `memscope recall` and `memscope health` end to end: the Score
# Contract v2 fields in --json, the --trace arithmetic for every channel of
# every result, --audit, --weights, --disable, --require-channels, --explain,
# health --json, the table's columns, usage errors, hostile queries, and
# recall never writing to the store (checksums, and a read-only file as an
# unprivileged user).
#
# Needs $MEMSCOPE (absolute path of the binary; `make test` sets it),
# python3 (JSON checks) and sha256sum. Works in a temporary directory that
# it removes.
set -u

. "$(dirname "$0")/tap.sh"
command -v python3 >/dev/null || bail "python3 is needed for the JSON checks"
command -v sha256sum >/dev/null || bail "sha256sum is needed (coreutils)"

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-recall-t.XXXXXX") || bail "mktemp failed"
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg"
mkdir -p "$HOME"

# pycheck FILE PROGRAM: run a python program with d = the JSON in FILE; it
# prints problems, one a line; the check passes when it prints nothing.
pycheck() {
    python3 - "$1" <<EOF 2>&1
import json, math, sys
try:
    d = json.load(open(sys.argv[1], encoding="utf-8"))
except Exception as e:
    print("not JSON:", e)
    sys.exit(0)
$2
EOF
}
# check NAME FILE PROGRAM: one TAP line for pycheck.
check() {
    local problems
    problems=$(pycheck "$2" "$3")
    if [ -z "$problems" ]; then ok 0 "$1"; else ok 1 "$1"; diag "$problems"; fi
}

run demo --db demo.db
[ "$rc" -eq 0 ] || bail "cannot write the demo store: $(cat err)"
demo_sha=$(sha demo.db)
ASOF=--as-of=2026-05-01T12:00:00Z

# The contract fields, exactly (Score Contract v2), and the result fields.
CONTRACT='
want = {"score_contract_version": "2", "calibration_status": "uncalibrated",
        "calibration_id": None, "answer_confidence": None}
for k, v in want.items():
    if k not in d or d[k] != v or type(d[k]) is not type(v):
        print("contract field %s is %r, not %r" % (k, d.get(k, "(missing)"), v))
if not isinstance(d.get("abstained"), bool):
    print("abstained is not a boolean")
reason = d.get("abstention_reason", "(missing)")
if d.get("abstained") and reason not in ("no_candidates", "evidence_floor"):
    print("abstained with reason %r" % (reason,))
if not d.get("abstained") and reason is not None:
    print("not abstained but reason %r" % (reason,))
if d.get("abstained") != (len(d["results"]) == 0):
    print("abstained %r with %d results" % (d.get("abstained"), len(d["results"])))
for i, r in enumerate(d["results"], 1):
    for k in ("id", "content", "created_at", "event_time", "speaker", "relevance_score",
              "ranking_score", "memory_confidence", "trust_score", "rank_position", "score",
              "confidence"):
        if k not in r:
            print("%s: no %s" % (r.get("id"), k))
    if not 0 <= r["relevance_score"] <= 1: print("%s: relevance %r" % (r["id"], r["relevance_score"]))
    if not 0 <= r["memory_confidence"] <= 1: print("%s: memory_confidence out of 0..1" % r["id"])
    if not 0 <= r["trust_score"] <= 1: print("%s: trust_score out of 0..1" % r["id"])
    if r["score"] != r["relevance_score"]: print("%s: score != relevance_score" % r["id"])
    if r["confidence"] != r["memory_confidence"]: print("%s: confidence != memory_confidence" % r["id"])
    if r["rank_position"] != i: print("%s: rank_position %r, expected %d" % (r["id"], r["rank_position"], i))
for k in ("query", "query_type", "rrf_k", "channel_weights", "channels", "results", "floor", "timing_ms"):
    if k not in d: print("no top-level %s" % k)
for c in ("semantic", "bm25", "temporal", "hopfield", "spreading"):
    ch = d["channels"].get(c)
    if ch is None: print("channel %s missing" % c); continue
    if not isinstance(ch.get("active"), bool): print("%s: active is not a boolean" % c)
    if not ch["active"] and not ch.get("reason"): print("%s: inactive without a reason" % c)
    if "candidates" not in ch or "ms" not in ch: print("%s: no candidates/ms" % c)
    if c not in d["channel_weights"]: print("no weight for %s" % c)
'

# The trace arithmetic: every channel of every result (and nearest miss).
TRACE='
def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) or abs(a - b) <= 1e-15
k = d["rrf_k"]
items = d["results"] + d["floor"]["nearest_misses"]
if not items: print("nothing to check")
n = 0
for r in items:
    t = r.get("trace")
    if t is None: print("%s: no trace" % r["id"]); continue
    fused = 0.0
    for c, v in t["channels"].items():
        n += 1
        want = v["weight"] / (k + v["rank"])
        if not close(v["contribution"], want):
            print("%s %s: contribution %r != %r / (%r + %r)" % (r["id"], c, v["contribution"], v["weight"], k, v["rank"]))
        if v["weight"] != d["channel_weights"][c]:
            print("%s %s: weight differs from channel_weights" % (r["id"], c))
        fused += v["contribution"]
    if not close(t["fused"], fused): print("%s: fused %r != sum %r" % (r["id"], t["fused"], fused))
    b = fused * t["entity_graph"]["factor"]
    if not close(t["boosted"], b): print("%s: boosted %r != %r" % (r["id"], t["boosted"], b))
    rs = b
    for a in t["adjustments"]: rs *= a["factor"]
    if not close(r["ranking_score"], rs): print("%s: ranking %r != %r" % (r["id"], r["ranking_score"], rs))
    m = t["relevance"]["max_boosted"]
    rel = min(1.0, b / m) if m > 0 else 0.0
    if not close(r["relevance_score"], rel): print("%s: relevance %r != %r" % (r["id"], r["relevance_score"], rel))
'

# ---- the contract and the trace on the demo store ------------------------------

for q in "When is my dentist appointment?" "What is Biscuit's favourite walk?" \
    "Who is Tom Fielding?" "What did Leah do last week?" "physio"; do
    run recall --db demo.db --json --trace "$ASOF" "$q"
    is "$rc" 0 "recall --json --trace '$q' exits 0"
    cp out r.json
    check "'$q': the six contract fields exact, bounds, aliases, rank positions" r.json "$CONTRACT"
    check "'$q': every contribution is weight/(rrf_k+rank); fused, boosted, ranking, relevance recompute" r.json "$TRACE"
    run recall --db demo.db --audit "$ASOF" "$q"
    is "$rc" 0 "recall --audit '$q' exits 0"
    grep -q "^audit: every score recomputed from its trace" out
    ok $? "--audit '$q' says every score was recomputed"
done

# The trace check can fail: tamper with one contribution.
run recall --db demo.db --json --trace "$ASOF" "When is my dentist appointment?"
python3 -c '
import json, sys
d = json.load(open("out"))
t = d["results"][0]["trace"]["channels"]
c = next(iter(t))
t[c]["contribution"] *= 1.000001
json.dump(d, open("tampered.json", "w"))'
problems=$(pycheck tampered.json "$TRACE")
ok "$([ -n "$problems" ]; echo $?)" "the trace check catches a contribution off by 1e-6 relative"

# Both abstention reasons, through the CLI.
run recall --db demo.db --json "zzqxj vbnmw"
cp out r.json
check "words that resemble nothing: no_candidates" r.json '
if d["abstention_reason"] != "no_candidates" or d["results"]: print(d["abstention_reason"])'
check "no_candidates is a contract-shaped response" r.json "$CONTRACT"
run recall --db demo.db --json "What is the boiling point of mercury in kelvin?"
cp out r.json
check "an off-topic question: abstains (no_candidates or evidence_floor)" r.json '
if not d["abstained"]: print("answered: %s" % [r["id"] for r in d["results"]])'
printf '%s\n' '{"id":"w1","content":"The marathon plan starts with three short runs a week."}' \
    '{"id":"w2","content":"Spring cleaning: the attic and the shed."}' \
    '{"id":"w3","content":"The boiler service is due in March."}' >off.jsonl
run import --db off.db off.jsonl
run recall --db off.db --json "What is the weather forecast for the week?"
cp out r.json
check "off-topic with a known word: evidence_floor, and the floor names its best and misses" r.json '
if d["abstention_reason"] != "evidence_floor": print(d["abstention_reason"])
if not d["floor"]["nearest_misses"] or d["floor"]["best"]["id"] is None: print(d["floor"])'
run recall --db off.db "What is the weather forecast for the week?"
grep -q "^ABSTAINED: evidence_floor" out
ok $? "the table says ABSTAINED: evidence_floor"

# ---- the table ------------------------------------------------------------------------

run recall --db demo.db "$ASOF" "When is my dentist appointment?"
is "$rc" 0 "recall without --json exits 0"
for col in Relevance Trust Mem.Conf; do
    head -n 5 out | grep -q -- "$col"
    ok $? "the table has the column header $col"
done
grep -q "nothing here is an answer probability" out
ok $? "the table says no column is an answer probability"
run recall --db demo.db --trace "$ASOF" "When is my dentist appointment?"
grep -Eq '[0-9.]+/\([0-9.]+\+[0-9]+\) = [0-9.]+' out
ok $? "the table's --trace shows w/(k+rank) = contribution"
run recall --db demo.db --trace --limit 1 "$ASOF" "How many times did Leah run a race?"
grep -q "spreading first stage: seeds 30:1: [0-9]* more" out
ok $? "--trace says what the first stage added: spreading's seeds for a set asked"
run recall --db demo.db --trace --limit 5 "$ASOF" "How many times did Leah run a race?"
is "$(grep -c "spreading first stage: seeds 30:1" out)" 1 \
    "with five traces it is said once: the same for every hit"
[ "$(grep -n "first stage" out | cut -d: -f1)" -lt "$(grep -n "^ *1 " out | head -n 1 | cut -d: -f1)" ]
ok $? "above the table, after the channels line"
run recall --db demo.db --trace --limit 1 "$ASOF" "When is my dentist appointment?"
! grep -q "first stage" out
ok $? "and nothing for a question that asks for no set"

# ---- --weights, --disable, --rrf-k -----------------------------------------------------

# n1 ("tomatoes") is bm25's best, n2 ("green house tomatos") the semantic
# channel's; the rest make idf meaningful.
cat >w.jsonl <<'EOF'
{"id":"n1","content":"tomatoes"}
{"id":"n2","content":"the green house tomatos are ripening nicely in the green house"}
{"id":"n3","content":"the boiler service is due in march"}
{"id":"n4","content":"return the library books by friday"}
{"id":"n5","content":"pay the window cleaner on the first of the month"}
{"id":"n6","content":"the car insurance renewal letter arrived"}
EOF
run import --db w.db w.jsonl
first() { python3 -c 'import json,sys; d=json.load(open("out")); print(" ".join(r["id"] for r in d["results"]))'; }
run recall --db w.db --json --weights semantic=0,hopfield=0 "greenhouse tomatoes"
is "$(first)" "n1 n2" "--weights semantic=0,hopfield=0: bm25's order (n1 n2)"
run recall --db w.db --json --weights bm25=0,hopfield=0 "greenhouse tomatoes"
is "$(first)" "n2 n1" "--weights bm25=0,hopfield=0: the order changes to semantic's (n2 n1)"
run recall --db w.db --json --trace --weights bm25=0 "greenhouse tomatoes"
is "$(first)" "n2 n1" "--weights bm25=0: n2 moves above n1"
cp out r.json
check "--weights bm25=0: the response states weight 0 and the trace has contribution 0" r.json '
if d["channel_weights"]["bm25"] != 0: print(d["channel_weights"])
for r in d["results"]:
    b = r["trace"]["channels"].get("bm25")
    if b and b["contribution"] != 0: print(r["id"], b)'
check "--weights bm25=0: each memory is returned once" r.json '
ids = [r["id"] for r in d["results"]]
if len(ids) != len(set(ids)): print(ids)'
run recall --db w.db --json --trace --rrf-k 60 "greenhouse tomatoes"
cp out r.json
check "--rrf-k 60 is reported and used in every contribution" r.json "
if d['rrf_k'] != 60: print(d['rrf_k'])
$TRACE"

run recall --db demo.db --json --trace --disable semantic,hopfield "$ASOF" "When is my dentist appointment?"
cp out r.json
check "--disable semantic,hopfield: both inactive with reason disabled, others active" r.json '
for c in ("semantic", "hopfield"):
    ch = d["channels"][c]
    if ch["active"] or ch.get("reason") != "disabled": print(c, ch)
for c in ("bm25", "temporal", "spreading"):
    if not d["channels"][c]["active"]: print(c, d["channels"][c])
for r in d["results"]:
    for c in ("semantic", "hopfield"):
        if c in r["trace"]["channels"]: print("%s ranked by disabled %s" % (r["id"], c))' 
run recall --db demo.db --json --disable all "dentist"
cp out r.json
check "--disable all: every channel disabled, no_candidates" r.json '
if d["abstention_reason"] != "no_candidates": print(d["abstention_reason"])
for c, ch in d["channels"].items():
    if ch["active"] or ch.get("reason") != "disabled": print(c, ch)'

# ---- --require-channels -------------------------------------------------------------

printf '%s\n' '{"id":"v1","content":"the dentist is on Tuesday","embedding":[1,0,0]}' \
    '{"id":"v2","content":"the greyhound likes the park","embedding":[0,1,0]}' >given.jsonl
run import --db other.db --embedder-id other-model:3 given.jsonl
is "$rc" 0 "a store whose vectors come from other-model:3"
other_sha=$(sha other.db)
run recall --db other.db --require-channels all "dentist"
is "$rc" 1 "--require-channels all with another embedder's vectors: exit 1"
is "$(lines err)" 1 "... one line on stderr"
grep -q "^memscope: .*required channel semantic is inactive (embedder_mismatch: store vectors from other-model:3, 3-d; no query embedder for that model - see docs/EMBEDDERS.md)" err
ok $? "... naming the channel, embedder_mismatch and the stored vectors' model"
is "$(lines out)" 0 "... and nothing on stdout (it fails before answering)"
run recall --db other.db --require-channels bm25,temporal --json "dentist"
is "$rc" 0 "--require-channels of active channels answers"
cp out r.json
check "without --require-channels semantic and hopfield say embedder_mismatch, bm25 answers" r.json '
for c in ("semantic", "hopfield"):
    if d["channels"][c].get("reason") != "embedder_mismatch": print(c, d["channels"][c])
if [r["id"] for r in d["results"]] != ["v1"]: print([r["id"] for r in d["results"]])'
run recall --db demo.db --require-channels all --json "$ASOF" "dentist"
is "$rc" 0 "--require-channels all on the demo store answers"
run recall --db demo.db --require-channels bm25,nope "dentist"
is "$rc" 2 "--require-channels with an unknown channel: usage error, exit 2"

# ---- --explain ----------------------------------------------------------------------------

explain() { # explain QUERY ID: prints the verdict from the JSON
    "$MEMSCOPE" recall --db demo.db --json --explain "$2" "$ASOF" "$1" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["explain"]["verdict"])'
}
top=$("$MEMSCOPE" recall --db demo.db --json "$ASOF" "When is my dentist appointment?" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
is "$(explain "When is my dentist appointment?" "$top")" returned "--explain the first result: returned"
is "$(explain "When is my dentist appointment?" no-such-id)" not_in_store "--explain an unknown id: not_in_store"
is "$(explain "dentist" m0001)" not_a_candidate "--explain a memory no channel found: not_a_candidate"
run recall --db demo.db --explain "$top" "$ASOF" "When is my dentist appointment?"
grep -q "^Why not $top? returned (rank 1)" out
ok $? "--explain in the table prints the verdict line"
grep -Eq "^(semantic|bm25) +top N +[0-9]+ " out
ok $? "--explain in the table prints the channel ranks"
run recall --db off.db --json --explain w1 "What is the weather forecast for the week?"
cp out r.json
check "--explain a memory cut by the floor: below_floor" r.json '
if d["explain"]["verdict"] != "below_floor": print(d["explain"])'
# A returned memory's explained ranking_score is the one it was ranked by,
# with every adjustment of the pool (here the exchange of Assistant's reply
# to Leah's turn), not only its own.
run recall --db demo.db --json --trace --explain m0125 "$ASOF" "What did Leah say about the dentist?"
cp out x.json
check "--explain a returned memory: its ranking_score is the result's, exchange included" x.json '
r = [h for h in d["results"] if h["id"] == "m0125"]
if not r or not any(a["name"] == "exchange" for a in r[0]["trace"]["adjustments"]):
    print("m0125 is not returned with an exchange adjustment", [h["id"] for h in d["results"]])
elif abs(d["explain"]["ranking_score"] - r[0]["ranking_score"]) > 1e-12 * r[0]["ranking_score"]:
    print("explain", d["explain"]["ranking_score"], "result", r[0]["ranking_score"])'

# ---- health ---------------------------------------------------------------------------------

run health --db demo.db --json
is "$rc" 0 "health --json exits 0"
cp out h.json
check "health --json: five channels with active, the embedder, the store counts" h.json '
for c in ("semantic", "bm25", "temporal", "hopfield", "spreading"):
    ch = d["channels"].get(c)
    if ch is None or ch.get("active") is not True: print(c, ch)
e = d["embedder"]
if not e.get("id") or e.get("dimension") != 512 or e.get("store_vectors_from") != e.get("id"): print(e)
s = d["store"]
for k in ("memories", "entities", "edges", "vectors", "pinned"):
    if not isinstance(s.get(k), int) or s[k] <= 0: print(k, s.get(k))
if s["vectors"] != s["memories"] or e["vectors_missing"] != 0: print(s, e)'
run health --db other.db --json
cp out h.json
check "health --json with another embedder's vectors: reasons given" h.json '
for c in ("semantic", "hopfield"):
    if d["channels"][c]["active"] or d["channels"][c].get("reason") != "embedder_mismatch": print(c, d["channels"][c])
if d["embedder"]["store_vectors_from"] != "other-model:3": print(d["embedder"])'
printf '%s\n' '{"id":"l1","content":"a single lowercase note"}' >lone.jsonl
run import --db lone.db lone.jsonl
run health --db lone.db --json
cp out h.json
check "health --json of a store without edges: spreading inactive, no_edges" h.json '
if d["channels"]["spreading"] != {"active": False, "reason": "no_edges"}: print(d["channels"]["spreading"])'
run health --db demo.db
grep -Eq "^spreading +active" out
ok $? "health without --json lists the channels"

# ---- usage errors ------------------------------------------------------------------------------

usage() { # usage DESCRIPTION ARGS...: recall ARGS must exit 2 with one error line
    # on stderr (the --help hint on the same line) and nothing on stdout
    local what=$1
    shift
    run recall --db demo.db "$@"
    is "$rc" 2 "$what: exit 2"
    ok "$(grep -q "^memscope: recall: .*see 'memscope recall --help'" err &&
        [ "$(lines err)" -eq 1 ] && [ ! -s out ]; echo $?)" \
        "$what: one error line with a --help hint, nothing on stdout"
}
usage "no query"
usage "--limit 0" --limit 0 dentist
usage "--limit 1001" --limit 1001 dentist
usage "--top-n 0" --top-n 0 dentist
usage "--weights without =" --weights bm25 dentist
usage "--weights negative" --weights bm25=-1 dentist
usage "--weights unknown channel" --weights nope=1 dentist
usage "--rrf-k negative" --rrf-k -1 dentist
usage "--disable unknown channel" --disable nope dentist
usage "--floor 2" --floor 2 dentist
usage "--as-of not a time" --as-of yesterday dentist

# A query over the limit is a clean runtime error.
big=$(head -c 102400 /dev/zero | tr '\0' a)
run recall --db demo.db "$big"
is "$rc" 1 "a 100 KB query: exit 1"
is "$(lines err)" 1 "a 100 KB query: one line on stderr"
grep -q "query is 102400 bytes; the limit is 4096" err
ok $? "a 100 KB query: the error says the size and the limit"
exact=$(head -c 4096 /dev/zero | tr '\0' a)
run recall --db demo.db --json "$exact"
is "$rc" 0 "a query of exactly 4096 bytes is answered"

# ---- hostile query strings ----------------------------------------------------------------------

hostile=('"' '""' '"dentist' 'the "unbalanced "quotes' 'NEAR(' 'NEAR(dentist physio, 2)' 'col:'
    'content:' 'content: dentist' '{content}' '{content context}: dentist' 'AND' 'OR' 'NOT'
    'dentist AND' 'OR physio' 'NOT NOT' '*' 'dent*' '^' '^dentist' '[' ']' '[dentist]' '('
    ')' '((((' '(dentist' '-' '+' '-dentist' '+physio' '- + * ^ : ( ) [ ] { }' "'" "dentist's"
    '\' '%' '_' '; DROP TABLE memories; --' "' OR 1=1 --" $'\xff\xfe\xfd' $'dentist \xc3\x28 x'
    $'\xe2\x82' $'\xed\xa0\x80' $'\x01\x02\x1b[31mred\x1b[0m' '🦷 dentist 🐕' '🦷🐕'
    'مرحبا بالعالم' 'שלום dentist' $'\xe2\x80\xae override' 'the of and a to' '' '   ' '?'
    '0' '2025-13-45' 'on 31 February 2025' 'Leah Leah Leah'
    "$(python3 -c 'import sys; sys.stdout.buffer.write(bytes((i * 37 + 11) % 255 + 1 for i in range(2000)))')")
i=0
bad_rc=""
bad_json=""
for q in "${hostile[@]}"; do
    i=$((i + 1))
    run recall --db demo.db --json -- "$q"
    [ "$rc" -eq 0 ] || bad_rc="$bad_rc #$i(rc=$rc: $(head -c 100 err))"
    [ -z "$(pycheck out "$CONTRACT")" ] || bad_json="$bad_json #$i"
    run recall --db demo.db -- "$q"
    [ "$rc" -eq 0 ] || bad_rc="$bad_rc #$i(table rc=$rc)"
done
is "$bad_rc" "" "${#hostile[@]} hostile query strings all exit 0 (--json and table)"
is "$bad_json" "" "... and each --json answer is a contract-shaped response"

# ---- recall never writes ------------------------------------------------------------------------

is "$(sha demo.db)" "$demo_sha" "after every recall, explain and health above, demo.db is byte-for-byte unchanged"
is "$(sha other.db)" "$other_sha" "other.db is unchanged by the recalls that failed --require-channels"

# A read-only file (and directory), read by an unprivileged user: root
# ignores file modes, so as root the check runs as nobody with setpriv.
mkdir ro
cp demo.db ro/demo.db
chmod 0444 ro/demo.db
chmod 0555 ro
ro_sha=$(sha ro/demo.db)
as_user=()
if [ "$(id -u)" -eq 0 ]; then
    if command -v setpriv >/dev/null; then
        chmod 0755 "$T"
        as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    fi
fi
if [ "$(id -u)" -eq 0 ] && [ ${#as_user[@]} -eq 0 ]; then
    ok 0 "# SKIP read-only file system: running as root without setpriv"
else
    "${as_user[@]}" "$MEMSCOPE" recall --db "$T/ro/demo.db" --json "$ASOF" "dentist" >out 2>err </dev/null
    rc=$?
    if [ "$rc" -eq 0 ]; then
        check "read-only store: recall answers" out "$CONTRACT"
    else
        ok "$([ "$rc" -eq 1 ] && [ "$(lines err)" -eq 1 ] && grep -q '^memscope: ' err; echo $?)" \
            "read-only store: recall fails with exit 1 and one clear line"
        diag "$(cat err)"
    fi
    is "$(sha ro/demo.db)" "$ro_sha" "read-only store: the file is unchanged"
    is "$(ls ro | tr '\n' ' ')" "demo.db " "read-only store: no -wal or -shm file was created"
    # A read-only file in a writable directory: SQLite may add its -shm and
    # -wal files, but the store itself must not change.
    chmod 0755 ro
    [ "$(id -u)" -eq 0 ] && chown 65534 ro
    "${as_user[@]}" "$MEMSCOPE" recall --db "$T/ro/demo.db" --json "$ASOF" "dentist" >out 2>err </dev/null
    rc=$?
    if [ "$rc" -eq 0 ]; then
        check "read-only file, writable directory: recall answers" out "$CONTRACT"
    else
        ok "$([ "$rc" -eq 1 ] && [ "$(lines err)" -eq 1 ]; echo $?)" \
            "read-only file, writable directory: exit 1 and one line"
        diag "$(cat err)"
    fi
    is "$(sha ro/demo.db)" "$ro_sha" "read-only file, writable directory: the store is unchanged"
fi

# ---- text output for scripts: ids, widths, --wide ------------------------------

long="wombat $(printf 'word%03d ' $(seq 1 60))end-of-the-memory"
run add --db wide.db "$long"
id1=$(cat out)
run add --db wide.db "wombat second memory"
id2=$(cat out)
run recall --db wide.db wombat
is "$rc" 0 "recall in a pipe: exit 0"
ok "$(grep -qF " $id1 " out && grep -qF " $id2 " out; echo $?)" \
    "recall prints the 16-character ids of memscope add whole ($id1, $id2)"
row=$(grep -F " $id1 " out)
ok "$(python3 -c 'import sys; r = sys.argv[1]; sys.exit(not (len(r) == 120 and r.endswith("\u2026")))' "$row"; echo $?)" \
    "recall in a pipe: a long row fills 120 columns and ends in …"
ok "$(! grep -q "end-of-the-memory" out; echo $?)" "without --wide the long content is cut"
run recall --db wide.db --wide wombat
ok "$(grep -qF "$long" out; echo $?)" "--wide prints the whole content"
hdr=$(grep -n "Content" out | head -n 1 | cut -d: -f1)
row=$(grep -F " $id1 " out)
head_line=$(sed -n "${hdr}p" out)
ok "$([ "$(awk -v h="$head_line" 'BEGIN { print index(h, "Relevance") }')" = "$(awk -v r="$row" -v id="$id1" 'BEGIN { print index(r, id) + length(id) + 1 }')" ]; echo $?)" \
    "the Relevance header sits over its values"

tap_done
