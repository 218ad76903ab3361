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

With --whole the rules reorder the whole fused list instead (`--limit 300`:
its first 300, every candidate of nearly every LoCoMo question), so they can
bring up evidence from below the 30, which is what a first-stage change
would do. Rules of that table:
  session    the bm25 mass, sum of 1/(k + bm25 rank), of the memory's
             session over the whole list, itself left out, over the
             largest session's: x(1 + a s)
  exchange   the idf share of the query's predicate terms held by the
             memory or the turns before and after it in its session
             (stems matched as prefixes of the stored words; the speakers'
             names are not predicate terms): x(1 + a u); "lacks" counts
             only the terms the memory itself lacks
  covlist    one more rank-fused list: the candidates by predicate
             coverage (trace.floor.predicate_coverage), weight w
  bm25 score the fused score plus a (raw bm25 / the best raw bm25)^p: the
             magnitude that rank fusion drops
  multi-hop  the spreading weight w for the multi_hop and aggregation
             query types, the others as before (re-fused from the trace)
and, with --learned, a logistic regression over 15 of these features fitted
on the tuning split (the strongest rule these features allow; it is
measured on both splits, and only its confirmation numbers say whether it
generalises).

With --turns the pool of 30 is reordered by rules about what kind of turn
a memory is (issue 13, "Ranking that generalises"); "named" is a turn
spoken by a speaker the question names (trace.entity_graph):
  without asks   the pool without the `asks` adjustment (engine/stage2.c),
                 or without its quarter (a turn that asks and says no I),
                 or that quarter spared for a turn that follows the other
                 speaker's question (an answer that says no I)
  you            a named turn with more second-person words (you, your)
                 than first-person ones (I, my, we ...) is about the one
                 spoken to: x1/a
  phatic         a named turn with at most n content words besides
                 thanks, praise and greetings: xa
  pairs          the query's adjacent predicate terms found in order within
                 w words of each other (o) or in either order (u), as a share
                 of its pairs: x(1 + a share)
  opener         the first turn of its session: xa
  set diversity  for a question asking a set (query.asks_set, read from
                 `recall --first-stage sessions=0.001,sets`), the n-th turn
                 of one session divided by 1 + lambda (n - 1)

LoCoMo is CC BY-NC evaluation data, read from ../shared/data/locomo (or
$LOCOMO_DIR) and never copied; without it the script says so and exits 0.
Stores are tools/eval-locomo.sh's build/eval/sampleK.db (imported when
missing; $EVAL_OUT names another folder).

With --models (the pool of 30) the rules are models fitted to the labels,
the bound on what any linear combination of the trace could do: a
logistic model of 29 features of each pooled memory (trace_features: its
log-score, each channel's 1/(k + rank) and whether it ranked it, the
speaker or an entity named, each second-stage factor's log, the floor's
coverages and cosines, whether it asks, its length, an event time, its
place), pointwise (is it evidence?) and pairwise (is this evidence above
that non-evidence?), each fitted on one split and scored on both.

  tools/pool-ablation.py [--jobs N] [--whole [--learned] | --turns | --models]
