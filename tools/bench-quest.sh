#!/bin/sh
# bench-quest.sh - what a user would run instead: Xapian's `quest` over the
# same texts, side by side with memscope, both as whole processes.
#
#   tools/bench-quest.sh STORE OUT.json
#
# STORE is a store `memscope bench --keep` built. Its texts (`memscope
# export`) are indexed with Xapian (python3-xapian: TermGenerator, the
# English stemmer, as quest's query parser stems), then each of the bench's
# queries (`memscope bench --list-queries`) is answered by both, one process
# each, alternating: `memscope recall --json --trace --as-of 2025-01-01T00:00:00Z`
# and `quest -m 10` (BM25, top 10). OUT gets the wall-clock times (p50,
# p95 in ms) and their ratio, and each process's CPU time (user + system,
# from wait4) and that ratio, which a loaded machine distorts less: there a
# process waits for the CPU more often the more of it it needs. xapian-tools and python3-xapian are installed
# with apt-get when missing (this script only: never the product); when
# they cannot be, the comparison is skipped with a message and OUT says so.
#
# MEMSCOPE names the binary (default ./memscope); BENCH_QUEST_QUERIES the
# number of queries (default 50); BENCH_SEED the seed (1);
# BENCH_QUEST_INDEX a directory where the Xapian index is kept and, when
# it already holds one (its file `memories` says how many texts), reused
# instead of indexed again: indexing 1,000,000 texts takes many minutes,
# and comparing two builds against one index needs it only once. Needs
# python3.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 STORE OUT.json" >&2
    exit 2
fi
store=$1
out=$2
MEMSCOPE=${MEMSCOPE:-./memscope}
queries=${BENCH_QUEST_QUERIES:-50}
seed=${BENCH_SEED:-1}

# The Python that has the Debian bindings: python3 on the PATH may be
# another installation (pyenv) than the system's /usr/bin/python3.
have_xapian() {
    command -v quest >/dev/null 2>&1 || return 1
    for py in python3 /usr/bin/python3; do
        if "$py" -c 'import xapian' 2>/dev/null; then
            xpy=$py
            return 0
        fi
    done
    return 1
}
xpy=

if ! have_xapian && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "bench: installing xapian-tools and python3-xapian for the quest comparison" >&2
    log=$(dirname "$out")/apt.log
    apt-get install -y -q xapian-tools python3-xapian >"$log" 2>&1 ||
        { apt-get update -q >>"$log" 2>&1 &&
            apt-get install -y -q xapian-tools python3-xapian >>"$log" 2>&1; } || true
fi
if ! have_xapian; then
    echo "bench: quest comparison skipped: xapian-tools and python3-xapian are not" \
        "installed and could not be (apt-get install xapian-tools python3-xapian)" >&2
    printf '{"skipped": "xapian-tools could not be installed"}\n' >"$out"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/memscope-quest-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
index=${BENCH_QUEST_INDEX:-$work/xapian}
if [ ! -f "$index/memories" ]; then
    "$MEMSCOPE" export --db "$store" -o "$work/texts.jsonl"
fi
"$MEMSCOPE" bench --list-queries --queries "$queries" --seed "$seed" >"$work/queries"

"$xpy" - "$MEMSCOPE" "$store" "$work" "$out" "$index" <<'EOF'
import json, os, subprocess, sys, time
import xapian

memscope, store, work, out, xdb = sys.argv[1:6]
os.environ.setdefault("XAPIAN_FLUSH_THRESHOLD", "200000")  # fewer, larger flushes
mark = os.path.join(xdb, "memories")
t0 = time.perf_counter()
if os.path.exists(mark):  # kept by an earlier run (BENCH_QUEST_INDEX)
    n = int(open(mark).read())
else:
    db = xapian.WritableDatabase(xdb, xapian.DB_CREATE_OR_OVERWRITE)
    tg = xapian.TermGenerator()
    tg.set_stemmer(xapian.Stem("english"))
    n = 0
    with open(os.path.join(work, "texts.jsonl"), encoding="utf-8") as f:
        for line in f:
            m = json.loads(line)
            doc = xapian.Document()
            tg.set_document(doc)
            tg.index_text(m["content"])
            doc.set_data(m["id"])
            db.add_document(doc)
            n += 1
    db.commit()
    db.close()
    open(mark, "w").write("%d\n" % n)
index_s = time.perf_counter() - t0
xbytes = sum(os.path.getsize(os.path.join(xdb, f)) for f in os.listdir(xdb) if f != "memories")

qs = [l.rstrip("\n") for l in open(os.path.join(work, "queries"), encoding="utf-8") if l.strip()]
ms_cmd = [memscope, "recall", "--db", store, "--json", "--trace",
          "--as-of", "2025-01-01T00:00:00Z", "--"]
quest_cmd = ["quest", "-d", xdb, "-m", "10", "--"]

def wall(cmd):
    """Wall and CPU milliseconds of one run of cmd."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    ms = (time.perf_counter() - t) * 1e3
    if status != 0:
        sys.exit("bench: %s failed: %s" % (cmd[0], err.decode(errors="replace").strip()))
    return ms, (ru.ru_utime + ru.ru_stime) * 1e3

wall(ms_cmd + [qs[0]])  # the page cache warm for both, as a second call finds it
wall(quest_cmd + [qs[0]])
mine, theirs, mine_cpu, theirs_cpu = [], [], [], []
for q in qs:
    for cmd, w, c in ((ms_cmd, mine, mine_cpu), (quest_cmd, theirs, theirs_cpu)):
        ms, cpu = wall(cmd + [q])
        w.append(ms)
        c.append(cpu)

def pct(v, p):
    v = sorted(v)
    k = max(0, -(-len(v) * p // 100) - 1)
    return round(v[int(k)], 2)

r = {"memories": n, "queries": len(qs),
     "memscope_ms": {"p50": pct(mine, 50), "p95": pct(mine, 95)},
     "quest_ms": {"p50": pct(theirs, 50), "p95": pct(theirs, 95)},
     "ratio_p50": round(pct(mine, 50) / pct(theirs, 50), 2),
     "memscope_cpu_ms": {"p50": pct(mine_cpu, 50), "p95": pct(mine_cpu, 95)},
     "quest_cpu_ms": {"p50": pct(theirs_cpu, 50), "p95": pct(theirs_cpu, 95)},
     "cpu_ratio_p50": round(pct(mine_cpu, 50) / max(pct(theirs_cpu, 50), 0.01), 2),
     "load": [round(x, 1) for x in os.getloadavg()],
     "xapian_index_s": round(index_s, 2), "xapian_db_bytes": xbytes}
json.dump(r, open(out, "w"))
print("bench: quest at %d memories: memscope %.1f ms, quest %.1f ms (p50), x %.1f; CPU %.1f "
      "against %.1f ms, x %.1f"
      % (n, r["memscope_ms"]["p50"], r["quest_ms"]["p50"], r["ratio_p50"],
         r["memscope_cpu_ms"]["p50"], r["quest_cpu_ms"]["p50"], r["cpu_ratio_p50"]),
      file=sys.stderr)
EOF
