#!/usr/bin/env python3
"""tools/floor-diagnose.py - why on-topic unanswerable questions pass the floor.

Asks every question of the on-topic unanswerable sets (the files
`tools/eval-locomo.sh` uses) and, for comparison, LoCoMo's answerable
questions (categories 1-4 with evidence), through `memscope recall --json
--trace --limit 10`, and counts, per split:

  - how many abstain;
  - of those that pass, the rule that let their first result through
    (lexical, context, association, semantic, temporal, ...);
  - how many of those passed while a predicate word occurs in no memory of
    the store at all (df 0);
  - how many name a focus (the word the question asks about, floor.focus)
    and how many of those the pool holds.

No question text is printed, only counts. LoCoMo is CC BY-NC evaluation
data, read from ../shared/data/locomo (or $LOCOMO_DIR) and never copied
into the repository; without it the script says so and exits 0. Stores are
those `tools/eval-locomo.sh` builds under build/eval/.

  tools/floor-diagnose.py [--samples 0,1,2] [-- RECALL OPTIONS]

MEMSCOPE selects the binary (default ./memscope), e.g. an older build to
diagnose the floor before a change.
"""
import collections
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMSCOPE = os.environ.get("MEMSCOPE", os.path.join(ROOT, "memscope"))
DATA = os.environ.get("LOCOMO_DIR", os.path.join(ROOT, "..", "shared", "data", "locomo"))
OUT = os.path.join(ROOT, "build", "eval")


def unanswerable(k):
    for f in (os.path.join(ROOT, "tests", "data", "unanswerable", "sample%d.txt" % k),
              os.path.join(DATA, "sample%d.unanswerable.txt" % k)):
        if os.path.exists(f):
            with open(f, encoding="utf-8") as fh:
                return [l.strip() for l in fh if l.strip() and not l.startswith("#")]
    return []


def answerable(k):
    out = []
    with open(os.path.join(DATA, "sample%d.queries.jsonl" % k), encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                d = json.loads(line)
                if d.get("category") in (1, 2, 3, 4) and d.get("evidence"):
                    out.append(d["question"])
    return out


def ask(db, q, extra):
    p = subprocess.run([MEMSCOPE, "recall", "--db", db, "--json", "--trace", "--limit", "10"]
                       + extra + [q], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("floor-diagnose: memscope recall failed on %s: %s" % (db, p.stderr.strip()))
    return json.loads(p.stdout)


def tally(responses):
    c = collections.Counter()
    rule = collections.Counter()
    for r in responses:
        c["questions"] += 1
        fl = r["floor"]
        focus = fl["predicate"].get("focus")
        terms = fl["predicate"]["terms"]
        if focus:
            c["name a focus"] += 1
            c["focus held in the pool"] += any(t["word"] == focus and t["held"] for t in terms)
        if r["abstained"]:
            c["abstain"] += 1
            continue
        rule[r["results"][0]["trace"]["floor"]["passed_by"]] += 1
        c["pass with a predicate word no memory holds"] += any(t["df"] == 0 for t in terms)
    return c, rule


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    samples = [0, 1, 2, 3, 4]
    if len(args) == 2 and args[0] == "--samples":
        samples = [int(x) for x in args[1].split(",")]
    elif args:
        sys.exit(__doc__.strip())
    if not os.path.exists(os.path.join(DATA, "sample0.memories.jsonl")):
        print("floor-diagnose: LoCoMo data not found in %s; skipping" % DATA)
        return
    for label, get in (("on-topic unanswerable", unanswerable), ("answerable", answerable)):
        responses = []
        for k in samples:
            db = os.path.join(OUT, "sample%d.db" % k)
            if not os.path.exists(db):
                sys.exit("floor-diagnose: %s missing; run make eval first" % db)
            responses += [ask(db, q, extra) for q in get(k)]
        c, rule = tally(responses)
        print("%s (samples %s): %d questions, %d abstain" % (
            label, ",".join(map(str, samples)), c["questions"], c["abstain"]))
        print("  first result passed by: %s" % ", ".join(
            "%s %d" % kv for kv in rule.most_common()))
        print("  passed with a predicate word no memory holds: %d" %
              c["pass with a predicate word no memory holds"])
        print("  name a focus: %d, the pool holds it: %d" % (
            c["name a focus"], c["focus held in the pool"]))


if __name__ == "__main__":
    main()
