/* firststage-test.c - the first-stage options (recall_opts.first_stage,
 * `--first-stage`; engine/firststage.c and ch_spreading.c), on small stores
 * written here:
 *   - the option's grammar: what parses, what is refused;
 *   - prf: the terms of bm25's top K memories that are not the query's and
 *     that more than one memory holds are asked as a query of their own, so
 *     a memory holding none of the question's words enters bm25's list; the
 *     channel's account names them;
 *   - sessions: the best turn of a second session passes the second turn of
 *     the first;
 *   - aspects: bm25's list fused with one list per predicate word, exactly
 *     as a reference fusion computes it;
 *   - every list the same through the snapshot's postings and through FTS5;
 *   - seeds: spreading also seeds from the first turn of a session below
 *     its ten seeds, at the scale asked, and `lists` keeps every option off
 *     for a question that is not multi_hop or aggregation; the default
 *     (seeds=30:1,sets) does so for a question that asks for a set, and
 *     `none` never;
 *   - kinds: the words WordNet files below the noun asked for ("which
 *     cities" -> rome, paris) that the store holds, asked as a list of
 *     their own, only the named speakers' memories, at most P a session;
 *   - hops: the named speakers' turns by their best match to any one
 *     predicate word, at most P a session, exactly as a reference fusion
 *     computes it;
 *   - query.asks_set, and `sets` keeping every option to those questions;
 *   - engine_recall reports the account in the JSON's channels.
 * Links the store and the engine. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine_int.h"
#include "store/store.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-firststage-test-XXXXXX";
#include "tests/testdir.h"

typedef struct mem_row {
    const char *id, *session, *created, *content;
    const char *speaker; /* NULL for none */
} mem_row;

/* Pottery is a hobby twice; a third memory fires pottery in a kiln without
 * the word. Session s4 holds two turns that say hobby most. */
static const mem_row hobby[] = {
    {"p1", "s1", "2025-01-01T10:00:00Z", "Our hobby is pottery.", NULL},
    {"p2", "s2", "2025-01-02T10:00:00Z", "Pottery became my hobby this year.", NULL},
    {"p3", "s3", "2025-01-03T10:00:00Z", "The kiln fired the pottery bowls.", NULL},
    {"f1", "s5", "2025-01-04T10:00:00Z", "The train was crowded.", NULL},
    {"f2", "s5", "2025-01-04T10:01:00Z", "Rain all day again.", NULL},
    {"f3", "s6", "2025-01-05T10:00:00Z", "Dinner was late tonight.", NULL},
    {"f4", "s6", "2025-01-05T10:01:00Z", "The meeting moved to Friday.", NULL},
    {"f5", "s7", "2025-01-06T10:00:00Z", "My sister called about the car.", NULL},
    {"f6", "s7", "2025-01-06T10:01:00Z", "The car needs new tyres.", NULL},
};

static const mem_row sessions[] = {
    {"c1", "s4", "2025-02-01T10:00:00Z", "Hobby, hobby, hobby: my hobby.", NULL},
    {"c2", "s4", "2025-02-01T10:01:00Z", "The hobby hobby club.", NULL},
    {"c3", "s4", "2025-02-01T10:02:00Z", "See you there.", NULL},
    {"a1", "s1", "2025-02-02T10:00:00Z", "A hobby of mine is chess at the club on Sundays.", NULL},
    {"a2", "s2", "2025-02-03T10:00:00Z", "My hobby is knitting.", NULL},
    {"f1", "s5", "2025-02-04T10:00:00Z", "The train was crowded.", NULL},
    {"f2", "s5", "2025-02-04T10:01:00Z", "Rain all day again.", NULL},
    {"f3", "s6", "2025-02-05T10:00:00Z", "Dinner was late tonight.", NULL},
};

/* Two speakers over six sessions: Melanie's hobbies (one word each), Jonas's
 * cities (no word of a question asking for cities). */
