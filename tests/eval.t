#!/bin/bash
# eval.t - `memscope eval` on a small store of its own: Recall@k and MRR for
# categories 1-4, category 5 (adversarial) as its own row outside the
# overall scores, on-topic unanswerable questions (a query line with
# "answerable": false, and --unanswerable FILE after its --queries) and
# off-topic ones counted as abstentions, the sweeps' three columns agreeing
# with the run they came from, and bad input failing with FILE:LINE.
#
# Needs $MEMSCOPE (absolute path of the binary; `make test` sets it) and
# python3. Works in a temporary directory that it removes.
set -u

. "$(dirname "$0")/tap.sh"
command -v python3 >/dev/null || bail "python3 is needed for the JSON checks"
src=$(cd "$(dirname "$0")/.." && pwd) # the repository, for its data files

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-eval-t.XXXXXX") || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg"
mkdir -p "$HOME"

# Two people's chat; every turn is spoken by one of them.
cat >mem.jsonl <<'JSONL'
{"id":"a1","content":"Priya: I finally adopted a rescue greyhound called Pepper.","created_at":"2024-03-02T10:00:00Z","speaker":"Priya","session":"1"}
{"id":"a2","content":"Tom: Congratulations! How is Pepper settling in?","created_at":"2024-03-02T10:01:00Z","speaker":"Tom","session":"1"}
{"id":"a3","content":"Priya: She sleeps all day on the sofa and steals socks.","created_at":"2024-03-02T10:02:00Z","speaker":"Priya","session":"1"}
{"id":"b1","content":"Tom: I started rowing on the canal every Saturday morning.","created_at":"2024-04-06T09:00:00Z","speaker":"Tom","session":"2"}
{"id":"b2","content":"Priya: Rowing sounds cold! Do you race?","created_at":"2024-04-06T09:01:00Z","speaker":"Priya","session":"2"}
{"id":"b3","content":"Tom: Not yet, but the club has a regatta in June.","created_at":"2024-04-06T09:02:00Z","speaker":"Tom","session":"2"}
{"id":"c1","content":"Priya: My pottery class made mugs this week, mine leaks.","created_at":"2024-05-11T18:00:00Z","speaker":"Priya","session":"3"}
{"id":"c2","content":"Tom: A leaky mug is still a mug. Glaze it again?","created_at":"2024-05-11T18:01:00Z","speaker":"Tom","session":"3"}
JSONL
# Three scored questions, one adversarial (it names the wrong person), one
# on-topic question nothing answers.
cat >q.jsonl <<'JSONL'
{"qid":"q1","question":"What dog did Priya adopt?","category":4,"evidence":["a1"]}
{"qid":"q2","question":"Where does Tom go rowing?","category":4,"evidence":["b1"]}
{"qid":"q3","question":"When is the regatta?","category":2,"evidence":["b3"]}
{"qid":"q4","question":"What did Tom make in pottery class?","category":5,"evidence":["c1"]}
{"qid":"q5","question":"What is Priya's blood type?","answerable":false}
JSONL
# Plain text: one question a line; blank lines and # comments skipped. The
# last shares "rowing club" with b3 and passes the floor: 3 of these 4
# on-topic questions (with q5) abstain.
printf '%s\n' "# on-topic, never answered" "What is Tom's zodiac sign?" "" \
    "Which bank does Priya use for her mortgage?" "What is the rowing club's membership fee?" >un.txt
printf '%s\n' '{"question":"What is the capital of Australia?"}' \
    '{"question":"How do volcanoes form?"}' >off.jsonl

run import --db s.db mem.jsonl
ok $rc "the store imports"

run eval --db s.db --queries q.jsonl --unanswerable un.txt --offtopic off.jsonl --sweep --json
ok $rc "eval --unanswerable --offtopic --sweep --json exits 0"
cp out e.json
problems=$(python3 - e.json <<'PY' || echo "its JSON did not read"
import json, sys
d = json.load(open(sys.argv[1]))
def want(cond, what):
    if not cond:
        print(what)
want(d["queries"] == 3, "overall counts the 3 scored questions of categories 1-4, not %s" % d["queries"])
want(d["recall"]["10"] == 1 and d["abstained"] == 0 and d["false_abstention"] == 0,
     "every scored question finds its evidence: %s" % d)
a = d.get("adversarial", {})
want(a.get("queries") == 1 and a["recall"]["10"] == 1, "category 5 is its own row: %s" % a)
u = d.get("unanswerable", {})
want(u.get("queries") == 4 and u.get("abstained") == 3 and u.get("rate") == 0.75,
     "on-topic unanswerable: 4 questions (1 JSONL line, 3 text lines), 3 abstain: %s" % u)
o = d.get("offtopic", {})
want(o.get("queries") == 2 and o.get("abstained") == 2, "off-topic: 2 of 2 abstain: %s" % o)
for key, at in (("floor_sweep", 0.28), ("floor_sweep_lexical", None)):
    rows = d.get(key, [])
    want(len(rows) == 11, "%s has 11 rows" % key)
    for r in rows:
        want(set(r) == {"threshold", "false_abstention", "offtopic_abstention",
                        "unanswerable_abstention"}, "%s row fields: %s" % (key, sorted(r)))
    # the default cosine threshold is a row of the cosine sweep: it must
    # agree with what the run measured
    if at is not None:
        row = [r for r in rows if abs(r["threshold"] - at) < 1e-9]
        want(row and row[0]["unanswerable_abstention"] == u.get("rate")
             and row[0]["offtopic_abstention"] == 1 and row[0]["false_abstention"] == 0,
             "the sweep's row at %.2f agrees with the run: %s" % (at, row))
lex = d.get("floor_sweep_lexical", [])
want(lex and lex[-1]["unanswerable_abstention"] >= lex[0]["unanswerable_abstention"],
     "a stricter lexical threshold abstains at least as often")
PY
)
ok $([ -z "$problems" ]; echo $?) "the JSON report: scored, adversarial, unanswerable, off-topic, sweeps"
[ -z "$problems" ] || diag "$problems"

