/* import-test.c - import and export: memory JSONL, JSON arrays, LoCoMo files,
 * format detection, round trips across profiles, CRLF, byte-order marks,
 * empty files, malformed input (FILE:LINE:COL, nothing written).
 *
 * Reads tests/data/locomo-tiny.json relative to the repository root (where
 * `make test` runs); every other file it makes lives in one temporary
 * directory that it removes at the end. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/import.h"
#include "store/store.h"
#include "tests/tap.h"

#define LOCOMO_FIXTURE "tests/data/locomo-tiny.json"

static char tmpdir[] = "/tmp/memscope-import-test-XXXXXX";
#include "tests/testdir.h"

static const char *write_text(const char *name, const char *text)
{
    const char *p = tpath(name);
    write_file(p, text, strlen(text));
    return p;
}

static store *open_new(const char *name)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    unlink(tpath(name));
    if (store_open(tpath(name), 0, &s, &err))
        diag("store_open %s: %s", name, err.msg);
    return s;
}

/* Import files (NULL-terminated) in one transaction, as the CLI does.
 * Returns the status; err and stats are filled. */
static ms_status import_all(store *s, import_format fmt, store_dup_policy dup, import_stats *stats,
                            ms_error *err, const char *const *files)
{
    import_opts io = {.format = fmt, .dup = dup};
    memset(stats, 0, sizeof *stats);
    ms_error_clear(err);
    ms_status st = store_begin(s, err);
    for (size_t i = 0; !st && files[i]; i++)
        st = import_file(s, files[i], &io, stats, err);
    if (!st)
        st = store_end(s, err);
    else
        store_rollback(s);
    return st;
}

static ms_status import_one(store *s, import_format fmt, const char *file, import_stats *stats,
                            ms_error *err)
{
    const char *files[] = {file, NULL};
    return import_all(s, fmt, STORE_DUP_ERROR, stats, err, files);
}

/* Export every profile (or the current one) to a string. Caller frees. */
static char *export_text(store *s, int all_profiles, size_t *len)
{
    const char *p = tpath("export.jsonl");
    FILE *f = fopen(p, "wb");
    ms_error err;
    ms_error_clear(&err);
    ms_status st = f ? export_jsonl(s, f, all_profiles, &err) : MS_IO;
    if (f)
        fclose(f);
    if (st) {
        diag("export: %s", err.msg);
        return NULL;
    }
    return slurp(p, len);
}

static int64_t count_memories(store *s)
{
    store_counts c;
    if (store_count(s, &c, NULL))
        return -1;
    return c.memories;
}

/* ---- formats ----------------------------------------------------------- */

static const char jsonl_text[] =
    "{\"id\":\"D1:3\",\"content\":\"Caroline: I went to a LGBTQ support group yesterday\","
    "\"created_at\":\"2023-05-08T13:56:00Z\",\"speaker\":\"Caroline\",\"session\":\"1\","
    "\"memory_confidence\":0.9,\"trust\":{\"alpha\":3,\"beta\":1},\"entities\":[\"Caroline\"]}\n"
    "{\"id\":\"n1\",\"content\":\"Buy oat milk\",\"event_time\":\"2023-05-09\",\"source\":\"note\","
    "\"importance\":0.8,\"pinned\":true,\"session\":7}\n"
    "\n"
    "{\"content\":\"no id given\"}\n";

static void check_jsonl_memories(store *s, const char *what)
{
    store_memory m;
    ms_error err;
    ok(store_get(s, "D1:3", 0, &m, &err) == MS_OK, "%s: D1:3 is there", what);
    is_str(m.content, "Caroline: I went to a LGBTQ support group yesterday", "%s: content", what);
    is_str(m.created_at, "2023-05-08T13:56:00Z", "%s: created_at", what);
    is_str(m.speaker, "Caroline", "%s: speaker", what);
    is_str(m.session, "1", "%s: session", what);
    is_near(m.memory_confidence, 0.9, 1e-12, "%s: memory_confidence", what);
    ok(m.trust_alpha == 3 && m.trust_beta == 1, "%s: trust", what);
    store_memory_clear(&m);
    ok(store_get(s, "n1", 0, &m, &err) == MS_OK, "%s: n1 is there", what);
    is_str(m.event_time, "2023-05-09T00:00:00Z", "%s: event_time", what);
    is_str(m.source, "note", "%s: source", what);
    is_str(m.session, "7", "%s: an integer session becomes text", what);
    is_near(m.importance, 0.8, 1e-12, "%s: importance", what);
    is_int(m.pinned, 1, "%s: pinned", what);
    store_memory_clear(&m);
    is_int(count_memories(s), 3, "%s: three memories (a blank line is skipped)", what);
}

