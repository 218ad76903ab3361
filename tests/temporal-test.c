/* temporal-test.c - the time channel reads the words of the memories near a
 * query date in one batch (engine/ch_temporal.c told_all), not one query
 * per memory:
 *   - a store of TOLD memories told one to eleven days after 8 May 2023,
 *     each saying "yesterday" or "last Friday", and a dated query matching
 *     all of them: each is as far as the day its words name (8 May itself
 *     for the one told on the 9th: on the date), in the temporal list;
 *   - the recall runs fewer SQL statements than there are such memories
 *     (sqlite3_trace_v2 on the store's connection, not counting those
 *     FTS5 runs inside a statement), where a store_get for each ran two
 *     apiece;
 *   - whether a text says how long something lasted
 *     (temporal_says_duration) is what the rule as first written says (a
 *     copy here: each word cut to 15 bytes with snprintf, lowered, and
 *     compared with strcmp) for 20,000 random texts of amounts, units,
 *     other words, digits, punctuation and bytes above 127, and for a few
 *     written out;
 *   - whether a text says something was just done
 *     (temporal_says_just_done): "just" before a past form, for a few
 *     written out.
 * Links the store and the engine. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "engine/engine.h"
#include "engine/engine_int.h"
#include "store/store.h"
#include "store/store_int.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-temporal-test-XXXXXX";
#include "tests/testdir.h"
#include "tests/put.h"

#define TOLD 120

static int statements;

/* Each statement the connection runs, but those SQLite runs inside one
 * (FTS5's own, which begin with "--"). */
static int count_stmt(unsigned type, void *ctx, void *p, void *x)
{
    (void)type;
    (void)ctx;
    (void)p;
    statements += strncmp((const char *)x, "--", 2) != 0;
    return 0;
}

/* TOLD memories from 9 to 19 May 2023 that tell of the days before, and a
 * few on other days. */
static store *told_store(void)
{
    store *s;
    ms_error err;
    if (store_open(tpath("told.db"), 0, &s, &err))
        return NULL;
    store_begin(s, &err);
    for (int i = 0; i < TOLD; i++) {
        char id[16], text[128], when[32];
        snprintf(id, sizeof id, "t%d", i);
        snprintf(text, sizeof text, "%s we planted the garden beds, number %d",
                 i % 2 ? "last Friday" : "yesterday", i);
        snprintf(when, sizeof when, "2023-05-%02dT10:%02d:00Z", 9 + i % 11, i % 60);
        test_put_at(s, id, text, NULL, when);
    }
    test_put_at(s, "far", "the garden in winter, yesterday", NULL, "2023-12-01T10:00:00Z");
    store_end(s, &err);
    return s;
}

/* The temporal channel's raw score of memory id in r, or 1 when it has none. */
static double temporal_raw(const recall_result *r, const char *id)
{
    for (size_t k = 0; k < r->n_hits; k++)
        if (strcmp(r->hits[k].mem.id, id) == 0)
            return r->hits[k].ch[CH_TEMPORAL].ranked ? r->hits[k].ch[CH_TEMPORAL].raw : 1.0;
    return 1.0;
}

static void test_batch(void)
{
    store *s = told_store();
    engine *e = NULL;
    ms_error err;
    if (!s || engine_open(s, NULL, &e, &err)) {
        ok(0, "a store and its engine");
        store_close(s);
        return;
    }
    recall_opts o;
    recall_opts_init(&o);
    o.query = "what did we plant in the garden on 8 May 2023?";
    o.limit = TOLD;
    recall_result *r = NULL;
    sqlite3_trace_v2(s->db, SQLITE_TRACE_STMT, count_stmt, NULL);
    statements = 0;
    ms_status st = engine_recall(e, &o, &r, &err);
    int ran = statements;
    sqlite3_trace_v2(s->db, 0, NULL, NULL);
    ok(st == MS_OK && r, "a dated recall over %d memories that tell of the days before", TOLD);
    if (st == MS_OK && r) {
        /* t0 told on the 9th says "yesterday": the 8th, on the date (raw > -1);
         * t2 told on the 11th "yesterday": the 10th, 2 days after */
        double r0 = temporal_raw(r, "t0"), r2 = temporal_raw(r, "t2");
        ok(r0 > -1.0 && r0 < 0.0, "told on the 9th, \"yesterday\": on the date (raw %.3f)", r0);
        ok(r2 > -3.0 && r2 < -2.0, "told on the 11th, \"yesterday\": two days after (raw %.3f)",
           r2);
        ok(ran < TOLD, "%d SQL statements for the recall, fewer than its %d told memories", ran,
           TOLD);
    }
    recall_free(r);
    engine_close(e);
    store_close(s);
}

/* The rule as first written (ch_temporal.c before docs/PERFORMANCE.md item
 * 56). */
