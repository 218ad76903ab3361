/* fuzz-query.c - query analysis and the whole recall pipeline on hostile
 * query text: engine_recall over a small fixed store built once in
 * LLVMFuzzerInitialize (speakers, entities, dates, sessions, a pinned
 * memory, a second profile), then the Score Contract JSON and the trace
 * audit. Options (floor, explain, a fixed "now") come from the input's
 * length so that every input byte is query text. Checks: every result's
 * scores follow from its trace (recall_audit), relevance within 0..1,
 * abstention consistent with the hits. */
#include "fuzz.h"

#include "engine/engine.h"
#include "store/import.h"

static const char fz_memories[] =
    "{\"id\":\"m1\",\"content\":\"Leah moved to Easton in May 2023\",\"created_at\":"
    "\"2023-05-08T13:56:00Z\",\"speaker\":\"Leah\",\"session\":\"1\",\"entities\":[\"Easton\"]}\n"
    "{\"id\":\"m2\",\"content\":\"Sam teaches chemistry at Westway school\",\"created_at\":"
    "\"2023-05-08T14:00:00Z\",\"speaker\":\"Sam\",\"session\":\"1\"}\n"
    "{\"id\":\"m3\",\"content\":\"Biscuit the greyhound likes the park on Sundays\",\"created_at\":"
    "\"2023-06-01T09:00:00Z\",\"event_time\":\"2023-05-28\",\"session\":\"2\"}\n"
    "{\"id\":\"m4\",\"content\":\"Leah: I went to a support group yesterday\",\"created_at\":"
    "\"2023-07-02T10:00:00Z\",\"speaker\":\"Leah\",\"session\":\"3\",\"pinned\":true}\n"
    "{\"id\":\"m5\",\"content\":\"Sam said \\\"Blue Heron Cafe\\\" has the best rye bread\","
    "\"created_at\":\"2023-07-03T10:00:00Z\",\"speaker\":\"Sam\",\"session\":\"3\","
    "\"memory_confidence\":0.3,\"trust\":{\"alpha\":1,\"beta\":4}}\n"
    "{\"id\":\"m6\",\"content\":\"Last summer Leah and Sam cycled to Lake Orta\",\"created_at\":"
    "\"2023-09-10T18:00:00Z\",\"speaker\":\"Leah\",\"session\":\"4\"}\n"
    "{\"id\":\"m7\",\"content\":\"The boiler in the cellar was repaired on 5/8/2023\","
    "\"created_at\":\"2023-08-05T08:00:00Z\",\"importance\":0.9}\n"
    "{\"id\":\"m8\",\"content\":\"\\u202eevil\\u001b]2;title\\u0007 text\",\"created_at\":"
    "\"2023-08-06T08:00:00Z\",\"speaker\":\"\\u001b[2J\"}\n"
    "{\"id\":\"w1\",\"profile\":\"work\",\"content\":\"Quarterly timetable review with Ana\","
    "\"created_at\":\"2023-05-09T09:00:00Z\",\"speaker\":\"Ana\"}\n";

static store *fz_store;
static engine *fz_engine;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_store = fuzz_store();
    const char *input = fuzz_scratch("memories");
    fuzz_write(input, (const uint8_t *)fz_memories, sizeof fz_memories - 1);
    ms_error err;
    ms_error_clear(&err);
    import_opts io = {.format = IMPORT_JSONL, .dup = STORE_DUP_ERROR};
    import_stats st = {0};
    if (store_begin(fz_store, &err) || import_file(fz_store, input, &io, &st, &err) ||
        store_end(fz_store, &err) || engine_open(fz_store, NULL, &fz_engine, &err)) {
        fprintf(stderr, "cannot build the fuzz store: %s\n", err.msg);
        abort();
    }
    return 0;
}

static void check(const recall_result *r)
{
    char report[2048];
    FUZZ_CHECK(recall_audit(r, report, sizeof report) == 0, "every score follows from its trace");
    FUZZ_CHECK(r->abstained == (r->n_hits == 0), "abstained exactly when nothing is returned");
    for (size_t i = 0; i < r->n_hits; i++) {
        FUZZ_CHECK(r->hits[i].relevance_score >= 0 && r->hits[i].relevance_score <= 1,
                   "relevance within 0..1");
        FUZZ_CHECK(r->hits[i].rank_position == (int)i + 1, "rank positions count from 1");
    }
    char *json = recall_json(r, 1);
    FUZZ_CHECK(json != NULL, "the response serialises");
    free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *q = fuzz_string(data, size);
    recall_opts o;
    recall_opts_init(&o);
    o.query = q;
    o.no_floor = size % 5 == 1;
    o.explain_id = size % 3 == 1 ? "m3" : NULL;
    o.limit = size % 7 == 2 ? ENGINE_LIMIT_MAX : 10;
    store_parse_time("2023-10-01T12:00:00Z", &o.as_of);
    recall_result *r = NULL;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = engine_recall(fz_engine, &o, &r, &err);
    if (st) {
        FUZZ_CHECK(st == MS_LIMIT && strlen(q) > ENGINE_QUERY_MAX,
                   "recall fails only on the limit");
        FUZZ_CHECK(r == NULL, "no response on failure");
    } else {
        check(r);
    }
    recall_free(r);
    if (strlen(q) <= ENGINE_QUERY_MAX)
        FUZZ_CHECK(engine_query_type(fz_engine, q) != NULL, "every query has a type");
    free(q);
    return 0;
}