static const mem_row club[] = {
    {"m1", "s1", "2025-03-01T10:00:00Z", "Pottery is my hobby, my one hobby, a hobby for life.",
     "Melanie"},
    {"m2", "s1", "2025-03-01T10:01:00Z", "Chess is a hobby too.", "Melanie"},
    {"m3", "s2", "2025-03-02T10:00:00Z", "I tried swimming last week.", "Melanie"},
    {"j1", "s3", "2025-03-03T10:00:00Z", "My hobby is golf, hobby, hobby, hobby.", "Jonas"},
    {"j2", "s4", "2025-03-04T10:00:00Z", "I loved Rome in spring.", "Jonas"},
    {"j3", "s4", "2025-03-04T10:01:00Z", "Paris was rainy.", "Jonas"},
    {"m4", "s6", "2025-03-06T10:00:00Z", "Rome is far away.", "Melanie"},
    {"f1", "s5", "2025-03-05T10:00:00Z", "The train was crowded.", "Jonas"},
    {"f2", "s5", "2025-03-05T10:01:00Z", "Rain all day again.", "Melanie"},
    {"f3", "s5", "2025-03-05T10:02:00Z", "Dinner was late tonight.", "Jonas"},
    {"f4", "s6", "2025-03-06T10:01:00Z", "The meeting moved to Friday.", "Jonas"},
};

static store *make(const char *name, const mem_row *v, size_t n)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (store_open(tpath(name), 0, &s, &err) || store_begin(s, &err)) {
        diag("%s: %s", name, err.msg);
        return s;
    }
    for (size_t i = 0; i < n; i++) {
        store_memory m;
        store_memory_init(&m);
        m.id = strdup(v[i].id);
        m.session = strdup(v[i].session);
        m.created_at = strdup(v[i].created);
        m.content = strdup(v[i].content);
        m.speaker = v[i].speaker ? strdup(v[i].speaker) : NULL;
        if (store_put(s, &m, STORE_DUP_ERROR, NULL, &err))
            diag("put %s: %s", v[i].id, err.msg);
        store_memory_clear(&m);
    }
    if (store_end(s, &err))
        diag("%s: %s", name, err.msg);
    return s;
}

/* A store read for recall: its snapshot, and its postings (used when on). */
typedef struct fixture {
    store *s;
    snapshot *sn;
    void *blob;
    postings *post;
} fixture;

static int fixture_open(fixture *f, const char *name, const mem_row *v, size_t n)
{
    memset(f, 0, sizeof *f);
    ms_error err;
    f->s = make(name, v, n);
    if (!f->s || store_read_begin(f->s, &err) || snapshot_load(f->s, &f->sn, &err))
        return -1;
    size_t len, lists;
    f->blob = postings_build(f->s, f->sn, &len, &lists);
    f->post = f->blob ? postings_open(f->blob, len, f->sn->n, f->sn->n_all) : NULL;
    return f->post ? 0 : -1;
}

static void fixture_close(fixture *f)
{
    if (f->sn)
        f->sn->post = NULL;
    postings_free(f->post);
    free(f->blob);
    snapshot_free(f->sn);
    if (f->s) {
        store_rollback(f->s);
        store_close(f->s);
    }
}

/* bm25's list for text under the first-stage spec (NULL: none), through
 * the postings when with_post; *account gets the channel's account. */
static ms_status bm25_list(fixture *f, const char *text, const char *spec, int with_post,
                           ranked_list *out, char account[CHANNEL_FIRST_STAGE_MAX])
{
    recall_opts o;
    recall_opts_init(&o);
    if (spec && engine_first_stage_parse(spec, &o.first_stage))
        return MS_USAGE;
    query q;
    ms_error err;
    ms_status st = query_analyse(f->s, f->sn, NULL, text, 0, 0, &q, &err);
    if (st)
        return st;
    f->sn->post = with_post ? f->post : NULL;
    account[0] = '\0';
    channel_ctx c = {0};
    c.s = f->s;
    c.sn = f->sn;
    c.q = &q;
    c.o = &o;
    c.top_n = 200;
    c.first_stage = account;
    const char *note = NULL;
    st = ch_bm25_ops.produce(&c, out, &note, &err);
    f->sn->post = NULL;
    query_clear(&q);
    return st;
}

static int rank_of(const fixture *f, const ranked_list *l, const char *id)
{
    ms_error err;
    store_memory m;
    store_memory_init(&m);
    int rank = 0;
    if (store_get(f->s, id, 0, &m, &err) == MS_OK) {
        long i = snapshot_find(f->sn, m.rid);
        rank = i >= 0 ? ranked_rank(l, (uint32_t)i) : 0;
    }
    store_memory_clear(&m);
    return rank;
}