static void test_jsonl(void)
{
    const char *f = write_text("a.jsonl", jsonl_text);
    store *s = open_new("jsonl.db");
    import_stats st;
    ms_error err;
    ok(import_one(s, IMPORT_JSONL, f, &st, &err) == MS_OK, "JSONL imports (%s)", err.msg);
    is_int(st.records, 3, "3 records");
    is_int(st.inserted, 3, "3 inserted");
    check_jsonl_memories(s, "jsonl");
    store_close(s);

    s = open_new("jsonl-auto.db");
    ok(import_one(s, IMPORT_AUTO, f, &st, &err) == MS_OK, "auto detects JSONL");
    check_jsonl_memories(s, "jsonl auto");
    store_close(s);
}

static void test_json_array(void)
{
    /* The same memories as a pretty-printed JSON array. */
    static const char text[] =
        "[\n"
        "  {\"id\": \"D1:3\", \"content\": \"Caroline: I went to a LGBTQ support group "
        "yesterday\",\n"
        "   \"created_at\": \"2023-05-08T13:56:00Z\", \"speaker\": \"Caroline\",\n"
        "   \"session\": \"1\", \"memory_confidence\": 0.9,\n"
        "   \"trust\": {\"alpha\": 3, \"beta\": 1}, \"entities\": [\"Caroline\"]},\n"
        "  {\"id\": \"n1\", \"content\": \"Buy oat milk\", \"event_time\": \"2023-05-09\",\n"
        "   \"source\": \"note\", \"importance\": 0.8, \"pinned\": true, \"session\": 7},\n"
        "  {\"content\": \"no id given\"}\n"
        "]\n";
    const char *f = write_text("a.json", text);
    store *s = open_new("json.db");
    import_stats st;
    ms_error err;
    ok(import_one(s, IMPORT_JSON, f, &st, &err) == MS_OK, "a JSON array imports (%s)", err.msg);
    check_jsonl_memories(s, "json");
    store_close(s);
    s = open_new("json-auto.db");
    ok(import_one(s, IMPORT_AUTO, f, &st, &err) == MS_OK, "auto detects a JSON array (%s)",
       err.msg);
    check_jsonl_memories(s, "json auto");
    store_close(s);

    write_text("empty-array.json", " [ ]\n");
    s = open_new("json-empty.db");
    ok(import_one(s, IMPORT_AUTO, tpath("empty-array.json"), &st, &err) == MS_OK && st.records == 0,
       "an empty JSON array imports nothing (%s)", err.msg);
    store_close(s);
}

static void check_locomo(store *s, const char *what)
{
    ms_error err;
    store_memory m;
    int64_t np = 0;
    store_profile_count(s, &np, &err);
    is_int(np, 2, "%s: two conversations, two profiles", what);
    ok(store_use_profile(s, "conv-a", &err) == MS_OK, "%s: profile conv-a", what);
    is_int(count_memories(s), 5, "%s: conv-a holds its 5 turns", what);
    ok(store_get(s, "D1:1", 0, &m, &err) == MS_OK, "%s: id = dia_id (D1:1)", what);
    is_str(m.content, "Ana: Hi Ben! I joined a pottery class on Tuesday.",
           "%s: content is 'Speaker: text'", what);
    is_str(m.created_at, "2023-05-08T13:56:00Z", "%s: created_at is the session's time", what);
    is_str(m.speaker, "Ana", "%s: speaker", what);
    is_str(m.session, "1", "%s: session", what);
    int speaker_entity = 0;
    for (size_t i = 0; i < m.n_entities; i++)
        speaker_entity |= strcmp(m.entities[i], "Ana") == 0;
    ok(speaker_entity, "%s: the speaker is an entity", what);
    store_memory_clear(&m);
    ok(store_get(s, "D1:3", 0, &m, &err) == MS_OK && strstr(m.content, "lopsided blue bowl"),
       "%s: an image turn keeps its caption", what);
    store_memory_clear(&m);
    ok(store_get(s, "D2:2", 0, &m, &err) == MS_OK, "%s: session 2 turn", what);
    is_str(m.created_at, "2023-05-25T13:14:00Z", "%s: session 2 time", what);
    is_str(m.session, "2", "%s: session 2", what);
    store_memory_clear(&m);

    store_use_profile(s, "conv-b", &err);
    is_int(count_memories(s), 4, "%s: conv-b holds its 4 turns", what);
    ok(store_get(s, "D1:1", 0, &m, &err) == MS_OK, "%s: conv-b has its own D1:1", what);
    is_str(m.content, "Tomas: Ines, the bakery on Elm Street closed.", "%s: conv-b's D1:1 content",
           what);
    is_str(m.created_at, "2023-01-20T00:09:00Z", "%s: 12:09 am is 00:09", what);
    store_memory_clear(&m);
    ok(store_get(s, "D2:1", 0, &m, &err) == MS_OK, "%s: conv-b D2:1", what);
    is_str(m.created_at, "2023-01-29T12:30:00Z", "%s: 12:30 pm is 12:30", what);
    store_memory_clear(&m);
    store_use_profile(s, "default", &err);
    is_int(count_memories(s), 0, "%s: nothing in the default profile", what);
}

