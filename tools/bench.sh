#!/bin/sh
# bench.sh - `make bench`: run `memscope bench --json` at 1k, 10k and 100k
# memories and write the measured part of docs/PERFORMANCE.md: the machine,
# the table, how cost grows with size, and the targets of issue 6 met or
# not. The text outside the markers
#   <!-- bench:begin --> ... <!-- bench:end -->
# is kept as it is (what was optimised and why is written by hand).
#
#   tools/bench.sh [OUT]        default OUT: docs/PERFORMANCE.md
#
# MEMSCOPE names the binary (default ./memscope); BENCH_SIZES and
# BENCH_QUERIES override "1000 10000 100000" and 200; BENCH_SEED the seed (1);
# BENCH_1M=1 adds 1,000,000 (it takes many minutes). At 100,000 and
# 1,000,000 memories (BENCH_QUEST_SIZES) the store is kept for
# tools/bench-quest.sh, which compares whole processes with Xapian's quest
# over the same texts (installing xapian-tools when it can), then deleted
# with its snapshot file and seals. With BENCH_1M=1 more 1M runs,
# `--paired --queries 1` (BENCH_PAIRED_RUNS of them, default 3), measure
# each import's drop-off past 300k (through store_put and from JSONL)
# against a probe store that does not grow; their median judges it, since
# one run reads within about 5 % either way (docs/SCALING.md).
# The raw JSON of each run is kept in build/bench/. Needs python3.
set -eu

out=${1:-docs/PERFORMANCE.md}
MEMSCOPE=${MEMSCOPE:-./memscope}
sizes=${BENCH_SIZES:-1000 10000 100000}
if [ "${BENCH_1M:-0}" = 1 ]; then
    sizes="$sizes 1000000"
fi
quest_sizes=${BENCH_QUEST_SIZES:-100000 1000000}
queries=${BENCH_QUERIES:-200}
seed=${BENCH_SEED:-1}
raw=build/bench
mkdir -p "$raw" "$(dirname "$out")"

machine() {
    printf 'cpu=%s\n' "$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)"
    printf 'cores=%s\n' "$(nproc)"
    printf 'ram=%s\n' "$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    printf 'kernel=%s\n' "$(uname -sr)"
    printf 'compiler=%s\n' "$(${CC:-cc} --version 2>/dev/null | head -1)"
    printf 'sqlite=%s\n' "$(pkg-config --modversion sqlite3 2>/dev/null || sqlite3 --version | cut -d' ' -f1)"
    printf 'load=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
    printf 'date=%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
    printf 'version=%s\n' "$("$MEMSCOPE" --version)"
}

# a store and what memscope keeps beside it: its log, its seal, its
# snapshot files (one a profile) and their seals
rm_store() {
    rm -f "$1" "$1-wal" "$1-shm" "$1.seal" "$1".snap "$1".snap.seal "$1".*.snap "$1".*.snap.seal
}

machine >"$raw/machine.txt"
files=""
quest_files=""
for n in $sizes; do
    echo "bench: $n memories, $queries queries" >&2
    keep=""
    case " $quest_sizes " in *" $n "*) keep="$raw/store-$n.db" ;; esac
    rm_store "$raw/store-$n.db"
    "$MEMSCOPE" bench --json --memories "$n" --queries "$queries" --seed "$seed" \
        ${keep:+--keep "$keep"} >"$raw/bench-$n.json"
    files="$files $raw/bench-$n.json"
    if [ -n "$keep" ]; then
        MEMSCOPE="$MEMSCOPE" BENCH_SEED="$seed" tools/bench-quest.sh "$keep" "$raw/quest-$n.json"
        quest_files="$quest_files $raw/quest-$n.json"
        rm_store "$keep"
    fi
done
paired=""
if [ "${BENCH_1M:-0}" = 1 ]; then
    i=1
    while [ "$i" -le "${BENCH_PAIRED_RUNS:-3}" ]; do
        echo "bench: 1000000 memories, the import paired with a probe store (run $i)" >&2
        "$MEMSCOPE" bench --json --memories 1000000 --queries 1 --seed "$seed" --paired \
            >"$raw/bench-1000000-paired-$i.json"
        paired="$paired $raw/bench-1000000-paired-$i.json"
        i=$((i + 1))
    done
fi
printf 'load_after=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$raw/machine.txt"

QUEST_FILES="$quest_files" PAIRED_FILES="$paired" python3 - "$out" "$raw/machine.txt" "$queries" "$seed" $files <<'EOF'
import json, os, statistics, sys