static int same_list(const ranked_list *a, const ranked_list *b)
{
    int same = a->n == b->n && a->n > 0;
    for (size_t r = 0; same && r < a->n; r++)
        same = a->v[r].idx == b->v[r].idx && a->v[r].raw == b->v[r].raw;
    return same;
}

/* bm25's list for text under spec through FTS5 into out (the account into
 * account), and again through the postings: *same is 1 when that list and
 * account are the same. */
static ms_status bm25_both(fixture *f, const char *text, const char *spec, ranked_list *out,
                           char account[CHANNEL_FIRST_STAGE_MAX], int *same)
{
    ranked_list post = {0};
    char acc[CHANNEL_FIRST_STAGE_MAX];
    ms_status st = bm25_list(f, text, spec, 0, out, account);
    st = st ? st : bm25_list(f, text, spec, 1, &post, acc);
    *same = !st && same_list(out, &post) && strcmp(account, acc) == 0;
    ranked_free(&post);
    return st;
}

/* Open the fixture store name of the rows v; when it does not open, one
 * failed test says so and 0 is returned. */
static int fixture_ready(fixture *f, const char *name, const mem_row *v, size_t n)
{
    if (fixture_open(f, name, v, n) == 0)
        return 1;
    ok(0, "the %s store opens with postings", name);
    fixture_close(f);
    return 0;
}

/* ---- the grammar ------------------------------------------------------------ */

static void test_parse(void)
{
    first_stage_opts o;
    ok(engine_first_stage_parse("prf=5:10:0.5", &o) == 0 && o.prf_docs == 5 && o.prf_terms == 10 &&
           o.prf_weight == 0.5 && o.sessions == 0 && !o.lists_only,
       "prf=5:10:0.5 parses to K 5, T 10, W 0.5 and nothing else");
    ok(engine_first_stage_parse("sessions=0.25,aspects=1,seeds=30:0.5,lists", &o) == 0 &&
           o.sessions == 0.25 && o.aspects == 1 && o.seeds == 30 && o.seed_scale == 0.5 &&
           o.lists_only && o.prf_docs == 0,
       "sessions, aspects, seeds and lists parse together");
    ok(engine_first_stage_parse("kinds=0.5,hops=1:1,sets", &o) == 0 && o.kinds == 0.5 &&
           o.kinds_per_session == 0 && o.hops == 1 && o.hops_per_session == 1 && o.sets_only &&
           !o.lists_only,
       "kinds, hops (with a cap per session) and sets parse together");
    ok(engine_first_stage_parse("kinds=2:3", &o) == 0 && o.kinds == 2 && o.kinds_per_session == 3,
       "kinds=2:3: weight 2, at most 3 a session");
    first_stage_opts none; /* all bytes 0, padding too, as the parse leaves it */
    memset(&none, 0, sizeof none);
    o.seeds = 30;
    ok(engine_first_stage_parse("none", &o) == 0 && memcmp(&o, &none, sizeof o) == 0,
       "none: every option off");
    recall_opts ro;
    recall_opts_init(&ro);
    ok(ro.first_stage.seeds == 30 && ro.first_stage.seed_scale == 1 && ro.first_stage.sets_only &&
           !ro.first_stage.lists_only && ro.first_stage.prf_weight == 0 &&
           ro.first_stage.sessions == 0 && ro.first_stage.aspects == 0 &&
           ro.first_stage.kinds == 0 && ro.first_stage.hops == 0,
       "the default (recall_opts_init): seeds=30:1 for sets, no list");
    static const char *const bad[] = {
        "kinds",       "kinds=11",    "kinds=1:1.5", "kinds=1:51",  "hops=",
        "hops=1:2:3",  "hops=-1",     "sets=1",      "kinds=1:",    "",
        "prf",         "prf=5:10",    "prf=0:10:1",  "prf=5:0:1",   "prf=5:33:1",
        "prf=65:5:1",  "prf=5.5:5:1", "prf=5:5:11",  "sessions=-1", "sessions=11",
        "aspects=x",   "seeds=10:1",  "seeds=30",    "seeds=30:11", "lists=1",
        "sessions=1,", "bogus",       "prf=5:10:1x", "none,sets",   "sets,none",
        "None"};
    int refused = 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int r = engine_first_stage_parse(bad[i], &o);
        if (r != -1)
            diag("accepted: \"%s\"", bad[i]);
        refused += r == -1;
    }
    ok(refused == (int)(sizeof bad / sizeof *bad), "%d malformed specs refused (of %zu)", refused,
       sizeof bad / sizeof *bad);
}

