#!/usr/bin/env python3
"""tools/pool-ablation.py - would a second-stage rule reorder the pool better?

Issue 13 item 5 asks whether features the first stage already computed,
combined by a transparent rule, order the candidate pool better than
ranking_score does. This script measures candidate rules offline: it asks
every scored LoCoMo question (categories 1-4) with

    memscope recall --json --trace --no-floor --limit 30 -- QUESTION

takes the 30 results (the pool that `memscope eval` reorders at --limit 10
holds 30), multiplies each result's ranking_score by a rule's factor, and
scores Recall@5, Recall@10 and MRR of the new order. Each rule is measured
on the tuning split (samples 0-2) and on the confirmation split (3-4), with
the gap, so a rule that helps only on the questions it was tuned on shows.

Features used (all in the trace or the store, none from the labels):
  coverage   idf-weighted share of the query's terms in the memory
             (trace.floor.coverage)
  session    share of the pool's ranking mass in the memory's session,
             itself left out
  adjacent   the best ranking_score of the turn before or after it, over
             the best in the pool
  reply      the turn before it is a question ("?") ranked in the top 5
  question   the memory itself ends with "?"
  diversity  the n-th memory of one session is divided by 1 + lambda * (n-1)
  agreement  the number of channels that put it in their top 10
and, for comparison, the order without the exchange adjustment
(engine/stage2.c), and the ceiling: the share of evidence in the 30 at all.

LoCoMo is CC BY-NC evaluation data, read from ../shared/data/locomo (or
$LOCOMO_DIR) and never copied; without it the script says so and exits 0.
Stores are tools/eval-locomo.sh's build/eval/sampleK.db (imported when
missing).

  tools/pool-ablation.py [--jobs N]
"""
import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMSCOPE = os.environ.get("MEMSCOPE", os.path.join(ROOT, "memscope"))
DATA = os.environ.get("LOCOMO_DIR", os.path.join(ROOT, "..", "shared", "data", "locomo"))
OUT = os.path.join(ROOT, "build", "eval")
SPLITS = (("tune 0-2", (0, 1, 2)), ("confirm 3-4", (3, 4)))


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def store_for(k):
    db = os.path.join(OUT, "sample%d.db" % k)
    if not os.path.exists(db) or os.path.getmtime(MEMSCOPE) > os.path.getmtime(db):
        os.makedirs(OUT, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        mem = os.path.join(DATA, "sample%d.memories.jsonl" % k)
        subprocess.run([MEMSCOPE, "import", "--db", db, mem], check=True, stdout=subprocess.DEVNULL)
    return db


def pools(k, jobs):
    """(question, pool) for each scored question of sample k; each pool hit
    gets 'sess' and 'turn' (its session and position in the store)."""
    mems = load_jsonl(os.path.join(DATA, "sample%d.memories.jsonl" % k))
    where = {m["id"]: (str(m.get("session")), n) for n, m in enumerate(mems)}
    qs = [
        q
        for q in load_jsonl(os.path.join(DATA, "sample%d.queries.jsonl" % k))
        if 1 <= q.get("category", 0) <= 4 and q.get("evidence")
    ]
    db = store_for(k)

    def ask(q):
        cmd = [MEMSCOPE, "recall", "--db", db, "--json", "--trace", "--no-floor", "--limit", "30"]
        out = subprocess.run(cmd + ["--", q["question"]], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("pool-ablation: memscope recall failed on %s: %s" % (db, out.stderr.strip()))
        hits = json.loads(out.stdout)["results"]
        for h in hits:
            h["sess"], h["turn"] = where.get(h["id"], ("?", -1))
        return q, hits

    with ThreadPoolExecutor(jobs) as ex:
        return list(ex.map(ask, qs))


def by_turn(pool):
    return {(h["sess"], h["turn"]): (r, h) for r, h in enumerate(pool)}


def rule_coverage(a):
    return lambda pool: [1 + a * h["trace"]["floor"]["coverage"] for h in pool]


def rule_session(a):
    def f(pool):
        tot = sum(h["ranking_score"] for h in pool) or 1
        mass = defaultdict(float)
        for h in pool:
            mass[h["sess"]] += h["ranking_score"]
        return [math.exp(a * (mass[h["sess"]] - h["ranking_score"]) / tot) for h in pool]

    return f


def rule_adjacent(a):
    def f(pool):
        at, best = by_turn(pool), max(h["ranking_score"] for h in pool)
        near = lambda h: max(at[(h["sess"], h["turn"] + d)][1]["ranking_score"] if (h["sess"], h["turn"] + d) in at else 0 for d in (-1, 1))
        return [1 + a * near(h) / best for h in pool]

    return f


def rule_reply(a):
    def f(pool):
        at = by_turn(pool)
        out = []
        for h in pool:
            p = at.get((h["sess"], h["turn"] - 1))
            out.append(1 + a if p and p[0] < 5 and "?" in p[1]["content"] else 1)
        return out

    return f


def rule_question(a):
    return lambda pool: [1 - a if h["content"].rstrip().endswith("?") else 1 for h in pool]


def rule_diversity(lam):
    def f(pool):
        seen, out = defaultdict(int), []
        for h in pool:  # pool is in ranking order
            out.append(1 / (1 + lam * seen[h["sess"]]))
            seen[h["sess"]] += 1
        return out

    return f


def rule_agreement(a):
    def f(pool):
        n = lambda h: sum(1 for c in h["trace"]["channels"].values() if c["rank"] <= 10)
        return [(1 + a) ** n(h) for h in pool]

    return f


RULES = [("ranking_score (as returned)", lambda pool: [1] * len(pool))]
def rule_no_exchange(pool):
    f = lambda h: math.prod(a["factor"] for a in h["trace"]["adjustments"] if a["name"] == "exchange")
    return [1 / f(h) for h in pool]


RULES += [("without the exchange adjustment", rule_no_exchange)]
RULES += [("coverage x(1 + %g c)" % a, rule_coverage(a)) for a in (0.1, 0.5, 1)]
RULES += [("session exp(%g s)" % a, rule_session(a)) for a in (0.25, 0.5, 1)]
RULES += [("adjacent x(1 + %g n)" % a, rule_adjacent(a)) for a in (0.25, 0.5)]
RULES += [("reply x%g" % (1 + a), rule_reply(a)) for a in (0.1, 0.25)]
RULES += [("question x%g" % (1 - a), rule_question(a)) for a in (0.1, 0.2)]
RULES += [("diversity lambda %g" % a, rule_diversity(a)) for a in (0.1, 0.5)]
RULES += [("agreement x%g^n" % (1 + a), rule_agreement(a)) for a in (0.1,)]


def score(data, rule):
    r5 = r10 = mrr = 0.0
    for q, pool in data:
        f = rule(pool) if pool else []
        order = sorted(range(len(pool)), key=lambda t: (-pool[t]["ranking_score"] * f[t], t))
        ids = [pool[t]["id"] for t in order]
        ev = q["evidence"]
        r5 += sum(e in ids[:5] for e in ev) / len(ev)
        r10 += sum(e in ids[:10] for e in ev) / len(ev)
        mrr += next((1.0 / (i + 1) for i, x in enumerate(ids) if x in ev), 0.0)
    n = max(len(data), 1)
    return r5 / n, r10 / n, mrr / n


def ceiling(data):
    got, n = defaultdict(float), defaultdict(int)
    for q, pool in data:
        ids = set(h["id"] for h in pool)
        for c in (q["category"], "all"):
            got[c] += sum(e in ids for e in q["evidence"]) / len(q["evidence"])
            n[c] += 1
    return ", ".join("%s %.3f" % (c, got[c] / n[c]) for c in (1, 2, 3, 4, "all"))


def main(argv):
    jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 3
    if not os.path.exists(os.path.join(DATA, "sample0.memories.jsonl")):
        print("pool-ablation: LoCoMo data not found in %s; skipping (set LOCOMO_DIR)" % DATA)
        return 0
    data = {name: [p for k in ks for p in pools(k, jobs)] for name, ks in SPLITS}
    print("| rule | tune 0-2 R@5 | R@10 | MRR | confirm 3-4 R@5 | R@10 | MRR |")
    print("|---|---|---|---|---|---|---|")
    base = {name: score(d, RULES[0][1]) for name, d in data.items()}
    for label, rule in RULES:
        cells = []
        for name, _ in SPLITS:
            s = score(data[name], rule)
            b = base[name]
            cells += ["%.3f (%+.3f)" % (s[i], s[i] - b[i]) if rule is not RULES[0][1] else "%.3f" % s[i] for i in range(3)]
        print("| %s | %s |" % (label, " | ".join(cells)))
    print()
    print("ceiling: R@30, the share of evidence anywhere in the 30, by category")
    for name, _ in SPLITS:
        print("  %s: %s" % (name, ceiling(data[name])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
