#!/usr/bin/env python3
"""tools/firststage-diagnose.py - where the evidence the top 10 misses is.

Asks every question of one LoCoMo category (default 1, multi-hop) with
evidence through `memscope recall --json --trace --no-floor --limit 300`
and counts, over the evidence turns not in the top 10:

  - where they rank in the fused list (11-30, 31-100, 101-300, not in it);
  - how many sit in a session that the top 10 holds a turn of;
  - how many are spoken by a speaker the question names;
  - how many of those ranked hold less than 0.1 of the predicate's idf
    (trace.floor.predicate_coverage): no word of what is asked;
  - which channels rank them (bm25 alone, or others too).

No question text is printed, only counts. LoCoMo is CC BY-NC evaluation
data, read from ../shared/data/locomo (or $LOCOMO_DIR) and never copied
into the repository; without it the script says so and exits 0. Stores are
those `tools/eval-locomo.sh` builds under build/eval/.

  tools/firststage-diagnose.py [--samples 0,1,2] [--category 1] [-- RECALL OPTIONS]

MEMSCOPE selects the binary (default ./memscope).
"""
import collections
import json
import os
import subprocess
import sys


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[: args.index("--")]
    samples, category = [0, 1, 2, 3, 4], 1
    while args:
        opt = args.pop(0)
        if opt == "--samples" and args:
            samples = [int(k) for k in args.pop(0).split(",")]
        elif opt == "--category" and args:
            category = int(args.pop(0))
        else:
            sys.exit("usage: tools/firststage-diagnose.py [--samples 0,1,2] [--category N] "
                     "[-- RECALL OPTIONS]")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    data = os.environ.get("LOCOMO_DIR", os.path.join(root, "..", "shared", "data", "locomo"))
    if not os.path.exists(os.path.join(data, "sample0.queries.jsonl")):
        print(f"firststage-diagnose: LoCoMo data not found in {data}; skipping")
        return
    memscope = os.environ.get("MEMSCOPE", os.path.join(root, "memscope"))
    n_evidence, missed = 0, []
    for k in samples:
        db = os.path.join(root, "build", "eval", f"sample{k}.db")
        if not os.path.exists(db):
            sys.exit(f"firststage-diagnose: {db} is missing (run tools/eval-locomo.sh --quick)")
        with open(os.path.join(data, f"sample{k}.queries.jsonl")) as f:
            questions = [json.loads(line) for line in f if line.strip()]
        for q in questions:
            if q.get("category") != category or not q.get("evidence"):
                continue
            out = subprocess.run([memscope, "recall", "--db", db, "--json", "--trace",
                                  "--no-floor", "--limit", "300", *extra, "--", q["question"]],
                                 capture_output=True, text=True, check=True).stdout
            results = json.loads(out)["results"]
            rank = {r["id"]: i + 1 for i, r in enumerate(results)}
            top_sessions = {r["id"].split(":")[0] for r in results[:10]}
            for e in q["evidence"]:
                n_evidence += 1
                r = rank.get(e)
                if r and r <= 10:
                    continue
                trace = results[r - 1]["trace"] if r else None
                missed.append({
                    "rank": r,
                    "in_top_session": e.split(":")[0] in top_sessions,
                    "spoken": trace and trace["entity_graph"]["speaker_named"],
                    "coverage": trace and trace["floor"]["predicate_coverage"],
                    "channels": sorted(trace["channels"]) if trace else [],
                })
    where = collections.Counter(
        "not in the 300" if not m["rank"] else "11-30" if m["rank"] <= 30
        else "31-100" if m["rank"] <= 100 else "101-300" for m in missed)
    ranked = [m for m in missed if m["rank"]]
    print(f"samples {','.join(map(str, samples))}, category {category}: {n_evidence} evidence "
          f"turns, {len(missed)} not in the top 10")
    for band in ("11-30", "31-100", "101-300", "not in the 300"):
        print(f"  ranked {band}: {where[band]}")
    print(f"  in a session the top 10 holds a turn of: {sum(m['in_top_session'] for m in missed)}")
    print(f"  of the {len(ranked)} ranked: spoken by a named speaker "
          f"{sum(1 for m in ranked if m['spoken'])}, predicate coverage < 0.1 "
          f"{sum(1 for m in ranked if m['coverage'] < 0.1)}, ranked by bm25 alone "
          f"{sum(1 for m in ranked if m['channels'] == ['bm25'])}")


if __name__ == "__main__":
    main()
