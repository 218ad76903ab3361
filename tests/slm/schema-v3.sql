-- schema-v3.sql - an old SuperLocalMemory store (V3, schema_version 1, before
-- the migrations that add pinned, quarantined, archive_status, valid_until,
-- fact_temporal_validity, fact_retention, correction_cases,
-- fact_entity_associations and embedding_metadata): facts carry their
-- entities as JSON and their vectors as JSON text. Written for memscope's
-- tests from SLM's published V3 schema (storage/schema.py).
CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL
    DEFAULT (datetime('now')), description TEXT NOT NULL DEFAULT '');
CREATE TABLE memories (memory_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL DEFAULT 'default',
    content TEXT NOT NULL, session_id TEXT NOT NULL DEFAULT '', speaker TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL DEFAULT '', session_date TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')), metadata_json TEXT NOT NULL DEFAULT '{}');
CREATE TABLE atomic_facts (fact_id TEXT PRIMARY KEY, memory_id TEXT NOT NULL,
    profile_id TEXT NOT NULL DEFAULT 'default', content TEXT NOT NULL,
    fact_type TEXT NOT NULL DEFAULT 'semantic',
    entities_json TEXT NOT NULL DEFAULT '[]', canonical_entities_json TEXT NOT NULL DEFAULT '[]',
    observation_date TEXT, referenced_date TEXT, interval_start TEXT, interval_end TEXT,
    confidence REAL NOT NULL DEFAULT 1.0, importance REAL NOT NULL DEFAULT 0.5,
    evidence_count INTEGER NOT NULL DEFAULT 1, access_count INTEGER NOT NULL DEFAULT 0,
    session_id TEXT NOT NULL DEFAULT '', embedding TEXT,
    lifecycle TEXT NOT NULL DEFAULT 'active', created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE graph_edges (edge_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL DEFAULT 'default',
    source_id TEXT NOT NULL, target_id TEXT NOT NULL, edge_type TEXT NOT NULL,
    weight REAL NOT NULL DEFAULT 1.0, created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE trust_scores (trust_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL DEFAULT 'default',
    target_type TEXT NOT NULL, target_id TEXT NOT NULL, trust_score REAL NOT NULL DEFAULT 0.5,
    evidence_count INTEGER NOT NULL DEFAULT 0, last_updated TEXT NOT NULL DEFAULT (datetime('now')));
INSERT INTO schema_version(version, description) VALUES (1, 'initial schema');
