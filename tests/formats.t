#!/bin/bash
# formats.t - other memory systems' files through the real binary: the MCP
# memory server's knowledge graph (our fixture, and the file the server
# itself wrote in ../shared when it is there), mem0 OpenMemory's
# memories.json and memories.jsonl(.gz), and SLM's evidence bundle (made by
# tests/slm-bundle.py): what each field becomes, what is not imported,
# `auto` recognising each, and bad input (not the claimed kind, corrupt,
# missing fields, a bundle file that does not match its manifest): one line
# naming the file and the reason, exit 1, the store byte-for-byte unchanged.
#
# Needs $MEMSCOPE, python3, gzip and sha256sum. Works in a temporary
# directory that it removes.
set -u

. "$(dirname "$0")/tap.sh"
command -v python3 >/dev/null || bail "python3 is needed"
command -v gzip >/dev/null || bail "gzip is needed"

SRC=$(cd "$(dirname "$0")/.." && pwd)
DATA=$SRC/tests/data
SHARED_MCP=$SRC/../shared/fixtures/mcp-memory/memory.jsonl
T=$(mktemp -d "${TMPDIR:-/tmp}/memscope-formats-t.XXXXXX") || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
cd "$T" || bail "cannot enter $T"
unset MEMSCOPE_DB MEMSCOPE_PROFILE
export HOME="$T/home" XDG_DATA_HOME="$T/xdg"
mkdir -p "$HOME"

# snap DB: export DB into DB.jsonl, and every field of every memory, one
# "ID<TAB>KEY<TAB>VALUE" a line, into DB.fields for field (one python run
# per store: python starts slowly on a loaded machine)
snap() {
    "$MEMSCOPE" export --db "$1" >"$1.jsonl"
    python3 -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    def out(key, v):
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, separators=(",", ":"))
        print("%s\t%s\t%s" % (m["id"], key, text))
    for k, v in m.items():
        out(k, v)
        if isinstance(v, dict):
            for k2, v2 in v.items():
                out(k + "." + k2, v2)
' "$1.jsonl" >"$1.fields"
}

# field DB ID KEY: one field of memory ID in DB's snap (JSON text for
# objects and arrays, the string itself for strings); "" when absent.
field() {
    awk -F'\t' -v id="$2" -v key="$3" '$1 == id && $2 == key { print $3 }' "$1.fields"
}

# edges_of DB ID TYPE: how many edges of TYPE `show` lists for ID
edges_of() {
    "$MEMSCOPE" show --db "$1" "$2" | grep -c "^ *\(edges \)\? *$3 [0-9]"
}

# A store every bad-input case must leave as it was.
printf '%s\n' '{"id":"s1","content":"Leah moved to Easton in May","created_at":"2025-05-01T10:00:00Z"}' >seed.jsonl
run import --db base.db seed.jsonl
[ "$rc" -eq 0 ] || bail "cannot build the seed store: $(cat err)"

# bad NAME FILE WANT [IMPORT OPTIONS...]: importing FILE fails with exit 1
# and one stderr line starting "memscope: WANT", and the store is unchanged.
bad() {
    local name=$1 file=$2 want=$3
    shift 3
    cp base.db work.db
    local before
    before=$(sha work.db)
    run import --db work.db "$@" "$file"
    is "$rc" 1 "$name: exit status 1"
    is "$(lines err)" 1 "$name: one line on stderr"
    case "$(head -n 1 err)" in
    "memscope: $want"*) ok 0 "$name: $want..." ;;
    *) ok 1 "$name: $want..."; diag "got: $(head -n 1 err)" ;;
    esac
    is "$(sha work.db)" "$before" "$name: the store is byte-for-byte unchanged"
}

# ---- the MCP memory server --------------------------------------------------

run import --db mcp.db "$DATA/mcp-memory.jsonl"
is "$rc" 0 "mcp-memory: auto recognises the knowledge graph and imports it"
is "$(head -n 1 out | cut -d' ' -f1-5)" "imported 4 memories (4 new," \
    "mcp-memory: one memory per observation (an entity without observations gives none)"
# Ada 2 x Lab 1 (works_at) + Tomás 1 x Ada 2 (neighbour_of); Quiet Project has
# no memory, Nobody Known is no entity: those relations link nothing
is "$(sed -n 2p out)" "links: 4 edges the source recorded between memories" \
    "mcp-memory: relations become edges between the entities' memories"
