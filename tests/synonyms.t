#!/bin/bash
# synonyms.t - `recall --synonyms W`: the WordNet synonyms of the question's
# words join its vector (tests/data/wordnet, a small database in WordNet's
# format written for the tests, through $MEMSCOPE_WORDNET), are listed in
# the response's analysis, raise the semantic channel's score of a memory
# that says the synonym, and leave the evidence floor's remainder cosine as
# it was. Without a database, or with weight 0, nothing changes. A bad
# weight is one usage line.
#
# Needs $MEMSCOPE and python3. Works in a temporary directory it removes.
set -u

. "$(dirname "$0")/tap.sh"
command -v python3 >/dev/null || bail "python3 is needed for the JSON checks"
WN=$(cd "$(dirname "$0")/data/wordnet" && pwd) || bail "tests/data/wordnet is missing"

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-synonyms-t.XXXXXX") || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg" MEMSCOPE_WORDNET="$WN"
mkdir -p "$HOME"

cat >m.jsonl <<'J'
{"id": "m1", "content": "Sam won the chess tournament in Leeds last spring.", "created_at": "2025-04-02T10:00:00Z"}
{"id": "m2", "content": "Priya bakes sourdough bread every Sunday morning.", "created_at": "2025-04-03T10:00:00Z"}
{"id": "m3", "content": "The garden needs new tomato plants and compost.", "created_at": "2025-04-04T10:00:00Z"}
{"id": "m4", "content": "Sam met a confrere from the club at the station.", "created_at": "2025-04-05T10:00:00Z"}
J
run import --db s.db m.jsonl
[ "$rc" -eq 0 ] || bail "import failed: $(cat err)"
Q="who won the tourney"

# field FILE EXPR: a python expression over the JSON d, printed.
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>&1; }

run recall --db s.db --json --trace --no-floor "$Q"
cp out plain.json
is "$rc" 0 "recall without --synonyms answers"
is "$(field plain.json '"synonyms" in d["analysis"]')" False "without --synonyms: no synonyms in the analysis"

run recall --db s.db --json --trace --no-floor --synonyms 1 "$Q"
cp out syn.json
is "$rc" 0 "recall --synonyms 1 answers"
is "$(field syn.json 'd["analysis"]["synonyms"]')" "['tourney>tournament']" \
    "the synonym the store holds is listed, as word>synonym"
is "$(field syn.json 'd["results"][0]["id"]')" m1 "the memory that says the synonym ranks first"
ok "$(python3 - plain.json syn.json <<'P'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
def sem(d):
    for h in d["results"]:
        if h["id"] == "m1":
            return h["trace"]["channels"]["semantic"].get("raw", 0.0)
    return 0.0
sys.exit(0 if sem(b) > sem(a) + 0.05 else 1)
P
echo $?)" "its semantic score rises with the synonym"
ok "$(python3 - plain.json syn.json <<'P'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
def rc(d):
    return {h["id"]: h["trace"]["floor"]["remainder_cosine"] for h in d["results"]}
x, y = rc(a), rc(b)
sys.exit(0 if x and all(abs(x[k] - y[k]) < 1e-9 for k in x if k in y) else 1)
P
echo $?)" "the floor's remainder cosine is unchanged"

run recall --db s.db --json --trace --no-floor --synonyms 1 "who met a colleague"
is "$(field out 'd["analysis"]["synonyms"]')" "['colleague>confrere']" \
    "only synonyms the store holds are added (workfellow and fellow are not in it)"

run recall --db s.db --json --trace --no-floor --synonyms 0 "$Q"
is "$(field out '"synonyms" in d["analysis"]')" False "--synonyms 0 adds none"

MEMSCOPE_WORDNET="" "$MEMSCOPE" recall --db s.db --json --trace --no-floor --synonyms 1 "$Q" >out 2>err
is "$?" 0 "with no database, --synonyms still answers"
is "$(field out '"synonyms" in d["analysis"]')" False "with no database, no synonyms"
MEMSCOPE_WORDNET="$T/none" "$MEMSCOPE" recall --db s.db --json --trace --no-floor --synonyms 1 "$Q" >out 2>err
is "$(field out '"synonyms" in d["analysis"]')" False "with a missing directory, no synonyms"

run recall --db s.db --synonyms -1 "$Q"
ok "$([ "$rc" -eq 2 ] || [ "$rc" -eq 1 ]; echo $?)" "--synonyms -1 is refused"
is "$(grep -c 'synonyms takes a weight from 0 to 10' err)" 1 "with one line that says what it takes"

run eval --db s.db --queries /dev/null --synonyms 0.5
is "$rc" 0 "eval accepts --synonyms"

tap_done
