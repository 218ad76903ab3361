"""engine_words.py - word lists the engine compiles in, read from its
source so that the tools in this directory use the same ones.

    from engine_words import stop_words
    STOP = stop_words()   # engine/stopwords.c: NLTK's 153 without apostrophes
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def stop_words():
    src = open(os.path.join(ROOT, "engine", "stopwords.c"), encoding="utf-8").read()
    body = src.split("static const char *const words[]")[1].split("};")[0]
    return set(re.findall(r'"([a-z]+)"', body))
