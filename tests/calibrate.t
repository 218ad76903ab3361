#!/bin/bash
# calibrate.t - `memscope calibrate` on the demo store: the report's shape
# (calibration-report/v1 plus memscope's fields) and its numbers checked
# against each other, the same id twice, stores never written, the
# refusals (a question in both splits, fewer than 100 held-out examples,
# bad input, usage), health on a current report, a changed store and a
# changed configuration making it stale, recall's contract left
# uncalibrated, --plot, and the browser's c key from the abstention banner
# (tmux, 100x40).
#
# The labelled questions are made from the demo store itself: a memory's
# own words ask for it (evidence: its id), the even memories fit and the
# odd ones are held out; the off-topic set gives unanswerable ones.
set -u

. "$(dirname "$0")/tap.sh"
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is needed"; exit 0; }

T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-calibrate-t.XXXXXX") || bail "mktemp failed"
SOCK="memscope-cal-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT
unset MEMSCOPE_DB MEMSCOPE_PROFILE NO_COLOR
export HOME="$T/home" XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config" \
    XDG_DATA_HOME="$T/data" LANG=C.UTF-8 LC_ALL=C.UTF-8
mkdir -p "$HOME"
HERE=$(cd "$(dirname "$0")" && pwd)
OFF="$HERE/data/offtopic.jsonl"
cd "$T" || bail "cd"
"$MEMSCOPE" demo --db demo.db >/dev/null || bail "cannot write the demo store"
"$MEMSCOPE" export --db demo.db -o demo.jsonl || bail "cannot export"

python3 - "$OFF" <<'EOF' || bail "cannot write the labelled sets"
import json, sys
mems = [json.loads(l) for l in open("demo.jsonl")]
off = [json.loads(l)["question"] for l in open(sys.argv[1])]
def ask(m):
    return " ".join(m["content"].split()[:14])
with open("fit.jsonl", "w") as f:
    for i, m in enumerate(mems[0::2]):
        f.write(json.dumps({"qid": "f%d" % i, "question": ask(m), "evidence": [m["id"]]}) + "\n")
with open("held.jsonl", "w") as f:
    for i, m in enumerate(mems[1::2]):
        f.write(json.dumps({"qid": "h%d" % i, "question": ask(m), "evidence": [m["id"]]}) + "\n")
    for q in ["What is my dentist's first name?", "Which floor is my office on?",
              "What colour is my sister's car?"]:
        f.write(json.dumps({"question": q, "answerable": False}) + "\n")
    f.write(json.dumps({"question": "A line with neither evidence nor a marker"}) + "\n")
open("off-fit.txt", "w").write("# off-topic, fit\n" + "\n".join(off[:25]) + "\n")
open("off-held.txt", "w").write("\n".join(off[25:]) + "\n\n")
with open("small.jsonl", "w") as f:
    for i, m in enumerate(mems[1:100:2]):
        f.write(json.dumps({"question": ask(m), "evidence": [m["id"]]}) + "\n")
with open("overlap.jsonl", "w") as f:
    f.writelines(open("held.jsonl").readlines()[:120])
    f.write(json.dumps({"question": "  " + ask(mems[4]).upper() + " ", "evidence": [mems[4]["id"]]}) + "\n")
EOF
held_n=$(($(lines held.jsonl) - 1 + 25)) # the unmarked line is skipped

cal() { run calibrate --db demo.db --queries fit.jsonl --unanswerable off-fit.txt --eval \
    --db demo.db --queries held.jsonl --unanswerable off-held.txt "$@"; }

# ---- the report ------------------------------------------------------------------

db_sha=$(sha demo.db)
cal --json --corpus "the demo world" --distribution "memories asking for themselves"
is "$rc" 0 "calibrate exits 0"
cp out report.json
ok $([ -s demo.db.calibration.json ]; echo $?) "the report is saved beside the store"
is "$(sha demo.db)" "$db_sha" "the store file is not written"
python3 - report.json demo.db.calibration.json "$held_n" >check.out 2>&1 <<'EOF' ||
import json, math, re, sys
r, saved, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
def say(c, t):
    print(("PASS " if c else "FAIL ") + t)
