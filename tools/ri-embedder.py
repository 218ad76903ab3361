#!/usr/bin/env python3
"""tools/ri-embedder.py - a distributional embedder learned from a store's own
memories (random indexing), as an external embedder (docs/EMBEDDERS.md).

It measures issue 13's option "a distributional model learned from the store
itself" without a model download: started with the memories' JSONL file, it
reads every memory's content, and gives each word

  - an index vector: 512 dimensions, 10 of them +1 or -1, chosen by a
    generator seeded with the word (the same word, the same vector);
  - a context vector: the sum, over every memory holding the word, of the
    index vectors of the other words of that memory (weight 1) and of the
    turns before and after it in its session (weight RI_NB, default 0.5),
    each weighted by its idf, then normalised.

A text's vector is the idf-weighted sum of its words' context vectors plus
RI_BETA (default 0) times their index vectors (which brings back exact word
matches). Words are ASCII letter and digit runs, lower case, without
memscope's stop words (engine/stopwords.c), and a final "s" cut from words
longer than four letters.

  memscope import --db S.db --embedder "cmd:tools/ri-embedder.py M.jsonl" M.jsonl
  memscope eval --db S.db --queries Q.jsonl --embedder "cmd:tools/ri-embedder.py M.jsonl"

tools/ri-eval.sh runs this over the LoCoMo split; docs/QUALITY.md has what
it measured. Learning takes seconds per conversation: set
MEMSCOPE_EMBED_TIMEOUT_MS high enough on a busy machine. Plain Python, no
packages.
"""
import json
import math
import os
import random
import re
import sys

from engine_words import stop_words

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIM, NONZERO = 512, 10
BETA = float(os.environ.get("RI_BETA", "0"))
NEIGHBOUR = float(os.environ.get("RI_NB", "0.5"))


STOP = stop_words()


def tokens(text):
    out = []
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w in STOP or len(w) < 2:
            continue
        if len(w) > 4 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


_index = {}


def index_vector(w):
    v = _index.get(w)
    if v is None:
        r = random.Random(w)
        v = [(r.randrange(DIM), 1 if r.random() < 0.5 else -1) for _ in range(NONZERO)]
        _index[w] = v
    return v


def learn(path):
    docs, sessions = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                m = json.loads(line)
                docs.append(set(tokens(m.get("content", ""))))
                sessions.append(m.get("session"))
    n = len(docs)
    df = {}
    for d in docs:
        for w in d:
            df[w] = df.get(w, 0) + 1
    idf = {w: math.log((n + 1) / (c + 1)) + 1 for w, c in df.items()}
    ctx = {}
    for i, d in enumerate(docs):
        around = [(i, 1.0)] + [(j, NEIGHBOUR) for j in (i - 1, i + 1)
                               if 0 <= j < n and sessions[j] == sessions[i] and NEIGHBOUR]
        for w in d:
            c = ctx.setdefault(w, [0.0] * DIM)
            for j, a in around:
                for u in docs[j]:
                    if u != w:
                        for p, s in index_vector(u):
                            c[p] += s * a * idf[u]
    for w, c in ctx.items():
        norm = math.sqrt(sum(x * x for x in c)) or 1.0
        ctx[w] = [x / norm for x in c]
    return idf, ctx, math.log(n + 1) + 1


def embed(text, idf, ctx, unseen):
    v = [0.0] * DIM
    for w in set(tokens(text)):
        g = idf.get(w, unseen)
        c = ctx.get(w)
        if c:
            for p in range(DIM):
                v[p] += g * c[p]
        if BETA:
            for p, s in index_vector(w):
                v[p] += g * BETA * s
    if not any(v):
        v[0] = 1e-6  # a text with no known word: a vector near nothing
    return v


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: ri-embedder.py MEMORIES.jsonl")
    idf, ctx, unseen = learn(argv[1])
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("op") == "info":
            print(json.dumps({"id": "ri-b%g-n%g" % (BETA, NEIGHBOUR), "dim": DIM}), flush=True)
        else:
            vecs = [[round(x, 5) for x in embed(t, idf, ctx, unseen)] for t in req["texts"]]
            print(json.dumps({"vectors": vecs}), flush=True)


if __name__ == "__main__":
    main(sys.argv)