out, machine_file, queries, seed = sys.argv[1:5]
runs = [json.load(open(f)) for f in sys.argv[5:]]
quests = [json.load(open(f)) for f in os.environ.get("QUEST_FILES", "").split()]
mach = dict(l.rstrip("\n").split("=", 1) for l in open(machine_file) if "=" in l)
by_n = {r["memories"]: r for r in runs}
paired = [json.load(open(f)) for f in os.environ.get("PAIRED_FILES", "").split()]

def fmt(v, unit=""):
    if v is None:
        return "-"
    if isinstance(v, float) and v >= 100:
        return f"{v:,.0f}{unit}"
    if isinstance(v, float):
        return f"{v:.2f}{unit}"
    return f"{v:,}{unit}"

L = []
L.append("<!-- bench:begin -->")
L.append("<!-- Written by tools/bench.sh (`make bench`); edit outside the markers. -->")
L.append("")
L.append("## Measured")
L.append("")
L.append(f"Command: `make bench`, which runs `memscope bench --json --memories N "
         f"--queries {queries} --seed {seed}` for N = "
         + ", ".join(f"{r['memories']:,}" for r in runs)
         + f" (raw JSON in `build/bench/`). {mach.get('version', '')}, {mach.get('date', '')}.")
L.append("")
L.append("| machine | |")
L.append("|---|---|")
for k, name in (("cpu", "CPU"), ("cores", "cores"), ("ram", "RAM"), ("kernel", "kernel"),
                ("compiler", "compiler"), ("sqlite", "SQLite")):
    L.append(f"| {name} | {mach.get(k, '?')} |")
L.append(f"| load average | {mach.get('load', '?')} before, {mach.get('load_after', '?')} after |")
L.append("")
cols = [f"{r['memories']:,}" for r in runs]
L.append("| | " + " | ".join(cols) + " |")
L.append("|---|" + "---:|" * len(runs))
def row(name, get):
    L.append(f"| {name} | " + " | ".join(get(r) for r in runs) + " |")
row("import through store_put, memories/s", lambda r: fmt(r["import_per_s"]))
row("import from JSONL (`memscope import`), memories/s",
    lambda r: fmt(r.get("import_jsonl_per_s")))
row("import through store_put, first 30 % / last 70 %, memories/s",
    lambda r: f"{fmt(r.get('import_first_30_per_s') or None)} / {fmt(r.get('import_last_70_per_s') or None)}")
row("import from JSONL, first 30 % / last 70 %, memories/s",
    lambda r: f"{fmt(r.get('import_jsonl_first_30_per_s') or None)} / "
              f"{fmt(r.get('import_jsonl_last_70_per_s') or None)}")
row("import through store_put, tenths 4-6 / 8-10, memories/s",
    lambda r: f"{fmt(r.get('import_tenths_4_6_per_s') or None)} / "
              f"{fmt(r.get('import_tenths_8_10_per_s') or None)}")
row("import from JSONL, tenths 4-6 / 8-10, memories/s",
    lambda r: f"{fmt(r.get('import_jsonl_tenths_4_6_per_s') or None)} / "
              f"{fmt(r.get('import_jsonl_tenths_8_10_per_s') or None)}")
row("store size, MB", lambda r: f"{r['db_bytes'] / 1e6:.1f}")
row("peak RSS, MB (mapped store and snapshot pages included)", lambda r: f"{r['rss_mb']:.1f}")
row("peak RSS of the imports, before any recall, MB",
    lambda r: fmt(r.get("import_rss_mb") if r.get("import_rss_mb") is None else float(r["import_rss_mb"])))
row("own memory at the end (RssAnon), MB",
    lambda r: fmt(r.get("rss_anon_mb") if r.get("rss_anon_mb") is None else float(r["rss_anon_mb"])))
row("cold open to first results, ms", lambda r: f"{r['open_ms']:.1f}")
row("the next cold open (snapshot file mapped), ms", lambda r: f"{r['reopen_ms']:.1f}" if "reopen_ms" in r else "-")
for p in ("p50", "p95", "p99"):
    row(f"recall, all channels with trace, {p} ms", lambda r, p=p: f"{r['recall_ms'][p]:.2f}")
for p in ("p50", "p95"):
    row(f"recall, bm25 only, {p} ms", lambda r, p=p: f"{r['bm25_only_ms'][p]:.2f}")
row("full p50 / bm25-only p50", lambda r: f"{r['recall_ms']['p50'] / r['bm25_only_ms']['p50']:.2f}")
for ch in ("semantic", "bm25", "temporal", "hopfield", "spreading"):
    row(f"channel {ch}, p50 / p95 ms",
        lambda r, ch=ch: f"{r['channels_ms'][ch]['p50']:.2f} / {r['channels_ms'][ch]['p95']:.2f}")