m = r["metrics"]
say(r["schema"] == "memscope.calibration-report/v1", "schema memscope.calibration-report/v1")
say(re.fullmatch("[0-9a-f]{64}", r["calibration_id"]) is not None, "calibration_id is a SHA-256")
for k in ["schema", "calibration_id", "calibrator", "evaluation", "metrics"]:
    say(k in r, "top-level " + k)
say(r["calibrator"]["method"] == "platt_scaling" and "a" in r["calibrator"], "Platt scaling, a and b")
say(r["calibrator"]["signal"]["name"] == "top_result_is_evidence", "the signal is named")
say(r["evaluation"]["split"] == "held_out", "evaluated on held_out")
say(m["example_count"] == n, "example_count %d = held-out questions %d" % (m["example_count"], n))
qd = r["evaluation"]["query_distribution"]
say(qd["unanswerable_marked"] == 3 and qd["unanswerable_listed"] == 25 and qd["skipped_lines"] == 1,
    "query distribution: 3 marked, 25 listed, 1 line skipped")
say(qd["declared"] == "memories asking for themselves", "the declared query distribution")
say(r["evaluation"]["corpus"]["declared"] == "the demo world", "the declared corpus")
bins = m["reliability_bins"]
say(len(bins) == 10 and sum(b["count"] for b in bins) == n, "10 bins holding every example")
ece = sum(b["count"] / n * b["absolute_gap"] for b in bins if b["count"])
say(abs(ece - m["expected_calibration_error"]) < 1e-9, "ECE is the count-weighted mean gap")
mce = max(b["absolute_gap"] for b in bins if b["count"])
say(abs(mce - m["maximum_calibration_error"]) < 1e-9, "MCE is the largest gap")
sel = m["selective_risk"]
say([s["threshold"] for s in sel] == [0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95], "the seven thresholds")
say(all(set(s) == {"threshold", "retained", "coverage", "abstention_rate", "selective_risk"} for s in sel),
    "each threshold has retained, coverage, abstention_rate, selective_risk")
say(sel[0]["retained"] == n and abs(sel[0]["selective_risk"] - (1 - m["positive_count"] / n)) < 1e-9,
    "at threshold 0 everything is kept and risk is the share of negatives")
curve = m["risk_coverage_curve"]
say(abs(curve[-1][0] - 1) < 1e-9 and abs(curve[-1][1] - sel[0]["selective_risk"]) < 1e-6,
    "the curve ends at full coverage with the overall risk")
area, prev = 0, 0
for cov, risk in curve:
    area += (cov - prev) * risk
    prev = cov
say(abs(area - m["aurc"]) < 1e-4, "AURC is the area under the curve (%.4f vs %.4f)" % (area, m["aurc"]))
op = m["floor_operating_point"]
say(0 <= op["coverage"] <= 1 and abs(op["abstention_rate"] + op["coverage"] - 1) < 1e-9,
    "the floor's operating point: coverage and abstention")
say(op["retained"] < n, "the floor abstains on some held-out question (the off-topic ones)")
ps, rs = m["probability_summary"], m["raw_retrieval_score_summary"]
say(0 < ps["minimum"] <= ps["mean"] <= ps["maximum"] < 1 and rs["used_in_probability_metrics"] is False
    and r["separation"]["raw_retrieval_score_used_as_probability"] is False,
    "probability and raw-score summaries, kept apart as SLM's report keeps them")
say(r["runtime_calibration_status"] == "uncalibrated" and r["answer_confidence"] is None,
    "runtime stays uncalibrated, answer_confidence null")
say(saved["this_store"]["content_sha256"] == [s for s in r["identity"]["stores"]][0]["content_sha256"],
    "the saved copy names this store's content digest")
say(len(r["identity"]["label_files"]) == 4 and all(re.fullmatch("[0-9a-f]{64}", f["sha256"])
    for f in r["identity"]["label_files"]), "four label files, each with its SHA-256")
