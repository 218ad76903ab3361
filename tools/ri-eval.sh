#!/usr/bin/env bash
# tools/ri-eval.sh - score the semantic channel with vectors learned from each
# store itself (tools/ri-embedder.py, random indexing) against the built-in
# embedder, on the LoCoMo development split, by split (samples 0-2 and 3-4).
#
# Each conversation is imported into build/eval/ri/TAG-K.db with the
# embedder learned from its own memories, then `memscope eval` runs on it
# with that embedder and the given options; the rows are averaged over each
# split, weighted by questions. LoCoMo is CC BY-NC evaluation data, read
# from ../shared/data/locomo (or $LOCOMO_DIR), never copied into the
# repository; without it this script says so and exits 0.
#
#   tools/ri-eval.sh TAG [EVAL OPTIONS]   e.g. RI_BETA=0.5 tools/ri-eval.sh b05 --no-floor
#   tools/ri-eval.sh hash [EVAL OPTIONS]  the built-in embedder's stores (build/eval/)
#
# EVAL_EMBEDDER="PROGRAM ARGS" scores another external embedder the same way
# in place of ri-embedder.py, e.g.
#   EVAL_EMBEDDER="tools/glove-embedder.py G.txt" tools/ri-eval.sh glove --no-floor
# (a TAG names the stores it imports: give each embedder setting its own).
set -euo pipefail
cd "$(dirname "$0")/.."
M=${MEMSCOPE:-./memscope}
data=${LOCOMO_DIR:-../shared/data/locomo}
if [ ! -f "$data/sample0.memories.jsonl" ]; then
    echo "ri-eval: LoCoMo data not found in $data; skipping (set LOCOMO_DIR to run it)"
    exit 0
fi
[ $# -ge 1 ] || { echo "usage: tools/ri-eval.sh TAG|hash [EVAL OPTIONS]" >&2; exit 2; }
tag=$1
shift
out=build/eval/ri
mkdir -p "$out"
export MEMSCOPE_EMBED_TIMEOUT_MS=${MEMSCOPE_EMBED_TIMEOUT_MS:-300000}
for k in 0 1 2 3 4; do
    mem="$data/sample$k.memories.jsonl"
    if [ "$tag" = hash ]; then
        db=build/eval/sample$k.db
        [ -f "$db" ] || "$M" import --db "$db" "$mem" >/dev/null
        emb=()
    else
        db="$out/$tag-$k.db"
        emb=(--embedder "cmd:${EVAL_EMBEDDER:-tools/ri-embedder.py $mem}")
        [ -f "$db" ] || "$M" import --db "$db" "${emb[@]}" "$mem" >/dev/null
    fi
    "$M" eval --db "$db" --queries "$data/sample$k.queries.jsonl" "${emb[@]}" "$@" >"$out/$tag-$k.out"
done
python3 - "$out" "$tag" <<'PY'
import sys
out, tag = sys.argv[1:]
print("| split | R@5 | R@10 | MRR | multi-hop R@10 | temporal R@10 | open-domain R@10 | single-hop R@10 |")
print("|---|---|---|---|---|---|---|---|")
for name, ks in (("0-2", (0, 1, 2)), ("3-4", (3, 4))):
    agg = {}
    for k in ks:
        for line in open("%s/%s-%d.out" % (out, tag, k)):
            f = line.split()
            if f and f[0] == "overall":
                key, i = "all", 1
            elif f and f[0] in ("1", "2", "3", "4"):
                key, i = f[0], 2
            else:
                continue
            n = int(f[i])
            a = agg.setdefault(key, [0, 0.0, 0.0, 0.0])
            a[0] += n
            for j in range(3):
                a[j + 1] += n * float(f[i + 1 + j])
    a = agg["all"]
    cells = ["%.3f" % (a[j] / a[0]) for j in (1, 2, 3)]
    cells += ["%.3f" % (agg[c][2] / agg[c][0]) if c in agg else "-" for c in "1234"]
    print("| %s | %s |" % (name, " | ".join(cells)))
PY
