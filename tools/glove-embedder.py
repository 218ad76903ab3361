#!/usr/bin/env python3
"""tools/glove-embedder.py - pretrained word vectors (GloVe) as an external
embedder (docs/EMBEDDERS.md), to measure issue 13's item 4 against a model
that learned English from far more text than one store holds.

  memscope import --db S.db --embedder "cmd:tools/glove-embedder.py G.txt" M.jsonl
  memscope eval --db S.db --queries Q.jsonl --embedder "cmd:tools/glove-embedder.py G.txt"

G.txt is word vectors in GloVe's text format, one word a line followed by
its numbers, most frequent word first (Stanford's glove.6B.100d.txt is). The
repository holds no vectors and this script downloads nothing: the file is
the user's. docs/QUALITY.md, *Pretrained word vectors*, says which file was
measured and how it was cut to 60,000 words.

A text's vector is the smooth-inverse-frequency average of its words'
vectors: each word weighs a / (a + p), with p its probability estimated
from its rank r in the file by Zipf's law, 1 / (r * H) for H the harmonic
number of the vocabulary, and a = GLOVE_A (default 0.001); then the sum is
normalised. Words are lower-cased ASCII letter, digit and apostrophe runs
without memscope's stop words (engine/stopwords.c) and a final "'s"; a word
missing from the file is tried without a final "s", else skipped. A turn's
leading "Name: " (how LoCoMo's memories begin) is left out unless
GLOVE_SPEAKER=1: a speaker's name in every turn would pull all of that
speaker's turns together.

GLOVE_HASH=L (0 < L < 1, default 0: off) appends the built-in embedder's
hashed features (engine/embed.c: "w:t" and the 3-5 byte n-grams of "<t>",
FNV-1a into 512 signed dimensions, 1 + ln tf, normalised) so that the
vector is sqrt(L) * glove + sqrt(1 - L) * hash over 612 dimensions: word
meaning and spelling together. The query side then lacks the idf weights
the built-in embedder gives a query's words. Plain Python, no packages;
loading 60,000 words takes about a second.
"""
import json
import math
import os
import re
import sys

from engine_words import stop_words

STOP = stop_words()
A = float(os.environ.get("GLOVE_A", "1e-3"))
KEEP_SPEAKER = os.environ.get("GLOVE_SPEAKER", "0") == "1"
HASH = float(os.environ.get("GLOVE_HASH", "0"))
HASH_DIM = 512


def load(path):
    vectors, rank = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip().split(" ")
            if len(parts) < 2 or parts[0] in vectors:
                continue
            vectors[parts[0]] = [float(x) for x in parts[1:]]
            rank[parts[0]] = len(rank) + 1
    if not vectors:
        sys.exit("glove-embedder: no vectors in %s" % path)
    return vectors, rank


def normalised(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v] if n else v


def glove_vector(text, vectors, rank, dim, harmonic):
    if not KEEP_SPEAKER:
        text = re.sub(r"^[A-Z][a-z]+: ", "", text)
    v = [0.0] * dim
    for w in re.findall(r"[a-z0-9']+", text.lower()):
        w = w.strip("'")
        if w.endswith("'s"):
            w = w[:-2]
        if not w or w in STOP:
            continue
        x = vectors.get(w)
        if x is None and w.endswith("s"):
            w = w[:-1]
            x = vectors.get(w)
        if x is None:
            continue
        g = A / (A + 1.0 / (rank[w] * harmonic))
        for i in range(dim):
            v[i] += g * x[i]
    return normalised(v)


def fnv1a(data):
    h = 2166136261
    for c in data:
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


def hash_vector(text):
    tf = {}
    for t in re.findall(r"[A-Za-z0-9]+", text):
        t = t.lower()
        if t in STOP:
            continue
        b = t.encode()[:64]
        padded = b"<" + b + b">"
        features = [b"w:" + b]
        features += [padded[i:i + g] for g in (3, 4, 5) for i in range(len(padded) - g + 1)]
        for feature in features:
            h = fnv1a(feature)
            tf[h] = tf.get(h, 0) + 1
    v = [0.0] * HASH_DIM
    for h, n in tf.items():
        x = 1 + math.log(n)
        v[h % HASH_DIM] += -x if h & 0x80000000 else x
    return normalised(v)


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: glove-embedder.py GLOVE.txt")
    vectors, rank = load(argv[1])
    dim = len(next(iter(vectors.values())))
    harmonic = math.log(len(vectors)) + 0.5772
    out_dim = dim + (HASH_DIM if HASH else 0)
    name = "glove-sif-a%g%s%s" % (A, "-spk" if KEEP_SPEAKER else "", "-hash%g" % HASH if HASH else "")
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("op") == "info":
            print(json.dumps({"id": name, "dim": out_dim}), flush=True)
            continue
        out = []
        for text in req["texts"]:
            v = glove_vector(text, vectors, rank, dim, harmonic)
            if HASH:
                v = [x * math.sqrt(HASH) for x in v]
                v += [x * math.sqrt(1 - HASH) for x in hash_vector(text)]
            if not any(v):
                v[0] = 1e-6  # no known word: a vector near nothing
            out.append([round(x, 5) for x in v])
        print(json.dumps({"vectors": out}), flush=True)


if __name__ == "__main__":
    main(sys.argv)
