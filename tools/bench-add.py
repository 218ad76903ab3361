#!/usr/bin/env python3
"""bench-add.py - time `memscope add` as a whole process on a large store,
for one or more memscope binaries, alternating.

    tools/bench-add.py STORE [-r ROUNDS] BIN [BIN...]

Each binary gets its own copy of STORE (beside it, STORE.addN, removed at
the end), since a newer memscope may upgrade the schema, which an older one
then refuses. Each round runs, per binary in turn, one plain add (a text
that states no fact) and one fact add (speaker Leah: "I work at X now" with
a new X each time, so every one supersedes the one before). The first fact
add of each copy is reported on its own: it may do once-only work (an
upgrade, a list built). Prints the median, least and largest wall time of
each kind, in ms. Needs python3 only; the copies need free disk.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - t) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store")
    ap.add_argument("bins", nargs="+")
    ap.add_argument("-r", "--rounds", type=int, default=10)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every time")
    a = ap.parse_args()
    copies = []
    for k, b in enumerate(a.bins):
        dst = "%s.add%d" % (a.store, k)
        shutil.copyfile(a.store, dst)
        copies.append(dst)
    times = {b: {"first": [], "plain": [], "fact": []} for b in a.bins}
    try:
        for b, db in zip(a.bins, copies):
            times[b]["first"].append(timed([b, "add", "--db", db, "--speaker", "Leah",
                                            "I work at Firstfield now"]))
        n = 0
        for r in range(a.rounds):
            for b, db in zip(a.bins, copies):
                n += 1
                times[b]["plain"].append(timed([b, "add", "--db", db,
                                                "A quiet walk along the canal, round %d" % n]))
                times[b]["fact"].append(timed([b, "add", "--db", db, "--speaker", "Leah",
                                               "I work at Company%d now" % n]))
    finally:
        for db in copies:
            for suffix in ("", "-wal", "-shm", ".seal"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
    for b in a.bins:
        t = times[b]
        print("%s: first fact add %.0f ms; plain add median %.1f ms (%.1f-%.1f); "
              "fact add median %.1f ms (%.1f-%.1f); %d rounds"
              % (b, t["first"][0], statistics.median(t["plain"]), min(t["plain"]),
                 max(t["plain"]), statistics.median(t["fact"]), min(t["fact"]),
                 max(t["fact"]), a.rounds))
        if a.verbose:
            print("  plain: %s\n  fact: %s" % (" ".join("%.0f" % v for v in t["plain"]),
                                                " ".join("%.0f" % v for v in t["fact"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