/* ---- prf ----------------------------------------------------------------------- */

static void test_prf(void)
{
    fixture f;
    if (!fixture_ready(&f, "hobby.db", hobby, sizeof hobby / sizeof *hobby))
        return;
    ranked_list plain = {0}, prf = {0};
    char acc0[CHANNEL_FIRST_STAGE_MAX], acc[CHANNEL_FIRST_STAGE_MAX];
    int same = 0;
    ms_status st = bm25_list(&f, "What is the hobby?", NULL, 0, &plain, acc0);
    st = st ? st : bm25_both(&f, "What is the hobby?", "prf=2:3:1", &prf, acc, &same);
    ok(!st && plain.n == 2 && rank_of(&f, &plain, "p3") == 0 && acc0[0] == '\0',
       "without prf bm25 lists the two memories saying hobby, not the kiln (%zu listed)", plain.n);
    ok(!st && rank_of(&f, &prf, "p3") == 3 && rank_of(&f, &prf, "p1") <= 2 &&
           rank_of(&f, &prf, "p2") <= 2,
       "with prf=2:3:1 the kiln memory, sharing only pottery, enters third (rank %d)",
       rank_of(&f, &prf, "p3"));
    is_str(acc, "prf 2:3:1 pottery",
           "the account names the one expansion term: not the query's hobby, not became or year "
           "(one memory each)");
    ok(same, "the same list and account through the postings as through FTS5");
    ranked_free(&plain);
    ranked_free(&prf);
    fixture_close(&f);
}

/* ---- sessions and aspects ---------------------------------------------------------- */

static void test_sessions(void)
{
    fixture f;
    if (!fixture_ready(&f, "sessions.db", sessions, sizeof sessions / sizeof *sessions))
        return;
    ranked_list plain = {0}, ses = {0};
    char a0[CHANNEL_FIRST_STAGE_MAX], a1[CHANNEL_FIRST_STAGE_MAX];
    int same_ses = 0, same_asp = 0;
    ms_status st = bm25_list(&f, "hobby", NULL, 0, &plain, a0);
    st = st ? st : bm25_both(&f, "hobby", "sessions=1", &ses, a1, &same_ses);
    int c1 = rank_of(&f, &plain, "c1"), c2 = rank_of(&f, &plain, "c2");
    int x1 = rank_of(&f, &plain, "a1"), x2 = rank_of(&f, &plain, "a2");
    ok(!st && c1 == 1 && c2 == 2 && x2 == 3 && x1 > 3,
       "bm25 alone: session s4's two turns first (c1 %d, c2 %d), then a2 %d, a1 %d", c1, c2, x2,
       x1);
    ok(rank_of(&f, &ses, "c1") == 1 && rank_of(&f, &ses, "a2") == 2 &&
           rank_of(&f, &ses, "c2") == 3 && rank_of(&f, &ses, "a1") == 4,
       "sessions=1: the best turn of s2 passes s4's second turn (a2 %d, c2 %d)",
       rank_of(&f, &ses, "a2"), rank_of(&f, &ses, "c2"));
    is_str(a1, "sessions 1", "the account says so");
    ok(same_ses, "the same list through the postings");

    /* aspects: the reference is bm25's list plus, at w / 2, each word's own */
    ranked_list asp = {0}, w1 = {0}, w2 = {0}, both = {0};
    st = bm25_list(&f, "hobby club", NULL, 0, &both, a0);
    st = st ? st : bm25_list(&f, "hobby", NULL, 0, &w1, a0);
    st = st ? st : bm25_list(&f, "club", NULL, 0, &w2, a0);
    st = st ? st : bm25_both(&f, "hobby club", "aspects=1", &asp, a1, &same_asp);
    int agree = !st && asp.n == both.n && asp.n > 0;
    for (size_t r = 0; agree && r < asp.n; r++) {
        uint32_t i = asp.v[r].idx;
        double want = 1.0 / (15.0 + ranked_rank(&both, i));
        int r1 = ranked_rank(&w1, i), r2 = ranked_rank(&w2, i);
        want += (r1 ? 0.5 / (15.0 + r1) : 0) + (r2 ? 0.5 / (15.0 + r2) : 0);
        agree = fabs(asp.v[r].raw - want) < 1e-12 && (r == 0 || asp.v[r - 1].raw >= asp.v[r].raw);
    }
    ok(agree,
       "aspects=1: each memory scores 1/(15 + bm25 rank) + 0.5/(15 + its rank for each "
       "word), best first (%zu memories)",
       asp.n);
    is_str(a1, "aspects 1 (2)", "the account names the weight and the two aspects");
    ok(same_asp, "the same list through the postings");
    ranked_list one = {0};
    st = bm25_list(&f, "hobby", "aspects=1", 0, &one, a1);
    ok(!st && same_list(&one, &plain) && a1[0] == '\0',
       "one predicate word is one aspect: bm25's list unchanged");
    ranked_free(&one);
    ranked_free(&asp);
    ranked_free(&w1);
    ranked_free(&w2);
    ranked_free(&both);
    ranked_free(&plain);
    ranked_free(&ses);
    fixture_close(&f);
}

