#!/bin/bash
# pool-ablation.t - tools/pool-ablation.py, the measurement behind
# docs/QUALITY.md's "Ordering within the pool", on five small conversations
# of its own laid out as the LoCoMo directory is (no open-domain question
# among them): the --whole table (rules over the whole fused list, and the
# rule learned from the tuning split) prints every rule for both splits and
# the ceiling by category, the unchanged
# order scores what `memscope eval --no-floor` scores, and without the data
# the script says so and exits 0.
#
# Needs $MEMSCOPE (absolute path of the binary; `make test` sets it) and
# python3. Works in a temporary directory that it removes.
set -u

. "$(dirname "$0")/tap.sh"
command -v python3 >/dev/null || bail "python3 is needed"
TOOL="$(cd "$(dirname "$0")/.." && pwd)/tools/pool-ablation.py"

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-pool-t.XXXXXX") || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg" LOCOMO_DIR="$T/data" EVAL_OUT="$T/stores"
mkdir -p "$HOME" data

# Two people's chat over three sessions, the same in each of the five.
cat >data/sample0.memories.jsonl <<'JSONL'
{"id":"D1:1","content":"Priya: I finally adopted a rescue greyhound called Pepper.","created_at":"2024-03-02T10:00:00Z","speaker":"Priya","session":1}
{"id":"D1:2","content":"Tom: Congratulations! How is Pepper settling in?","created_at":"2024-03-02T10:01:00Z","speaker":"Tom","session":1}
{"id":"D1:3","content":"Priya: She sleeps all day on the sofa and steals socks.","created_at":"2024-03-02T10:02:00Z","speaker":"Priya","session":1}
{"id":"D2:1","content":"Tom: I started rowing on the canal every Saturday morning.","created_at":"2024-04-06T09:00:00Z","speaker":"Tom","session":2}
{"id":"D2:2","content":"Priya: Rowing sounds cold! Do you race?","created_at":"2024-04-06T09:01:00Z","speaker":"Priya","session":2}
{"id":"D2:3","content":"Tom: Not yet, but the club has a regatta in June.","created_at":"2024-04-06T09:02:00Z","speaker":"Tom","session":2}
{"id":"D3:1","content":"Priya: I baked a lemon cake for my sister's birthday.","created_at":"2024-05-11T15:00:00Z","speaker":"Priya","session":3}
{"id":"D3:2","content":"Tom: Lemon is my favourite. Did she like it?","created_at":"2024-05-11T15:01:00Z","speaker":"Tom","session":3}
{"id":"D3:3","content":"Priya: She loved it, and Pepper stole a slice.","created_at":"2024-05-11T15:02:00Z","speaker":"Priya","session":3}
JSONL
cat >data/sample0.queries.jsonl <<'JSONL'
{"qid":"q1","question":"What is the name of Priya's greyhound?","category":4,"evidence":["D1:1"]}
{"qid":"q2","question":"Where does Tom go rowing?","category":4,"evidence":["D2:1"]}
{"qid":"q3","question":"What did Priya bake, and who stole some?","category":1,"evidence":["D3:1","D3:3"]}
{"qid":"q4","question":"When is the regatta of Tom's club?","category":2,"evidence":["D2:3"]}
JSONL
for k in 1 2 3 4; do
    cp data/sample0.memories.jsonl "data/sample$k.memories.jsonl"
    cp data/sample0.queries.jsonl "data/sample$k.queries.jsonl"
done

python3 "$TOOL" --jobs 2 --whole --learned >out 2>err
ok $? "the --whole --learned table exits 0"
missing=""
for rule in 'session x(1 + 0.25 s)' 'exchange x(1 + 0.5 u)' 'exchange, lacks x(1 + 0.5 u)' \
    'covlist w 1' 'bm25 score a 0.05 p 2' 'multi-hop spreading 1' 'learned, l2 0.1 (fitted on 0-2)'; do
    grep -qF "| $rule | " out || missing="$missing [$rule]"
done
ok $([ -z "$missing" ]; echo $?) "every whole-list rule has a row${missing:+ (missing:$missing)}"
grep -q '^ceiling: the share of evidence anywhere in the whole list' out
ok $? "and the ceiling is the whole list's"
rows=$(grep -c '^| [^r-].* | .*(+\|^| [^r-].* | .*(-' out)
ok $([ "$rows" -ge 22 ]; echo $?) "each rule's cells give the difference from the unchanged order ($rows rows)"

# The unchanged order is the engine's: its R@10 on the tuning split is what
# `memscope eval --no-floor` gives on the same three stores.
got=$(awk -F' \\| ' '/^\| ranking_score \(as returned\)/ {print $3}' out)
want=$("$MEMSCOPE" eval --no-floor --json \
    --db stores/sample0.db --queries data/sample0.queries.jsonl \
    --db stores/sample1.db --queries data/sample1.queries.jsonl \
    --db stores/sample2.db --queries data/sample2.queries.jsonl |
    python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["recall"]["10"])')
is "$got" "$want" "the unchanged order's R@10 on 0-2 is memscope eval's"

LOCOMO_DIR="$T/none" python3 "$TOOL" --whole >out 2>&1
ok $([ $? = 0 ] && grep -q "LoCoMo data not found" out; echo $?) \
    "without the LoCoMo data it says so and exits 0"
tap_done
