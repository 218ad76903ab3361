#!/usr/bin/env bash
# Reranking and adaptive learning: both adjust ranking_score only, appear
# in the trace as adjustments, can be switched off, and fail safe.
set -u
M=${MEMSCOPE:-./memscope}
here=$(cd "$(dirname "$0")" && pwd)
R="cmd:perl $here/tools/reranker.pl"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"
py() { python3 -c "import json,sys; d=json.load(sys.stdin); $1"; }

"$M" demo --db "$tmp/d.db" >/dev/null
Q="When is my dentist appointment?"
base=$("$M" recall --db "$tmp/d.db" --json --trace "$Q")
rr=$("$M" recall --db "$tmp/d.db" --json --trace --reranker "$R" "$Q")
ok $([ "$(echo "$rr" | py 'print(d["reranker"]["status"])')" = applied ]; echo $?) "the reranker is applied"
ok $(echo "$rr" | py '
ok = all(any(a["name"] == "rerank" for a in h["trace"]["adjustments"]) for h in d["results"])
sys.exit(0 if ok else 1)'; echo $?) "every result carries a rerank adjustment"
ok $(python3 - "$base" "$rr" <<'PY'
import json, sys
a = {h["id"]: h["relevance_score"] for h in json.loads(sys.argv[1])["results"]}
b = {h["id"]: h["relevance_score"] for h in json.loads(sys.argv[2])["results"]}
sys.exit(0 if all(abs(a[i] - b[i]) < 1e-12 for i in a.keys() & b.keys()) else 1)
PY
echo $?) "reranking leaves relevance_score alone"
"$M" recall --db "$tmp/d.db" --audit --reranker "$R" "$Q" >/dev/null
ok $? "the audit recomputes ranking_score with the rerank factor"
out=$(RR_MODE=slow MEMSCOPE_RERANK_TIMEOUT_MS=300 "$M" recall --db "$tmp/d.db" --json --reranker "$R" "$Q")
ok $([ $? = 0 ] && [ "$(echo "$out" | py 'print(d["reranker"]["status"])')" = failed ] &&
     echo "$out" | py 'sys.exit(0 if "did not answer" in d["reranker"]["error"] else 1)'; echo $?) \
  "a slow reranker fails safe: the recall answers, says failed and why"
out=$(RR_MODE=closeout MEMSCOPE_RERANK_TIMEOUT_MS=5000 "$M" recall --db "$tmp/d.db" --json --reranker "$R" "$Q")
ok $([ $? = 0 ] && [ "$(echo "$out" | py 'print(d["reranker"]["status"])')" = failed ] &&
     echo "$out" | py 'sys.exit(0 if "closed its output" in d["reranker"]["error"] else 1)'; echo $?) \
  "a reranker that closes its stdout and keeps running is reported as such, not as a timeout"
ok $([ "$(echo "$out" | py 'print([h["id"] for h in d["results"]])')" = \
       "$(echo "$base" | py 'print([h["id"] for h in d["results"]])')" ]; echo $?) \
  "and the ranking stays as fused"
out=$(RR_MODE=short "$M" recall --db "$tmp/d.db" --json --reranker "$R" "$Q")
ok $([ "$(echo "$out" | py 'print(d["reranker"]["status"])')" = failed ]; echo $?) "a reranker answering too few scores is refused"
# Scores of +-1e308: max - min overflows; the factors must stay 0.5..1.5.
out=$(RR_MODE=huge "$M" recall --db "$tmp/d.db" --json --trace --reranker "$R" "$Q")
ok $(echo "$out" | py '
f = [a["factor"] for h in d["results"] for a in h["trace"]["adjustments"] if a["name"] == "rerank"]
r = [h["ranking_score"] for h in d["results"]]
ok = d["reranker"]["status"] == "applied" and len(f) == len(r) > 0 and \
     all(isinstance(x, (int, float)) and 0.5 <= x <= 1.5 for x in f) and \
     all(isinstance(x, (int, float)) for x in r)
sys.exit(0 if ok else 1)'; echo $?) "a reranker answering +-1e308: applied, every factor in 0.5..1.5, no NaN"
ok $(echo "$out" | py '
f = [a["factor"] for a in d["results"][0]["trace"]["adjustments"] if a["name"] == "rerank"]
sys.exit(0 if f == [1.5] else 1)'; echo $?) \
  "a reranker answering +-1e308: a memory it scored +1e308 ranks first"
RR_MODE=huge "$M" recall --db "$tmp/d.db" --audit --reranker "$R" "$Q" >/dev/null
ok $? "a reranker answering +-1e308: the audit recomputes every score"
out=$("$M" recall --db "$tmp/d.db" --json --reranker "cmd:/nonexistent/rr" "$Q")
ok $([ "$(echo "$out" | py 'print(d["reranker"]["status"])')" = failed ]; echo $?) "a missing reranker program is reported, not fatal"

# feedback
top=$(echo "$base" | py 'print(d["results"][0]["id"])')
second=$(echo "$base" | py 'print(d["results"][1]["id"])')
"$M" feedback --db "$tmp/d.db" --query "$Q" "$top" - >/dev/null
ok $? "feedback - is recorded"
"$M" feedback --db "$tmp/d.db" --query "$Q" "$second" + >/dev/null
ok $? "feedback + is recorded"
ok $([ "$("$M" feedback --db "$tmp/d.db" --list | tail -1)" = "2 judgements" ]; echo $?) "feedback --list shows both"
after=$("$M" recall --db "$tmp/d.db" --json --trace "$Q")
ok $([ "$(echo "$after" | py 'print(d["results"][0]["id"])')" = "$second" ]; echo $?) \
  "the memory marked relevant now ranks above the one marked not relevant"
ok $(echo "$after" | py '
f = [a for h in d["results"] for a in h["trace"]["adjustments"] if a["name"] == "feedback"]
sys.exit(0 if f and all(0.5 <= a["factor"] <= 1.5 for a in f) else 1)'; echo $?) \
  "the feedback adjustment is traced and bounded"
"$M" recall --db "$tmp/d.db" --audit "$Q" >/dev/null
ok $? "scores with the feedback adjustment recompute from the trace"
off=$("$M" recall --db "$tmp/d.db" --json --no-adaptive "$Q")
ok $([ "$(echo "$off" | py 'print([h["id"] for h in d["results"]])')" = \
       "$(echo "$base" | py 'print([h["id"] for h in d["results"]])')" ]; echo $?) \
  "--no-adaptive gives the ranking from before the feedback"
"$M" feedback --db "$tmp/d.db" --read-only --query "$Q" "$top" + 2>"$tmp/err"
ok $([ $? = 1 ] && [ "$(wc -l < "$tmp/err")" = 1 ]; echo $?) "feedback refuses a read-only store in one line"
"$M" feedback --db "$tmp/d.db" --query "$Q" "$top" maybe 2>/dev/null
ok $([ $? = 2 ]; echo $?) "a judgement other than + or - is a usage error"
"$M" feedback --db "$tmp/d.db" --reset --yes >/dev/null
reset=$("$M" recall --db "$tmp/d.db" --json "$Q")
ok $([ "$(echo "$reset" | py 'print([h["id"] for h in d["results"]])')" = \
       "$(echo "$base" | py 'print([h["id"] for h in d["results"]])')" ] &&
     [ "$(echo "$reset" | py 'print(d["feedback_judgements"])')" = 0 ]; echo $?) \
  "--reset forgets every judgement"
tap_done