snap mcp.db
id=$(awk -F'\t' '$2 == "content" && $3 == "Is allergic to walnuts" { print $1 }' mcp.db.fields)
case "$id" in mcp-????????????????) ok 0 "mcp-memory: an observation gets a stable id ($id)" ;;
*) ok 1 "mcp-memory: an observation gets a stable id"; diag "got '$id'" ;; esac
is "$(field mcp.db "$id" entities)" '["Ada Quill"]' "mcp-memory: the observation's entity is linked"
is "$(field mcp.db "$id" metadata.entity_type)" "person" "mcp-memory: the entity's type is kept"
is "$(field mcp.db "$id" metadata.relations)" \
    '["Ada Quill works_at Harbour Lab","Tomás Reyes neighbour_of Ada Quill","Ada Quill writes_to Nobody Known"]' \
    "mcp-memory: every relation of the entity, both directions, is kept"
is "$(field mcp.db "$id" source)" "mcp-memory" "mcp-memory: source names the format"
is "$(edges_of mcp.db "$id" relation)" 2 \
    "mcp-memory: Ada's observation has relation edges to Harbour Lab's and Tomás's memories"
run recall --db mcp.db "What is Ada allergic to?"
case "$(sed -n 1,4p out)" in *"Is allergic to walnuts"*) ok 0 "mcp-memory: recall finds the observation" ;;
*) ok 1 "mcp-memory: recall finds the observation"; diag "$(cat out)" ;; esac
run import --db mcp.db --on-duplicate replace --format mcp-memory "$DATA/mcp-memory.jsonl"
is "$(head -n 1 out | cut -d' ' -f1-7)" "imported 4 memories (0 new, 4 replaced," \
    "mcp-memory: importing again finds the same ids"

if [ -r "$SHARED_MCP" ]; then
    run import --db shared-mcp.db "$SHARED_MCP"
    want=$(python3 -c '
import json, sys
print(sum(len(o["observations"]) for o in map(json.loads, open(sys.argv[1])) if o["type"] == "entity"))' "$SHARED_MCP")
    is "$(head -n 1 out | cut -d' ' -f1-3)" "imported $want memories" \
        "the server's own memory.jsonl: one memory per observation ($want)"
    "$MEMSCOPE" export --db shared-mcp.db >shared.jsonl
    ok "$(python3 - "$SHARED_MCP" shared.jsonl <<'PY'
import json, sys
graph = [json.loads(l) for l in open(sys.argv[1])]
mems = [json.loads(l) for l in open(sys.argv[2])]
got = sorted((m["entities"][0], m["metadata"]["entity_type"], m["content"]) for m in mems)
want = sorted((e["name"], e["entityType"], o) for e in graph if e["type"] == "entity"
              for o in e["observations"])
sys.exit(0 if got == want else 1)
PY
        echo $?)" "the server's own memory.jsonl: every observation with its entity and type, nothing else"
    rels=$(grep -c '"type":"relation"' "$SHARED_MCP")
    run show --db shared-mcp.db "$(python3 -c '
import json
for l in open("shared.jsonl"):
    m = json.loads(l)
    if m["entities"] == ["Kestrel"]: print(m["id"])')"
    is "$(grep -c 'relation 1.00' out)" 2 \
        "the server's own memory.jsonl: Kestrel owned_by Westway Buses links to its 2 memories ($rels relations in all)"
else
    skip "../shared/fixtures/mcp-memory/memory.jsonl is absent" 3 # the 3 checks above
fi

printf '%s\n' '{"type":"entity","name":"Ada","entityType":"person","observations":["a"]}' \
    '{"type":"entity","name":"Bo","observations":["b"]}' >mcp-missing.jsonl
bad "mcp-memory, an entity without entityType" mcp-missing.jsonl "mcp-missing.jsonl:2:1: an entity needs" \
    --format mcp-memory
printf '%s\n' '{"type":"entity","name":"Ada","entityType":"person","observations":["a"]}' \
    '{"type":"entity","name":"Bo","entityType":"person","observations":["b"' >mcp-cut.jsonl
