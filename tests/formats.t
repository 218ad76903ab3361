#!/bin/bash
# formats.t - other memory systems' files through the real binary: the MCP
# memory server's knowledge graph (our fixture, and the file the server
# itself wrote in ../shared when it is there), and mem0 OpenMemory's
# memories.json and memories.jsonl(.gz): what each field becomes, what is
# not imported, `auto` recognising each, and bad input (not the claimed kind,
# corrupt, missing fields): one line naming the file and the reason, exit 1,
# the store byte-for-byte unchanged.
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

# snap DB: export DB once into DB.jsonl, for field
snap() { "$MEMSCOPE" export --db "$1" >"$1.jsonl"; }

# field DB ID KEY: one field of memory ID in DB's snap (JSON text for
# objects and arrays, the string itself for strings); "" when absent.
field() {
    python3 -c '
import json, sys
want, key = sys.argv[2], sys.argv[3]
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("id") == want:
        v = m
        for k in key.split("."):
            v = v.get(k) if isinstance(v, dict) else None
        if v is not None:
            print(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, separators=(",", ":")))
' "$1.jsonl" "$2" "$3"
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
id=$(python3 -c '
import json, sys
for l in open("mcp.db.jsonl"):
    m = json.loads(l)
    if m["content"] == "Is allergic to walnuts": print(m["id"])')
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
    ok 0 "# SKIP ../shared/fixtures/mcp-memory/memory.jsonl is absent"
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
    is "$(sed -n 2p out)" "not imported: 2 the source marks deleted or archived" \
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

tap_done
