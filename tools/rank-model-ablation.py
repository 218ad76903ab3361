#!/usr/bin/env python3
"""tools/rank-model-ablation.py - would a model fitted to the trace order the pool better?

Issue 13 item 5 asks whether the features the first stage already computed
order the candidate pool better combined otherwise. pool-ablation.py
measures hand-written rules; this script asks the question for any linear
combination: it fits one to the labels of one half and scores it on the
other. It asks every scored LoCoMo question (categories 1-4) with

    memscope recall --json --trace --no-floor --limit 30 -- QUESTION

and describes each of the 30 results by what its trace says (no label):
  score      log(ranking_score / the pool's best)
  channels   for each of the five, 1/(15 + rank) and whether it ranked it
  entity     the speaker or an entity the question names
  adjust     log of each second-stage factor (stage2.c) and of trust and
             confidence
  floor      coverage, predicate coverage, context coverage, cosine,
             remainder cosine
  turn       ends with "?", log length, has an event time, 1/position

Two logistic models, fitted by stochastic gradient descent on standardised
features (seeded, so a run is repeatable): pointwise (is the memory
evidence?) and pairwise (is this evidence above that non-evidence, within
one question). Each is fitted on the tuning half (samples 0-2) and scored
on both, then fitted on the check half (3-4) and scored on both, against
ranking_score's own order. Recall@5, Recall@10 and MRR as `memscope eval`
counts them, over the 30 (so --no-floor's; evidence below 30 never
counts).

    tools/rank-model-ablation.py [--locomo DIR] [--memscope BIN] [--evaldir DIR]

Needs the LoCoMo files (skips when they are absent) and the eval stores
build/eval/sampleK.db (`make eval` builds them). docs/QUALITY.md,
*A model fitted to the trace*, has its result.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys

CHANNELS = ["semantic", "bm25", "temporal", "hopfield", "spreading"]
POOL = 30


def ask(memscope, db, question):
    out = subprocess.run([memscope, "recall", "--db", db, "--json", "--trace", "--no-floor",
                          "--limit", str(POOL), "--", question],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["results"]


def describe(results, adjustments):
    best = max((r["ranking_score"] for r in results), default=1) or 1
    rows = []
    for i, r in enumerate(results):
        t = r["trace"]
        x = [math.log(max(r["ranking_score"], 1e-9) / best)]
        for c in CHANNELS:
            rank = (t["channels"].get(c) or {}).get("rank", 0)
            x += [1.0 / (15 + rank) if rank else 0.0, 1.0 if rank else 0.0]
        eg = t.get("entity_graph", {})
        x += [float(bool(eg.get("speaker_named"))), float(bool(eg.get("entity_named")))]
        factors = {a["name"]: a["factor"] for a in t.get("adjustments", [])}
        x += [math.log(factors.get(a, 1.0)) for a in adjustments]
        fl = t.get("floor", {})
        x += [fl.get(k) or 0.0 for k in ("coverage", "predicate_coverage", "context_coverage",
                                         "cosine", "remainder_cosine")]
        x += [float(r["content"].rstrip().endswith("?")), math.log(1 + len(r["content"])) / 5,
              float(r.get("event_time") is not None), 1.0 / (1 + i)]
        rows.append(x)
    return rows


def standardise(questions):
    xs = [x for q in questions for x in q["x"]]
    n = len(xs[0])
    mu = [sum(x[j] for x in xs) / len(xs) for j in range(n)]
    sd = [max(1e-6, math.sqrt(sum((x[j] - mu[j]) ** 2 for x in xs) / len(xs))) for j in range(n)]
    return lambda x: [(x[j] - mu[j]) / sd[j] for j in range(n)]


def sgd(examples, n, epochs, rate, l2, seed, bias):
    """Logistic regression on (z, y) pairs, w[n] the bias (none for the
    pairwise model, whose z are differences)."""
    w = [0.0] * (n + 1)
    rnd = random.Random(seed)
    for _ in range(epochs):
        rnd.shuffle(examples)
        for z, y in examples:
            s = sum(wj * zj for wj, zj in zip(w, z)) + w[n]
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, s))))
            g = p - y
            for j in range(n):
                w[j] -= rate * (g * z[j] + l2 * w[j])
            if bias:
                w[n] -= rate * g
    return w


def fit(questions, kind):
    scale = standardise(questions)
    n = len(questions[0]["x"][0])
    if kind == "pointwise":
        ex = [(scale(x), y) for q in questions for x, y in zip(q["x"], q["y"])]
        w = sgd(ex, n, epochs=8, rate=0.05, l2=1e-3, seed=1, bias=True)
    else:
        ex = []
        for q in questions:
            z = [scale(x) for x in q["x"]]
            pos = [zi for zi, y in zip(z, q["y"]) if y]
            neg = [zi for zi, y in zip(z, q["y"]) if not y]
            ex += [([a - b for a, b in zip(p, m)], 1) for p in pos for m in neg]
        w = sgd(ex, n, epochs=5, rate=0.02, l2=1e-3, seed=2, bias=False)
    return lambda x: sum(wj * zj for wj, zj in zip(w, scale(x)))


def score(questions, model=None):
    r5 = r10 = mrr = 0.0
    for q in questions:
        order = list(range(len(q["ids"])))
        if model:
            order.sort(key=lambda i: -model(q["x"][i]))
        ids = [q["ids"][i] for i in order]
        ranks = [ids.index(e) + 1 if e in ids else 0 for e in q["evidence"]]
        r5 += sum(1 for k in ranks if 0 < k <= 5) / len(ranks)
        r10 += sum(1 for k in ranks if 0 < k <= 10) / len(ranks)
        first = min((k for k in ranks if k), default=0)
        mrr += 1 / first if first else 0
    n = len(questions)
    return f"{r5 / n:.3f} | {r10 / n:.3f} | {mrr / n:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--locomo", default=os.environ.get("LOCOMO_DIR", "../shared/data/locomo"))
    ap.add_argument("--memscope", default="./memscope")
    ap.add_argument("--evaldir", default="build/eval")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.locomo, "sample0.queries.jsonl")):
        print(f"skipped: no LoCoMo queries in {a.locomo}")
        return 0
    raw = []
    for k in range(5):
        db = os.path.join(a.evaldir, f"sample{k}.db")
        if not os.path.exists(db):
            print(f"skipped: {db} is missing (make eval builds it)")
            return 0
        for line in open(os.path.join(a.locomo, f"sample{k}.queries.jsonl")):
            q = json.loads(line)
            if q.get("category") in (1, 2, 3, 4) and q.get("evidence"):
                res = ask(a.memscope, db, q["question"])
                if res:
                    raw.append((k, q, res))
    adjustments = sorted({adj["name"] for _, _, res in raw for r in res
                          for adj in r["trace"].get("adjustments", [])})
    halves = {"tune": [], "check": []}
    for k, q, res in raw:
        halves["tune" if k <= 2 else "check"].append({
            "ids": [r["id"] for r in res], "evidence": q["evidence"],
            "x": describe(res, adjustments),
            "y": [1 if r["id"] in q["evidence"] else 0 for r in res]})
    print(f"questions: tune {len(halves['tune'])}, check {len(halves['check'])}; "
          f"features {len(halves['tune'][0]['x'][0])}")
    print("| order | fitted on | tune R@5 | R@10 | MRR | check R@5 | R@10 | MRR |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| ranking_score | - | {score(halves['tune'])} | {score(halves['check'])} |")
    for kind in ("pointwise", "pairwise"):
        for on in ("tune", "check"):
            m = fit(halves[on], kind)
            print(f"| {kind} | {on} | {score(halves['tune'], m)} | {score(halves['check'], m)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