bkey = "browser_ms" if "browser_ms" in runs[0] else "browser_ms_proxy"
for p in ("p50", "p95", "p99"):
    row(f"browser key press to finished screen ({runs[0].get('browser_screen', '')}), {p} ms",
        lambda r, p=p: f"{r[bkey][p]:.2f}")
L.append("")

if len(runs) > 1:
    L.append("### How cost grows with size")
    L.append("")
    L.append("Each column: the value at the larger size divided by the value at the smaller "
             "(10 x more memories).")
    L.append("")
    pairs = list(zip(runs, runs[1:]))
    L.append("| | " + " | ".join(f"{a['memories']:,} -> {b['memories']:,}" for a, b in pairs)
             + " |")
    L.append("|---|" + "---:|" * len(pairs))
    def grow(name, get):
        L.append(f"| {name} | " + " | ".join(f"x {get(b) / get(a):.2f}" for a, b in pairs) + " |")
    grow("recall p50", lambda r: r["recall_ms"]["p50"])
    grow("recall p95", lambda r: r["recall_ms"]["p95"])
    grow("bm25-only p50", lambda r: r["bm25_only_ms"]["p50"])
    grow("semantic p50", lambda r: r["channels_ms"]["semantic"]["p50"])
    grow("cold open", lambda r: r["open_ms"])
    grow("store size", lambda r: r["db_bytes"])
    grow("peak RSS", lambda r: r["rss_mb"])
    grow("import time per memory", lambda r: 1 / r["import_per_s"])
    L.append("")

if quests:
    L.append("### Against Xapian's quest, whole processes")
    L.append("")
    L.append("tools/bench-quest.sh: the same texts indexed with Xapian (python3-xapian, English "
             "stemmer), the same queries, one process per query, alternating: "
             "`memscope recall --json --trace` against `quest -m 10` (BM25, top 10). Wall "
             "clock, including the process start, and each process's CPU (user + system, "
             "from wait4), which a loaded machine distorts less.")
    L.append("")
    L.append("| memories | queries | memscope p50 / p95 ms | quest p50 / p95 ms | memscope / quest (p50) "
             "| CPU p50 ms, memscope / quest | CPU ratio |")
    L.append("|---:|---:|---:|---:|---:|---:|---:|")
    for q in quests:
        if "skipped" in q:
            L.append(f"| - | - | - | - | skipped: {q['skipped']} | - | - |")
            continue
        cpu = (f"{q['memscope_cpu_ms']['p50']:.1f} / {q['quest_cpu_ms']['p50']:.1f} | "
               f"x {q['cpu_ratio_p50']:.1f}" if "cpu_ratio_p50" in q else "- | -")
        L.append(f"| {q['memories']:,} | {q['queries']} | {q['memscope_ms']['p50']:.1f} / "
                 f"{q['memscope_ms']['p95']:.1f} | {q['quest_ms']['p50']:.1f} / "
                 f"{q['quest_ms']['p95']:.1f} | x {q['ratio_p50']:.1f} | {cpu} |")
    L.append("")

L.append("### Targets (issue 6)")
L.append("")
L.append("| target | measured | |")
L.append("|---|---:|---|")
def target(text, n, get, ok):
    r = by_n.get(n)
    if r is None:
        L.append(f"| {text} | not run | - |")
        return
    v = get(r)
    verdict = "-" if ok is None else "met" if ok(r) else "**not met**"
    L.append(f"| {text} | {v} | {verdict} |")
target("full recall with trace at 10k: p95 <= 10 ms", 10000,
       lambda r: f"{r['recall_ms']['p95']:.2f} ms", lambda r: r["recall_ms"]["p95"] <= 10)
target("full recall with trace at 100k: p95 <= 50 ms", 100000,
       lambda r: f"{r['recall_ms']['p95']:.2f} ms", lambda r: r["recall_ms"]["p95"] <= 50)
for r in runs:
    n = r["memories"]
    target(f"full recall p50 <= 5 x bm25-only p50 ({n:,})", n,
           lambda r: f"{r['recall_ms']['p50']:.2f} / {r['bm25_only_ms']['p50']:.2f} = "
                     f"x {r['recall_ms']['p50'] / r['bm25_only_ms']['p50']:.2f}",
           lambda r: r["recall_ms"]["p50"] <= 5 * r["bm25_only_ms"]["p50"])
target("import at 100k, embedding and enrichment included: >= 20,000 memories/s", 100000,
       lambda r: f"{r['import_per_s']:,.0f} /s", lambda r: r["import_per_s"] >= 20000)
target("peak RSS at 100k <= 300 MB", 100000, lambda r: f"{r['rss_mb']:.1f} MB",
       lambda r: r["rss_mb"] <= 300)
target("cold open to first results at 100k <= 300 ms", 100000,
       lambda r: f"{r['open_ms']:.1f} ms", lambda r: r["open_ms"] <= 300)
