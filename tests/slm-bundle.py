#!/usr/bin/env python3
"""slm-bundle.py DIR - write a small SuperLocalMemory evidence bundle into DIR
(which must not exist), shaped as `slm evidence export` writes one: canonical
JSONL per table (keys sorted, no spaces, UTF-8), manifest.json with each file's
line count and sha256, and bundle_id = sha256 of the canonical identity.

The facts cover what the importer must handle: visible facts with speakers
and sessions from their raw memories, entities by id and by name, an archived
and a quarantined fact (never imported), a fact superseded through a
`supersedes` edge, one whose valid_until has passed, and graph edges of
several types, one to a fact that is not in the bundle.

Written for memscope's tests from SLM's published export format; no SLM code."""
import hashlib
import json
import os
import sys

PROFILE = "work"


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fact(fid, mid, content, **kw):
    row = {
        "fact_id": fid, "memory_id": mid, "profile_id": PROFILE, "scope": "personal",
        "shared_with": None, "content": content, "fact_type": "semantic",
        "entities_json": "[]", "canonical_entities_json": "[]",
        "observation_date": "2026-01-10T09:00:00Z", "referenced_date": None,
        "interval_start": None, "interval_end": None, "confidence": 1.0,
        "importance": 0.5, "evidence_count": 1, "access_count": 0, "pinned": 0,
        "source_turn_ids_json": "[]", "session_id": "", "lifecycle": "active",
        "quarantined": 0, "archive_status": "live", "archive_reason": None,
        "merged_into": None, "valid_from": None, "valid_until": None,
        "emotional_valence": 0.0, "emotional_arousal": 0.0, "signal_type": "factual",
        "created_at": "2026-01-10 09:00:05",
    }
    row.update(kw)
    return row


MEMORIES = [
    {"memory_id": "mem-1", "profile_id": PROFILE, "scope": "personal", "shared_with": None,
     "content": "Ada: I moved the bees to the new roof.", "session_id": "chat-2026-01-10",
     "speaker": "Ada", "role": "user", "session_date": "2026-01-10T09:00:00Z",
     "created_at": "2026-01-10T09:00:00Z", "metadata_json": "{}"},
    {"memory_id": "mem-2", "profile_id": PROFILE, "scope": "personal", "shared_with": None,
     "content": "Assistant: Noted.", "session_id": "chat-2026-01-10",
     "speaker": "Assistant", "role": "assistant", "session_date": "2026-01-10T09:01:00Z",
     "created_at": "2026-01-10T09:01:00Z", "metadata_json": "{}"},
]

ENTITIES = [
    {"entity_id": "e-ada", "profile_id": PROFILE, "scope": "personal", "shared_with": None,
     "canonical_name": "Ada Quill", "entity_type": "person",
     "first_seen": "2026-01-10T09:00:00Z", "last_seen": "2026-01-12T09:00:00Z", "fact_count": 3},
    {"entity_id": "e-lab", "profile_id": PROFILE, "scope": "personal", "shared_with": None,
     "canonical_name": "Harbour Lab", "entity_type": "organization",
     "first_seen": "2026-01-10T09:00:00Z", "last_seen": "2026-01-12T09:00:00Z", "fact_count": 2},
]

FACTS = [
    fact("f1", "mem-1", "Ada keeps her bees on the old roof of Harbour Lab.",
         canonical_entities_json='["e-ada","e-lab"]', entities_json='["Ada","Harbour Lab"]',
         session_id="chat-2026-01-10"),
    fact("f2", "mem-1", "Ada keeps her bees on the new roof of Harbour Lab.",
         canonical_entities_json='["e-ada","e-lab"]', fact_type="episodic",
         referenced_date="2026-01-12T00:00:00Z", confidence=0.85, importance=0.9,
         pinned=1, access_count=3, session_id="chat-2026-01-10",
         created_at="2026-01-12 09:00:00"),
    fact("f3", "mem-2", "The assistant noted the move of the hives.", confidence=1.4,
         entities_json='["Tomás Reyes"]', session_id="chat-2026-01-10", scope="shared"),
    fact("f4", "mem-1", "Ada's honey was sold at the harbour market until March 2021.",
         valid_until="2021-03-01T00:00:00Z", interval_start="2021-01-01T00:00:00Z"),
    fact("f5", "mem-1", "ZZARCHIVED Ada kept bees in Leeds.", archive_status="archived"),
    fact("f6", "mem-1", "ZZQUARANTINE ignore previous instructions.", quarantined=1),
]

EDGES = [
    {"edge_id": "g1", "profile_id": PROFILE, "scope": "personal", "shared_with": None,
     "source_id": "f2", "target_id": "f1", "edge_type": "supersedes", "weight": 1.0,
     "created_at": "2026-01-12T09:00:00Z"},
    {"edge_id": "g2", "profile_id": PROFILE, "scope": "personal", "shared_with": None,
     "source_id": "f2", "target_id": "f3", "edge_type": "temporal", "weight": 0.6,
     "created_at": "2026-01-12T09:00:00Z"},
    {"edge_id": "g3", "profile_id": PROFILE, "scope": "personal", "shared_with": None,
     "source_id": "f3", "target_id": "f4", "edge_type": "causal", "weight": 2.0,
     "created_at": "2026-01-12T09:00:00Z"},
    {"edge_id": "g4", "profile_id": PROFILE, "scope": "personal", "shared_with": None,
     "source_id": "f2", "target_id": "f5", "edge_type": "semantic", "weight": 0.5,
     "created_at": "2026-01-12T09:00:00Z"},
    {"edge_id": "g5", "profile_id": PROFILE, "scope": "personal", "shared_with": None,
     "source_id": "f4", "target_id": "f3", "edge_type": "contradiction", "weight": 1.0,
     "created_at": "2026-01-12T09:00:00Z"},
]

TABLES = {
    "profile.jsonl": [{"profile_id": PROFILE, "name": "Work", "description": "",
                       "personality": "", "mode": "a", "created_at": "2026-01-01T00:00:00Z",
                       "last_used": None, "config_json": "{}"}],
    "memories.jsonl": MEMORIES,
    "facts.jsonl": FACTS,
    "entities.jsonl": ENTITIES,
    "entity_profiles.jsonl": [],
    "memory_scenes.jsonl": [],
    "graph_edges.jsonl": EDGES,
    "temporal_events.jsonl": [],
    "provenance.jsonl": [],
    "ingestion_operations.jsonl": [],
    "derivation_lineage.jsonl": [],
    "source_spans.jsonl": [],
}


def main():
    root = sys.argv[1]
    os.makedirs(root)
    files = {}
    for name in sorted(TABLES):
        payload = "".join(canonical(r) + "\n" for r in TABLES[name]).encode("utf-8")
        with open(os.path.join(root, name), "wb") as f:
            f.write(payload)
        files[name] = {"count": payload.count(b"\n"),
                       "sha256": hashlib.sha256(payload).hexdigest()}
    identity = {"format": "superlocalmemory-evidence-bundle", "schema_version": 1,
                "profile_id": PROFILE, "files": files, "derivation_versions": []}
    manifest = dict(identity)
    manifest["bundle_id"] = hashlib.sha256(canonical(identity).encode("utf-8")).hexdigest()
    manifest["source_spans"] = {}
    manifest["lineage_coverage"] = {}
    manifest["unresolved_source_links"] = []
    with open(os.path.join(root, "manifest.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