"""
import json
import math
import os
import random
import re
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

from engine_words import stop_words

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMSCOPE = os.environ.get("MEMSCOPE", os.path.join(ROOT, "memscope"))
DATA = os.environ.get("LOCOMO_DIR", os.path.join(ROOT, "..", "shared", "data", "locomo"))
OUT = os.environ.get("EVAL_OUT", os.path.join(ROOT, "build", "eval"))
SPLITS = (("tune 0-2", (0, 1, 2)), ("confirm 3-4", (3, 4)))
WORDS, NAMES, SESSIONS = {}, {}, {}  # per sample: each memory's words and session; the speakers' names
TURNS = {}  # per sample: each memory's (content, speaker)


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


def pools(k, jobs, limit=30):
    """(question, pool) for each scored question of sample k; each pool hit
    gets 'sess' and 'turn' (its session and position in the store)."""
    mems = load_jsonl(os.path.join(DATA, "sample%d.memories.jsonl" % k))
    where = {m["id"]: (str(m.get("session")), n) for n, m in enumerate(mems)}
    WORDS[k] = [set(re.findall(r"[a-z0-9]+", m["content"].lower())) for m in mems]
    SESSIONS[k] = [str(m.get("session")) for m in mems]
    TURNS[k] = [(m["content"], m.get("speaker")) for m in mems]
    NAMES[k] = set(str(m.get("speaker", "")).lower() for m in mems) - {""}
    qs = [
        q
        for q in load_jsonl(os.path.join(DATA, "sample%d.queries.jsonl" % k))
        if 1 <= q.get("category", 0) <= 4 and q.get("evidence")
    ]
    db = store_for(k)

    def ask(q):
        cmd = [MEMSCOPE, "recall", "--db", db, "--json", "--trace", "--no-floor", "--limit", str(limit)]
        out = subprocess.run(cmd + ["--", q["question"]], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("pool-ablation: memscope recall failed on %s: %s" % (db, out.stderr.strip()))
        resp = json.loads(out.stdout)
        hits = resp["results"]
        q["terms"], q["type"] = resp["analysis"]["terms"], resp["query_type"]
        for h in hits:
            h["sess"], h["turn"] = where.get(h["id"], ("?", -1))
        q["sample"] = k
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


# ---- rules over the whole fused list (--whole) ----------------------------

K_RRF = 15  # the default profile's RRF constant


def refused(h, extra):
    """The factor that adds extra to h's fused score (1 when it has none)."""
    fused = h["trace"]["fused"]
    return (fused + extra) / fused if fused > 0 else 1


def contribution(h, ch):
    c = h["trace"]["channels"].get(ch)
    return c["weight"] / (K_RRF + c["rank"]) if c else 0.0


def rule_session_mass(a):
    def f(pool):
        mass = defaultdict(float)
        for h in pool:
            mass[h["sess"]] += contribution(h, "bm25")
        top = max(mass.values()) if mass else 0
        return [1 + a * (mass[h["sess"]] - contribution(h, "bm25")) / top if top > 0 else 1 for h in pool]

    return f


def predicate_weights(q):
    """idf of each predicate term of q (its stems, the speakers' names left
    out) over the memories of its sample."""
    if "pred_idf" not in q:
        q["pred_idf"] = count_weights(q)
    return q["pred_idf"]


def count_weights(q):
    words, names = WORDS[q["sample"]], NAMES[q["sample"]]
    n = len(words)
    terms = [t for t in q["terms"] if not any(name.startswith(t) for name in names)]
    out = {}
    for t in terms:
        df = sum(1 for ws in words if any(w.startswith(t) for w in ws))
        out[t] = math.log((n - df + 0.5) / (df + 0.5) + 1)
    return out


def held(q, turn, wts):
    words = WORDS[q["sample"]]
    if not 0 <= turn < len(words):
        return set()
    return {t for t in wts if any(w.startswith(t) for w in words[turn])}


def rule_exchange_coverage(a, lacks):
    def f(pool, q):
        wts = predicate_weights(q)
        tot = sum(wts.values())
        out = []
        for h in pool:
            own = held(q, h["turn"], wts)
            near = set()
            for t in (h["turn"] - 1, h["turn"] + 1):
                if pool_session(q, t) == h["sess"]:
                    near |= held(q, t, wts)
            got = near - own if lacks else own | near
            out.append(1 + a * sum(wts[t] for t in got) / tot if tot > 0 else 1)
        return out

    return f


def pool_session(q, turn):
    s = SESSIONS.get(q["sample"])
    return s[turn] if s and 0 <= turn < len(s) else None


def rule_coverage_list(w):
    def f(pool):
        order = sorted(range(len(pool)), key=lambda t: -pool[t]["trace"]["floor"]["predicate_coverage"])
        rank = {t: r + 1 for r, t in enumerate(order) if pool[t]["trace"]["floor"]["predicate_coverage"] > 0}
        return [refused(h, w / (K_RRF + rank[t]) if t in rank else 0) for t, h in enumerate(pool)]

    return f