bad "mcp-memory, a line cut short" mcp-cut.jsonl "mcp-cut.jsonl:2:" --format mcp-memory
printf '%s\n' '{"type":"entity","name":"Ada","entityType":"person","observations":[7]}' >mcp-obs.jsonl
bad "mcp-memory, an observation that is no string" mcp-obs.jsonl \
    "mcp-obs.jsonl:1:1: entity \"Ada\": every observation must be a string" --format mcp-memory
bad "mcp-memory, not the claimed kind (memory JSONL)" seed.jsonl \
    "seed.jsonl:1:1: not a line of an MCP memory graph" --format mcp-memory

# ---- mem0 OpenMemory --------------------------------------------------------

gzip -c "$DATA/mem0-memories.jsonl" >memories.jsonl.gz
for f in "$DATA/mem0-memories.json" memories.jsonl.gz "$DATA/mem0-memories.jsonl"; do
    name=mem0:${f##*/}
    db=mem0-${f##*/}.db
    run import --db "$db" "$f"
    snap "$db"
    is "$rc" 0 "$name: auto recognises it and imports it"
    is "$(head -n 1 out | cut -d' ' -f1-5)" "imported 3 memories (3 new," "$name: the active and the paused memory"
    is "$(sed -n 2p out)" "not imported: 2 the source marks deleted, archived or quarantined" \
        "$name: the archived and the deleted one are not imported, and counted"
    run list --db "$db"
    ok "$(grep -c 'ZZ' out)" "$name: no archived or deleted text in list"
    m1=2d4a8e1c-1111-4b2a-9c3d-000000000001
    is "$(field "$db" $m1 created_at)" "2025-03-02T10:15:30Z" "$name: created_at in UTC"
    is "$(field "$db" $m1 metadata.app)" "claude" "$name: the app"
    is "$(field "$db" $m1 metadata.categories)" '["health"]' "$name: the categories, by name"
    is "$(field "$db" $m1 metadata.updated_at)" "2025-03-05T08:00:00+00:00" "$name: when mem0 last updated it"
    is "$(field "$db" $m1 metadata.mem0)" '{"source":"chat","confidence":"high"}' "$name: mem0's own metadata"
    is "$(field "$db" 2d4a8e1c-1111-4b2a-9c3d-000000000002 metadata.state)" "paused" "$name: a paused memory says so"
    is "$(field "$db" 2d4a8e1c-1111-4b2a-9c3d-000000000005 content)" "Plays the cello with Tomás on Thursdays" \
        "$name: content as it is"
done
is "$(field mem0-mem0-memories.json.db 2d4a8e1c-1111-4b2a-9c3d-000000000001 metadata.user)" "ada" \
    "mem0: memories.json names its user"
# memory JSONL whose metadata holds "state" and "categories" (as memscope's
# export of mem0's memories does) is still memory JSONL
printf '%s\n' '{"id":"j1","content":"c","metadata":{"state":"paused","categories":["a"]}}' >meta.jsonl
run import --db meta.db meta.jsonl
snap meta.db
is "$(field meta.db j1 metadata)" '{"state":"paused","categories":["a"]}' \
    "mem0: auto leaves memory JSONL with such metadata to the JSONL reader"
run import --db mem0-again.db mem0-mem0-memories.json.db.jsonl
snap mem0-again.db
is "$(sha mem0-again.db.jsonl)" "$(sha mem0-mem0-memories.json.db.jsonl)" \
    "mem0: export -> import (auto) -> export of the imported memories is identical"

head -c 60 memories.jsonl.gz >cut.jsonl.gz
bad "mem0, a gzip file cut short" cut.jsonl.gz "cut.jsonl.gz:1: corrupt compressed data"
printf '%s\n' '{"id": "x1", "content": "a", "state": "forgotten"}' >mem0-state.jsonl
bad "mem0, an unknown state" mem0-state.jsonl "mem0-state.jsonl:1: memory x1: \"state\" must be" --format mem0
printf '%s\n' '{"id": "x1", "state": "active", "app": null, "categories": []}' >mem0-nocontent.jsonl
bad "mem0, a memory without content" mem0-nocontent.jsonl "mem0-nocontent.jsonl:1: memory x1 has no \"content\"" \
    --format mem0
sed 's/"memories": \[/"memories": [ 7,/' "$DATA/mem0-memories.json" >mem0-bad.json
bad "mem0, a memories.json entry that is no object" mem0-bad.json \
    "mem0-bad.json: memories[0]: expected a mem0 memory object" --format mem0
sed '3s/"id"/"id" "/' "$DATA/mem0-memories.json" >mem0-broken.json
bad "mem0, malformed JSON" mem0-broken.json "mem0-broken.json:3:" --format mem0
bad "mem0, not the claimed kind (an MCP graph)" "$DATA/mcp-memory.jsonl" \
    "$DATA/mcp-memory.jsonl:1: not a mem0 memory" --format mem0

# ---- SLM evidence bundle ----------------------------------------------------

python3 "$SRC/tests/slm-bundle.py" bundle || bail "tests/slm-bundle.py failed"
run import --db slm.db bundle
snap slm.db
is "$rc" 0 "slm-bundle: auto recognises the bundle directory and imports it"
is "$(head -n 1 out | cut -d' ' -f1-5)" "imported 4 memories (4 new," "slm-bundle: the four visible facts"
is "$(sed -n 2p out)" "not imported: 2 the source marks deleted, archived or quarantined" \
    "slm-bundle: the archived and the quarantined fact are not imported"
# temporal f2-f3 and causal f3-f4; supersedes is supersession, semantic f2-f5 ends at a hidden fact
is "$(sed -n 3p out)" "links: 2 edges the source recorded between memories" "slm-bundle: graph edges between imported facts"
is "$(sed -n 4p out)" "contradictions: 1 the source recorded between memories" \
    "slm-bundle: a contradiction edge is a contradicts relation, not an edge"
is "$(sqlite3 slm.db "SELECT a.id || ' ' || b.id || ': ' || r.reason FROM relations r JOIN memories a ON a.rid = r.src JOIN memories b ON b.rid = r.dst WHERE r.kind = 2")" \
    "f4 f3: contradiction edge (SuperLocalMemory)" "slm-bundle: f4 contradicts f3, as the SLM importer records it"
run list --db slm.db
ok "$(grep -c 'ZZ' out)" "slm-bundle: no archived or quarantined text in list"
is "$(field slm.db f2 speaker)/$(field slm.db f2 session)" "Ada/chat-2026-01-10" \
    "slm-bundle: speaker and session from the raw memory"
is "$(field slm.db f2 event_time)" "2026-01-12T00:00:00Z" "slm-bundle: event_time from referenced_date"
is "$(field slm.db f4 event_time)" "2021-01-01T00:00:00Z" "slm-bundle: else from interval_start"
is "$(field slm.db f1 event_time)" "2026-01-10T09:00:00Z" "slm-bundle: else observation_date"
is "$(field slm.db f2 memory_confidence)/$(field slm.db f2 importance)/$(field slm.db f2 pinned)" "0.85/0.9/true" \
    "slm-bundle: confidence, importance, pinned"
is "$(field slm.db f3 memory_confidence)" "1" "slm-bundle: confidence clamped to 1"
is "$(field slm.db f2 entities)" '["Ada Quill","Harbour Lab"]' "slm-bundle: entity ids become canonical names"
is "$(field slm.db f3 entities)" '["Tomás Reyes"]' "slm-bundle: entities_json when there are no canonical ones"
is "$(field slm.db f2 metadata)" '{"fact_type":"episodic","scope":"personal","lifecycle":"active","memory_id":"mem-1","slm_profile":"work"}' \
    "slm-bundle: fact_type, scope, lifecycle, memory and profile as metadata"
is "$(field slm.db f1 superseded_by)/$(field slm.db f1 superseded_at)" "f2/2026-01-12T09:00:00Z" \
    "slm-bundle: a supersedes edge: superseded by its source, since the edge"
is "$(field slm.db f4 superseded_at)/$(field slm.db f4 superseded_reason)" "2021-03-01T00:00:00Z/valid_until passed" \
    "slm-bundle: a passed valid_until supersedes"
is "$(field slm.db f2 superseded_by)" "" "slm-bundle: the newer fact is not superseded"
is "$(edges_of slm.db f3 relation)" 1 "slm-bundle: a causal edge is a relation edge"
run import --db slm.db --format slm-bundle --on-duplicate replace bundle/manifest.json
is "$(head -n 1 out | cut -d' ' -f1-7)" "imported 4 memories (0 new, 4 replaced," \
    "slm-bundle: the manifest's path names the bundle too"
run show --db slm.db f3
is "$(grep -c 'temporal 0.60 -> f2' out)" 1 "slm-bundle: importing again leaves an edge's weight as it was"

# tamper CASE CODE [FILE...]: a fresh copy of the bundle in b-CASE, changed
# by the python CODE (run inside it); with FILEs (or "-" for none), its
# manifest is then made consistent again as a forger would: each FILE's
# sha256 and count, then the bundle_id
tamper() {
    local name=$1 code=$2
    shift 2
    rm -rf "b-$name"
    cp -r bundle "b-$name"
    (cd "b-$name" && python3 -c "import hashlib, json, os, sys
$code
if len(sys.argv) > 1:
    m = json.load(open('manifest.json'))
    for f in sys.argv[1:]:
        if f != '-':
            p = open(f, 'rb').read()
            m['files'][f] = {'count': p.count(b'\\n'), 'sha256': hashlib.sha256(p).hexdigest()}
    ident = {k: m[k] for k in ('format', 'schema_version', 'profile_id', 'files', 'derivation_versions')}
    text = json.dumps(ident, sort_keys=True, separators=(',', ':'), ensure_ascii=False)
    m['bundle_id'] = hashlib.sha256(text.encode('utf-8')).hexdigest()
    json.dump(m, open('manifest.json', 'w'), indent=2, ensure_ascii=False)" "$@")
}
tamper edit "open('facts.jsonl', 'a').write('{}\n')"
bad "slm-bundle, a file changed" b-edit "b-edit/facts.jsonl: sha256 "
tamper resealed "
p = open('facts.jsonl', 'rb').read().replace(b'old roof', b'OLD roof')
open('facts.jsonl', 'wb').write(p)
m = json.load(open('manifest.json'))
m['files']['facts.jsonl']['sha256'] = hashlib.sha256(p).hexdigest()
json.dump(m, open('manifest.json', 'w'), indent=2)"
bad "slm-bundle, a file changed and its sha256 in the manifest too" b-resealed \
    "b-resealed/manifest.json: \"bundle_id\" does not match"
tamper gone "import os; os.remove('memories.jsonl')"
bad "slm-bundle, a listed file missing" b-gone "b-gone/memories.jsonl: listed in the manifest but missing"
tamper newer "
m = json.load(open('manifest.json')); m['schema_version'] = 2
json.dump(m, open('manifest.json', 'w'))"
bad "slm-bundle, a newer bundle schema" b-newer "b-newer/manifest.json: bundle schema_version 2; this memscope reads version 1"
tamper kind "
m = json.load(open('manifest.json')); m['format'] = 'something-else'
json.dump(m, open('manifest.json', 'w'))"
bad "slm-bundle, not the claimed kind" b-kind "b-kind/manifest.json: not an SLM evidence bundle: \"format\" is \"something-else\""
tamper escape "
m = json.load(open('manifest.json')); m['files']['../seed.jsonl'] = {'count': 1, 'sha256': '0' * 64}
json.dump(m, open('manifest.json', 'w'))" -
bad "slm-bundle, a manifest naming a file outside the bundle" b-escape \
    "b-escape/manifest.json: \"files\": entry \"../seed.jsonl\" needs a plain file name"
tamper count "
m = json.load(open('manifest.json')); m['files']['facts.jsonl']['count'] = 7
json.dump(m, open('manifest.json', 'w'))" -
bad "slm-bundle, a line count that differs from the manifest" b-count \
    "b-count/facts.jsonl: 6 lines, the manifest says 7"
tamper fact "
p = open('facts.jsonl', 'rb').read().replace(b'\"content\":\"Ada keeps her bees on the old', b'\"kontent\":\"Ada keeps her bees on the old')
open('facts.jsonl', 'wb').write(p)" facts.jsonl
bad "slm-bundle, a fact without content (a consistent bundle)" b-fact "b-fact/facts.jsonl:1:1: a fact needs"
tamper json "open('entities.jsonl', 'a').write('{\"entity_id\": \\n')" entities.jsonl
bad "slm-bundle, malformed JSON in a table (a consistent bundle)" b-json "b-json/entities.jsonl:3:"
mkdir -p empty
bad "slm-bundle, a directory without a manifest" empty "empty: not an SLM evidence bundle: it has no manifest.json" \
    --format slm-bundle

tap_done
