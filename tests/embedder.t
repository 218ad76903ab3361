#!/usr/bin/env bash
# External embedders (cmd:PROGRAM): the JSON-lines protocol, vectors given on
# import, reembed, and clear errors when the program is missing, slow or
# answers malformed vectors. Uses tests/tools/embedder.pl, and
# tools/ri-embedder.py (vectors learned from the memories).
set -u
M=${MEMSCOPE:-./memscope}
here=$(cd "$(dirname "$0")" && pwd)
E="cmd:perl $here/tools/embedder.pl"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

cat > "$tmp/m.jsonl" <<'J'
{"id":"a","content":"The dentist appointment is on Tuesday at nine"}
{"id":"b","content":"Biscuit the greyhound likes long walks in the park"}
{"id":"c","content":"The marathon starts at the harbour at eight"}
J
"$M" import --db "$tmp/e.db" --embedder "$E" "$tmp/m.jsonl" >/dev/null 2>"$tmp/err"
ok $? "import with an external embedder"
h=$("$M" health --db "$tmp/e.db" --embedder "$E" --json)
ok $([ "$(echo "$h" | json 'd["embedder"]["store_vectors_from"]')" = "cmd:test-bow:64" ]; echo $?) \
  "the store records the external embedder's id and dimension"
ok $([ "$(echo "$h" | json 'd["channels"]["semantic"]["active"]')" = "True" ]; echo $?) \
  "semantic is active when the query side uses the same embedder"
r=$("$M" recall --db "$tmp/e.db" --embedder "$E" --json "dentist appointment")
ok $([ "$(echo "$r" | json 'd["results"][0]["id"]')" = "a" ]; echo $?) "recall through the external embedder finds the memory"
r=$("$M" recall --db "$tmp/e.db" --json "dentist appointment")
ok $([ "$(echo "$r" | json 'd["channels"]["semantic"]["reason"]')" = "embedder_mismatch" ]; echo $?) \
  "with the built-in embedder on the query side, semantic says embedder_mismatch"

"$M" recall --db "$tmp/e.db" --require-channels semantic "dentist" >/dev/null 2>"$tmp/err"
rc=$?
ok $([ $rc = 1 ] && grep -q "required channel semantic is inactive (embedder_mismatch: store vectors from cmd:test-bow:64, 64-d; no query embedder for that model" "$tmp/err"; echo $?) \
  "--require-channels fails before answering when semantic is inactive, naming the stored model"