static void test_locomo(void)
{
    store *s = open_new("locomo.db");
    import_stats st;
    ms_error err;
    ok(import_one(s, IMPORT_LOCOMO, LOCOMO_FIXTURE, &st, &err) == MS_OK,
       "the LoCoMo fixture imports with --format locomo (%s)", err.msg);
    is_int(st.inserted, 9, "9 turns");
    check_locomo(s, "locomo");
    store_close(s);

    s = open_new("locomo-auto.db");
    ok(import_one(s, IMPORT_AUTO, LOCOMO_FIXTURE, &st, &err) == MS_OK,
       "auto detects the LoCoMo fixture (%s)", err.msg);
    check_locomo(s, "locomo auto");
    store_close(s);

    /* The real files put a long "qa" list before "conversation": detection
     * must not depend on the first few kilobytes. */
    size_t n;
    char *fixture = slurp(LOCOMO_FIXTURE, &n);
    const char *qa = fixture ? strstr(fixture, "\"qa\": []") : NULL;
    ok(qa != NULL, "the fixture has an empty qa list to fill");
    if (qa) {
        FILE *f = fopen(tpath("locomo-long-qa.json"), "wb");
        fwrite(fixture, 1, (size_t)(qa - fixture), f);
        fputs("\"qa\": [", f);
        for (int i = 0; i < 400; i++)
            fprintf(f,
                    "%s{\"question\": \"What did Ana make on day %d?\", \"answer\": "
                    "\"something\", \"evidence\": [\"D1:1\"], \"category\": 2}",
                    i ? ", " : "", i);
        fputs("]", f);
        fputs(qa + strlen("\"qa\": []"), f);
        fclose(f);
        s = open_new("locomo-long.db");
        ok(import_one(s, IMPORT_AUTO, tpath("locomo-long-qa.json"), &st, &err) == MS_OK,
           "auto detects LoCoMo when \"conversation\" comes after a long qa list (%s)", err.msg);
        check_locomo(s, "locomo long qa");
        store_close(s);
    }
    free(fixture);

    int64_t ts = 0;
    ok(import_locomo_time("1:56 pm on 8 May, 2023", &ts) == 0 && ts == 1683554160,
       "import_locomo_time 1:56 pm on 8 May, 2023");
    ok(import_locomo_time("12:00 am on 1 January, 2024", &ts) == 0 && ts == 1704067200,
       "12:00 am is midnight");
    ok(import_locomo_time("13:56 pm on 8 May, 2023", &ts) != 0, "hour 13 pm is rejected");
    ok(import_locomo_time("1:56 pm on 8 Mai, 2023", &ts) != 0, "an unknown month is rejected");
    ok(import_locomo_time("1:56 pm on 31 April, 2023", &ts) != 0, "31 April is rejected");
    ok(import_locomo_time("yesterday", &ts) != 0, "free text is rejected");
}

static void test_format_names(void)
{
    is_int(import_format_parse("auto"), IMPORT_AUTO, "format auto");
    is_int(import_format_parse("jsonl"), IMPORT_JSONL, "format jsonl");
    is_int(import_format_parse("json"), IMPORT_JSON, "format json");
    is_int(import_format_parse("locomo"), IMPORT_LOCOMO, "format locomo");
    is_int(import_format_parse("csv"), -1, "format csv is unknown");
    is_str(import_format_name(IMPORT_LOCOMO), "locomo", "format name");
}

/* ---- round trips ------------------------------------------------------- */