def rule_bm25_score(a, p):
    def f(pool):
        raw = lambda h: h["trace"]["channels"]["bm25"]["raw"] if "bm25" in h["trace"]["channels"] else 0.0
        top = max([raw(h) for h in pool] + [0])
        return [refused(h, a * (raw(h) / top) ** p if top > 0 else 0) for h in pool]

    return f


def rule_multi_hop_spreading(w):
    def f(pool, q):
        if q["type"] not in ("multi_hop", "aggregation"):
            return [1] * len(pool)
        spread = lambda h: h["trace"]["channels"].get("spreading")
        return [refused(h, (w - spread(h)["weight"]) / (K_RRF + spread(h)["rank"]) if spread(h) else 0)
                for h in pool]

    return f


def features(pool, q):
    """Per memory: the 15 features the learned rule weighs."""
    wts = predicate_weights(q)
    tot = sum(wts.values()) or 1
    mass = defaultdict(float)
    for h in pool:
        mass[h["sess"]] += contribution(h, "bm25")
    top = max(mass.values()) if mass else 1
    out = []
    for h in pool:
        ch = h["trace"]["channels"]
        own = held(q, h["turn"], wts)
        near = set()
        for t in (h["turn"] - 1, h["turn"] + 1):
            if pool_session(q, t) == h["sess"]:
                near |= held(q, t, wts)
        adj = [a["name"] for a in h["trace"]["adjustments"]]
        fl = h["trace"]["floor"]
        x = [math.log(h["ranking_score"] + 1e-9)]
        x += [K_RRF / (K_RRF + ch[c]["rank"]) if c in ch else 0 for c in CHANNELS]
        x += [fl["coverage"], fl["predicate_coverage"], float(h["trace"]["entity_graph"]["speaker_named"]),
              float("exchange" in adj), (mass[h["sess"]] - contribution(h, "bm25")) / (top or 1),
              sum(wts[t] for t in own | near) / tot, sum(wts[t] for t in near - own) / tot,
              float("?" in h["content"]), math.log(len(h["content"]) + 1) / 5]
        out.append(x)
    return out


CHANNELS = ("semantic", "bm25", "temporal", "hopfield", "spreading")
LEARN_TOP = 50  # the learned rule reorders the first 50, as a second stage would


def fit(data, l2, steps=300, rate=0.5):
    """Logistic regression of 'is evidence' on the features of the first
    LEARN_TOP memories of each question, by gradient descent from the
    weights of ranking_score alone."""
    rows = [(x, h["id"] in q["evidence"]) for q, pool in data
            for x, h in zip(features(pool[:LEARN_TOP], q), pool[:LEARN_TOP])]
    w = [1.0] + [0.0] * (len(rows[0][0]) - 1) if rows else []
    b = 0.0
    for _ in range(steps):
        g, gb = [0.0] * len(w), 0.0
        for x, y in rows:
            z = max(-30.0, min(30.0, b + sum(a * c for a, c in zip(w, x))))
            e = 1 / (1 + math.exp(-z)) - y
            gb += e
            for j, c in enumerate(x):
                g[j] += e * c
        w = [wj - rate * (gj / len(rows) + l2 * wj) for wj, gj in zip(w, g)]
        b -= rate * gb / len(rows)
    return w


def rule_learned(w):
    def f(pool, q):
        head = features(pool[:LEARN_TOP], q)
        # the learned score orders the first 50; the rest keep their order below them
        s = [math.exp(max(-30.0, min(30.0, sum(a * c for a, c in zip(w, x))))) for x in head]
        lo = min(s) if s else 1
        out = [si / h["ranking_score"] for si, h in zip(s, pool)]
        for t in range(len(head), len(pool)):
            out.append(lo * 1e-6 / pool[t]["ranking_score"] if pool[t]["ranking_score"] > 0 else 1)
        return out

    return f


