#!/bin/bash
# make-store.sh KIND DIR - write a small SuperLocalMemory store, DIR/memory.db,
# from memscope's own DDL (tests/slm/schema.sql, schema-v3.sql) with rows that
# exercise every rule of `memscope import --format slm` (docs/STORES.md):
#
#   current  schema 42, two profiles "work" and "home":
#     f1  trust row (0.8, n=3), pinned, confidence 1.2 (clamped), referenced_date,
#         entities Ada Lovelace (alias "Ada") and Bletchley, 4-d vector of test-model
#     f2  archived (never imported)        f3  quarantined (never imported)
#     f4  retention zone forgotten (skipped, not in recall)
#     f5  expired: system_expired_at, invalidated_by f6
#     f6  trust from its agent (provenance created_by agent-x: 0.3, n=8), its
#         test-model vector as JSON text (as old rows have it)
#     f7  superseded by a supersedes edge from f8
#     f8  successor; f9 superseded by an applied correction case (f8)
#     f10 valid_until 2020-01-01 (passed)
#     f11 no trust row (0.5 prior), interval_start, a 3-d vector of other-model
#     g1  profile home, scope global (seen by work too)
#     h1  profile home, shared_with ["work"];  h2 profile home only
#     edges: temporal f1-f6 (0.7), entity f1-f8 (0.4), semantic f1-f11,
#     contradiction f6-f10; one association edge
#   old      SLM V3 (schema_version 1): no migrated columns or tables; entities
#            in canonical_entities_json, a vector as JSON text
#   newer    current, with slm_schema_version 43
set -eu
kind=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
db="$dir/memory.db"
rm -f "$db" "$db-wal" "$db-shm"