static void test_round_trip(void)
{
    static const char text[] =
        "{\"id\":\"a\",\"profile\":\"home\",\"content\":\"Sam is allergic to cashew nuts\","
        "\"created_at\":\"2024-01-02T03:04:05+01:00\",\"event_time\":\"2023-12-31\","
        "\"speaker\":\"Leah\",\"session\":\"s1\",\"source\":\"chat\",\"memory_confidence\":0.1,"
        "\"trust\":{\"alpha\":0.3,\"beta\":7.25},\"importance\":0.123456789,\"pinned\":true,"
        "\"access_count\":4,\"last_accessed\":\"2024-02-01T00:00:00Z\","
        "\"entities\":[\"Sam Okoro\",\"cashew\"],\"metadata\":{\"fact_type\":\"semantic\","
        "\"n\":2,\"ok\":true},\"superseded_by\":\"c\",\"superseded_at\":\"2024-03-08T01:00:00+01:"
        "00\","
        "\"superseded_reason\":\"a newer fact\"}\n"
        "{\"id\":\"b\",\"profile\":\"home\",\"content\":\"Tabs\\tand \\\"quotes\\\" and "
        "\\u00e9 and \\ud83d\\ude00 and a\\nnewline\",\"session\":\"s1\"}\n"
        "{\"id\":\"a\",\"profile\":\"work\",\"content\":\"Project Kestrel is due in March\","
        "\"created_at\":\"2024-03-01T09:00:00Z\",\"entities\":[\"Project Kestrel\"]}\n"
        "{\"id\":\"c\",\"content\":\"A memory in the default profile\","
        "\"created_at\":\"2024-03-02T09:00:00Z\"}\n";
    const char *f = write_text("rt.jsonl", text);
    store *s = open_new("rt1.db");
    import_stats st;
    ms_error err;
    ok(import_one(s, IMPORT_AUTO, f, &st, &err) == MS_OK, "round trip: import (%s)", err.msg);
    int64_t np = 0;
    store_profile_count(s, &np, &err);
    is_int(np, 3, "three profiles");
    size_t n1 = 0, n2 = 0;
    char *e1 = export_text(s, 1, &n1);
    store_close(s);
    ok(e1 && n1 > 0, "export writes something");
    int lines = 0;
    for (size_t i = 0; e1 && i < n1; i++)
        lines += e1[i] == '\n';
    is_int(lines, 4, "one line per memory, every profile");
    ok(e1 && strstr(e1, "\"profile\":\"work\"") && strstr(e1, "\"profile\":\"home\""),
       "each line carries its profile");
    ok(e1 && strstr(e1, "\"metadata\":{\"fact_type\":\"semantic\",\"n\":2,\"ok\":true}"),
       "metadata is exported as the object it was, keys in order");
    ok(e1 && strstr(e1, "\"superseded_by\":\"c\",\"superseded_at\":\"2024-03-08T00:00:00Z\","
                        "\"superseded_reason\":\"a newer fact\""),
       "supersession is exported, its time normalised to UTC");

    write_file(tpath("rt-e1.jsonl"), e1 ? e1 : "", n1);
    s = open_new("rt2.db");
    ok(import_one(s, IMPORT_AUTO, tpath("rt-e1.jsonl"), &st, &err) == MS_OK,
       "round trip: import the export into a fresh store (%s)", err.msg);
    char *e2 = export_text(s, 1, &n2);
    ok(e1 && e2 && n1 == n2 && memcmp(e1, e2, n1) == 0,
       "export -> import -> export is byte-identical");
    if (e1 && e2 && (n1 != n2 || memcmp(e1, e2, n1) != 0))
        diag("first:\n%s\nsecond:\n%s", e1, e2);

    store_use_profile(s, "work", &err);
    size_t n3 = 0;
    char *e3 = export_text(s, 0, &n3);
    ok(e3 && strstr(e3, "Project Kestrel") && !strstr(e3, "cashew") && !strstr(e3, "default"),
       "export of one profile writes only that profile");
    free(e3);
    store_close(s);
    free(e1);
    free(e2);

    /* The demo-like case: a LoCoMo import exported and re-imported. */
    s = open_new("rt3.db");
    import_one(s, IMPORT_LOCOMO, LOCOMO_FIXTURE, &st, &err);
    e1 = export_text(s, 1, &n1);
    store_close(s);
    write_file(tpath("rt-e3.jsonl"), e1 ? e1 : "", n1);
    s = open_new("rt4.db");
    ok(import_one(s, IMPORT_AUTO, tpath("rt-e3.jsonl"), &st, &err) == MS_OK,
       "the export of a LoCoMo import imports (%s)", err.msg);
    e2 = export_text(s, 1, &n2);
    ok(e1 && e2 && n1 == n2 && memcmp(e1, e2, n1) == 0,
       "LoCoMo: export -> import -> export is byte-identical");
    store_close(s);
    free(e1);
    free(e2);
}

