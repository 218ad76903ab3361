#!/usr/bin/env python3
"""bench-process.py - whole `memscope recall` processes, builds compared.

    tools/bench-process.py [--rounds R] [--queries Q] [--as-cached | --dropped] BIN=STORE ...

Each BIN answers the first Q bench queries (`BIN bench --list-queries`) with
one `BIN recall --db STORE --json --trace --as-of 2025-01-01T00:00:00Z`
process each, the builds alternating query by query (every other round in
the reverse order), R rounds. STORE is a store of that build's own (a copy:
builds of different snapshot file formats rewrite each other's files), whose
snapshot file the build has written and sealed already. Before the first
round every STORE and its snapshot file are dropped from the page cache
(posix_fadvise DONTNEED, these files only) and read back whole, so that
copies made in different ways (written by memscope, copied by cp) are
cached alike: how a file got into the page cache changes the size of its
pages there, and with it a process's page faults and CPU time by a quarter.
--as-cached leaves them as they are (a snapshot file just written by
memscope is cached in larger pages than one read back). --dropped drops
them and reads nothing back: each build's first process (not counted)
reads them in through its own mappings, as after the files left the page
cache (memscope asks for its snapshot file in 2 MB pages then).

Prints, per build, the wall time, the CPU time (user + system, wait4), the
minor page faults and the peak RSS of its processes (p50 and p95), and the
load average before and after. Needs python3.
"""
import argparse
import os
import subprocess
import sys
import time


def pct(v, p):
    v = sorted(v)
    return v[max(0, -(-len(v) * p // 100) - 1)]


def recache(path, read_back=True):
    with open(path, "rb") as f:
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        while read_back and f.read(1 << 24):
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--as-cached", action="store_true")
    ap.add_argument("--dropped", action="store_true")
    ap.add_argument("builds", nargs="+", metavar="BIN=STORE")
    a = ap.parse_args()
    builds = [b.split("=", 1) for b in a.builds]
    qs = subprocess.run([builds[0][0], "bench", "--list-queries", "--queries", str(a.queries)],
                        capture_output=True, text=True, check=True).stdout.splitlines()
    for _, store in [] if a.as_cached else builds:
        for f in (store, store + ".snap"):
            if os.path.exists(f):
                recache(f, not a.dropped)
    res = [{"wall": [], "cpu": [], "flt": [], "rss": []} for _ in builds]

    def run(k, q):
        b, store = builds[k]
        t = time.perf_counter()
        p = subprocess.Popen([b, "recall", "--db", store, "--json", "--trace", "--as-of",
                              "2025-01-01T00:00:00Z", "--", q], stdout=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        if status:
            sys.exit("bench-process: %s failed on %r" % (b, q))
        r = res[k]
        r["wall"].append((time.perf_counter() - t) * 1e3)
        r["cpu"].append((ru.ru_utime + ru.ru_stime) * 1e3)
        r["flt"].append(ru.ru_minflt)
        r["rss"].append(ru.ru_maxrss / 1024)

    for k in range(len(builds)):  # one process each first, not counted
        run(k, qs[0])
        for v in res[k].values():
            v.clear()
    load = os.getloadavg()
    for r in range(a.rounds):
        order = list(range(len(builds)))
        for q in qs:
            for k in order if r % 2 == 0 else order[::-1]:
                run(k, q)
    print("%d queries x %d rounds; load average %.2f %.2f %.2f before, %.2f %.2f %.2f after"
          % ((len(qs), a.rounds) + load + os.getloadavg()))
    for (b, store), r in zip(builds, res):
        print("%-40s wall %6.1f / %6.1f ms  cpu %6.1f / %6.1f ms  faults %5d / %5d  "
              "rss %6.1f MB" % ((b + "=" + store)[-40:], pct(r["wall"], 50), pct(r["wall"], 95),
                                pct(r["cpu"], 50), pct(r["cpu"], 95), pct(r["flt"], 50),
                                pct(r["flt"], 95), pct(r["rss"], 50)))


if __name__ == "__main__":
    main()