def trace_features(pool, adjustments):
    """Per memory of a pool of 30, what its trace says (29 features with the
    traces of LoCoMo's stores): the log of its score over the pool's best,
    each channel's 1/(k + rank) and whether it ranked it, the speaker or an
    entity named, the log of each adjustment in `adjustments`, the floor's
    coverages and cosines, whether the turn asks, its length, an event time
    and its place."""
    best = max((h["ranking_score"] for h in pool), default=1) or 1
    out = []
    for i, h in enumerate(pool):
        t = h["trace"]
        x = [math.log(max(h["ranking_score"], 1e-9) / best)]
        for c in CHANNELS:
            rank = (t["channels"].get(c) or {}).get("rank", 0)
            x += [1.0 / (K_RRF + rank) if rank else 0.0, 1.0 if rank else 0.0]
        eg = t.get("entity_graph", {})
        x += [float(bool(eg.get("speaker_named"))), float(bool(eg.get("entity_named")))]
        factors = {a["name"]: a["factor"] for a in t.get("adjustments", [])}
        x += [math.log(factors.get(a, 1.0)) for a in adjustments]
        fl = t.get("floor", {})
        x += [fl.get(k) or 0.0 for k in ("coverage", "predicate_coverage", "context_coverage",
                                         "cosine", "remainder_cosine")]
        x += [float(h["content"].rstrip().endswith("?")), math.log(1 + len(h["content"])) / 5,
              float(h.get("event_time") is not None), 1.0 / (1 + i)]
        out.append(x)
    return out


def fit_model(data, kind, adjustments):
    """A logistic model of the trace's features, fitted on data by stochastic
    gradient descent on standardised features (seeded: a run repeats):
    pointwise (is the memory evidence?) or pairwise (is this evidence above
    that non-evidence of the same question?). Returns the memory's score."""
    qs = [(trace_features(pool, adjustments), [h["id"] in q["evidence"] for h in pool])
          for q, pool in data if pool]
    xs = [x for X, _ in qs for x in X]
    n = len(xs[0])
    mu = [sum(x[j] for x in xs) / len(xs) for j in range(n)]
    sd = [max(1e-6, math.sqrt(sum((x[j] - mu[j]) ** 2 for x in xs) / len(xs))) for j in range(n)]
    scale = lambda x: [(x[j] - mu[j]) / sd[j] for j in range(n)]
    if kind == "pointwise":
        ex = [(scale(x), y) for X, Y in qs for x, y in zip(X, Y)]
        epochs, rate, bias, seed = 8, 0.05, True, 1
    else:
        ex = []
        for X, Y in qs:
            z = [scale(x) for x in X]
            pos = [zi for zi, y in zip(z, Y) if y]
            neg = [zi for zi, y in zip(z, Y) if not y]
            ex += [([a - b for a, b in zip(p, m)], 1) for p in pos for m in neg]
        epochs, rate, bias, seed = 5, 0.02, False, 2
    w = [0.0] * (n + 1)  # w[n]: the bias (none pairwise: its rows are differences)
    rnd = random.Random(seed)
    for _ in range(epochs):
        rnd.shuffle(ex)
        for z, y in ex:
            e = 1 / (1 + math.exp(-max(-30.0, min(30.0, sum(a * c for a, c in zip(w, z)) + w[n])))) - y
            for j in range(n):
                w[j] -= rate * (e * z[j] + 1e-3 * w[j])
            if bias:
                w[n] -= rate * e
    return lambda x: sum(a * c for a, c in zip(w, scale(x)))


def rule_model(model, adjustments):
    """The pool in the order of the model's score."""
    def f(pool):
        s = [math.exp(max(-30.0, min(30.0, model(x)))) for x in trace_features(pool, adjustments)]
        return [si / max(h["ranking_score"], 1e-300) for si, h in zip(s, pool)]

    return f


def model_rules(data):
    adjustments = sorted({a["name"] for d in data.values() for _, pool in d for h in pool
                          for a in h["trace"].get("adjustments", [])})
    r = [("ranking_score (as returned)", lambda pool: [1] * len(pool))]
    for kind in ("pointwise", "pairwise"):
        for name, _ in SPLITS:
            m = fit_model(data[name], kind, adjustments)
            r.append(("%s, fitted on %s" % (kind, name.split()[-1]), rule_model(m, adjustments)))
    return r