/* ---- encodings and empty files ----------------------------------------- */

static void test_encodings(void)
{
    import_stats st;
    ms_error err;
    store *s = open_new("crlf.db");
    const char *f = write_text("crlf.jsonl", "{\"id\":\"a\",\"content\":\"first\"}\r\n"
                                             "\r\n"
                                             "{\"id\":\"b\",\"content\":\"second\"}\r\n");
    ok(import_one(s, IMPORT_AUTO, f, &st, &err) == MS_OK && st.inserted == 2,
       "CRLF line ends are accepted (%s)", err.msg);
    store_memory m;
    ok(store_get(s, "b", 0, &m, &err) == MS_OK && strcmp(m.content, "second") == 0,
       "and no \\r is left in the content");
    store_memory_clear(&m);
    store_close(s);

    s = open_new("bom.db");
    f = write_text("bom.jsonl", "\xef\xbb\xbf{\"id\":\"a\",\"content\":\"after a BOM\"}\n"
                                "{\"id\":\"b\",\"content\":\"second line\"}\n");
    ok(import_one(s, IMPORT_AUTO, f, &st, &err) == MS_OK && st.inserted == 2,
       "a UTF-8 BOM is accepted in JSONL (%s)", err.msg);
    ok(store_get(s, "a", 0, &m, &err) == MS_OK && strcmp(m.content, "after a BOM") == 0,
       "the first memory is intact");
    store_memory_clear(&m);
    store_close(s);

    s = open_new("bom-json.db");
    f = write_text("bom.json", "\xef\xbb\xbf[{\"id\":\"a\",\"content\":\"x\"},\r\n"
                               "{\"id\":\"b\",\"content\":\"y\"}]\r\n");
    ok(import_one(s, IMPORT_AUTO, f, &st, &err) == MS_OK && st.inserted == 2,
       "a UTF-8 BOM and CRLF are accepted in a JSON array (%s)", err.msg);
    store_close(s);

    static const import_format fmts[] = {IMPORT_AUTO, IMPORT_JSONL, IMPORT_JSON, IMPORT_LOCOMO};
    write_text("empty", "");
    write_text("blank", "\n  \r\n\n");
    for (size_t i = 0; i < 4; i++) {
        s = open_new("empty.db");
        ok(import_one(s, fmts[i], tpath("empty"), &st, &err) == MS_OK && st.records == 0,
           "an empty file is valid as %s: 0 imported (%s)", import_format_name(fmts[i]), err.msg);
        store_close(s);
        s = open_new("empty.db");
        ok(import_one(s, fmts[i], tpath("blank"), &st, &err) == MS_OK && st.records == 0,
           "a file of blank lines is valid as %s: 0 imported (%s)", import_format_name(fmts[i]),
           err.msg);
        store_close(s);
    }
}

/* ---- malformed input --------------------------------------------------- */

struct bad_case {
    const char *what;
    const char *text;
    size_t len; /* 0: strlen(text) */
    import_format fmt;
    const char *where; /* expected "LINE:COL: " after the file name */
};

