-- schema.sql - the tables of a SuperLocalMemory 4.0.x store (slm_schema_version
-- 42) that memscope's importer reads, written for memscope's tests from SLM's
-- published schema (qualixar/superlocalmemory: src/superlocalmemory/storage/
-- schema.py and storage/migrations/). Only what the importer reads, in SLM's
-- column names and types; tests/slm/make-store.sh fills it.
PRAGMA journal_mode = WAL;

CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL
    DEFAULT (datetime('now')), description TEXT NOT NULL DEFAULT '');
CREATE TABLE slm_schema_version (id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL, updated_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE profiles (profile_id TEXT PRIMARY KEY, name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '', mode TEXT NOT NULL DEFAULT 'a',
    created_at TEXT NOT NULL DEFAULT (datetime('now')), config_json TEXT NOT NULL DEFAULT '{}');

-- raw turns
CREATE TABLE memories (memory_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL DEFAULT 'default',
    scope TEXT NOT NULL DEFAULT 'personal', shared_with TEXT, content TEXT NOT NULL,
    session_id TEXT NOT NULL DEFAULT '', speaker TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL DEFAULT '', session_date TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')), metadata_json TEXT NOT NULL DEFAULT '{}');

-- the retrievable unit, with the columns migrations add
CREATE TABLE atomic_facts (fact_id TEXT PRIMARY KEY, memory_id TEXT NOT NULL,
    profile_id TEXT NOT NULL DEFAULT 'default', scope TEXT NOT NULL DEFAULT 'personal',
    shared_with TEXT, content TEXT NOT NULL,
    fact_type TEXT NOT NULL DEFAULT 'semantic'
        CHECK (fact_type IN ('episodic', 'semantic', 'opinion', 'temporal')),
    entities_json TEXT NOT NULL DEFAULT '[]', canonical_entities_json TEXT NOT NULL DEFAULT '[]',
    observation_date TEXT, referenced_date TEXT, interval_start TEXT, interval_end TEXT,
    confidence REAL NOT NULL DEFAULT 1.0, importance REAL NOT NULL DEFAULT 0.5,
    evidence_count INTEGER NOT NULL DEFAULT 1, access_count INTEGER NOT NULL DEFAULT 0,
    pinned INTEGER NOT NULL DEFAULT 0,
    source_turn_ids_json TEXT NOT NULL DEFAULT '[]', session_id TEXT NOT NULL DEFAULT '',
    embedding TEXT,
    lifecycle TEXT NOT NULL DEFAULT 'active'
        CHECK (lifecycle IN ('active', 'warm', 'cold', 'archived')),
    quarantined INTEGER NOT NULL DEFAULT 0,
    signal_type TEXT NOT NULL DEFAULT 'factual',
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    archive_status TEXT DEFAULT 'live', archive_reason TEXT, merged_into TEXT,
    valid_from TEXT, valid_until TEXT);

CREATE TABLE canonical_entities (entity_id TEXT PRIMARY KEY,
    profile_id TEXT NOT NULL DEFAULT 'default', scope TEXT NOT NULL DEFAULT 'personal',
    shared_with TEXT, canonical_name TEXT NOT NULL, entity_type TEXT NOT NULL DEFAULT '',
    first_seen TEXT NOT NULL DEFAULT (datetime('now')),
    last_seen TEXT NOT NULL DEFAULT (datetime('now')), fact_count INTEGER NOT NULL DEFAULT 0);
CREATE TABLE entity_aliases (alias_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL DEFAULT 'default',
    entity_id TEXT NOT NULL, alias TEXT NOT NULL, confidence REAL NOT NULL DEFAULT 1.0,
    source TEXT NOT NULL DEFAULT '');
CREATE TABLE fact_entity_associations (profile_id TEXT NOT NULL, fact_id TEXT NOT NULL,
    entity_id TEXT NOT NULL, first_operation_id TEXT, count_applied INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (datetime('now')), PRIMARY KEY (profile_id, fact_id, entity_id));

CREATE TABLE graph_edges (edge_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL DEFAULT 'default',
    scope TEXT NOT NULL DEFAULT 'personal', shared_with TEXT, source_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    edge_type TEXT NOT NULL CHECK (edge_type IN
        ('entity', 'temporal', 'semantic', 'causal', 'contradiction', 'supersedes')),
    weight REAL NOT NULL DEFAULT 1.0, created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE association_edges (edge_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL,
    source_fact_id TEXT NOT NULL, target_fact_id TEXT NOT NULL, association_type TEXT NOT NULL,
    weight REAL NOT NULL DEFAULT 0.5, co_access_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (datetime('now')), last_strengthened TEXT);

CREATE TABLE trust_scores (trust_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL DEFAULT 'default',
    target_type TEXT NOT NULL, target_id TEXT NOT NULL, trust_score REAL NOT NULL DEFAULT 0.5,
    evidence_count INTEGER NOT NULL DEFAULT 0, last_updated TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE provenance (provenance_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL DEFAULT 'default',
    fact_id TEXT NOT NULL, source_type TEXT NOT NULL DEFAULT '', source_id TEXT NOT NULL DEFAULT '',
    created_by TEXT NOT NULL DEFAULT '', timestamp TEXT NOT NULL DEFAULT (datetime('now')));

CREATE TABLE fact_temporal_validity (fact_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL,
    valid_from TEXT, valid_until TEXT, system_created_at TEXT NOT NULL DEFAULT (datetime('now')),
    system_expired_at TEXT, invalidated_by TEXT, invalidation_reason TEXT);
CREATE TABLE fact_retention (fact_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL,
    retention_score REAL NOT NULL DEFAULT 1.0, memory_strength REAL NOT NULL DEFAULT 1.0,
    access_count INTEGER NOT NULL DEFAULT 0, last_accessed_at TEXT, last_computed_at TEXT,
    lifecycle_zone TEXT NOT NULL DEFAULT 'active'
        CHECK (lifecycle_zone IN ('active', 'warm', 'cold', 'archive', 'forgotten')));
CREATE TABLE correction_cases (case_id TEXT PRIMARY KEY, profile_id TEXT NOT NULL,
    scope TEXT NOT NULL, predecessor_fact_id TEXT NOT NULL, successor_fact_id TEXT NOT NULL,
    reason_code TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('proposed', 'applied', 'rejected', 'rolled_back')),
    version INTEGER NOT NULL DEFAULT 0, idempotency_key TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, applied_at TEXT,
    system_effective_at TEXT);

CREATE TABLE embedding_metadata (vec_rowid INTEGER PRIMARY KEY, fact_id TEXT NOT NULL,
    profile_id TEXT NOT NULL, model_name TEXT NOT NULL, dimension INTEGER NOT NULL,
    created_at TEXT NOT NULL DEFAULT (datetime('now')));

INSERT INTO schema_version(version, description) VALUES (1, 'initial schema');
INSERT INTO slm_schema_version(id, version) VALUES (1, 42);