"$M" recall --db "$tmp/e.db" --embedder "cmd:/nonexistent/embedder" "x" 2>"$tmp/err"
ok $([ $? = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "exited with status 127" "$tmp/err"; echo $?) \
  "a missing program is one clear line, exit 1"
EMB_MODE=slow MEMSCOPE_EMBED_TIMEOUT_MS=300 "$M" recall --db "$tmp/e.db" --embedder "$E" "dentist" 2>"$tmp/err"
ok $([ $? = 1 ] && grep -q "did not answer within 300 ms" "$tmp/err"; echo $?) "a slow program times out"
EMB_MODE=closeout MEMSCOPE_EMBED_TIMEOUT_MS=5000 "$M" recall --db "$tmp/e.db" --embedder "$E" "dentist" 2>"$tmp/err"
ok $([ $? = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
     grep -q "^memscope: embedder 'perl .*embedder.pl' closed its output while still running$" "$tmp/err"; echo $?) \
  "a program that closes its stdout and keeps running is reported as such, not as a timeout"
EMB_MODE=closeout MEMSCOPE_EMBED_TIMEOUT_MS=5000 "$M" recall --db "$tmp/e.db" --embedder "cmd:EMB_DIM=64 perl $here/tools/embedder.pl" "dentist" 2>"$tmp/err"
ok $([ $? = 1 ] && grep -q "closed its output while still running" "$tmp/err"; echo $?) \
  "the same with a variable assignment before the program"
EMB_MODE=baddim "$M" recall --db "$tmp/e.db" --embedder "$E" "dentist" 2>"$tmp/err"
ok $([ $? = 1 ] && grep -q "has 10 numbers, not 64" "$tmp/err"; echo $?) "vectors of the wrong length are refused"
EMB_MODE=nan "$M" recall --db "$tmp/e.db" --embedder "$E" "dentist" 2>"$tmp/err"
ok $([ $? = 1 ] && grep -q "not a finite number" "$tmp/err"; echo $?) "non-numbers in a vector are refused"
EMB_MODE=garbage "$M" recall --db "$tmp/e.db" --embedder "$E" "dentist" 2>"$tmp/err"
ok $([ $? = 1 ] && grep -q "malformed JSON" "$tmp/err"; echo $?) "a reply that is not JSON is refused"
before=$(sqlite3 "$tmp/e.db" "select count(*) from vectors")
EMB_MODE=die "$M" import --db "$tmp/e.db" --embedder "$E" --on-duplicate replace "$tmp/m.jsonl" 2>"$tmp/err"
ok $([ $? = 1 ] && grep -q "embedder" "$tmp/err" && [ "$(sqlite3 "$tmp/e.db" "select count(*) from vectors")" = "$before" ]; echo $?) \
  "an embedder dying mid-import aborts the import and keeps the old vectors"

"$M" import --db "$tmp/e.db" --embedder hash "$tmp/m.jsonl" 2>"$tmp/err"
ok $([ $? = 1 ] && grep -q "reembed" "$tmp/err"; echo $?) "importing with another embedder than the store's says to reembed"
"$M" reembed --db "$tmp/e.db" >/dev/null
h=$("$M" health --db "$tmp/e.db" --json)
ok $([ "$(echo "$h" | json 'd["embedder"]["store_vectors_from"]')" = "hash-ngram-v2:512" ] &&
     [ "$(echo "$h" | json 'd["embedder"]["vectors_missing"]')" = "0" ]; echo $?) "reembed recomputes every vector with the built-in embedder"

# vectors given on import, with their embedder id
cat > "$tmp/v.jsonl" <<'J'
{"id":"x","content":"first","embedding":[1,0,0]}
{"id":"y","content":"second","embedding":[0,1,0]}
J
"$M" import --db "$tmp/v.db" --embedder-id my-model:3 "$tmp/v.jsonl" >/dev/null
ok $([ "$(sqlite3 "$tmp/v.db" "select value from meta where key='embedder_id'")" = "my-model:3" ] &&
     [ "$(sqlite3 "$tmp/v.db" "select count(*) from vectors")" = 2 ]; echo $?) "given vectors are kept with their embedder id"
echo '{"id":"z","content":"third","embedding":[0,1]}' > "$tmp/bad.jsonl"
"$M" import --db "$tmp/v.db" --embedder-id my-model:3 "$tmp/bad.jsonl" 2>"$tmp/err"
ok $([ $? = 1 ] && grep -q "bad.jsonl:1:" "$tmp/err"; echo $?) "a given vector of another dimension is refused with its place"

# learned E NAME JSONL ID QUERY TOP WHAT: import JSONL into NAME.db with the
# external embedder E (saying so), check the id and dimension health reports
# for it (ID), and that the semantic channel alone ranks TOP first for
# QUERY (WHAT says why it should).
learned() {
    local e=$1 db="$tmp/$2.db" h r
    "$M" import --db "$db" --embedder "$e" "$3" >/dev/null 2>"$tmp/err"
    ok $? "import with the $2 embedder"
    h=$("$M" health --db "$db" --embedder "$e" --json)
    is "$(echo "$h" | json 'd["embedder"]["store_vectors_from"]')" "cmd:$4" \
        "its id names its settings and its dimension"
    r=$("$M" recall --db "$db" --embedder "$e" --json --disable bm25,temporal,hopfield,spreading --no-floor "$5")
    is "$(echo "$r" | json 'd["results"][0]["id"]')" "$6" "the semantic channel alone: $7"
}

# tools/ri-embedder.py: vectors learned from the memories themselves (random
# indexing, docs/QUALITY.md): a memory's vector is the sum of its words'
# context vectors, so a query word's own context lies nearest the memory
# that holds it; the LoCoMo driver skips cleanly without the data.
learned "cmd:python3 $here/../tools/ri-embedder.py $tmp/m.jsonl" ri "$tmp/m.jsonl" ri-b0-n0.5:512 \
    greyhound b "the memory whose words share the query word's contexts ranks first"
# tools/glove-embedder.py: pretrained word vectors from a GloVe text file (a
# tiny one here, written so that "tourney" lies beside "tournament" and far
# from the other memories' words): a query word the store never holds finds
# the memory holding its neighbour; with GLOVE_HASH the built-in embedder's
# n-grams join them, and a misspelt word finds its memory by those.
cat > "$tmp/g.txt" <<'G'
tournament 1.0 0.1 0.0
tourney 0.9 0.2 0.0
dentist 0.0 1.0 0.0
appointment 0.1 0.9 0.1
greyhound 0.0 0.0 1.0
walks 0.0 0.2 0.9
marathon 0.8 0.0 0.3
G
cat > "$tmp/t.jsonl" <<'J'
{"id":"t","content":"Nate: I won the regional tournament last week"}
{"id":"d","content":"Nate: The dentist appointment is on Tuesday"}
{"id":"g","content":"Nate: Biscuit the greyhound likes long walks"}
J
learned "cmd:python3 $here/../tools/glove-embedder.py $tmp/g.txt" gl "$tmp/t.jsonl" \
    glove-sif-a0.001:3 "Who won the tourney?" t "the memory holding the query word's neighbour ranks first"
learned "cmd:env GLOVE_HASH=0.5 python3 $here/../tools/glove-embedder.py $tmp/g.txt" glh "$tmp/t.jsonl" \
    glove-sif-a0.001-hash0.5:515 greyhoumd g "a misspelt word finds its memory by the 512 hashed dimensions"
python3 "$here/../tools/glove-embedder.py" "$tmp/none.txt" </dev/null >/dev/null 2>"$tmp/err"
ok $([ $? != 0 ] && grep -q "none.txt" "$tmp/err"; echo $?) "a missing vector file is an error naming it"
LOCOMO_DIR="$tmp/none" "$here/../tools/ri-eval.sh" t >"$tmp/out" 2>&1
ok $([ $? = 0 ] && grep -q "LoCoMo data not found" "$tmp/out"; echo $?) \
  "tools/ri-eval.sh without the LoCoMo data says so and exits 0"
tap_done