static void test_malformed(void)
{
    static const struct bad_case cases[] = {
        {"truncated JSON", "{\"id\":\"b\",\"content\":\"hel", 0, IMPORT_JSONL, "1:25: "},
        {"truncated object", "{\"content\":\"x\"}\n{\"content\":\"y\"", 0, IMPORT_JSONL, "2:15: "},
        {"bad literal before the end", "{\"content\":tru, \"x\":\"y", 0, IMPORT_JSONL, "1:12: "},
        {"truncated array", "[{\"content\":\"x\"},\n {\"content\":\"y\"", 0, IMPORT_JSON, "2:16: "},
        {"content a number", "{\"id\":\"b\",\"content\":5}\n", 0, IMPORT_JSONL, "1:21: "},
        {"memory_confidence 2", "{\"content\":\"x\",\"memory_confidence\":2}", 0, IMPORT_JSONL,
         "1:36: "},
        {"1e999", "{\"content\":\"x\",\"memory_confidence\":1e999}", 0, IMPORT_JSONL, "1:36: "},
        {"missing content", "{\"content\":\"x\"}\n{\"id\":\"b\"}\n", 0, IMPORT_JSONL, "2:1: "},
        {"\\u0000", "{\"content\":\"a\\u0000b\"}", 0, IMPORT_JSONL, "1:14: "},
        {"invalid UTF-8 on line 3",
         "{\"content\":\"a\"}\n{\"content\":\"b\"}\n"
         "{\"content\":\"ab\xff"
         "cd\"}\n",
         0, IMPORT_JSONL, "3:15: "},
        {"UTF-16 BOM", "\xff\xfe{\0\"\0", 6, IMPORT_AUTO, "1:1: "},
        {"a NUL byte", "{\"content\":\"a\0b\"}\n", 18, IMPORT_JSONL, "1:14: "},
        {"a NUL byte after the object", "{\"content\":\"a\"} \0junk\n\n{\"content\":\"b\"}\n", 38,
         IMPORT_JSONL, "1:17: "},
        {"a NUL byte in a JSON array", "[{\"content\":\"a\"},\n\0]", 21, IMPORT_JSON, "2:1: "},
        {"text after a single object", "{\"content\":\"a\"} x", 0, IMPORT_JSON, "1:17: "},
        {"metadata an array", "{\"content\":\"x\",\"metadata\":[1]}", 0, IMPORT_JSONL, "1:27: "},
        {"superseded_at not a time", "{\"content\":\"x\",\"superseded_at\":\"soon\"}", 0,
         IMPORT_JSONL, "1:32: "},
        {"content a number in an array", "[{\"content\":\"x\"},\n {\"content\":[1]}]", 0,
         IMPORT_JSON, "2:13: "},
        {"not an array", "\"just a string\"", 0, IMPORT_JSON, "1:1: "},
        {"an empty profile", "{\"content\":\"x\",\"profile\":\"\"}", 0, IMPORT_JSONL, "1:26: "},
        {"embeddings of two sizes",
         "{\"content\":\"x\",\"embedding\":[1,0]}\n"
         "{\"content\":\"y\",\"embedding\":[1,0,0]}\n",
         0, IMPORT_JSONL, "2:28: "},
        {"trust not an object", "{\"content\":\"x\",\"trust\":0.5}", 0, IMPORT_JSONL, "1:24: "},
        {"created_at not a time", "{\"content\":\"x\",\"created_at\":\"soon\"}", 0, IMPORT_JSONL,
         "1:29: "},
        {"LoCoMo without sample_id", "[{\"conversation\":{}}]", 0, IMPORT_LOCOMO, "1:2: "},
        {"LoCoMo bad session time",
         "[{\"sample_id\":\"x\",\"conversation\":{\"session_1_date_time\":\"soon\","
         "\"session_1\":[]}}]",
         0, IMPORT_LOCOMO, "1:2: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct bad_case *c = &cases[i];
        size_t len = c->len ? c->len : strlen(c->text);
        write_file(tpath("bad.in"), c->text, len);
        store *s = open_new("bad.db");
        import_stats st;
        ms_error err;
        const char *files[] = {tpath("bad.in"), NULL};
        ms_status code = import_all(s, c->fmt, STORE_DUP_ERROR, &st, &err, files);
        ok(code == MS_PARSE || code == MS_LIMIT || code == MS_EMBEDDER, "%s: refused (%s)", c->what,
           ms_status_text(code));
        char want[600];
        snprintf(want, sizeof want, "%s:%s", tpath("bad.in"), c->where);
        ok(strncmp(err.msg, want, strlen(want)) == 0, "%s: message starts FILE:%s(got '%s')",
           c->what, c->where, err.msg);
        ok(!strchr(err.msg, '\n'), "%s: the message is one line", c->what);
        is_int(count_memories(s), 0, "%s: nothing was written", c->what);
        store_close(s);
    }

    /* Nesting deeper than IMPORT_DEPTH_MAX. */
    char deep[256];
    int n = snprintf(deep, sizeof deep, "{\"content\":\"x\",\"a\":");
    for (int i = 0; i < IMPORT_DEPTH_MAX + 2; i++)
        deep[n++] = '[';
    for (int i = 0; i < IMPORT_DEPTH_MAX + 2; i++)
        deep[n++] = ']';
    deep[n++] = '}';
    deep[n] = '\0';
    write_text("deep.jsonl", deep);
    store *s = open_new("deep.db");
    import_stats st;
    ms_error err;
    ok(import_one(s, IMPORT_JSONL, tpath("deep.jsonl"), &st, &err) == MS_LIMIT,
       "nesting deeper than %d is refused", IMPORT_DEPTH_MAX);
    char want[600];
    /* The object is level 1, so the (DEPTH_MAX)th '[' is one too many. */
    snprintf(want, sizeof want, "%s:1:%d: ", tpath("deep.jsonl"), 19 + IMPORT_DEPTH_MAX);
    ok(strncmp(err.msg, want, strlen(want)) == 0, "at the first bracket too deep (%s)", err.msg);
    store_close(s);

    /* Content over the limit. */
    size_t big = STORE_CONTENT_MAX + 16;
    char *line = malloc(big + 64);
    int k = snprintf(line, 64, "{\"id\":\"big\",\"content\":\"");
    memset(line + k, 'a', STORE_CONTENT_MAX + 1);
    strcpy(line + k + STORE_CONTENT_MAX + 1, "\"}\n");
    write_text("big.jsonl", line);
    free(line);
    s = open_new("big.db");
    ok(import_one(s, IMPORT_JSONL, tpath("big.jsonl"), &st, &err) == MS_LIMIT,
       "content over %d bytes is refused", STORE_CONTENT_MAX);
    snprintf(want, sizeof want, "%s:1:23: ", tpath("big.jsonl"));
    ok(strncmp(err.msg, want, strlen(want)) == 0, "pointing at the content (%.100s)", err.msg);
    store_close(s);

    /* A line over IMPORT_LINE_MAX bytes, and one just within it. */
    static const char *const names[2] = {"longest.jsonl", "too-long.jsonl"};
    for (int over = 0; over < 2; over++) {
        FILE *f = fopen(tpath(names[over]), "wb");
        fputs("{\"content\":\"x\"}\n{\"content\":\"y\",\"pad\":\"", f);
        size_t pad = IMPORT_LINE_MAX - strlen("{\"content\":\"y\",\"pad\":\"\"}") + over;
        for (size_t i = 0; i < pad; i++)
            fputc('p', f);
        fputs("\"}\n", f);
        fclose(f);
        s = open_new("long.db");
        ms_status code = import_one(s, IMPORT_JSONL, tpath(names[over]), &st, &err);
        if (!over) {
            ok(code == MS_OK && st.records == 2, "a line of exactly %d bytes imports (%s)",
               IMPORT_LINE_MAX, err.msg);
        } else {
            ok(code == MS_LIMIT, "a line of %d bytes is refused", IMPORT_LINE_MAX + 1);
            snprintf(want, sizeof want, "%s:2:1: line is longer", tpath(names[over]));
            ok(strncmp(err.msg, want, strlen(want)) == 0, "at its line (%.200s)", err.msg);
            is_int(count_memories(s), 0, "and nothing was written");
        }
        store_close(s);
        unlink(tpath(names[over]));
    }

    /* A bad second file rolls back the first. */
    write_text("good.jsonl", "{\"id\":\"g\",\"content\":\"good\"}\n");
    write_text("bad2.jsonl", "{\"id\":\"h\",\"content\":\"fine\"}\n{\"id\":\"i\"}\n");
    s = open_new("two.db");
    const char *files[] = {tpath("good.jsonl"), tpath("bad2.jsonl"), NULL};
    ok(import_all(s, IMPORT_AUTO, STORE_DUP_ERROR, &st, &err, files) == MS_PARSE,
       "a malformed line in the second file fails the import");
    ok(strstr(err.msg, "bad2.jsonl:2:1: ") != NULL, "naming the second file (%s)", err.msg);
    is_int(count_memories(s), 0, "the first file's memories are not there");
    store_close(s);
}

static void test_duplicates(void)
{
    write_text("d1.jsonl", "{\"id\":\"x\",\"content\":\"old text\"}\n"
                           "{\"id\":\"y\",\"content\":\"other\"}\n");
    write_text("d2.jsonl", "{\"id\":\"z\",\"content\":\"new one\"}\n"
                           "{\"id\":\"x\",\"content\":\"new text\"}\n");
    store *s = open_new("dup.db");
    import_stats st;
    ms_error err;
    const char *f1[] = {tpath("d1.jsonl"), NULL}, *f2[] = {tpath("d2.jsonl"), NULL};
    import_all(s, IMPORT_AUTO, STORE_DUP_ERROR, &st, &err, f1);
    ok(import_all(s, IMPORT_AUTO, STORE_DUP_ERROR, &st, &err, f2) == MS_DUPLICATE,
       "duplicate policy error: refused");
    ok(strstr(err.msg, "d2.jsonl:2:") && strstr(err.msg, "\"x\""),
       "naming the line and the id (%s)", err.msg);
    is_int(count_memories(s), 2, "and nothing of the second file was written");
    ok(import_all(s, IMPORT_AUTO, STORE_DUP_SKIP, &st, &err, f2) == MS_OK, "policy skip");
    ok(st.inserted == 1 && st.skipped == 1 && st.replaced == 0, "1 inserted, 1 skipped");
    store_memory m;
    store_get(s, "x", 0, &m, &err);
    is_str(m.content, "old text", "skip keeps the old memory");
    store_memory_clear(&m);
    ok(import_all(s, IMPORT_AUTO, STORE_DUP_REPLACE, &st, &err, f2) == MS_OK, "policy replace");
    ok(st.inserted == 0 && st.replaced == 2, "2 replaced");
    store_get(s, "x", 0, &m, &err);
    is_str(m.content, "new text", "replace writes the new memory");
    store_memory_clear(&m);
    is_int(count_memories(s), 3, "three memories");

    /* A duplicate inside one file. */
    write_text("d3.jsonl",
               "{\"id\":\"q\",\"content\":\"one\"}\n{\"id\":\"q\",\"content\":\"two\"}\n");
    const char *f3[] = {tpath("d3.jsonl"), NULL};
    ok(import_all(s, IMPORT_AUTO, STORE_DUP_ERROR, &st, &err, f3) == MS_DUPLICATE,
       "a duplicate id inside one file is refused");
    ok(strstr(err.msg, "d3.jsonl:2:") != NULL, "at its second line (%s)", err.msg);
    store_close(s);
}

/* JSONL is parsed on a thread ahead of the writes: errors still come in
 * file order, and a write that fails while the reader waits on a full
 * queue (or has found an error further on) stops both. */
static void test_reader_thread(void)
{
    FILE *f = fopen(tpath("big.jsonl"), "w");
    for (int i = 1; i <= 3000; i++) {
        if (i == 2600)
            fputs("{\"id\": \"broken\", \"content\": \n", f); /* malformed, late */
        else
            fprintf(f, "{\"id\":\"m%d\",\"content\":\"line %d of the big file\"}\n", i == 5 ? 1 : i,
                    i); /* line 5 repeats the id of line 1 */
    }
    fclose(f);
    store *s = open_new("big.db");
    import_stats st;
    ms_error err;
    const char *fs[] = {tpath("big.jsonl"), NULL};
    ok(import_all(s, IMPORT_AUTO, STORE_DUP_ERROR, &st, &err, fs) == MS_DUPLICATE,
       "an early duplicate wins over a later malformed line");
    ok(strstr(err.msg, "big.jsonl:5:") && strstr(err.msg, "\"m1\""), "at line 5 (%s)", err.msg);
    is_int(count_memories(s), 0, "nothing was written");
    ok(import_all(s, IMPORT_AUTO, STORE_DUP_SKIP, &st, &err, fs) == MS_PARSE,
       "with duplicates skipped, the malformed line stops it");
    ok(strstr(err.msg, "big.jsonl:2600:") != NULL, "at line 2600 (%s)", err.msg);
    is_int(count_memories(s), 0, "and nothing was written");

    f = fopen(tpath("big2.jsonl"), "w");
    for (int i = 1; i <= 3000; i++)
        fprintf(f, "{\"id\":\"n%d\",\"content\":\"turn %d\",\"session\":\"s%d\"}\n", i, i, i / 20);
    fclose(f);
    const char *fs2[] = {tpath("big2.jsonl"), NULL};
    ok(import_all(s, IMPORT_AUTO, STORE_DUP_ERROR, &st, &err, fs2) == MS_OK,
       "3000 lines import (%s)", err.msg);
    ok(st.records == 3000 && st.inserted == 3000, "every line a memory (%llu)",
       (unsigned long long)st.records);
    struct stat sb;
    stat(tpath("big2.jsonl"), &sb);
    ok(st.bytes == (uint64_t)sb.st_size, "bytes counts the whole file (%llu of %lld)",
       (unsigned long long)st.bytes, (long long)sb.st_size);
    store_memory m;
    store_memory_init(&m);
    ok(store_get(s, "n2999", 0, &m, &err) == MS_OK && strcmp(m.content, "turn 2999") == 0,
       "in order, the last one too");
    store_memory_clear(&m);
    store_close(s);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    if (access(LOCOMO_FIXTURE, R_OK) != 0) {
        printf("Bail out! %s not found: run from the repository root (make test)\n",
               LOCOMO_FIXTURE);
        rmdir(tmpdir);
        return 1;
    }
    test_jsonl();
    test_json_array();
    test_locomo();
    test_format_names();
    test_round_trip();
    test_encodings();
    test_malformed();
    test_duplicates();
    test_reader_thread();
    remove_tmpdir();
    return done_testing();
}
