#!/bin/sh
# browser-keys.sh - how long the browser takes from a key press to its
# finished screen, in tmux: memscope --db DB --read-only runs in a private
# tmux server at 120x40 with the debounce set to 0 (its own
# XDG_CONFIG_HOME), and for each of the bench's queries (`memscope bench
# --list-queries`) all but the last character is typed and the screen left
# to settle, then the last character is sent and the pane is captured until
# it shows the whole query and two captures in a row agree. The time is
# from sending the key to the first of those captures; beside it, the CPU
# time (user + system) the browser's process used meanwhile, which a
# loaded machine inflates less. Prints each query's milliseconds, then the
# p50 and p95, and the first screen's time (launch to the status bar, as
# tools/first-screen.sh).
#
#   tools/browser-keys.sh DB [QUERIES]     QUERIES default 20
#
# MEMSCOPE names the binary (default ./memscope). The times include tmux's
# capture (a few ms a capture); compare builds in one run of the machine.
# Needs tmux and python3.
set -eu

db=${1:?usage: $0 DB [QUERIES]}
queries=${2:-20}
MEMSCOPE=${MEMSCOPE:-./memscope}
work=$(mktemp -d "${TMPDIR:-/tmp}/memscope-keys-XXXXXX")
sock="memscope-keys-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/config/memscope" "$work/state"
echo "debounce 0" >"$work/config/memscope/config"
"$MEMSCOPE" bench --list-queries --queries "$queries" --seed 1 >"$work/queries"

python3 - "$MEMSCOPE" "$db" "$work" "$sock" <<'EOF'
import os, subprocess, sys, time

memscope, db, work, sock = sys.argv[1:5]
env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8",
           XDG_CONFIG_HOME=os.path.join(work, "config"), XDG_STATE_HOME=os.path.join(work, "state"))

def tm(*args, out=False):
    cmd = ["tmux", "-L", sock, "-f", "/dev/null"] + list(args)
    if out:
        return subprocess.run(cmd, stdout=subprocess.PIPE, env=env).stdout.decode("utf-8", "replace")
    subprocess.run(cmd, env=env, check=True)

def capture():
    return tm("capture-pane", "-p", "-t", "t", out=True)

def settle(want, limit=120.0):
    """The time (perf_counter) of the first capture showing want that the
    next capture agrees with."""
    end = time.perf_counter() + limit
    prev, prev_t = None, 0.0
    while time.perf_counter() < end:
        t = time.perf_counter()
        s = capture()
        if want in s and s == prev:
            return prev_t
        if s != prev:
            prev, prev_t = s, t
    sys.exit("browser-keys: the screen never settled showing %r" % want)

t0 = time.perf_counter()
tm("new-session", "-d", "-s", "t", "-x", "120", "-y", "40",
   "%s --db '%s' --read-only; sleep 600" % (memscope, db))
settle(" mem · ")
first = (time.perf_counter() - t0) * 1e3
shell = tm("list-panes", "-t", "t", "-F", "#{pane_pid}", out=True).strip()
kids = open("/proc/%s/task/%s/children" % (shell, shell)).read().split()
pid = kids[0] if kids else shell
tick = os.sysconf("SC_CLK_TCK")

def cpu_ms():
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1e3 / tick
qs = [l.rstrip("\n") for l in open(os.path.join(work, "queries"), encoding="utf-8") if l.strip()]
ms, cpu = [], []
for q in qs:
    tm("send-keys", "-t", "t", "C-u")  # clear the query line
    tm("send-keys", "-t", "t", "-l", "--", q[:-1])
    settle(q[:-1])
    c = cpu_ms()
    t = time.perf_counter()
    tm("send-keys", "-t", "t", "-l", "--", q[-1])
    done = settle(q)
    ms.append((done - t) * 1e3)
    cpu.append(cpu_ms() - c)
    print("%7.1f ms wall %6.0f ms CPU  %s" % (ms[-1], cpu[-1], q))

def pct(v, p):
    v = sorted(v)
    return v[max(0, -(-len(v) * p // 100) - 1)]

print("key to finished screen: wall p50 %.1f ms, p95 %.1f ms; CPU p50 %.0f ms, p95 %.0f ms "
      "(%d queries, CPU in %d ms ticks); first screen %.0f ms; load %s"
      % (pct(ms, 50), pct(ms, 95), pct(cpu, 50), pct(cpu, 95), len(ms), 1000 // tick, first,
         " ".join("%.1f" % x for x in os.getloadavg())))
EOF