def whole_rules():
    r = [("ranking_score (as returned)", lambda pool: [1] * len(pool))]
    r += [("session x(1 + %g s)" % a, rule_session_mass(a)) for a in (0.1, 0.25, 0.5, 1)]
    r += [("exchange x(1 + %g u)" % a, rule_exchange_coverage(a, False)) for a in (0.25, 0.5, 1)]
    r += [("exchange, lacks x(1 + %g u)" % a, rule_exchange_coverage(a, True)) for a in (0.25, 0.5, 1)]
    r += [("covlist w %g" % w, rule_coverage_list(w)) for w in (0.5, 1, 2)]
    r += [("bm25 score a %g p %g" % (a, p), rule_bm25_score(a, p)) for a in (0.02, 0.05, 0.1) for p in (1, 2)]
    r += [("multi-hop spreading %g" % w, rule_multi_hop_spreading(w)) for w in (0.5, 1, 2)]
    return r



def score(data, rule):
    r5 = r10 = mrr = 0.0
    for q, pool in data:
        f = (rule(pool, q) if rule.__code__.co_argcount == 2 else rule(pool)) if pool else []
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
    return ", ".join("%s %.3f" % (c, got[c] / n[c]) for c in (1, 2, 3, 4, "all") if n[c])


# ---- rules about the kind of turn (--turns) --------------------------------