/* ---- seeds -------------------------------------------------------------------- */

/* Session A of twelve turns, session B of three, a year apart (no temporal
 * edges between them). */
static store *seeds_store(void)
{
    mem_row v[15];
    static char id[15][16], created[15][48];
    for (int i = 0; i < 15; i++) {
        int b = i >= 12;
        snprintf(id[i], sizeof id[i], "%c%d", b ? 'b' : 'a', b ? i - 12 : i);
        snprintf(created[i], sizeof created[i], "%d-03-01T10:%02d:00Z", b ? 2024 : 2025, i);
        v[i] = (mem_row){id[i], b ? "B" : "A", created[i], b ? "Turn of B." : "Turn of A.", NULL};
    }
    return make("seeds.db", v, 15);
}

static ms_status spread(store *s, const snapshot *sn, const char *text, const char *spec,
                        const ranked_list *seeds, ranked_list *out)
{
    recall_opts o;
    recall_opts_init(&o);
    if (spec && engine_first_stage_parse(spec, &o.first_stage))
        return MS_USAGE;
    query q;
    ms_error err;
    ms_status st = query_analyse(s, sn, NULL, text, 0, 0, &q, &err);
    channel_ctx c = {0};
    c.s = s;
    c.sn = sn;
    c.q = &q;
    c.o = &o;
    c.top_n = 200;
    c.seed_fusion = seeds;
    const char *note = NULL;
    if (!st)
        st = ch_spreading_ops.produce(&c, out, &note, &err);
    query_clear(&q);
    return st;
}

static double raw_of(const ranked_list *l, uint32_t i)
{
    int r = ranked_rank(l, i);
    return r ? l->v[r - 1].raw : 0;
}

