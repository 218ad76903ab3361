/* labels-test.c - tui/labels: which query JSONL lines are answerable,
 * unanswerable or skipped; plain-text unanswerable lists; errors with
 * FILE:LINE:COL that leave the set as it was; the normalised question the
 * split-overlap check compares. Includes labels.c itself (it needs only
 * cJSON), no terminal. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#include "tui/cli/labels.c"

static char tmpdir[] = "/tmp/labels-test-XXXXXX";
#include "tests/testdir.h"

static const char *put(const char *name, const char *text)
{
    const char *p = tpath(name);
    write_file(p, text, strlen(text));
    return p;
}

static void test_jsonl(void)
{
    const char *p =
        put("q.jsonl", "{\"qid\": \"a\", \"question\": \"When?\", \"category\": 2, "
                       "\"evidence\": [\"D1:3\", \"D1:4\"]}\n"
                       "\n"
                       "{\"question\": \"No category\", \"evidence\": [\"m1\"]}\n"
                       "{\"question\": \"Blood type?\", \"answerable\": false}\r\n"
                       "{\"question\": \"Adversarial\", \"category\": 5, \"evidence\": [\"m2\"]}\n"
                       "{\"question\": \"Off topic, unmarked\"}\n");
    label_set s;
    labels_init(&s);
    ms_error err;
    ms_error_clear(&err);
    is_int(labels_read_jsonl(&s, p, &err), MS_OK, "read a query file");
    is_int(s.n, 3, "three labelled lines");
    is_int(s.skipped, 2, "category 5 and an unmarked line without evidence are skipped");
    is_str(s.q[0].qid, "a", "qid kept");
    is_int(s.q[0].n_evidence, 2, "two evidence ids");
    is_str(s.q[0].evidence[1], "D1:4", "evidence in order");
    ok(s.q[0].answerable && s.q[0].category == 2 && s.q[0].line == 1,
       "line 1: answerable, category 2");
    ok(s.q[1].answerable && s.q[1].category == 0 && s.q[1].line == 3, "no category: answerable");
    char want[1200];
    snprintf(want, sizeof want, "%s:3", p);
    is_str(s.q[1].qid, want, "a line without qid is named FILE:LINE");
    ok(!s.q[2].answerable && s.q[2].n_evidence == 0, "\"answerable\": false: unanswerable");
    is_str(s.q[2].question, "Blood type?", "CRLF line endings are stripped");
    is_int(s.n_files, 1, "one file recorded");
    labels_free(&s);
}

static void test_errors(void)
{
    label_set s;
    labels_init(&s);
    ms_error err;
    const char *good = put("good.jsonl", "{\"question\": \"q\", \"evidence\": [\"m\"]}\n");
    labels_read_jsonl(&s, good, &err);
    struct {
        const char *text, *where, *what;
    } bad[] = {
        {"{\"question\": \"q\", \"evidence\": [\"m\"]}\n{\"question\": \"x\",\n",
         ":2:", "malformed JSON"},
        {"[1, 2]\n", ":1:1:", "expected a JSON object"},
        {"{\"qid\": \"x\"}\n", ":1:1:", "expected {\"question\""},
        {"{\"question\": \"q\", \"answerable\": \"no\"}\n", ":1:1:", "must be true or false"},
        {"{\"question\": \"q\", \"evidence\": \"m\"}\n", ":1:1:", "must be an array"},
        {"{\"question\": \"q\", \"evidence\": [3]}\n", ":1:1:", "memory ids"},
        {"{\"question\": \"q\", \"answerable\": false, \"evidence\": [\"m\"]}\n",
         ":1:1:", "with evidence"},
        {"{\"question\": \"q\", \"category\": \"two\", \"evidence\": [\"m\"]}\n",
         ":1:1:", "must be a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *p = put("bad.jsonl", bad[i].text);
        ms_error_clear(&err);
        ms_status st = labels_read_jsonl(&s, p, &err);
        char where[1200];
        snprintf(where, sizeof where, "%s%s", p, bad[i].where);
        ok(st == MS_PARSE && strncmp(err.msg, where, strlen(where)) == 0 &&
               strstr(err.msg, bad[i].what),
           "refused with FILE:LINE:COL: %s", err.msg);
        ok(s.n == 1 && s.n_files == 1 && s.skipped == 0, "the set is as it was");
    }
    ms_error_clear(&err);
    ok(labels_read_jsonl(&s, tpath("missing.jsonl"), &err) == MS_IO &&
           strstr(err.msg, "missing.jsonl"),
       "a missing file: MS_IO naming it (%s)", err.msg);
    labels_free(&s);
}

static void test_text(void)
{
    const char *p =
        put("u.txt", "# a comment\nWhat is her dog called?\n\n   \n  Where did he grow up?\n");
    label_set s;
    labels_init(&s);
    ms_error err;
    is_int(labels_read_unanswerable(&s, p, &err), MS_OK, "read a plain-text list");
    is_int(s.n, 2, "comments and blank lines skipped");
    ok(!s.q[0].answerable && !s.q[1].answerable, "every line is unanswerable");
    is_str(s.q[1].question, "Where did he grow up?", "leading blanks trimmed");
    is_int(s.q[1].line, 5, "line numbers kept");
    labels_free(&s);

    char *long_q = malloc(ENGINE_QUERY_MAX + 16);
    memset(long_q, 'a', ENGINE_QUERY_MAX + 1);
    strcpy(long_q + ENGINE_QUERY_MAX + 1, "?\n");
    char *text = malloc(ENGINE_QUERY_MAX + 64);
    snprintf(text, ENGINE_QUERY_MAX + 64, "Is this fine?\n%s", long_q);
    const char *lp = put("long.txt", text);
    labels_init(&s);
    ok(labels_read_unanswerable(&s, lp, &err) == MS_PARSE && strstr(err.msg, "long.txt:2:") &&
           strstr(err.msg, "the limit is"),
       "a question over ENGINE_QUERY_MAX is refused at FILE:LINE (%s)", err.msg);
    is_int(s.n, 0, "and nothing of the file is kept");
    labels_free(&s);
    free(long_q);
    free(text);
}

static void test_normalize(void)
{
    char *a = labels_normalize("  What  IS\tmy\n dog's name? ");
    is_str(a, "what is my dog's name?", "spaces collapsed, trimmed, lower case");
    free(a);
    char *b = labels_normalize("");
    is_str(b, "", "empty stays empty");
    free(b);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    test_jsonl();
    test_errors();
    test_text();
    test_normalize();
    remove_tmpdir();
    return done_testing();
}
