/* channel6-test.c - a sixth channel is one file and one line.
 *
 * This program links a core rebuilt with tests/channel6.h, whose one line
 * adds `toy` to ENGINE_CHANNELS, and defines the channel here: a stage-one
 * channel that declares bm25 as its input and ranks bm25's list backwards.
 * It must then appear in fusion, the trace, the JSON, --weights and health
 * without any other edit, and see only the list it declared. It brings its
 * own floor evidence rule too, asked before every other channel's: a
 * memory it ranks first passes by "toy", which the trace and the JSON give
 * as that memory's passed_by. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/embed.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "store/store.h"
#include "tests/tap.h"
#include "tui/browser/keytext.h"

static char tmpdir[] = "/tmp/memscope-channel6-test-XXXXXX";
#include "tests/testdir.h"

static int toy_runs;            /* produce calls */
static size_t toy_saw_bm25;     /* length of the bm25 list it was given */
static size_t toy_saw_semantic; /* length of the semantic list (must be 0) */

static const char *toy_health(const snapshot *sn, embedder *emb)
{
    (void)emb;
    return sn->n ? NULL : "store_empty";
}

static ms_status toy_produce(const channel_ctx *c, ranked_list *out, const char **note,
                             ms_error *err)
{
    (void)note;
    const ranked_list *bm = &c->lists[CH_BM25];
    toy_runs++;
    toy_saw_bm25 = bm->n;
    toy_saw_semantic = c->lists[CH_SEMANTIC].n;
    for (size_t r = bm->n; r-- > 0;)
        if (ranked_push(out, bm->v[r].idx, (double)(bm->n - r)))
            return ms_fail(err, MS_NOMEM, "out of memory");
    ranked_finish(out, c->sn, c->top_n);
    return MS_OK;
}

static int toy_measured; /* pooled memories its floor rule measured */

static void toy_floor_measure(const floor_ctx *c, uint32_t i, recall_hit *h)
{
    (void)c;
    (void)i;
    (void)h;
    toy_measured++;
}

/* Passes the memory the toy channel ranks first. */
static const char *toy_floor_judge(const floor_in *in, char *why, size_t len)
{
    const trace_channel *tc = &in->hit->ch[CH_TOY];
    if (tc->ranked && tc->rank == 1) {
        snprintf(why, len, "the toy channel ranks it first");
        return "toy";
    }
    snprintf(why, len, "toy rank %d", tc->ranked ? tc->rank : 0);
    return NULL;
}

static const char *const toy_floor_names[] = {"toy", NULL};

static const floor_rule toy_floor = {
    .ask = 0, /* before bm25's lexical rule (1) */
    .tell = 9,
    .needs_focus = 0,
    .names = toy_floor_names,
    .measure = toy_floor_measure,
    .judge = toy_floor_judge,
};

const channel_ops ch_toy_ops = {
    .name = "toy",
    .short_name = "toy",
    .stage = 1,
    .inputs = CH_MASK(CH_BM25),
    .health = toy_health,
    .produce = toy_produce,
    .floor = &toy_floor,
};

static const char *const texts[] = {
    "Leah booked the dentist for Tuesday morning.",
    "The dentist moved the appointment to Friday.",
    "Sam walks the greyhound in Ashton Court.",
    "Leah's marathon plan starts with short runs.",
    "The boiler service is booked with Hartley Heating.",
};

static store *build(void)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (store_open(tpath("six.db"), 0, &s, &err))
        return NULL;
    ms_status st = store_begin(s, &err);
    for (size_t i = 0; !st && i < sizeof texts / sizeof *texts; i++) {
        store_memory m;
        store_memory_init(&m);
        m.content = strdup(texts[i]);
        m.created_at = strdup("2025-01-01T00:00:00Z");
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        store_memory_clear(&m);
    }
    if (!st)
        st = store_end(s, &err);
    if (st) {
        diag("building the store: %s", err.msg);
        store_close(s);
        return NULL;
    }
    return s;
}

static void test_names(void)
{
    is_int(CH_COUNT, 6, "the one extra line makes six channels");
    is_str(engine_channel_name(CH_TOY), "toy", "the sixth is named toy");
    is_str(engine_channel_short_name(CH_TOY), "toy", "with its short name");
    is_int(engine_channel_parse("toy"), CH_TOY, "and --weights / --disable can name it");
    ok(engine_channel_order_ok(), "its declared input (bm25) runs before it");
    double w[CH_COUNT];
    unsigned mask = 0;
    ok(engine_weight_list("toy=2", w, &mask) == 0 && (mask & CH_MASK(CH_TOY)) && w[CH_TOY] == 2,
       "a weight list sets its weight");
}

/* The hit the toy channel ranks first, or NULL. */
static const recall_hit *toy_first(const recall_result *r)
{
    for (size_t t = 0; t < r->n_hits; t++)
        if (r->hits[t].ch[CH_TOY].ranked && r->hits[t].ch[CH_TOY].rank == 1)
            return &r->hits[t];
    return NULL;
}