FIRST = {"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "im", "ive", "id", "ill"}
SECOND = {"you", "your", "yours", "yourself", "youre", "youve", "youd", "youll"}
PHATIC = set(
    "thanks thank wow great awesome cool nice amazing glad love lovely sweet congrats congratulations hey "
    "hello bye yeah yes yep sure totally really means mean lot kind words appreciate appreciated agree "
    "absolutely definitely good happy proud sounds sound fun talk chat chatting care take soon see hope "
    "hear time oh aww haha".split()
)
STOP = stop_words()  # engine/stopwords.c


def body(h):
    t = h["content"]
    sp = h.get("speaker") or ""
    return t[len(sp) + 1 :] if sp and t.startswith(sp + ":") else t


def named(h):
    return h["trace"]["entity_graph"]["speaker_named"]


def persons(h):
    ws = [w.replace("'", "") for w in re.findall(r"[a-z']+", body(h).lower())]
    return sum(w in FIRST for w in ws), sum(w in SECOND for w in ws)


def factor_of(h, name):
    return math.prod(a["factor"] for a in h["trace"]["adjustments"] if a["name"] == name)


def rule_you(a):
    def f(pool):
        return [1 / a if named(h) and persons(h)[1] > persons(h)[0] else 1 for h in pool]

    return f


def quarter(h):
    return abs(factor_of(h, "asks") - 0.25 ** 0.25) < 1e-6


def rule_no_quarter(pool):
    return [1 / factor_of(h, "asks") if quarter(h) else 1 for h in pool]


def rule_quarter_spared(pool, q):
    """No quarter for a turn that follows the other speaker's question."""
    turns = TURNS[q["sample"]]

    def after_question(h):
        t = h["turn"] - 1
        return (t >= 0 and pool_session(q, t) == h["sess"] and turns[t][1] != h.get("speaker")
                and turns[t][0].rstrip().endswith("?"))

    return [1 / factor_of(h, "asks") if quarter(h) and after_question(h) else 1 for h in pool]


def rule_phatic(n, a):
    def f(pool, q):
        names = NAMES[q["sample"]]
        left = lambda h: [w for w in re.findall(r"[a-z]+", body(h).lower())
                          if len(w) > 2 and w not in STOP and w not in PHATIC and w not in names]
        return [a if named(h) and len(left(h)) <= n else 1 for h in pool]

    return f


def rule_pairs(a, w, ordered):
    def f(pool, q):
        names = NAMES[q["sample"]]
        terms = [t for t in q["terms"] if not any(x.startswith(t) or t.startswith(x) for x in names)]
        pairs = list(zip(terms, terms[1:]))
        out = []
        for h in pool:
            if not pairs:
                out.append(1)
                continue
            ws = re.findall(r"[a-z0-9]+", body(h).lower())
            at = {t: [i for i, x in enumerate(ws) if (x.startswith(t) if len(t) >= 3 else x == t)] for t in terms}
            near = lambda x, y: any(0 < j - i <= w if ordered else 0 < abs(j - i) <= w for i in at[x] for j in at[y])
            out.append(1 + a * sum(near(x, y) for x, y in pairs) / len(pairs))
        return out

    return f


def rule_opener(a):
    def f(pool, q):
        return [a if pool_session(q, h["turn"] - 1) != h["sess"] else 1 for h in pool]

    return f


def rule_set_diversity(lam):
    def f(pool, q):
        if not q.get("asks_set"):
            return [1] * len(pool)
        return rule_diversity(lam)(pool)

    return f


def asks_set(data, jobs):
    """Mark each question that asks for a set (the `sets` first stage names
    a list for it)."""
    def ask(item):
        q, _ = item
        db = os.path.join(OUT, "sample%d.db" % q["sample"])
        cmd = [MEMSCOPE, "recall", "--db", db, "--json", "--no-floor", "--limit", "1",
               "--first-stage", "sessions=0.001,sets", "--", q["question"]]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        q["asks_set"] = "first_stage" in json.loads(out.stdout)["channels"]["bm25"]

    with ThreadPoolExecutor(jobs) as ex:
        list(ex.map(ask, [item for d in data.values() for item in d]))


def turn_rules():
    r = [("ranking_score (as returned)", lambda pool: [1] * len(pool))]
    r += [("without asks", lambda pool: [1 / factor_of(h, "asks") for h in pool])]
    r += [("without its quarter", rule_no_quarter)]
    r += [("its quarter spared after the other's question", rule_quarter_spared)]
    r += [("you x1/%g" % a, rule_you(a)) for a in (1.25, 1.5, 2)]
    r += [("phatic n %d x%g" % (n, a), rule_phatic(n, a)) for n in (0, 1, 2) for a in (0.5, 0.7)]
    r += [("pairs %s w %d a %g" % ("o" if o else "u", w, a), rule_pairs(a, w, o))
          for o in (True, False) for w in (1, 4, 8) for a in (0.25, 0.5)]
    r += [("opener x%g" % a, rule_opener(a)) for a in (1.1, 1.2, 1.5)]
    r += [("set diversity lambda %g" % a, rule_set_diversity(a)) for a in (0.25, 0.5, 1)]
    return r


def main(argv):
    jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 3
    if not os.path.exists(os.path.join(DATA, "sample0.memories.jsonl")):
        print("pool-ablation: LoCoMo data not found in %s; skipping (set LOCOMO_DIR)" % DATA)
        return 0
    whole = "--whole" in argv
    data = {name: [p for k in ks for p in pools(k, jobs, 300 if whole else 30)] for name, ks in SPLITS}
    rules = whole_rules() if whole else RULES
    if "--turns" in argv:
        asks_set(data, jobs)
        rules = turn_rules()
    if "--models" in argv and not whole:
        rules = model_rules(data)
    if whole and "--learned" in argv:
        for l2 in (0.1, 0.01):
            rules = rules + [("learned, l2 %g (fitted on 0-2)" % l2, rule_learned(fit(data[SPLITS[0][0]], l2)))]
    print("| rule | tune 0-2 R@5 | R@10 | MRR | confirm 3-4 R@5 | R@10 | MRR |")
    print("|---|---|---|---|---|---|---|")
    base = {name: score(d, rules[0][1]) for name, d in data.items()}
    for label, rule in rules:
        cells = []
        for name, _ in SPLITS:
            s = score(data[name], rule)
            b = base[name]
            cells += ["%.3f (%+.3f)" % (s[i], s[i] - b[i]) if rule is not rules[0][1] else "%.3f" % s[i] for i in range(3)]
        print("| %s | %s |" % (label, " | ".join(cells)))
    print()
    print("ceiling: the share of evidence anywhere in the %s, by category" % ("whole list" if whole else "30"))
    for name, _ in SPLITS:
        print("  %s: %s" % (name, ceiling(data[name])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
