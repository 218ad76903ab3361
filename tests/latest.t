#!/bin/bash
# latest.t - the latest fact wins when the question is about now (issue 13,
# item 3), end to end on the demo store: the supersession `memscope demo`
# finds at import, the `latest` and `yields` adjustments in the trace, a
# past-tense question that leaves the old fact alone, and the hand-written
# present-tense questions of tests/data/latest-now.jsonl, of which it
# reports how many put a memory stating the current fact first.
#
# Needs $MEMSCOPE and python3. Works in a temporary directory it removes.
set -u

. "$(dirname "$0")/tap.sh"
command -v python3 >/dev/null || bail "python3 is needed for the JSON checks"
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-latest-t.XXXXXX") || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg"
mkdir -p "$HOME"
ASOF=2026-10-21 # the demo's today (data/DEMO.md)

run demo --db d.db
is "$rc" 0 "the demo store is written"
sqlite3 d.db "SELECT n.id || '>' || o.id FROM relations r JOIN memories n ON n.rid = r.src
              JOIN memories o ON o.rid = r.dst WHERE r.kind = 1 ORDER BY 1" >rel
grep -qx 'm0274>m0015' rel
ok $? "the import finds that Inês (m0274) replaced Marcus (m0015) as manager"
grep -qx 'm0210>m0204' rel
ok $? "and that the correction m0210 replaces the guess m0204"
grep -qx 'm0146>m0005' rel
ok $? "and that the new address m0146 replaces Easton (m0005) as where Leah lives"
grep -qx 'm0289>m0075' rel
ok $? "and that Thirty-five as of yesterday (m0289) replaces I'm officially 34 (m0075) as Leah's age"
grep -qx 'm0245>m0003' rel
ok $? "and that Senior Data Scientist (m0245) replaces the scheduling analyst (m0003) as her role"
grep -q '>m0245$' rel
ok $((!$?)) "nothing supersedes m0245: after six years as a scheduling analyst (m0268) is no title held"
grep -q '>m0010$' rel
ok $((!$?)) "nothing supersedes m0010: it states no attribute the detector knows"
run show --db d.db m0015
grep -q '^status  *superseded' out
ok $((!$?)) "a supersession found is a relation, not the memory's own superseded status"
grep -q '^relations  *superseded by m0274: manager of leah: "Inês is my manager" after "Hale is my manager"$' out
ok $? "show lists the relation with its evidence"
run show --db d.db --json m0274
python3 -c 'import json,sys; r=json.load(open("out"))["relations"]; sys.exit(r != [{"relation": "supersedes", "with": "m0015", "reason": "manager of leah: \"Inês is my manager\" after \"Hale is my manager\""}])'
ok $? "show --json has it as relations: supersedes m0015 with the reason"

# memscope add looks for supersession too, and names it in show.
run add --db a.db --id w1 --speaker Ana --at 2025-01-10 "Ana: I work at Westway Buses."
is "$rc" 0 "add a first memory"
run add --db a.db --id w2 --speaker Ana --at 2026-01-10 "Ana: I work at Cartwheel Labs now."
is "$rc" 0 "add a later one with another employer"
run show --db a.db w1
grep -q '^relations  *superseded by w2: employer of ana: "work at Cartwheel" after "work at Westway"$' out
ok $? "the add found that w2 supersedes w1"
run add --db a.db --id w3 --speaker Ana --at 2026-02-10 "Ana: I worked at Tesco as a teen."
run show --db a.db w3
grep -q '^relations' out
ok $((!$?)) "the past tense supersedes nothing"

# ranks QUESTION: the ids of the top 10, one a line, and the trace as t.json
ranks() {
    "$MEMSCOPE" recall --db d.db --json --trace --limit 10 --as-of "$ASOF" "$1" >t.json 2>/dev/null
    python3 -c 'import json; [print(h["id"]) for h in json.load(open("t.json"))["results"]]' <t.json
}

# The manager question: m0274 first, m0015 below it.
ranks "Who is my manager now?" >ids
is "$(head -1 ids)" m0274 "Who is my manager now? puts m0274 first"
# A question about the past asks for the old fact: no yields, no latest.
ranks "Who was my manager in April 2025?" >ids
grep -q '"name": *"yields"\|"name": *"latest"' t.json
ok $((!$?)) "a question about April 2025 applies neither latest nor yields"