target("browser key press to finished screen at 10k <= 16 ms (p95)", 10000,
       lambda r: f"{r[bkey]['p95']:.2f} ms", lambda r: r[bkey]["p95"] <= 16)
L.append("")
L.append("### Targets (issue 17, the store's part)")
L.append("")
L.append("| target | measured | |")
L.append("|---|---:|---|")
target("import at 1M through store_put: >= 25,000 memories/s", 1000000,
       lambda r: f"{r['import_per_s']:,.0f} /s", lambda r: r["import_per_s"] >= 25000)
target("import at 1M from JSONL: >= 25,000 memories/s", 1000000,
       lambda r: f"{r['import_jsonl_per_s']:,.0f} /s", lambda r: r["import_jsonl_per_s"] >= 25000)
# "No drop-off past 300k" as the issue measured the drop (35 % between 300k
# and 1M): the pace of the last 300k against that of the 300k after the
# first 300k, each over a probe store's pace at the same moments (the
# --paired run), since this machine's own speed moves by more than 5 %
# within one import. One paired run still reads within about 5 % either
# way, so the median of the runs judges.
def paired_row(text, key, ok):
    if not paired:
        L.append(f"| {text} | not run | - |")
        return
    v = sorted(r[key] for r in paired)
    med = statistics.median(v)
    each = ", ".join(f"{x:.3f}" for x in v)
    verdict = "-" if ok is None else "met" if ok(med) else "**not met**"
    L.append(f"| {text} | x {med:.3f} (median of {len(v)}: x {each}) | {verdict} |")
for path, key in (("store_put", "import"), ("JSONL", "import_jsonl")):
    paired_row("no drop-off past 300k: 700k-1M >= 95 % of 300k-600k, each over the probe's "
               f"pace ({path}, `--paired`)", key + "_paired_past_300k", lambda v: v >= 0.95)
# Not a target: the first tenth reads high (x 1.07-1.16), most likely as
# the measured store still holds pages it has not written when that tenth
# ends (its write cache is 64 MB) and writes them in later tenths, while
# the probe writes all of its own as it ends each tenth's transaction.
paired_row("for reading only: the last 70 % against the first 30 %, each over the probe's "
           "pace (store_put, `--paired`; its first tenth reads high)",
           "import_paired_last_70_first_30", None)
# Without a probe, the ratio moves with the machine's own speed (15 runs
# of the JSONL import one night: x 0.75-1.19), so it is for reading only:
# the paired rows above judge.
for path, key in (("store_put", "import"), ("JSONL", "import_jsonl")):
    target(f"for reading only: 700k-1M against 300k-600k without a probe ({path})", 1000000,
           lambda r, k=key: f"x {r[k + '_tenths_8_10_per_s'] / r[k + '_tenths_4_6_per_s']:.2f}",
           None)
    target(f"sustained: the slowest tenth >= 25,000 memories/s ({path})", 1000000,
           lambda r, k=key: f"{min(r[k + '_by_tenth_per_s']):,.0f} /s",
           lambda r, k=key: min(r[k + "_by_tenth_per_s"]) >= 25000)
# the import's: the queries after it map the store and the snapshot file,
# whose pages count in the process's RSS (docs/PERFORMANCE.md item 70)
target("peak RSS of an import at 1M <= 400 MB", 1000000,
       lambda r: f"{r.get('import_rss_mb', r['rss_mb']):.1f} MB",
       lambda r: r.get("import_rss_mb", r["rss_mb"]) <= 400)
target("store at 1M <= 1.5 GB", 1000000, lambda r: f"{r['db_bytes'] / 1e9:.2f} GB",
       lambda r: r["db_bytes"] <= 1.5e9)
by_q = {q["memories"]: q for q in quests if "skipped" not in q}
for n, limit in ((100000, 4.0),):
    q = by_q.get(n)
    L.append(f"| `recall --json --trace` within {limit:g} x quest at {n:,} | "
             + (f"x {q['ratio_p50']:.1f} | {'met' if q['ratio_p50'] <= limit else '**not met**'} |"
                if q else "not run | - |"))
L.append("")
L.append("<!-- bench:end -->")
block = "\n".join(L) + "\n"

head = "# Performance\n\n"
tail = ""
if os.path.exists(out):
    text = open(out).read()
    b, e = text.find("<!-- bench:begin -->"), text.find("<!-- bench:end -->")
    if b >= 0 and e > b:
        head = text[:b]
        tail = text[e + len("<!-- bench:end -->\n"):]
    else:
        head = text.rstrip("\n") + "\n\n"
open(out, "w").write(head + block + tail)
print(f"bench: wrote {out}", file=sys.stderr)
EOF