static int ref_says_duration(const char *text)
{
    static const char *const amount[] = {"a",       "an",     "one",    "two",    "three",   "four",
                                         "five",    "six",    "seven",  "eight",  "nine",    "ten",
                                         "eleven",  "twelve", "few",    "couple", "several", "many",
                                         "fifteen", "twenty", "thirty", "half",   NULL};
    static const char *const unit[] = {"year",  "years",  "month",   "months", "week",
                                       "weeks", "decade", "decades", NULL};
    char prev[16] = "", w[16];
    for (const char *p = text; p && *p;) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        size_t n = 0;
        while (isalnum((unsigned char)p[n]))
            n++;
        if (!n)
            break;
        snprintf(w, sizeof w, "%.*s", (int)(n < 15 ? n : 15), p);
        for (char *q = w; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        int num = isdigit((unsigned char)prev[0]);
        for (int k = 0; !num && amount[k]; k++)
            num = strcmp(prev, amount[k]) == 0;
        for (int k = 0; num && unit[k]; k++)
            if (strcmp(w, unit[k]) == 0)
                return 1;
        snprintf(prev, sizeof prev, "%s", w);
        p += n;
    }
    return 0;
}

static unsigned long long rng = 0x9E3779B97F4A7C15ull;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void test_says_duration(void)
{
    static const char *const piece[] = {"a",
                                        "An",
                                        "one",
                                        "TWO",
                                        "three",
                                        "few",
                                        "couple",
                                        "several",
                                        "many",
                                        "half",
                                        "thirty",
                                        "3",
                                        "10",
                                        "2nd",
                                        "year",
                                        "Years",
                                        "MONTH",
                                        "months",
                                        "week",
                                        "weeks",
                                        "decade",
                                        "decades",
                                        "yearly",
                                        "of",
                                        "for",
                                        "now",
                                        "ago",
                                        "the",
                                        "yearsyearsyearsyears",
                                        "aaaaaaaaaaaaaaaaa",
                                        "monthss",
                                        "\xc3\xa9",
                                        "\xe2\x80\x94",
                                        " ",
                                        "  ",
                                        ",",
                                        ".",
                                        "-",
                                        "'",
                                        "\t",
                                        "x2",
                                        "0"};
    size_t n = sizeof piece / sizeof *piece, differ = 0, yes = 0;
    char text[256];
    for (int t = 0; t < 20000; t++) {
        text[0] = '\0';
        for (unsigned k = 0, m = 1 + rnd(12); k < m; k++) {
            strcat(text, piece[rnd((unsigned)n)]);
            if (rnd(3))
                strcat(text, " ");
        }
        int want = ref_says_duration(text);
        differ += temporal_says_duration(text) != want;
        yes += want;
    }
    ok(differ == 0 && yes > 1000 && yes < 19000,
       "says_duration agrees with the rule as first written on 20,000 random texts (%zu differ, "
       "%zu say a duration)",
       differ, yes);
    static const struct {
        const char *text;
        int want;
    } cases[] = {
        {"We have been together for 3 years now", 1},
        {"Six Months in and still going", 1},
        {"a couple of months", 0},
        {"a week", 1},
        {"the years went by", 0},
        {"2years", 0},
        {"about 10 decades", 1},
        {"one\xc3\xa9years", 1},
        {"", 0},
        {"half year", 1},
    };
    int wrong = 0;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        if (temporal_says_duration(cases[k].text) != cases[k].want ||
            ref_says_duration(cases[k].text) != cases[k].want) {
            diag("\"%s\": want %d", cases[k].text, cases[k].want);
            wrong++;
        }
    ok(wrong == 0, "says_duration on 10 texts written out");
}

/* "just" before a past form says something was just done; before anything
 * else ("just a bakery", "just need") it does not. Irregular forms from the
 * test WordNet (tests/data/wordnet: "won"). */
static void test_says_just_done(void)
{
    static const struct {
        const char *text;
        int want;
    } cases[] = {
        {"I just opened the bakery on Mill Street!", 1},
        {"We've JUST started a book club.", 1},
        {"I just won the county bake-off", 1},
        {"It's just a small bakery, nothing fancy.", 0},
        {"I just need a bigger oven", 0},
        {"just", 0},
        {"I adjusted the oven", 0},
        {"It just is.", 0},
        {"Just finished my first marathon", 1},
        {"", 0},
    };
    int wrong = 0;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        if (temporal_says_just_done(cases[k].text) != cases[k].want) {
            diag("\"%s\": want %d", cases[k].text, cases[k].want);
            wrong++;
        }
    ok(wrong == 0, "says_just_done on 10 texts written out");
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("1..0 # SKIP no temporary directory\n");
        return 0;
    }
    setenv("MEMSCOPE_WORDNET", "tests/data/wordnet", 1);
    test_batch();
    test_says_duration();
    test_says_just_done();
    remove_tmpdir();
    return done_testing();
}
