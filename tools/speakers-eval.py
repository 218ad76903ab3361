#!/usr/bin/env python3
"""tools/speakers-eval.py - where the evidence of each speaker ranks.

LoCoMo questions name a person, and the answer is often the other person's
reply. This script asks every question of the LoCoMo development split
(through `memscope shell`, one process per conversation) and reports, for
the questions that name exactly one of the conversation's two speakers:

  - named:  the share of evidence turns spoken by the named speaker that are
            in the top 10;
  - other:  the same for evidence turns spoken by the speaker the question
            does not name;

plus Recall@5/@10 and MRR by category (categories 1-4, as `memscope eval`
scores them, so the two can be compared), category 5's evidence recall (no
abstention is expected there; the evidence is what is asked for), and all
five categories together.

LoCoMo is CC BY-NC evaluation data, read from ../shared/data/locomo (or
$LOCOMO_DIR) and never copied into the repository; without it the script
says so and exits 0. Stores are those `tools/eval-locomo.sh` builds under
build/eval/ (imported here when missing).

  tools/speakers-eval.py [--samples 0,1,2] [--json] [-- SHELL OPTIONS]

SHELL OPTIONS (e.g. --weights spreading=4, --disable semantic) are passed to
`memscope shell`, so they apply to every question.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMSCOPE = os.environ.get("MEMSCOPE", os.path.join(ROOT, "memscope"))
DATA = os.environ.get("LOCOMO_DIR", os.path.join(ROOT, "..", "shared", "data", "locomo"))
OUT = os.path.join(ROOT, "build", "eval")
ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s")


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def store_for(k):
    """The store of sample k, imported when missing or older than the binary."""
    db = os.path.join(OUT, "sample%d.db" % k)
    mem = os.path.join(DATA, "sample%d.memories.jsonl" % k)
    if not os.path.exists(db) or os.path.getmtime(MEMSCOPE) > os.path.getmtime(db):
        os.makedirs(OUT, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        subprocess.run([MEMSCOPE, "import", "--db", db, mem], check=True, stdout=subprocess.DEVNULL)
    return db


def ask_all(db, questions, extra):
    """Top-10 ids of each question, in order, via one `memscope shell`."""
    script = "".join("recall %s\n" % " ".join(q.split()) for q in questions)
    p = subprocess.run(
        [MEMSCOPE, "shell", "--db", db, "--limit", "10"] + extra,
        input=script, capture_output=True, text=True,
    )
    if p.returncode != 0:
        sys.exit("speakers-eval: memscope shell failed on %s: %s" % (db, p.stderr.strip()))
    out = p.stdout
    answers, cur = [], None
    for line in out.splitlines():
        if line.startswith("query: "):  # a result's header (long ones wrap)
            cur = []
            answers.append(cur)
        elif cur is not None and line.startswith("ABSTAINED"):
            cur = None
        elif cur is not None:
            m = ROW.match(line)
            if m and int(m.group(1)) == len(cur) + 1:
                cur.append(m.group(2))
    if len(answers) != len(questions):
        sys.exit("speakers-eval: %d answers for %d questions (%s)" % (len(answers), len(questions), db))
    return answers


def names_in(question, speakers):
    """The speakers a question names: the name, or a prefix of 3+ letters of it."""
    words = set(w.lower() for w in re.findall(r"[A-Za-z]+", question))
    named = set()
    for s in speakers:
        first = s.split()[0].lower()
        if any(len(w) >= 3 and first.startswith(w) for w in words):
            named.add(s)
    return named


class Tally:
    def __init__(self):
        self.n = 0
        self.r5 = self.r10 = self.mrr = 0.0

    def add(self, ev, top):
        self.n += 1
        self.r5 += sum(1 for e in ev if e in top[:5]) / len(ev)
        self.r10 += sum(1 for e in ev if e in top[:10]) / len(ev)
        self.mrr += next((1.0 / (r + 1) for r, m in enumerate(top) if m in ev), 0.0)

    def row(self):
        n = max(self.n, 1)
        return {"queries": self.n, "r5": self.r5 / n, "r10": self.r10 / n, "mrr": self.mrr / n}


def main(argv):
    samples, as_json, extra = [0, 1, 2, 3, 4], False, []
    if "--" in argv:
        extra = argv[argv.index("--") + 1 :]
        argv = argv[: argv.index("--")]
    i = 0
    while i < len(argv):
        if argv[i] == "--samples" and i + 1 < len(argv):
            samples = [int(s) for s in argv[i + 1].split(",")]
            i += 2
        elif argv[i] == "--json":
            as_json, i = True, i + 1
        else:
            sys.exit("usage: tools/speakers-eval.py [--samples 0,1,2] [--json] [-- SHELL OPTIONS]")
    if not os.path.exists(os.path.join(DATA, "sample0.memories.jsonl")):
        print("speakers-eval: LoCoMo data not found in %s; skipping (set LOCOMO_DIR)" % DATA)
        return 0
    cats = {c: Tally() for c in (1, 2, 3, 4, 5)}
    overall, all5 = Tally(), Tally()
    turns = {"named": [0, 0], "other": [0, 0]}  # [in top 10, total]
    for k in samples:
        mems = load_jsonl(os.path.join(DATA, "sample%d.memories.jsonl" % k))
        speaker = {m["id"]: m.get("speaker") for m in mems}
        speakers = sorted(set(s for s in speaker.values() if s))
        qs = [q for q in load_jsonl(os.path.join(DATA, "sample%d.queries.jsonl" % k)) if q.get("evidence")]
        tops = ask_all(store_for(k), [q["question"] for q in qs], extra)
        for q, top in zip(qs, tops):
            ev = q["evidence"]
            cats[q["category"]].add(ev, top)
            all5.add(ev, top)
            if q["category"] == 5:
                continue
            overall.add(ev, top)
            named = names_in(q["question"], speakers)
            if len(named) != 1:
                continue
            for e in ev:
                side = "named" if speaker.get(e) in named else "other"
                turns[side][0] += e in top[:10]
                turns[side][1] += 1
    res = {
        "samples": samples,
        "options": extra,
        "by_category": {str(c): t.row() for c, t in cats.items()},
        "overall": overall.row(),
        "all_categories": all5.row(),
        "evidence_in_top10": {s: {"found": v[0], "turns": v[1], "share": v[0] / max(v[1], 1)} for s, v in turns.items()},
    }
    if as_json:
        print(json.dumps(res))
        return 0
    print("samples %s%s" % (",".join(map(str, samples)), " options " + " ".join(extra) if extra else ""))
    print("category        queries   R@5     R@10     MRR")
    label = {1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop", 5: "5 adversarial"}
    for c in (1, 2, 3, 4):
        r = res["by_category"][str(c)]
        print("%-15s %7d   %.3f   %.3f   %.3f" % (label[c], r["queries"], r["r5"], r["r10"], r["mrr"]))
    r = res["overall"]
    print("%-15s %7d   %.3f   %.3f   %.3f" % ("overall 1-4", r["queries"], r["r5"], r["r10"], r["mrr"]))
    r = res["by_category"]["5"]
    print("%-15s %7d   %.3f   %.3f   %.3f" % (label[5], r["queries"], r["r5"], r["r10"], r["mrr"]))
    r = res["all_categories"]
    print("%-15s %7d   %.3f   %.3f   %.3f" % ("all 1-5", r["queries"], r["r5"], r["r10"], r["mrr"]))
    print("evidence turns in the top 10, questions naming one speaker:")
    for s in ("named", "other"):
        v = res["evidence_in_top10"][s]
        print("  spoken by the %s speaker: %d of %d (%.1f %%)" % (s, v["found"], v["turns"], 100 * v["share"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