current() {
    sqlite3 "$db" <"$here/schema.sql" >/dev/null
    sqlite3 "$db" <<'SQL'
INSERT INTO profiles(profile_id, name) VALUES ('work', 'Work'), ('home', 'Home');
INSERT INTO memories(memory_id, profile_id, content, session_id, speaker, created_at) VALUES
 ('r1', 'work', 'raw turn 1', 'sess-a', 'Ada', '2026-01-05T09:00:00Z'),
 ('r2', 'work', 'raw turn 2', 'sess-a', 'Grace', '2026-01-05T09:01:00Z'),
 ('r3', 'home', 'raw turn 3', 'sess-h', 'Ada', '2026-01-06T09:00:00Z');
INSERT INTO atomic_facts(fact_id, memory_id, profile_id, scope, shared_with, content, fact_type,
  observation_date, referenced_date, interval_start, confidence, importance, pinned, session_id,
  embedding, created_at, archive_status, quarantined, valid_until, access_count) VALUES
 ('f1','r1','work','personal',NULL,'Ada Lovelace wrote the first program at Bletchley','semantic',
  '2026-01-05T09:00:00Z','1843-09-01',NULL,1.2,0.9,1,'sess-a',
  X'0000803F000000000000000000000000','2026-01-05T09:00:00Z','live',0,NULL,4),
 ('f2','r1','work','personal',NULL,'ZZARCHIVED an archived copy','semantic',
  '2026-01-05T09:00:00Z',NULL,NULL,1.0,0.5,0,'sess-a',NULL,'2026-01-05T09:00:01Z','archived',0,NULL,0),
 ('f3','r1','work','personal',NULL,'ZZQUARANTINE a quarantined copy','semantic',
  '2026-01-05T09:00:00Z',NULL,NULL,1.0,0.5,0,'sess-a',NULL,'2026-01-05T09:00:02Z','live',1,NULL,0),
 ('f4','r1','work','personal',NULL,'ZZFORGOTTEN a forgotten fact','episodic',
  '2026-01-05T09:00:00Z',NULL,NULL,1.0,0.5,0,'sess-a',NULL,'2026-01-05T09:00:03Z','live',0,NULL,0),
 ('f5','r2','work','personal',NULL,'Grace works at the Harvard lab','semantic',
  '2026-01-05T09:01:00Z',NULL,NULL,0.7,0.5,0,'sess-a',NULL,'2026-01-05T09:01:00Z','live',0,NULL,0),
 ('f6','r2','work','personal',NULL,'Grace moved to the Navy computing unit','semantic',
  '2026-02-10T10:00:00Z',NULL,NULL,0.9,0.6,0,'sess-a','[0.0, 1.0, 0.0, 0.0]',
  '2026-02-10T10:00:00Z','live',0,NULL,0),
 ('f7','r2','work','personal',NULL,'The compiler ships in March','temporal',
  '2026-01-07T10:00:00Z',NULL,NULL,0.8,0.5,0,'sess-b',NULL,'2026-01-07T10:00:00Z','live',0,NULL,0),
 ('f8','r2','work','personal',NULL,'The compiler ships in May after the review','temporal',
  '2026-03-01T10:00:00Z',NULL,NULL,0.8,0.5,0,'sess-b',NULL,'2026-03-01T10:00:00Z','live',0,NULL,0),
 ('f9','r2','work','personal',NULL,'The review is in April','temporal',
  '2026-01-08T10:00:00Z',NULL,NULL,0.8,0.5,0,'sess-b',NULL,'2026-01-08T10:00:00Z','live',0,NULL,0),
 ('f10','r2','work','personal',NULL,'The lab badge is valid until 2020','opinion',
  '2019-06-01T10:00:00Z',NULL,NULL,0.6,0.5,0,'sess-b',NULL,'2019-06-01T10:00:00Z','live',0,
  '2020-01-01T00:00:00Z',0),
 ('f11','r2','work','personal',NULL,'Grace found a moth in the relay','episodic',
  '2026-01-09T10:00:00Z',NULL,'1947-09-09T15:45:00Z',0.5,0.4,0,'sess-b',
  X'0000803F000000000000003F','2026-01-09T10:00:00Z','live',0,NULL,0),
 ('g1','r3','home','global',NULL,'The team motto is ship it','semantic',
  '2026-01-06T09:00:00Z',NULL,NULL,1.0,0.5,0,'sess-h',NULL,'2026-01-06T09:00:00Z','live',0,NULL,0),
 ('h1','r3','home','personal','["work"]','Ada lives in Marylebone','semantic',
  '2026-01-06T09:01:00Z',NULL,NULL,1.0,0.5,0,'sess-h',NULL,'2026-01-06T09:01:00Z','live',0,NULL,0),
 ('h2','r3','home','personal',NULL,'Ada keeps bees','semantic',
  '2026-01-06T09:02:00Z',NULL,NULL,1.0,0.5,0,'sess-h',NULL,'2026-01-06T09:02:00Z','live',0,NULL,0);
INSERT INTO canonical_entities(entity_id, profile_id, canonical_name, entity_type) VALUES
 ('e1','work','Ada Lovelace','person'), ('e2','work','Bletchley','place');
INSERT INTO entity_aliases(alias_id, profile_id, entity_id, alias) VALUES ('a1','work','e1','Ada');
INSERT INTO fact_entity_associations(profile_id, fact_id, entity_id) VALUES
 ('work','f1','e1'), ('work','f1','e2');
INSERT INTO trust_scores(trust_id, profile_id, target_type, target_id, trust_score, evidence_count) VALUES
 ('t1','work','fact','f1',0.8,3), ('t2','work','agent','agent-x',0.3,8),
 ('t3','work','fact','f5',0.75,6), ('t4','work','fact','f8',1.0,2);
INSERT INTO provenance(provenance_id, profile_id, fact_id, source_type, created_by) VALUES
 ('p1','work','f6','chat','agent-x');
INSERT INTO fact_temporal_validity(fact_id, profile_id, system_created_at, system_expired_at,
  invalidated_by, invalidation_reason) VALUES
 ('f5','work','2026-01-05T09:01:00Z','2026-02-10T10:00:05Z','f6','corrected by a later memory');
INSERT INTO fact_retention(fact_id, profile_id, lifecycle_zone) VALUES
 ('f4','work','forgotten'), ('f1','work','active');
INSERT INTO graph_edges(edge_id, profile_id, source_id, target_id, edge_type, weight) VALUES
 ('ge1','work','f1','f6','temporal',0.7), ('ge2','work','f1','f8','entity',0.4),
 ('ge3','work','f1','f11','semantic',0.9), ('ge4','work','f6','f10','contradiction',1.0),
 ('ge5','work','f8','f7','supersedes',1.0);
INSERT INTO association_edges(edge_id, profile_id, source_fact_id, target_fact_id,
  association_type) VALUES ('ae1','work','f1','f5','co_access');
INSERT INTO correction_cases(case_id, profile_id, scope, predecessor_fact_id, successor_fact_id,
  reason_code, status, idempotency_key, created_at, updated_at, applied_at) VALUES
 ('c1','work','personal','f9','f8','user_correction','applied','k1',
  '2026-03-01T10:00:00Z','2026-03-01T10:00:00Z','2026-03-01T10:05:00Z');
INSERT INTO embedding_metadata(fact_id, profile_id, model_name, dimension) VALUES
 ('f1','work','test-model',4), ('f6','work','test-model',4), ('f11','work','other-model',3);
SQL
}

old() {
    sqlite3 "$db" <"$here/schema-v3.sql" >/dev/null
    sqlite3 "$db" <<'SQL'
INSERT INTO memories(memory_id, content, session_id, speaker) VALUES ('r1','raw','s1','Ada');
INSERT INTO atomic_facts(fact_id, memory_id, content, canonical_entities_json, observation_date,
  confidence, session_id, embedding, created_at) VALUES
 ('o1','r1','Ada Lovelace met Babbage in London','["Ada Lovelace","Charles Babbage"]',
  '2025-05-01T10:00:00Z',0.9,'s1','[1.0, 0.0, 0.0]','2025-05-01T10:00:00Z'),
 ('o2','r1','Babbage designed the engine','[]','2025-05-02T10:00:00Z',0.8,'s1',NULL,
  '2025-05-02T10:00:00Z');
INSERT INTO trust_scores(trust_id, target_type, target_id, trust_score, evidence_count) VALUES
 ('t1','fact','o1',0.6,3);
SQL
}

case $kind in
current) current ;;
old) old ;;
newer) current && sqlite3 "$db" 'UPDATE slm_schema_version SET version = 43' ;;
*) echo "make-store.sh: unknown kind $kind (current, old, newer)" >&2; exit 2 ;;
esac
# close cleanly: no -wal or -shm left behind, as an SLM that exited leaves it
sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