static void test_seeds(void)
{
    store *s = seeds_store();
    snapshot *sn = NULL;
    ms_error err;
    if (!s || store_read_begin(s, &err) || snapshot_load(s, &sn, &err)) {
        ok(0, "the seeds store opens");
        store_close(s);
        return;
    }
    /* indices by rid order: a0..a11 are 0..11, b0..b2 12..14. The seed
     * fusion: a0..a9, then b0 (the first of B), b1 */
    ranked_list seeds = {0};
    for (uint32_t i = 0; i < 12; i++)
        ranked_push(&seeds, i < 10 ? i : i + 2, 1.0 - 0.01 * i);
    ranked_list plain = {0}, s1 = {0}, s_half = {0}, lists = {0}, lists_mh = {0};
    ms_status st = spread(s, sn, "turn", NULL, &seeds, &plain);
    st = st ? st : spread(s, sn, "turn", "seeds=12:1", &seeds, &s1);
    st = st ? st : spread(s, sn, "turn", "seeds=12:0.5", &seeds, &s_half);
    st = st ? st : spread(s, sn, "turn", "seeds=12:1,lists", &seeds, &lists);
    st = st ? st
            : spread(s, sn, "Which turns do A and B both take?", "seeds=12:1,lists", &seeds,
                     &lists_mh);
    ok(!st && ranked_rank(&plain, 12) == 0 && ranked_rank(&plain, 14) == 0 && plain.n > 0,
       "ten seeds: nothing of session B is activated");
    ok(ranked_rank(&s1, 12) && ranked_rank(&s1, 13) && ranked_rank(&s1, 14),
       "seeds=12:1: b0, the first of B below the ten, seeds, and passes on to b1 and b2");
    double a = 1.0 / sqrt(11.0);
    ok(fabs(raw_of(&s1, 12) - a) < 1e-12 && fabs(raw_of(&s_half, 12) - 0.5 * a) < 1e-12,
       "b0 starts at 1/sqrt(11) (%.6f) and at half that with scale 0.5 (%.6f)", raw_of(&s1, 12),
       raw_of(&s_half, 12));
    ok(raw_of(&s1, 13) > 0 && fabs(raw_of(&s1, 13) - 2 * raw_of(&s_half, 13)) < 1e-12,
       "b1, the second of B, is no seed: all it gets is b0's (halved with b0)");
    ok(same_list(&lists, &plain), "lists: a question that is not multi_hop keeps ten seeds");
    ok(same_list(&lists_mh, &s1), "lists: a multi_hop question (\"both\") seeds as seeds=12:1");
    ranked_list dflt = {0}, dflt_set = {0}, off_set = {0};
    st = spread(s, sn, "turn", NULL, &seeds, &dflt);
    st = st ? st : spread(s, sn, "Which turns do A and B both take?", NULL, &seeds, &dflt_set);
    st = st ? st : spread(s, sn, "Which turns do A and B both take?", "none", &seeds, &off_set);
    ok(!st && same_list(&dflt, &plain), "the default: a question that asks no set keeps ten seeds");
    ok(same_list(&dflt_set, &s1),
       "the default: a set asked (\"both\") seeds b0 as seeds=12:1 does");
    ok(same_list(&off_set, &plain), "none: ten seeds for the same question");
    ranked_free(&dflt);
    ranked_free(&dflt_set);
    ranked_free(&off_set);
    ranked_free(&seeds);
    ranked_free(&plain);
    ranked_free(&s1);
    ranked_free(&s_half);
    ranked_free(&lists);
    ranked_free(&lists_mh);
    snapshot_free(sn);
    store_rollback(s);
    store_close(s);
}

/* ---- kinds, hops and sets ------------------------------------------------------ */

/* The query's asks_set for text, against the fixture's snapshot; -1 when it
 * cannot be analysed. */
static int set_of(fixture *f, const char *text)
{
    query q;
    ms_error err;
    if (query_analyse(f->s, f->sn, NULL, text, 0, 0, &q, &err))
        return -1;
    int set = q.asks_set;
    query_clear(&q);
    return set;
}

static void test_sets(fixture *f)
{
    static const struct {
        const char *text;
        int set;
    } cases[] = {
        {"What novels has Melanie read?", 1},
        {"What has Melanie painted?", 1},
        {"Which city have Jonas and Melanie visited?", 1},
        {"What musical events has Melanie gone to?", 1},
        {"What instruments does Jonas play?", 1},
        {"How many times has Jonas been to the beach?", 1},
        {"What do Melanie and Jonas both like?", 1},
        {"What sports do they have in common?", 1},
        {"What did Melanie paint yesterday?", 0},
        {"Where does Jonas work?", 0},
        {"What is Melanie's job?", 0},
        {"When has Jonas been to Rome?", 0},
        {"What has been bothering Melanie?", 0},
        {"What does Jonas think of chess?", 0},
        {"How many dogs does Melanie have?", 0},
    };
    int right = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = set_of(f, cases[i].text);
        if (got != cases[i].set)
            diag("asks_set %d, want %d: %s", got, cases[i].set, cases[i].text);
        right += got == cases[i].set;
    }
    ok(right == (int)(sizeof cases / sizeof *cases),
       "asks_set: a plural asked for, the present perfect of a named speaker, how many times, "
       "both, in common; not a one-time past, a where, a possessive, a when (%d of %zu)",
       right, sizeof cases / sizeof *cases);
}