say("floor_threshold=" in r["identity"]["engine_configuration"], "the whole engine configuration")
say("first_stage=prf:0:0:0,sessions:0,aspects:0,seeds:30:1,kinds:0:0,hops:0:0,lists:0,sets:1\n"
    in r["identity"]["engine_configuration"], "with the first stage's options (the default's)")
EOF
    echo "FAIL the report's reader failed" >>check.out
while IFS= read -r line; do
    case "$line" in PASS*) ok 0 "${line#PASS }" ;; FAIL*) ok 1 "${line#FAIL }" ;; *) diag "$line" ;; esac
done <check.out

id1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["calibration_id"])' report.json)
cal --json --corpus "something else"
id2=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["calibration_id"])' <out)
is "$id2" "$id1" "the same stores, labels and configuration give the same id"

run recall --db demo.db --json "When is my dentist appointment?"
python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(not (d["calibration_status"] == "uncalibrated" and d["answer_confidence"] is None and d["calibration_id"] is None))' <out
ok $? "recall stays uncalibrated with a report present"

run health --db demo.db
grep -q "^calibration demo.db.calibration.json: current for this store and configuration" out
ok $? "health: the report is current"
grep -q "held-out examples: Brier" out
ok $? "health says what the report found"
run health --db demo.db --json
python3 -c 'import json,sys; c=json.load(sys.stdin)["calibration"]; sys.exit(not (c["exists"] and not c["stale"] and c["found"]["example_count"] > 100 and c["runtime_calibration_status"] == "uncalibrated"))' <out
ok $? "health --json: exists, not stale, what it found"

cal --plot
is "$rc" 0 "calibrate --plot exits 0"
grep -q "^Reliability" out && grep -q "^Risk-coverage" out
ok $? "--plot draws the reliability diagram and the risk-coverage curve"
grep -q "F: the floor keeps" out && grep -qE '^ *[0-9. ]*\|.*F' out
ok $? "--plot marks the floor's operating point F"

# ---- refusals ------------------------------------------------------------------

rep_sha=$(sha demo.db.calibration.json)
run calibrate --db demo.db --queries held.jsonl --eval --db demo.db --queries overlap.jsonl
is "$rc" 1 "a question in both splits is refused"
grep -q "in both splits on the same store content (held.jsonl:1 and overlap.jsonl:1)" err
ok $? "the refusal names both places: $(cat err)"
run calibrate --db demo.db --queries fit.jsonl --eval --db demo.db --queries overlap.jsonl
grep -q "(fit.jsonl:3 and overlap.jsonl:121)" err
ok $? "case and spacing do not hide a repeated question: $(cat err)"
run calibrate --db demo.db --queries fit.jsonl --eval --db demo.db --queries small.jsonl
is "$rc" 1 "fewer than 100 held-out examples are refused"
grep -q "50 held-out examples (the pairs after --eval): a calibration report needs at least 100" err
ok $? "the refusal says how many: $(cat err)"
printf '{"question": "ok", "evidence": ["m0001"]}\n{"question": "broken",\n' >bad.jsonl
run calibrate --db demo.db --queries bad.jsonl --eval --db demo.db --queries held.jsonl
is "$rc" 1 "a malformed query line is an error"
grep -q "^memscope: bad.jsonl:2:[0-9]*: malformed JSON" err
ok $? "it names FILE:LINE:COL: $(cat err)"
printf '{"question": "which?", "answerable": false, "evidence": ["m0001"]}\n' >both.jsonl
run calibrate --db demo.db --queries both.jsonl --eval --db demo.db --queries held.jsonl
grep -q "both.jsonl:1:1: \"answerable\": false with evidence" err
ok $? "answerable: false with evidence is refused: $(cat err)"
is "$(sha demo.db.calibration.json)" "$rep_sha" "a refused run leaves the saved report as it was"
run calibrate --db demo.db --queries fit.jsonl
is "$rc" 2 "no held-out split: usage error"
run calibrate --unanswerable off-fit.txt --db demo.db --queries fit.jsonl --eval --queries held.jsonl
is "$rc" 2 "--unanswerable before any pair: usage error"
grep -q "comes after the --db and --queries pair" err
ok $? "the usage error says where --unanswerable goes"

