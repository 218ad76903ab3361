#!/usr/bin/env python3
"""tools/context-ablation.py - what if bm25's neighbour column held other turns?

Each turn of a conversation is indexed with the text of the turns before
and after it in its session (the `context` column, bm25 weight 0.5;
store/context.c). This script measures other choices of that text without
changing the store's code: it copies tools/eval-locomo.sh's stores
(build/eval/sampleK.db, imported when missing) into build/eval/ctx/RULE/,
rewrites every turn's context by RULE, rebuilds the FTS index from the
table ('rebuild'), and runs `memscope eval` on samples 0-2 (tuning) and
3-4 (check) with each sample's on-topic unanswerable questions and
tests/data/offtopic.jsonl, as make eval does. It prints one row per half:
R@5, R@10, MRR, R@10 by category (5 = category 5's evidence R@10), false
abstentions, on-topic unanswerable and off-topic abstentions, and the size
of the context text against the store's own (bytes over the five stores).

Rules (N: a turn is short when it has at most N content words, words of
three letters or more that are not stop words; default 6):

  base         the store's own: the turn before and the turn after
  empty        no context
  anaph2:N     a turn that is short or is led by a pronoun or demonstrative
               (it, that, those, they, them, this, one ...; after
               interjections and names) also gets the turn two back
  anaph3:N     the same with the turns two and three back
  lead2        only a turn led by such a word gets the turn two back
  short2:N     a short turn gets the turns two back and two ahead
  nounprev:N   a turn as in anaph2 whose previous turn is short also gets
               the nearest earlier turn that is not
  cont:N       a turn whose next turn is short and whose turn after that is
               the same speaker's (the speaker's continuation) gets it
  conttime:N   the same, only for a turn that says a relative time
               (yesterday, last week, ... ago, recently)
  teaser:N     a short turn gets its speaker's next turn (two ahead)
  prevonly, nextonly, prevx2, nextx2
               one side only, or one side written twice (its words count
               double, and so does its length)
  qprev        the turn before written twice when it is a question
  cw+RULE      RULE's text reduced to its words that are not stop words
  cwd+RULE     the same, each word once
  cwo+RULE     the same, and no word the turn says itself

LoCoMo is CC BY-NC evaluation data, read from ../shared/data/locomo (or
$LOCOMO_DIR) and never copied into the repository; without it the script
says so and exits 0.

With --reach SAMPLES it measures instead how far a wider window could
reach: every scored question of those samples through `memscope recall
--json --no-floor --limit 100`, and for each evidence turn in the top 10
and outside it, the idf-weighted share of the question's terms (the
speakers' names left out; a term matches a word it starts) held by the
turn itself, by the turns next to it, and by the turns two and three
back and two ahead.

  tools/context-ablation.py RULE...    e.g. tools/context-ablation.py base anaph2:3 cwd+base
  tools/context-ablation.py --reach 0,1,2
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys

from engine_words import stop_words

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMSCOPE = os.environ.get("MEMSCOPE", os.path.join(ROOT, "memscope"))
DATA = os.environ.get("LOCOMO_DIR", os.path.join(ROOT, "..", "shared", "data", "locomo"))
OUT = os.path.join(ROOT, "build", "eval")
HALVES = (("0-2", (0, 1, 2)), ("3-4", (3, 4)))

STOP = stop_words()  # engine/stopwords.c
INTERJ = set(
    "yeah yes yep yup wow oh ah aw aww hey hi hello thanks thank well sure totally haha ha hmm ok okay "
    "cool nice great awesome so and but no nope right definitely absolutely lol omg whoa woah".split()
)
ANAPH = set("it its it's that that's those these they them this one ones she he her his there".split())
TIME = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|last (week|weekend|month|year|night|friday|saturday|sunday|"
    r"monday|tuesday|wednesday|thursday)|(this|next) (week|weekend|month|year)|ago|recently|lately)\b"
)


def content_words(body):
    return [w for w in re.findall(r"[a-z0-9]+", body.lower()) if w not in STOP and len(w) > 2]


def lead(body, names):
    """The first word of body that is not an interjection, a name or 'you'."""
    for w in re.findall(r"[a-z']+", body.lower()):
        if w not in INTERJ and w not in names and w not in ("you", "you're", "you've"):
            return w
    return ""


def anaphoric(turn, names, n):
    return len(content_words(turn["body"])) <= n or lead(turn["body"], names) in ANAPH


def context(rule, turns, i, names):
    """The context text of turns[i] under rule."""
    pre, plus, rest = rule.partition("+")
    if plus:
        ws = [w for w in re.findall(r"[a-z0-9]+", context(rest, turns, i, names).lower()) if w not in STOP]
        if pre in ("cwd", "cwo"):
            own = set(re.findall(r"[a-z0-9]+", turns[i]["body"].lower())) if pre == "cwo" else set()
            seen, out = set(), []
            for w in ws:
                if w not in seen and w not in own:
                    seen.add(w)
                    out.append(w)
            ws = out
        elif pre != "cw":
            sys.exit("context-ablation: unknown rule %s" % rule)
        return " ".join(ws)
    name, _, arg = rule.partition(":")
    n = int(arg) if arg else 6
    body = lambda j: turns[j]["body"] if 0 <= j < len(turns) else None
    short = lambda j: 0 <= j < len(turns) and len(content_words(turns[j]["body"])) <= n
    same_next = i + 2 < len(turns) and turns[i + 2]["speaker"] == turns[i]["speaker"]
    parts = [body(i - 1), body(i + 1)]
    if name == "base":
        pass
    elif name == "empty":
        parts = []
    elif name == "anaph2":
        if anaphoric(turns[i], names, n):
            parts = [body(i - 2)] + parts
    elif name == "anaph3":
        if anaphoric(turns[i], names, n):
            parts = [body(i - 3), body(i - 2)] + parts
    elif name == "lead2":
        if lead(turns[i]["body"], names) in ANAPH:
            parts = [body(i - 2)] + parts
    elif name == "short2":
        if short(i):
            parts = [body(i - 2)] + parts + [body(i + 2)]
    elif name == "nounprev":
        if anaphoric(turns[i], names, n) and short(i - 1):
            j = i - 2
            while j >= 0 and short(j):
                j -= 1
            if j >= 0:
                parts = [body(j)] + parts
    elif name == "cont":
        if same_next and short(i + 1):
            parts += [body(i + 2)]
    elif name == "conttime":
        if TIME.search(turns[i]["body"].lower()) and same_next and short(i + 1):
            parts += [body(i + 2)]
    elif name == "teaser":
        if short(i) and same_next:
            parts += [body(i + 2)]
    elif name == "prevonly":
        parts = [body(i - 1)]
    elif name == "nextonly":
        parts = [body(i + 1)]
    elif name == "prevx2":
        parts = [body(i - 1), body(i - 1), body(i + 1)]
    elif name == "nextx2":
        parts = [body(i - 1), body(i + 1), body(i + 1)]
    elif name == "qprev":
        if i > 0 and turns[i - 1]["body"].rstrip().endswith("?"):
            parts = [body(i - 1)] + parts
    else:
        sys.exit("context-ablation: unknown rule %s" % rule)
    return " ".join(p for p in parts if p)


def store(k):
    db = os.path.join(OUT, "sample%d.db" % k)
    if not os.path.exists(db) or os.path.getmtime(MEMSCOPE) > os.path.getmtime(db):
        os.makedirs(OUT, exist_ok=True)
        for suffix in ("", "-wal", "-shm", ".seal"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        mem = os.path.join(DATA, "sample%d.memories.jsonl" % k)
        subprocess.run([MEMSCOPE, "import", "--db", db, mem], check=True, stdout=subprocess.DEVNULL)
    return db


def rewrite(src, dst, rule):
    """Copy store src to dst with every turn's context by rule; the bytes of
    context before and after."""
    for suffix in ("", "-wal", "-shm", ".seal", ".snap"):
        if os.path.exists(dst + suffix):
            os.remove(dst + suffix)
    c = sqlite3.connect(src)
    c.execute("pragma wal_checkpoint(TRUNCATE)")
    c.close()
    shutil.copy(src, dst)
    c = sqlite3.connect(dst)
    rows = c.execute("select rid, session, speaker, content, length(context) from memories order by rid").fetchall()
    names = set(w for r in rows if r[2] for w in r[2].lower().split())
    sessions = {}
    for rid, session, speaker, text, _ in rows:
        if session is None:
            continue
        body = text[len(speaker) + 1 :].lstrip(" ") if speaker and text.startswith(speaker + ":") else text
        sessions.setdefault(session, []).append({"rid": rid, "speaker": speaker, "body": body})
    new = [(context(rule, turns, i, names), t["rid"]) for turns in sessions.values() for i, t in enumerate(turns)]
    c.executemany("update memories set context = ? where rid = ?", new)
    c.execute("insert into memories_fts(memories_fts) values('rebuild')")
    c.commit()
    c.close()
    return sum(r[4] or 0 for r in rows), sum(len(t.encode()) for t, _ in new)


def unanswerable(k):
    for f in (os.path.join(ROOT, "tests", "data", "unanswerable", "sample%d.txt" % k),
              os.path.join(DATA, "sample%d.unanswerable.txt" % k)):
        if os.path.exists(f):
            return ["--unanswerable", f]
    return []


def evaluate(folder, ks):
    cmd = [MEMSCOPE, "eval"]
    for k in ks:
        cmd += ["--db", os.path.join(folder, "sample%d.db" % k),
                "--queries", os.path.join(DATA, "sample%d.queries.jsonl" % k)] + unanswerable(k)
    cmd += ["--offtopic", os.path.join(ROOT, "tests", "data", "offtopic.jsonl")]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    r = {}
    for line in out.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "overall":
            r["all"], r["false"] = f[2:5], f[5]
        elif f[0] in ("1", "2", "3", "4"):
            r[f[0]] = f[4]
        elif f[0] == "5":
            r["5"] = f[4]
        elif f[0] in ("off-topic", "unanswerable"):
            r[f[0]] = f[3]
    return r


def reach(samples):
    import json
    import math

    rows = {"top 10": [], "outside": []}
    for k in samples:
        mems = [json.loads(l) for l in open(os.path.join(DATA, "sample%d.memories.jsonl" % k), encoding="utf-8")]
        at = {m["id"]: i for i, m in enumerate(mems)}
        words = [set(re.findall(r"[a-z0-9]+", m["content"].split(":", 1)[-1].lower())) for m in mems]
        names = set(str(m.get("speaker", "")).lower() for m in mems) - {""}
        db = store(k)
        for line in open(os.path.join(DATA, "sample%d.queries.jsonl" % k), encoding="utf-8"):
            q = json.loads(line)
            if not (1 <= q.get("category", 0) <= 4 and q.get("evidence")):
                continue
            cmd = [MEMSCOPE, "recall", "--db", db, "--json", "--no-floor", "--limit", "100", "--", q["question"]]
            r = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
            ids = [h["id"] for h in r["results"]]
            terms = [t for t in r["analysis"]["terms"] if not any(n.startswith(t) or t.startswith(n) for n in names)]
            has = lambda t, ws: any(w.startswith(t) for w in ws)
            idf = {t: math.log((len(mems) + 1) / (sum(has(t, ws) for ws in words) + 0.5)) for t in terms}
            total = sum(idf.values())
            if total <= 0:
                continue
            for e in q["evidence"]:
                if e not in at:
                    continue
                i = at[e]

                def share(js):
                    ws = set()
                    for j in js:
                        if 0 <= j < len(mems) and mems[j].get("session") == mems[i].get("session"):
                            ws |= words[j]
                    return sum(idf[t] for t in terms if has(t, ws)) / total

                got = ids.index(e) + 1 if e in ids else 999
                rows["top 10" if got <= 10 else "outside"].append(
                    (share([i]), share([i - 1, i + 1]), share([i - 2]), share([i - 3]), share([i + 2])))
    print("| evidence turns | n | own < 0.1 | own and ±1 < 0.1 | ... and 2 back ≥ 0.2 | ... 2 or 3 back ≥ 0.2"
          " | ... 2 ahead ≥ 0.2 | mean own / ±1 / 2 back / 3 back / 2 ahead |")
    print("|---|---|---|---|---|---|---|---|")
    for name, v in rows.items():
        n = max(len(v), 1)
        low = [x for x in v if x[0] < 0.1 and x[1] < 0.1]
        print("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %s |" % (
            name, len(v), sum(x[0] < 0.1 for x in v) / n, len(low) / n,
            sum(x[2] >= 0.2 for x in low) / n, sum(max(x[2], x[3]) >= 0.2 for x in low) / n,
            sum(x[4] >= 0.2 for x in low) / n, " / ".join("%.2f" % (sum(x[j] for x in v) / n) for j in range(5))))
    return 0


def main(rules):
    if not os.path.exists(os.path.join(DATA, "sample0.memories.jsonl")):
        print("context-ablation: LoCoMo data not found in %s; skipping (set LOCOMO_DIR)" % DATA)
        return 0
    if rules[:1] == ["--reach"] and len(rules) == 2:
        return reach([int(k) for k in rules[1].split(",")])
    if not rules:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    src = [store(k) for k in range(5)]
    print("| rule | split | R@5 | R@10 | MRR | 1 multi-hop | 2 temporal | 3 open-domain | 4 single-hop"
          " | 5 adversarial | false | on-topic | off-topic | context bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for rule in rules:
        folder = os.path.join(OUT, "ctx", re.sub(r"[^A-Za-z0-9_.-]", "_", rule))
        os.makedirs(folder, exist_ok=True)
        before = after = 0
        for k in range(5):
            b, a = rewrite(src[k], os.path.join(folder, "sample%d.db" % k), rule)
            before, after = before + b, after + a
        for half, ks in HALVES:
            r = evaluate(folder, ks)
            print("| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %+.1f %% |" % (
                rule, half, r["all"][0], r["all"][1], r["all"][2], r["1"], r["2"], r["3"], r["4"], r["5"],
                r["false"], r["unanswerable"], r["off-topic"], 100.0 * (after - before) / max(before, 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