static void test_hops(fixture *f)
{
    const char *q = "What hobbies has Melanie tried?";
    ranked_list plain = {0}, hop = {0}, any = {0};
    char a0[CHANNEL_FIRST_STAGE_MAX], a1[CHANNEL_FIRST_STAGE_MAX], a2[CHANNEL_FIRST_STAGE_MAX];
    int same = 0;
    ms_status st = bm25_list(f, q, NULL, 0, &plain, a0);
    st = st ? st : bm25_both(f, q, "hops=1:1", &hop, a1, &same);
    st = st ? st : bm25_list(f, q, "hops=1", 0, &any, a2);
    is_str(a1, "hops 1 (2 words, 2 turns)",
           "hops=1:1: the account names the weight, the two predicate words and the turns listed");
    is_str(a2, "hops 1 (2 words, 3 turns)", "hops=1 (any number a session): three turns");
    /* the hop list with one a session: m1 (the best of hobbies), m3 (the
     * only one of tried), both at share 1, by rid; not j1 (Jonas), not m2
     * (s1 again) */
    const char *order[] = {"m1", "m3"};
    int agree = !st && hop.n > 0;
    for (size_t r = 0; agree && r < hop.n; r++) {
        uint32_t i = hop.v[r].idx;
        int rb = ranked_rank(&plain, i), rh = 0;
        for (int k = 0; k < 2; k++) {
            store_memory m;
            store_memory_init(&m);
            ms_error err;
            if (store_get(f->s, order[k], 0, &m, &err) == MS_OK &&
                snapshot_find(f->sn, m.rid) == (long)i)
                rh = k + 1;
            store_memory_clear(&m);
        }
        double want = (rb ? 1.0 / (15.0 + rb) : 0) + (rh ? 1.0 / (15.0 + rh) : 0);
        agree = fabs(hop.v[r].raw - want) < 1e-12;
    }
    ok(agree,
       "each memory scores 1/(15 + bm25 rank) + 1/(15 + hop rank), the hop list m1, m3 "
       "(%zu memories)",
       hop.n);
    ok(rank_of(f, &plain, "j1") < rank_of(f, &plain, "m1") &&
           rank_of(f, &hop, "m1") < rank_of(f, &hop, "j1"),
       "Melanie's m1 passes Jonas's j1, which says hobby most (bm25 %d and %d; with hops %d and "
       "%d)",
       rank_of(f, &plain, "m1"), rank_of(f, &plain, "j1"), rank_of(f, &hop, "m1"),
       rank_of(f, &hop, "j1"));
    ok(rank_of(f, &any, "m2") < rank_of(f, &hop, "m2"),
       "without the cap per session m2 (a second of s1) gains too (%d against %d)",
       rank_of(f, &any, "m2"), rank_of(f, &hop, "m2"));
    ok(same, "the same list through the postings");
    ranked_list none = {0};
    st = bm25_list(f, "What hobbies are there?", "hops=1:1", 0, &none, a1);
    ok(!st && a1[0] == '\0', "a question naming no speaker gets no hop list");
    ranked_free(&none);
    ranked_free(&plain);
    ranked_free(&hop);
    ranked_free(&any);
}