cp demo.db d3.db
mkdir d3.db.calibration.json
run calibrate --db demo.db --queries fit.jsonl --eval --db d3.db --queries held.jsonl
is "$rc" 1 "a report that cannot be saved fails the run"
grep -q "cannot save the report d3.db.calibration.json: not a file" err
ok $? "it names the path: $(cat err)"
is "$(sha demo.db.calibration.json)" "$rep_sha" "and no other store's report was replaced"
ok $(ls | grep -q '\.tmp[0-9]'; [ $? = 1 ]; echo $?) "no temporary file is left"

# ---- staleness ------------------------------------------------------------------

cp demo.db d2.db
run calibrate --db d2.db --queries fit.jsonl --eval --db d2.db --queries held.jsonl
is "$rc" 0 "calibrate on a copy"
run add --db d2.db "A new memory after the calibration"
run health --db d2.db
grep -q "d2.db.calibration.json: STALE" out && grep -q "stale because the store's content changed" out
ok $? "a changed store makes the report stale"
run health --db d2.db --json
python3 -c 'import json,sys; c=json.load(sys.stdin)["calibration"]; sys.exit(not (c["stale"] and "content changed" in c["why"]))' <out
ok $? "health --json says stale and why"
run calibrate --db demo.db --queries fit.jsonl --eval --db demo.db --queries held.jsonl --weights bm25=2
run health --db demo.db
grep -q "stale because the engine configuration changed" out
ok $? "a report made under another configuration is stale for the default one"
run calibrate --db demo.db --queries fit.jsonl --eval --db demo.db --queries held.jsonl --first-stage none
run health --db demo.db
grep -q "stale because the engine configuration changed" out
ok $? "so is one made with another first stage (--first-stage none)"
run health --db demo.db --profile other
grep -q "stale because .*made for another profile" out
ok $? "another profile: stale"

# ---- the browser: c from the abstention banner --------------------------------------

if ! command -v tmux >/dev/null; then
    echo "# SKIP the browser part: tmux is missing"
    tap_done
    exit
fi
cal >/dev/null
WAIT=${MEMSCOPE_TEST_WAIT:-300}
. "$HERE/tmux.sh" # screen, settle, wait_for, wait_gone, wait_rc, keys, type_text
# start DB: a fresh tmux session running the browser on DB at 100x40 (a
# server that is still shutting down can refuse us for a moment).
start() {
    tm_start 100 40 "env TERM=xterm-256color LANG=C.UTF-8 $MEMSCOPE --db $1; sleep 600"
}
start "$T/demo.db"
wait_for "Query ▸"
tm send-keys -t t -l -- "What is the capital of Australia?"
keys Enter
wait_for "ABSTAINED"
wait_for "c (from the results): the calibration report"
ok $? "the abstention banner offers the calibration report"
keys c
wait_for "Risk-coverage"
ok $? "c opens the calibration picture"
grep -q "current for this store and configuration" "$T/screen"
ok $? "the browser says the report is current"
grep -q "the floor keeps" "$T/screen" && grep -q "Reliability" "$T/screen"
ok $? "the same picture as calibrate --plot"
keys x
wait_for "ABSTAINED"
ok $? "another key closes it"
keys '?'
wait_for "Why not"
found=1 # page through the help until the entry shows
for ((page = 0; page < 20 && found; page++)); do
    sleep 0.3
    screen
    grep -qE "^ *c +the calibration report" "$T/screen" && found=0 || keys NPage
done
ok $found "the help lists c"
keys q
start "$T/d2.db"
wait_for "Query ▸"
keys Tab c
wait_for "STALE"
ok $? "on a changed store the browser says the report is stale"
tm kill-server 2>/dev/null

tap_done