# The correction m0210 supersedes m0204: for a question about now, m0204
# yields to it (traced with the successor and the reason) or ranks below.
ranks "Where does Róisín live now?" >ids
python3 - t.json >why <<'EOF' || echo "its reader failed" >>why
import json, sys
r = json.load(open(sys.argv[1]))["results"]
pos = {h["id"]: i for i, h in enumerate(r)}
if "m0204" in pos:
    adj = [a for a in r[pos["m0204"]]["trace"]["adjustments"] if a["name"] == "yields"]
    if "m0210" not in pos or pos["m0210"] > pos["m0204"]:
        print("m0204 ranks above m0210")
    for a in adj:
        if "m0210" not in a["detail"]:
            print("yields names", a["detail"])
EOF
is "$(cat why)" "" "Where does Róisín live now? ranks the correction m0210 above the guess m0204"

# A question that asks an attribute the detector knows: the memories that
# state it of the subject asked about get `states`, and only those.
ranks "Where does my sister work now?" >ids
is "$(head -1 ids)" m0211 "Where does my sister work now? puts m0211 (works at Halden & Price) first"
python3 - t.json >why <<'EOF' || echo "its reader failed" >>why
import json, sys
r = json.load(open(sys.argv[1]))["results"]
st = {h["id"]: [a["detail"] for a in h["trace"]["adjustments"] if a["name"] == "states"] for h in r}
if st.get("m0211") != ['states the employer asked: "works at Halden"']:
    print("m0211:", st.get("m0211"))
for i in ("m0268", "m0003", "m0201"):  # Leah's employer, not her sister's; no employer
    if st.get(i):
        print(i, st[i])
EOF
is "$(cat why)" "" "states: m0211 for the sister's employer, not Leah's own (m0268, m0003)"
ranks "Where do I work now?" >ids
is "$(head -1 ids)" m0268 "Where do I work now? puts m0268 first"
r3=$(grep -n "^m0003$" ids | cut -d: -f1)
ok $((${r3:-0} < 2)) "m0003, which it supersedes, rises with it but yields below it (rank ${r3:--})"

# The hand-written questions: how many put a memory stating the current
# fact first, and whether every superseded memory ranks below its successor.
python3 - "$HERE/data/latest-now.jsonl" d.db "$ASOF" >report <<'EOF' || echo "BAD its reader failed" >>report
import json, subprocess, sys, os, sqlite3
qs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
db, asof = sys.argv[2], sys.argv[3]
con = sqlite3.connect(db)
succ = {}
for n, o in con.execute("SELECT n.id, o.id FROM relations r JOIN memories n ON n.rid = r.src"
                        " JOIN memories o ON o.rid = r.dst WHERE r.kind = 1"):
    succ.setdefault(o, set()).add(n)
first = 0
for q in qs:
    out = subprocess.run([os.environ["MEMSCOPE"], "recall", "--db", db, "--json", "--limit", "10",
                          "--as-of", asof, q["question"]], capture_output=True, text=True).stdout
    ids = [h["id"] for h in json.loads(out)["results"]]
    hit = bool(ids) and ids[0] in q["first"]
    first += hit
    print("# %s %-48s first %-6s %s" % (q["qid"], q["question"], ids[0] if ids else "-",
                                        "yes" if hit else "no"))
    for o in ids:
        for n in succ.get(o, ()):
            if n in ids and ids.index(n) > ids.index(o):
                print("BAD %s: %s ranks above its successor %s" % (q["qid"], o, n))
print("FIRST %d %d" % (first, len(qs)))
EOF
grep '^#' report
is "$(grep -c '^BAD' report)" 0 "in every answer a superseded memory ranks below its successor"
grep '^BAD' report | sed 's/^/# /'
set -- $(grep '^FIRST' report)
diag "present-tense questions with the current fact first: $2 of $3 (target 13)"
is "$3" 15 "15 hand-written present-tense questions"
# main gave 7 of 15, then 12, this engine 15 (docs/QUALITY.md): fewer is a regression
ok $(($2 < 15)) "all 15 put the current fact first (got $2)"

tap_done