static void test_kinds(fixture *f)
{
    if (!lexicon_default()) {
        ok(1, "# SKIP kinds: no WordNet (wordnet-base)");
        return;
    }
    const char *q = "Which cities has Jonas visited?";
    ranked_list plain = {0}, kin = {0}, cap = {0}, off = {0};
    char a0[CHANNEL_FIRST_STAGE_MAX], a1[CHANNEL_FIRST_STAGE_MAX], a2[CHANNEL_FIRST_STAGE_MAX];
    int same = 0;
    ms_status st = bm25_list(f, q, NULL, 0, &plain, a0);
    st = st ? st : bm25_both(f, q, "kinds=1", &kin, a1, &same);
    st = st ? st : bm25_list(f, q, "kinds=1:1", 0, &cap, a2);
    ok(!st && rank_of(f, &plain, "j2") == 0 && rank_of(f, &plain, "j3") == 0,
       "bm25 alone lists neither Rome nor Paris (no word of the question)");
    ok(rank_of(f, &kin, "j2") > 0 && rank_of(f, &kin, "j3") > 0,
       "kinds=1: Jonas's Rome (%d) and Paris (%d) enter bm25's list", rank_of(f, &kin, "j2"),
       rank_of(f, &kin, "j3"));
    ok(rank_of(f, &kin, "m4") == 0, "Melanie's Rome does not: the question names Jonas");
    ok(strncmp(a1, "kinds 1 of cities (", 19) == 0 && strstr(a1, " rome") && strstr(a1, " paris"),
       "the account names the noun and the words asked: %s", a1);
    ok((rank_of(f, &cap, "j2") > 0) + (rank_of(f, &cap, "j3") > 0) == 1,
       "kinds=1:1: one of the two, both of session s4");
    ok(same, "the same list through the postings");
    const char *one = "Which city has Jonas visited?";
    st = bm25_list(f, one, "kinds=1,lists", 0, &off, a2);
    ok(!st && rank_of(f, &off, "j2") == 0 && a2[0] == '\0',
       "kinds=1,lists: \"which city has Jonas visited\" is not of the multi_hop type: no list");
    ranked_free(&off);
    off = (ranked_list){0};
    st = bm25_list(f, one, "kinds=1,sets", 0, &off, a2);
    ok(!st && rank_of(f, &off, "j2") > 0 && strncmp(a2, "kinds 1 of city", 15) == 0,
       "kinds=1,sets: it asks for a set (the present perfect of Jonas): Rome is listed (%d)",
       rank_of(f, &off, "j2"));
    ranked_free(&off);
    off = (ranked_list){0};
    st = bm25_list(f, "Which city is Jonas from?", "kinds=1,sets", 0, &off, a2);
    ok(!st && a2[0] == '\0', "kinds=1,sets: \"which city is Jonas from\" asks for no set");
    ranked_free(&off);
    ranked_free(&plain);
    ranked_free(&kin);
    ranked_free(&cap);
}

static void test_club(void)
{
    fixture f;
    if (!fixture_ready(&f, "club.db", club, sizeof club / sizeof *club))
        return;
    test_sets(&f);
    test_hops(&f);
    test_kinds(&f);
    fixture_close(&f);
}

/* ---- through engine_recall ------------------------------------------------------------ */

static void test_recall_account(void)
{
    store *s = NULL;
    engine *e = NULL;
    ms_error err;
    recall_result *r = NULL;
    recall_opts o;
    recall_opts_init(&o);
    o.query = "What is the hobby?";
    o.no_floor = 1;
    engine_first_stage_parse("prf=2:3:1", &o.first_stage);
    int opened = store_open(tpath("hobby.db"), 0, &s, &err) == MS_OK &&
                 engine_open(s, NULL, &e, &err) == MS_OK;
    ms_status st = opened ? engine_recall(e, &o, &r, &err) : MS_IO;
    char *text = st ? NULL : recall_json(r, 1);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    const cJSON *bm =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "channels"), "bm25");
    const cJSON *fs = cJSON_GetObjectItemCaseSensitive(bm, "first_stage");
    is_str(cJSON_IsString(fs) ? fs->valuestring : "(none)", "prf 2:3:1 pottery",
           "recall --json: channels.bm25.first_stage is the account");
    int found = 0;
    for (size_t i = 0; r && i < r->n_hits; i++)
        found |= strcmp(r->hits[i].mem.id, "p3") == 0;
    ok(found, "and the kiln memory is among the results");
    recall_free(r);
    r = NULL;
    o.first_stage = (first_stage_opts){0};
    st = opened ? engine_recall(e, &o, &r, &err) : MS_IO;
    cJSON_Delete(j);
    free(text);
    text = st ? NULL : recall_json(r, 1);
    j = text ? cJSON_Parse(text) : NULL;
    bm = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "channels"), "bm25");
    ok(bm && !cJSON_GetObjectItemCaseSensitive(bm, "first_stage"),
       "the options off: no first_stage in bm25");
    cJSON_Delete(j);
    free(text);
    recall_free(r);
    engine_close(e);
    store_close(s);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("1..0 # SKIP no temporary directory\n");
        return 0;
    }
    test_parse();
    test_prf();
    test_sessions();
    test_seeds();
    test_club();
    test_recall_account();
    remove_tmpdir();
    return done_testing();
}