run eval --db s.db --queries q.jsonl --unanswerable un.txt --offtopic off.jsonl --sweep
ok $rc "the table exits 0"
grep -q '^5 adversarial  *1 ' out
ok $? "the table has the adversarial row"
grep -q '^unanswerable  *4  abstained 3 (75.0 %)' out
ok $? "the table has the on-topic unanswerable row"
grep -q 'on-topic unanswerable' out && grep -q '^lexical sweep' out
ok $? "both sweeps print the on-topic column"

# Without the text file only the JSONL line counts.
run eval --db s.db --queries q.jsonl --json
is "$(python3 -c 'import json,sys; u=json.load(open(sys.argv[1]))["unanswerable"]; print(u["queries"], u["abstained"])' out)" \
    "1 1" "\"answerable\": false alone: 1 question, abstained"

# Bad input: one line naming what and where; nothing is reported.
printf '%s\n' '{"question":"What is Priya'"'"'s blood type?","answerable":false,"evidence":["a1"]}' >bad.jsonl
run eval --db s.db --queries bad.jsonl
ok $([ "$rc" -ne 0 ] && grep -q 'bad.jsonl:1: "answerable": false, but it has evidence' err; echo $?) \
    "answerable false with evidence: FILE:LINE error"
[ -s out ]
ok $((1 - $?)) "and no report on stdout"
run eval --unanswerable un.txt --db s.db --queries q.jsonl
ok $([ "$rc" -eq 2 ] && grep -q 'unanswerable FILE follows a --queries FILE' err; echo $?) \
    "--unanswerable before any --queries: usage error"
run eval --db s.db --queries q.jsonl --unanswerable un.txt --unanswerable un.txt
ok $([ "$rc" -eq 2 ]; echo $?) "two --unanswerable for one --queries: usage error"
run eval --db s.db --queries q.jsonl --unanswerable missing.txt
ok $([ "$rc" -ne 0 ] && grep -q 'cannot open missing.txt' err; echo $?) "a missing file is named"

# The sweeps replay the floor from the pool at each threshold: at the
# defaults (cosine 0.28, lexical 0.16) they must give what the run itself
# counted, also where the pool-wide rules (the asked word, the kind, who or
# where, the verb) cut. The demo store's own questions reach them.
run demo --db demo.db --force
ok $rc "the demo store builds"
run eval --db demo.db --queries "$src/tests/data/demo-queries.jsonl" \
    --unanswerable "$src/tests/data/unanswerable/demo.txt" --offtopic "$src/tests/data/offtopic.jsonl" \
    --sweep --json
ok $rc "eval on the demo store's questions exits 0"
cp out d.json
problems=$(python3 - d.json <<'PY' || echo "its JSON did not read"
import json, sys
d = json.load(open(sys.argv[1]))
run = (d["false_abstention"], d["offtopic"]["abstained"] / d["offtopic"]["queries"],
       d["unanswerable"]["rate"])
for key, at in (("floor_sweep", 0.28), ("floor_sweep_lexical", 0.16)):
    row = [r for r in d[key] if abs(r["threshold"] - at) < 1e-9]
    got = row and (row[0]["false_abstention"], row[0]["offtopic_abstention"],
                   row[0]["unanswerable_abstention"])
    if not got or any(abs(a - b) > 1e-4 for a, b in zip(got, run)):  # the run rounds to 4 places
        print("%s at %.2f: %s, the run: %s" % (key, at, got, run))
PY
)
ok $([ -z "$problems" ]; echo $?) "on the demo store both sweeps' default rows agree with the run"
[ -z "$problems" ] || diag "$problems"

tap_done