/* The toy's floor rule passes the memory it ranks first, before bm25's
 * lexical rule could; the others pass by the rules they passed by before. */
static void test_floor(const recall_result *r)
{
    const recall_hit *first = toy_first(r);
    ok(toy_measured >= (int)r->n_hits, "its floor rule measured every pooled memory (%d)",
       toy_measured);
    ok(first && first->passed_by && strcmp(first->passed_by, "toy") == 0,
       "the memory it ranks first passes the floor by its rule (%s)",
       first && first->passed_by ? first->passed_by : "none");
    is_str(first ? first->floor_why : "", "the toy channel ranks it first",
           "with the rule's own why");
    int others = 0, lexical = 0;
    for (size_t t = 0; t < r->n_hits; t++)
        if (&r->hits[t] != first) {
            others++;
            lexical += r->hits[t].passed_by && strcmp(r->hits[t].passed_by, "lexical") == 0;
        }
    ok(others > 0 && lexical == others, "the other hits still pass by lexical (%d of %d)", lexical,
       others);
}

/* The JSON trace of the toy's first memory names the toy rule. */
static void test_floor_json(const cJSON *j, const recall_result *r)
{
    const recall_hit *first = toy_first(r);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "results"), *item;
    const char *by = NULL;
    cJSON_ArrayForEach(item, res)
    {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(item, "id");
        if (first && cJSON_IsString(id) && strcmp(id->valuestring, first->mem.id) == 0) {
            char *one = cJSON_PrintUnformatted(item);
            by = one && strstr(one, "\"passed_by\":\"toy\"") ? "toy" : "other";
            free(one);
        }
    }
    is_str(by ? by : "absent", "toy", "its JSON trace gives passed_by \"toy\"");
}

static void test_recall(engine *e)
{
    recall_opts o;
    recall_opts_init(&o);
    o.query = "dentist appointment";
    o.weights[CH_TOY] = 1.0;
    o.weights_set |= CH_MASK(CH_TOY);
    recall_result *r = NULL;
    ms_error err;
    ms_error_clear(&err);
    toy_runs = 0;
    ms_status st = engine_recall(e, &o, &r, &err);
    ok(st == MS_OK && r && r->n_hits > 0, "recall answers with six channels (%s)",
       st ? err.msg : "ok");
    if (st || !r || !r->n_hits) {
        recall_free(r);
        return;
    }
    is_int(toy_runs, 1, "the toy channel ran once");
    ok(toy_saw_bm25 > 0, "it was given the bm25 list it declared (%zu)", toy_saw_bm25);
    is_int((int)toy_saw_semantic, 0, "and not the semantic list it did not declare");
    ok(r->ch[CH_TOY].active && r->ch[CH_TOY].candidates > 0, "its status: active, %d candidates",
       r->ch[CH_TOY].candidates);
    const recall_hit *h = &r->hits[0];
    double sum = 0;
    for (int c = 0; c < CH_COUNT; c++)
        sum += h->ch[c].contribution;
    ok(h->ch[CH_TOY].ranked && h->ch[CH_TOY].contribution > 0,
       "the top hit's trace has a toy contribution (%.6f)", h->ch[CH_TOY].contribution);
    ok(fabs(sum - h->fused) < 1e-12, "fusion sums all six contributions (%.9f = %.9f)", sum,
       h->fused);
    test_floor(r);
    char *text = recall_json(r, 1);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    ok(j && strstr(text, "\"toy\""), "the JSON names the toy channel");
    test_floor_json(j, r);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "results");
    const cJSON *first = cJSON_IsArray(res) ? cJSON_GetArrayItem(res, 0) : NULL;
    char *one = first ? cJSON_PrintUnformatted(first) : NULL;
    ok(one && strstr(one, "\"toy\""), "and the first result's trace carries it");
    free(one);
    cJSON_Delete(j);
    free(text);
    recall_free(r);
}

static void test_health(engine *e)
{
    engine_health h;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = engine_health_get(e, &h, &err);
    ok(st == MS_OK && h.ch[CH_TOY].active, "health reports the toy channel active");
    char *text = st ? NULL : engine_health_json(&h);
    ok(text && strstr(text, "\"toy\""), "and names it in the health JSON");
    free(text);
}

/* The browser's key help for the channel keys follows the channel list. */
static void test_keys(void)
{
    char keys[64], help[512];
    keytext_expand("1-#N", keys, sizeof keys);
    keytext_expand("switch channel 1-#N off or on (#CHANNELS)", help, sizeof help);
    is_str(keys, "1-6", "the key help names keys 1-6");
    is_str(help, "switch channel 1-6 off or on (semantic bm25 temporal hopfield spreading toy)",
           "and the sixth channel by name");
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    test_names();
    test_keys();
    store *s = build();
    engine *e = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (!s || engine_open(s, NULL, &e, &err)) {
        printf("Bail out! cannot open the engine: %s\n", s ? err.msg : "no store");
        return 1;
    }
    test_recall(e);
    test_health(e);
    engine_close(e);
    store_close(s);
    remove_tmpdir();
    return done_testing();
}
