/* engine.c - the recall pipeline.
 *
 *  1. analyse the query (query.c);
 *  2. stage one: semantic, bm25 and temporal produce candidates;
 *  3. a seed fusion of stage one feeds stage two: hopfield attends over the
 *     stage-one pool, spreading activates from the seeds along edges;
 *  4. weighted reciprocal-rank fusion of all five lists:
 *        fused(m) = sum over channels c that ranked m of w_c / (k + rank_c(m));
 *  5. entity-graph enhancement: boosted = fused * (1 + eg_speaker) when m
 *     is spoken by a speaker the query names, * (1 + eg_mention) when m is
 *     linked to another entity it names (never a new candidate);
 *  6. adjustments (trust, confidence, recency, feedback) multiply boosted into
 *     ranking_score; relevance_score = boosted / the best boosted score any
 *     memory could reach for this query: ranked first by every active
 *     channel that applies to it (temporal only with a date, when- or
 *     recency question) and spoken by or naming what the query names;
 *  7. the evidence floor keeps memories with real evidence (floor.c);
 *  8. abstain with no_candidates or evidence_floor, as the contract says. */
#include "engine_int.h"
#include "store/base/mono.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define POOL_MIN 30
/* memories: from here a stage-one channel's prepare runs on a second thread
 * (run_channels). Below it the thread costs about what it saves: at 100k
 * the recall's p50 went 1.4-1.5 -> 1.6-1.8 ms with it, at 300k 2.7-2.9 ->
 * 2.5-2.6 ms and its p95 no better; at 1M 6.6-6.7 -> 4.7-4.9 ms
 * (docs/PERFORMANCE.md, item 82) */
#define PARALLEL_MIN 500000
#define MISSES_MAX 5

#define CH_ENTRY(id, name) [CH_##id] = &ch_##name##_ops,
const channel_ops *const engine_channels[CH_COUNT] = {ENGINE_CHANNELS(CH_ENTRY)};
#undef CH_ENTRY

struct engine {
    store *s;
    embedder *emb; /* NULL when the embedder could not be opened */
    char emb_error[sizeof(((ms_error *)0)->msg)];
    snapshot *sn;
    adaptive *ad;  /* judgements learned from feedback */
    reranker *rr;  /* NULL when none, or when it failed */
    int rr_wanted; /* a reranker was set (so "failed" rather than "off") */
    char *rr_spec; /* the spec it was set with */
    char rr_error[sizeof(((ms_error *)0)->msg)];
    char snap_note[PATH_MAX + 128]; /* what was wrong with the snapshot file, or "" */
    int snap_unsaved;               /* sn was read from the tables under snap_key: write */
    store_key snap_key;             /* its file at engine_close */
    snap_progress pg;               /* said while a snapshot is read from the tables */
};

const char *engine_channel_name(int ch)
{
    return (unsigned)ch < CH_COUNT ? engine_channels[ch]->name : "?";
}

const char *engine_channel_short_name(int ch)
{
    return (unsigned)ch < CH_COUNT ? engine_channels[ch]->short_name : "?";
}

int engine_channel_order_ok(void)
{
    for (int c = 0; c < CH_COUNT; c++)
        for (int i = 0; i < CH_COUNT; i++)
            if ((engine_channels[c]->inputs & CH_MASK(i)) &&
                !(engine_channels[i]->stage < engine_channels[c]->stage ||
                  (engine_channels[i]->stage == engine_channels[c]->stage && i < c)))
                return 0;
    return 1;
}

int engine_channel_parse(const char *name)
{
    for (int c = 0; c < CH_COUNT; c++)
        if (strcmp(name, engine_channels[c]->name) == 0)
            return c;
    return -1;
}

/* Split a comma list, calling fn on each item; -1 on an empty item. */
static int each_item(const char *list, int (*fn)(void *ctx, const char *item), void *ctx)
{
    char buf[256];
    if (!list || strlen(list) >= sizeof buf)
        return -1;
    strcpy(buf, list);
    char *save = NULL;
    int n = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), n++)
        if (fn(ctx, t))
            return -1;
    return n ? 0 : -1;
}

static int mask_item(void *ctx, const char *item)
{
    unsigned *mask = ctx;
    if (strcmp(item, "all") == 0) {
        *mask |= CH_ALL;
        return 0;
    }
    int c = engine_channel_parse(item);
    if (c < 0)
        return -1;
    *mask |= CH_MASK(c);
    return 0;
}

int engine_channel_list(const char *list, unsigned *mask)
{
    *mask = 0;
    return each_item(list, mask_item, mask);
}

struct weight_ctx {
    double *w;
    unsigned *mask;
};

static int weight_item(void *ctx, const char *item)
{
    struct weight_ctx *wc = ctx;
    const char *eq = strchr(item, '=');
    if (!eq)
        return -1;
    char name[32];
    size_t n = (size_t)(eq - item);
    if (n >= sizeof name)
        return -1;
    memcpy(name, item, n);
    name[n] = '\0';
    int c = engine_channel_parse(name);
    char *end;
    double v = strtod(eq + 1, &end);
    if (c < 0 || end == eq + 1 || *end || !isfinite(v) || v < 0 || v > 1000)
        return -1;
    wc->w[c] = v;
    *wc->mask |= CH_MASK(c);
    return 0;
}

int engine_weight_list(const char *list, double weights[CH_COUNT], unsigned *mask)
{
    struct weight_ctx wc = {weights, mask};
    return each_item(list, weight_item, &wc);
}

/* ---- opening ------------------------------------------------------------- */

ms_status engine_open(store *s, const char *embedder_spec, engine **out, ms_error *err)
{
    *out = NULL;
    engine *e = calloc(1, sizeof *e);
    if (!e)
        return ms_fail(err, MS_NOMEM, "out of memory");
    e->s = s;
    if (!(e->ad = adaptive_new())) {
        free(e);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    ms_error eerr;
    ms_error_clear(&eerr);
    e->emb = embed_open(embedder_spec, &eerr);
    if (!e->emb) {
        if (embedder_spec) { /* asked for by name: its failure is the caller's error */
            adaptive_free(e->ad);
            free(e);
            *err = eerr;
            return eerr.code;
        }
        snprintf(e->emb_error, sizeof e->emb_error, "%s", eerr.msg);
    }
    *out = e;
    return MS_OK;
}

void engine_set_progress(engine *e, engine_progress_fn fn, void *ctx)
{
    e->pg.fn = fn;
    e->pg.ctx = ctx;
}

/* Write the snapshot read from the tables to its file, if the store is
 * still as it was read: after the answers, so that no recall waits for it. */
static void save_snapshot(engine *e)
{
    store_key now;
    if (!e->snap_unsaved || !e->sn || !e->s || store_read_begin(e->s, NULL))
        return;
    if (store_cache_key(e->s, &now) == 0 && strcmp(now.uid, e->snap_key.uid) == 0 &&
        now.generation == e->snap_key.generation && now.schema == e->snap_key.schema &&
        strcmp(store_profile(e->s), e->sn->profile) == 0)
        snapfile_save(e->s, e->sn, &e->snap_key);
    store_end(e->s, NULL);
    e->snap_unsaved = 0;
}

int engine_saves_at_close(const engine *e)
{
    return e && e->s && e->snap_unsaved && e->sn;
}

size_t engine_snapshot_memories(const engine *e)
{
    return e && e->sn ? e->sn->n : 0;
}

void engine_release_store(engine *e)
{
    if (!e)
        return;
    e->s = NULL;
    if (e->sn)
        e->sn->s = NULL;
}

void engine_save_with(engine *e, store *s, int seal)
{
    if (!e || e->s || !s)
        return;
    e->s = s;
    if (e->sn)
        e->sn->s = s;
    store_key key = e->snap_key;
    int saving = e->snap_unsaved && e->sn;
    save_snapshot(e);
    if (saving && seal) /* the next process then checks only the file's header */
        snapfile_seal_saved(s, &key);
}

void engine_close(engine *e)
{
    if (!e)
        return;
    save_snapshot(e);
    snapshot_free(e->sn);
    embed_close(e->emb);
    adaptive_free(e->ad);
    rerank_close(e->rr);
    free(e->rr_spec);
    free(e);
}

void engine_close_at_exit(engine *e)
{
    if (e && e->sn)
        e->sn->map_left = 1;
    engine_close(e);
}

/* engine_leave_at_exit's: reachable until the exit (volatile: a store the
 * compiler may not drop though nothing reads it) */
static engine *volatile left_at_exit;

void engine_leave_at_exit(engine *e)
{
    if (!e)
        return;
    embed_close(e->emb);
    e->emb = NULL;
    if (e->sn)
        e->sn->map_left = 1;
    left_at_exit = e;
}

/* Can a snapshot made under key was grow into one under key now (the store
 * only appended since)? */
static int only_appended(const store_key *was, const store_key *now)
{
    return strcmp(was->uid, now->uid) == 0 && was->schema == now->schema &&
           was->generation < now->generation && was->generation >= now->rewritten;
}

/* The snapshot under key grown from this process's or from the file's,
 * when the store only appended since either was made (snapgrow.c); else
 * NULL (and the tables are read). */
static snapshot *grown(engine *e, const store_key *key)
{
    const char *profile = store_profile(e->s);
    int mine = e->sn && strcmp(e->sn->profile, profile) == 0 && only_appended(&e->snap_key, key);
    int64_t from = e->snap_key.generation;
    snapshot *base = mine ? e->sn : snapfile_open_base(e->s, key, &from), *sn = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (base && snapshot_grow(e->s, base, key->superseded_marked > from, &sn, &err))
        sn = NULL; /* the tables say what is wrong, if anything is */
    if (sn)
        sn->grown_from = from;
    /* bm25's row lengths from the base's, not read again whole (at 1M a
       fifth of the first recall after an append) */
    if (sn && base->file_len &&
        store_doclen_grow(e->s, base->file_len, base->file_len_base, base->file_len_span,
                          &sn->doclen_own) == 0) {
        sn->doclen = sn->doclen_own;
    }
    if (!mine)
        snapshot_free(base);
    return sn;
}

/* Reload the snapshot when the profile or the store changed: map the
 * snapshot file when it was made under the store's key, else grow the
 * last one when the store only appended since, else read the tables (and
 * write the file for the next process at engine_close). Inside a read
 * transaction. */
static ms_status refresh(engine *e, ms_error *err)
{
    if (e->sn && strcmp(e->sn->profile, store_profile(e->s)) == 0 &&
        e->sn->data_version == store_data_version(e->s))
        return MS_OK;
    store_key key;
    int keyed = store_cache_key(e->s, &key) == 0;
    snapshot *sn = keyed ? snapfile_open(e->s, &key, e->snap_note, sizeof e->snap_note) : NULL;
    ms_status st = MS_OK;
    int unsaved = 0;
    if (!sn && keyed && (sn = grown(e, &key)))
        unsaved = snapfile_wanted(sn->n);
    if (!sn) {
        st = snapshot_load_with(e->s, &e->pg, &sn, err);
        unsaved = !st && keyed && snapfile_wanted(sn->n);
    }
    if (!st)
        st = adaptive_load(e->ad, e->s, err);
    if (st) {
        snapshot_free(e->sn == sn ? NULL : sn);
        return st;
    }
    snapshot_free(e->sn);
    e->sn = sn;
    e->snap_unsaved = unsaved;
    e->snap_key = key;
    return MS_OK;
}

void recall_opts_init(recall_opts *o)
{
    memset(o, 0, sizeof *o);
    o->limit = 10;
    o->top_n = 200;
    o->rrf_k = -1;
    o->floor_threshold = -1;
    o->floor_lexical = -1;
    o->as_of = STORE_TS_NONE;
    (void)engine_first_stage_parse(ENGINE_FIRST_STAGE_DEFAULT, &o->first_stage);
}

/* ---- fusion -------------------------------------------------------------- */

/* Weighted RRF of the lists of the channels in `which` (count n), into out
 * (raw = fused score), best first. acc holds the sums (a memory's is there
 * once it is in out, even when its weight is 0) and is left empty. */
static ms_status fuse(const snapshot *sn, const ranked_list *lists, const int *which, int n,
                      const double *w, double k, ranked_list *out, idx_sum *acc, ms_error *err)
{
    for (int j = 0; j < n; j++) {
        const ranked_list *l = &lists[which[j]];
        for (size_t r = 0; r < l->n; r++) {
            uint32_t i = l->v[r].idx;
            int added;
            double *a = idx_sum_at(acc, i, &added);
            if (!a || (added && ranked_push(out, i, 0)))
                return ms_fail(err, MS_NOMEM, "out of memory");
            *a += w[which[j]] / (k + (double)(r + 1));
        }
    }
    for (size_t t = 0; t < out->n; t++)
        out->v[t].raw = *idx_sum_find(acc, out->v[t].idx);
    idx_sum_free(acc);
    ranked_finish(out, sn, out->n);
    return MS_OK;
}

/* ---- the pipeline's state -------------------------------------------------- */

typedef struct run {
    engine *e;
    const recall_opts *o;
    recall_result *r;
    query q;
    const weight_profile *prof;
    double w[CH_COUNT];
    double k;
    ranked_list lists[CH_COUNT];
    ranked_list seeds; /* first fusion of stage one */
    ranked_list fused; /* final fusion, boosted, best first */
    double max_boosted;
    double adapt_delta[CH_COUNT]; /* learned channel nudges for this query type */
    int adapt_on;
    const char *explain_passed_by; /* how the explained memory passed the floor, if pooled */
    floor_kinds *kinds;            /* the kinds of the noun asked for, NULL when none (floor.c) */
    int kind_cut;                  /* the kind rule cut a memory that passed */
    floor_kinds *owner; /* the words naming the person a possessive names, NULL when none */
    floor_kinds *named; /* the words naming what "the name of N" asks the name of, or NULL */
    floor_slot *slot;   /* the verb and slot of a who- or where-question, NULL when none */
    int slot_cut;       /* the slot rule cut a memory that passed */
    floor_verb *verb;   /* the verb of a what-question and its family, NULL when none */
    int verb_cut;       /* the verb rule cut a memory that passed */
} run;

/* The query type's profile, with --weights and --rrf-k on top. The temporal
 * channel weighs its date list by the profile's temporal weight and its
 * when-question and recency lists by temporal_aux. */
static void set_weights(run *x)
{
    x->prof = profile_for(x->q.type);
    for (int c = 0; c < CH_COUNT; c++)
        x->w[c] = x->prof->w[c];
    if (temporal_mode(&x->q) != TEMPORAL_DATE)
        x->w[CH_TEMPORAL] = x->prof->temporal_aux;
    for (int c = 0; c < CH_COUNT; c++)
        if (x->o->weights_set & CH_MASK(c))
            x->w[c] = x->o->weights[c];
    x->k = x->o->rrf_k >= 0 ? x->o->rrf_k : x->prof->rrf_k;
    memcpy(x->r->weights, x->w, sizeof x->w);
    x->r->rrf_k = x->k;
    x->r->eg_speaker = x->prof->eg_speaker;
    x->r->eg_mention = x->prof->eg_mention;
}

/* Why vectors cannot be used, naming their model: for an inactive
 * semantic or hopfield channel whose stored vectors no query embedder of
 * the same model can be compared with. NULL otherwise. */
static const char *model_note(const snapshot *sn, const char *reason)
{
    if (reason && sn->vec_note &&
        (strcmp(reason, "embedder_mismatch") == 0 || strcmp(reason, "no_embedder") == 0))
        return sn->vec_note;
    return NULL;
}

/* Channel health for this recall: disabled, or the channel's own reason. */
static void channel_health(run *x)
{
    const snapshot *sn = x->e->sn;
    for (int c = 0; c < CH_COUNT; c++) {
        channel_status *cs = &x->r->ch[c];
        if (x->o->disabled & CH_MASK(c))
            cs->reason = "disabled";
        else
            cs->reason = engine_channels[c]->health(sn, x->e->emb);
        cs->active = cs->reason == NULL;
        cs->note = model_note(sn, cs->reason);
    }
}

static ms_status require_channels(run *x, ms_error *err)
{
    for (int c = 0; c < CH_COUNT; c++)
        if ((x->o->require & CH_MASK(c)) && !x->r->ch[c].active)
            return ms_fail(err, MS_CHANNEL,
                           "required channel %s is inactive (%s%s%s); not answering with fewer",
                           engine_channels[c]->name, x->r->ch[c].reason,
                           x->r->ch[c].note ? ": " : "", x->r->ch[c].note ? x->r->ch[c].note : "");
    return MS_OK;
}

/* The lists channel c may read: those it declares as inputs, the others
 * empty (shallow copies; nothing is freed through them). */
static void input_lists(const run *x, int c, ranked_list view[CH_COUNT])
{
    for (int i = 0; i < CH_COUNT; i++)
        view[i] = (engine_channels[c]->inputs & CH_MASK(i)) ? x->lists[i] : (ranked_list){0};
}

static channel_ctx channel_context(run *x, int c, size_t top_n, ranked_list in[CH_COUNT])
{
    input_lists(x, c, in);
    return (channel_ctx){
        x->e->s, x->e->sn, &x->q, x->o, x->e->emb, top_n, in, &x->seeds, x->r->ch[c].first_stage,
        NULL};
}

/* Channel c's list, with what its prepare gave (pre, which produce takes
 * over, or NULL) and the milliseconds that took. */
static ms_status run_channel(run *x, int c, size_t top_n, void *pre, double pre_ms, ms_error *err)
{
    channel_status *cs = &x->r->ch[c];
    if (!cs->active)
        return MS_OK;
    ranked_list in[CH_COUNT];
    channel_ctx ctx = channel_context(x, c, top_n, in);
    ctx.pre = pre;
    double t0 = mono_ms();
    ms_status st = engine_channels[c]->produce(&ctx, &x->lists[c], &cs->note, err);
    cs->ms = pre_ms + mono_ms() - t0;
    cs->candidates = (int)x->lists[c].n;
    return st;
}

/* A stage-one channel's prepare on a second thread. */
typedef struct prepare_job {
    int c; /* the channel, or -1 when nothing runs beside */
    ranked_list in[CH_COUNT];
    channel_ctx ctx;
    pthread_t th;
    void *pre;
    double ms;
} prepare_job;

static void *prepare_run(void *p)
{
    prepare_job *j = p;
    double t0 = mono_ms();
    j->pre = engine_channels[j->c]->prepare(&j->ctx);
    j->ms = mono_ms() - t0;
    return NULL;
}

/* Start the first active stage-one channel with a prepare on a thread of
 * its own, when the store is large enough for it to pay (PARALLEL_MIN;
 * MEMSCOPE_PARALLEL "off" never, "always" at any size). Its list is the
 * same either way: prepare reads nothing the other channels write. */
static void prepare_start(run *x, size_t top_n, prepare_job *j)
{
    j->c = -1;
    const char *env = getenv("MEMSCOPE_PARALLEL");
    if (env && strcmp(env, "off") == 0)
        return;
    if (!(env && strcmp(env, "always") == 0) && x->e->sn->n < PARALLEL_MIN)
        return;
    for (int c = 0; c < CH_COUNT; c++) {
        if (engine_channels[c]->stage != 1 || !engine_channels[c]->prepare || !x->r->ch[c].active)
            continue;
        j->ctx = channel_context(x, c, top_n, j->in);
        j->c = c;
        if (pthread_create(&j->th, NULL, prepare_run, j) != 0)
            j->c = -1; /* no thread: produce does it all */
        return;
    }
}

/* Wait for j's thread; then run its channel's produce with what it gave,
 * or, after another channel failed (st), only free that. */
static ms_status prepare_finish(run *x, size_t top_n, prepare_job *j, ms_status st, ms_error *err)
{
    if (j->c < 0)
        return st;
    pthread_join(j->th, NULL);
    int c = j->c;
    j->c = -1;
    if (st) {
        if (engine_channels[c]->release)
            engine_channels[c]->release(j->pre);
        return st;
    }
    return run_channel(x, c, top_n, j->pre, j->ms, err);
}

static ms_status run_channels(run *x, ms_error *err)
{
    size_t top_n = (size_t)x->o->top_n;
    ms_status st = MS_OK;
    int one[CH_COUNT], all[CH_COUNT], n_one = 0;
    for (int c = 0; c < CH_COUNT; c++) {
        all[c] = c;
        if (engine_channels[c]->stage == 1)
            one[n_one++] = c;
    }
    prepare_job job;
    prepare_start(x, top_n, &job);
    int beside = job.c;
    for (int j = 0; j < n_one; j++) {
        int c = one[j];
        if (c == beside)
            continue;
        if (job.c >= 0 && (engine_channels[c]->inputs & CH_MASK(job.c)))
            st = prepare_finish(x, top_n, &job, st, err);
        if (!st)
            st = run_channel(x, c, top_n, NULL, 0, err);
    }
    /* joined whatever happened: the thread reads this run */
    st = prepare_finish(x, top_n, &job, st, err);
    idx_sum acc = {0};
    if (!st)
        st = fuse(x->e->sn, x->lists, one, n_one, x->w, x->k, &x->seeds, &acc, err);
    for (int c = 0; !st && c < CH_COUNT; c++)
        if (engine_channels[c]->stage == 2)
            st = run_channel(x, c, top_n, NULL, 0, err);
    if (!st)
        st = fuse(x->e->sn, x->lists, all, CH_COUNT, x->w, x->k, &x->fused, &acc, err);
    idx_sum_free(&acc);
    return st;
}

/* Is memory i spoken by a speaker the query names? */
static int spoken_by_named(const snapshot *sn, const query *q, uint32_t i)
{
    for (int k = 0; k < q->n_named; k++)
        if (sn->speaker_ent[i] == (int32_t)q->named[k])
            return 1;
    return 0;
}

/* Is memory i linked to another entity the query names? */
static int mentions_named(const snapshot *sn, const query *q, uint32_t i)
{
    for (uint32_t p = sn->me_off[i]; q->n_qents && p < sn->me_off[i + 1]; p++)
        for (int k = 0; k < q->n_qents; k++)
            if (sn->me_ent[p] == q->qents[k])
                return 1;
    return 0;
}

/* The entity-graph factor of memory i: (1 + eg_speaker) when spoken by a
 * named speaker, times (1 + eg_mention) when linked to another named
 * entity. */
static double entity_factor(const run *x, uint32_t i, int *spoken, int *mentions)
{
    *spoken = spoken_by_named(x->e->sn, &x->q, i);
    *mentions = mentions_named(x->e->sn, &x->q, i);
    return (1 + x->prof->eg_speaker * *spoken) * (1 + x->prof->eg_mention * *mentions);
}

/* Apply the entity enhancement to the fused list and re-sort; note the best
 * boosted score any memory could reach (for relevance). */
static void enhance(run *x)
{
    for (size_t t = 0; t < x->fused.n; t++) {
        int s, m;
        x->fused.v[t].raw *= entity_factor(x, x->fused.v[t].idx, &s, &m);
    }
    ranked_finish(&x->fused, x->e->sn, x->fused.n);
    double best = 0;
    for (int c = 0; c < CH_COUNT; c++)
        if (x->r->ch[c].active &&
            (!engine_channels[c]->applies || engine_channels[c]->applies(&x->q)))
            best += x->w[c] / (x->k + 1);
    x->max_boosted = best * (1 + (x->q.n_named ? x->prof->eg_speaker : 0)) *
                     (1 + (x->q.n_qents ? x->prof->eg_mention : 0));
}

/* ---- hits -------------------------------------------------------------------- */

/* The trace of memory i: channel ranks and contributions, fused, boosted. */
static void trace_hit(run *x, uint32_t i, recall_hit *h)
{
    h->fused = 0;
    for (int c = 0; c < CH_COUNT; c++) {
        trace_channel *tc = &h->ch[c];
        tc->weight = x->w[c];
        int rank = ranked_rank(&x->lists[c], i);
        if (!rank)
            continue;
        tc->ranked = 1;
        tc->rank = rank;
        tc->raw = x->lists[c].v[rank - 1].raw;
        tc->contribution = x->w[c] / (x->k + rank);
        h->fused += tc->contribution;
    }
    h->eg_factor = entity_factor(x, i, &h->eg_spoken, &h->eg_mentions);
    h->eg_score = h->eg_factor - 1;
    h->boosted = h->fused * h->eg_factor;
    h->max_fused = x->max_boosted;
    h->relevance_score = x->max_boosted > 0 ? fmin(1.0, h->boosted / x->max_boosted) : 0;
}

static void ranking_of(recall_hit *h);

static void add_adjustment(recall_hit *h, const char *name, double factor, const char *detail)
{
    if (h->n_adj >= TRACE_ADJ_MAX)
        return;
    trace_adjustment *a = &h->adj[h->n_adj++];
    a->name = name;
    a->factor = factor;
    snprintf(a->detail, sizeof a->detail, "%s", detail);
}

/* "Now" for recency: --as-of when given, else the profile's newest created
 * time, or the clock when that is later (a store written long ago has its
 * own now: "latest" means latest of what is stored). */
static int64_t recency_anchor(const run *x)
{
    if (x->o->as_of != STORE_TS_NONE)
        return x->o->as_of;
    int64_t now = (int64_t)time(NULL);
    return x->e->sn->newest_created < now ? x->e->sn->newest_created : now;
}

/* 1.1 for a memory of today, 1.1 - span for one two years old or more,
 * linear in the logarithm of its age in between (span 0.3: a week 1.06, a
 * month 0.99, a quarter 0.93, a year 0.84): a month still tells from a
 * year. */
static double recency_factor(double age_days, double span)
{
    return 1.1 - span * fmin(1.0, log1p(age_days / 7.0) / log1p(730.0 / 7.0));
}

/* ranking_score = boosted times each documented adjustment. */
static void adjust(run *x, uint32_t i, recall_hit *h)
{
    const snapshot *sn = x->e->sn;
    char d[96];
    double trust = sn->trust[i];
    snprintf(d, sizeof d, "0.5 + trust (%.4f)", trust);
    add_adjustment(h, "trust", 0.5 + trust, d);
    double conf = sn->confidence[i];
    snprintf(d, sizeof d, "0.75 + 0.25 * memory_confidence (%.4f)", conf);
    add_adjustment(h, "confidence", 0.75 + 0.25 * conf, d);
    if (x->q.type == QT_RECENCY) {
        /* a question for the newest ("latest", "most recently") leans on
         * the age; one about how things are now ("now", "currently") on what
         * replaced what (stage2.c latest): the age is a lighter prior there */
        double age = fmax(0, (double)(recency_anchor(x) - sn->when[i]) / 86400.0);
        double span = x->q.asks_newest ? 0.3 : 0.15;
        snprintf(d, sizeof d, "1.1 - %.2f * min(1, ln(1 + days old (%.1f) / 7) / ln(1 + 730 / 7))",
                 span, age);
        add_adjustment(h, "recency", recency_factor(age, span), d);
    }
    const char *sup;
    int replaced;
    if (snapshot_superseded(sn, i, &sup, &replaced))
        /* SLM's own factors: x0.25 for a fact another replaced, x0.5 for
         * one whose validity ended (retrieval/temporal_validity_filter.py) */
        add_adjustment(h, "superseded", replaced ? 0.25 : 0.5, sup);
    if (x->adapt_on) {
        unsigned by = 0;
        for (int c = 0; c < CH_COUNT; c++)
            by |= h->ch[c].ranked ? CH_MASK(c) : 0;
        int judged;
        double f = adaptive_factor(x->e->ad, &x->q, x->adapt_delta, sn->rid[i], by, &judged);
        snprintf(d, sizeof d, "learned: channel nudges x memory boost (%d judgement%s of it)",
                 judged, judged == 1 ? "" : "s");
        add_adjustment(h, "feedback", f, d);
    }
    ranking_of(h);
}

/* ranking_score = boosted times every adjustment factor. */
static void ranking_of(recall_hit *h)
{
    h->ranking_score = h->boosted;
    for (int a = 0; a < h->n_adj; a++)
        h->ranking_score *= h->adj[a].factor;
}

/* ---- the floor -------------------------------------------------------------- */

/* Is memory i linked to a speaker the query names? */
static int links_speaker_named(const snapshot *sn, const query *q, uint32_t i)
{
    for (uint32_t p = sn->me_off[i]; p < sn->me_off[i + 1]; p++)
        for (int k = 0; k < q->n_named; k++)
            if (sn->me_ent[p] == q->named[k])
                return 1;
    return 0;
}

/* Does every predicate word occur somewhere in the store? */
static int predicate_known(const query *q)
{
    for (int t = 0; t < q->n_terms; t++)
        if (q->terms[t].predicate && q->terms[t].df == 0)
            return 0;
    return 1;
}

/* Does the query ask a speaker's own age ("how old is Maria", "how old
 * was Joanna when ..."): an age, no possessive naming someone else, no
 * other entity named? Then an age a determiner makes the attribute of
 * someone described ("a thirty year old woman") is not theirs. */
static int age_self(const run *x)
{
    return x->q.amount == AMOUNT_AGE && !x->owner && x->q.n_qents == 0 && x->q.n_named > 0;
}

/* A memory's own evidence, or NULL (see floor.c); h->floor_why gets the
 * rule and its numbers. h is measured (floor_measure). *seen, when not
 * NULL, gets what the floor knew. */
static const char *floor_pass(run *x, uint32_t i, recall_hit *h, floor_in *seen)
{
    const recall_result *r = x->r;
    floor_in in = {
        .hit = h,
        .pinned = x->e->sn->pinned[i],
        .names_subject = h->eg_spoken || links_speaker_named(x->e->sn, &x->q, i),
        .n_pred = x->q.n_pred,
        .pred_coverage = h->pred_coverage,
        .context_coverage = fmax(h->pred_coverage, h->context_coverage),
        .lexical_min = r->floor_lexical,
        .rcosine = h->rcosine,
        .cosine_min = r->floor_threshold,
        .on_date = h->on_date,
        .pred_known = predicate_known(&x->q),
        .has_date = x->q.n_dates > 0,
        .asks_name = x->q.asks_name,
        /* a tally is counted over the memories that tell of each: none
         * need say a number */
        .asks_number = x->q.asks_number && !x->q.tally,
        .amount = x->q.amount,
        .holds_name = h->holds_name,
        .holds_number = h->holds_number,
        .names_known = x->q.n_named + x->q.n_qents > 0,
        .focus = x->q.focus >= 0 ? x->q.terms[x->q.focus].surface : NULL,
        .holds_focus = x->q.focus >= 0 && ((h->terms_held >> x->q.focus) & 1),
        .context_focus = x->q.focus >= 0 && (((h->terms_held | h->context_held) >> x->q.focus) & 1),
        .kind = x->kinds ? x->q.kind : NULL,
        .kind_which = x->q.kind_which,
        .holds_kind = h->holds_kind,
        .owner = x->owner ? x->q.owner : NULL,
        .name_of = x->q.name_of ? x->q.terms[x->q.focus].surface : NULL,
        .surname = x->q.asks_surname && x->q.n_subj > 0,
        .age_self = age_self(x),
    };
    if (seen)
        *seen = in;
    return floor_judge(&in, h->floor_why, sizeof h->floor_why);
}

/* Does memory i link to a name other than a speaker's, a speaker's
 * nickname, or one the query names? */
static int holds_other_name(const snapshot *sn, const query *q, uint32_t i)
{
    for (uint32_t p = sn->me_off[i]; p < sn->me_off[i + 1]; p++) {
        uint32_t e = sn->me_ent[p];
        int known = sn->ent_speaker[e] || sn->ent_kind[e] == STORE_ENTITY_SPEAKER;
        const char *en = snapshot_ent_norm(sn, e);
        for (size_t s = 0; !known && s < sn->n_ent; s++)
            known = sn->ent_speaker[s] && strlen(en) >= 3 &&
                    strncmp(snapshot_ent_norm(sn, s), en, strlen(en)) == 0;
        for (int k = 0; !known && k < q->n_qents; k++)
            known = q->qents[k] == e;
        if (!known)
            return 1;
    }
    return 0;
}

/* Does text hold a number: a digit, or a number word? */
static int holds_number(const char *text)
{
    static const char *const words[] = {
        "one",   "two",     "three",    "four",    "five",    "six",    "seven",  "eight",
        "nine",  "ten",     "eleven",   "twelve",  "fifteen", "twenty", "thirty", "forty",
        "fifty", "hundred", "thousand", "million", "dozen",   "couple", "few",    "several",
        "once",  "twice",   "half",     "both",    NULL};
    for (const char *p = text; p && *p;) {
        if (isdigit((unsigned char)*p))
            return 1;
        if (!isalpha((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *w = p;
        while (isalpha((unsigned char)*p))
            p++;
        for (int k = 0; words[k]; k++)
            if ((size_t)(p - w) == strlen(words[k]) &&
                strncasecmp(w, words[k], (size_t)(p - w)) == 0)
                return 1;
    }
    return 0;
}

/* Does memory i name a kind of the noun the question asks for: one below
 * it ("clarinet" for "instrument"), or, unless the question asks "which"
 * one, the noun itself ("a small shop by the station" for "what shop");
 * for "which", the noun beside a name ("a shop called Tidewater"); for a
 * work or a message (floor_kinds_titled), any name: a title ("which song":
 * "Blue Harbour by Mara Lind")? */
static int names_kind(run *x, uint32_t i, const char *text)
{
    int held = floor_kinds_held(x->kinds, text);
    if (held & FLOOR_KIND_BELOW)
        return 1;
    if (floor_kinds_titled(x->kinds) && holds_other_name(x->e->sn, &x->q, i))
        return 1;
    return (held & FLOOR_KIND_OWN) &&
           (!floor_kinds_which(x->kinds) || holds_other_name(x->e->sn, &x->q, i));
}

/* Is memory i about the person or animal a possessive in the query names
 * ("Melanie's daughter"): does it say one of their words, or name an
 * entity the query names beside the speakers ("John's daughter Sara")?
 * 1 when the query names none. */
static int about_owner(const run *x, uint32_t i, const char *text)
{
    if (!x->owner || floor_kinds_held(x->owner, text))
        return 1;
    const snapshot *sn = x->e->sn;
    for (uint32_t p = sn->me_off[i]; p < sn->me_off[i + 1]; p++)
        for (int k = 0; k < x->q.n_qents; k++)
            if (sn->me_ent[p] == x->q.qents[k])
                return 1;
    return 0;
}

/* Is a name memory h holds the one the question asks for: for "the name
 * of N", a name in a memory that says N (its word, a synonym, a kind of
 * it: "my studio, Starlight"); for a last name, a capitalised word after
 * the subject's first name ("Gina Ortiz")? 1 for any other question. */
static int name_beside(const run *x, const recall_hit *h)
{
    const query *q = &x->q;
    if (q->asks_surname)
        return q->n_subj > 0 && floor_holds_surname(h->mem.content, q->text + q->subj_start[0],
                                                    (size_t)(q->subj_end[0] - q->subj_start[0]));
    if (!q->name_of)
        return 1;
    return ((h->terms_held >> q->focus) & 1) || floor_kinds_held(x->named, h->mem.content);
}

/* A memory that holds the amount asked holds the word that asks for it:
 * "old" of "how old is Leah" is held by "I turned 40", "many" and "much"
 * by the count or sum; its predicate coverage counts them. */
static void answer_word_held(const query *q, recall_hit *h)
{
    static const char *const asks[] = {"old", "many", "much", NULL};
    for (int t = 0; t < q->n_terms && t < 64; t++)
        for (int k = 0; asks[k] && q->terms[t].predicate; k++)
            if (strcmp(q->terms[t].surface, asks[k]) == 0)
                h->terms_held |= 1ull << t;
    h->pred_coverage = floor_predicate_coverage(q, h->terms_held);
}

/* A memory that says a surname after the first name ("Gina Ortiz") holds
 * the words asking for it ("last", "surname"), which it need not say. */
static void surname_words_held(const query *q, recall_hit *h)
{
    static const char *const asks[] = {"last", "surname", "family", "maiden", "full", "name", NULL};
    for (int t = 0; t < q->n_terms && t < 64; t++)
        for (int k = 0; asks[k] && q->terms[t].predicate; k++)
            if (strcmp(q->terms[t].surface, asks[k]) == 0)
                h->terms_held |= 1ull << t;
    h->pred_coverage = floor_predicate_coverage(q, h->terms_held);
}

/* A memory's floor numbers (its trace and content set): each channel's
 * rule measures its own (coverage, cosines, the date), then whether it
 * holds a name, a number or a kind the query asks for; when the query asks
 * about someone a possessive names, only beside them (about_owner): the
 * clarinet Melanie plays is not her daughter's instrument. */
static void floor_measure(run *x, uint32_t i, recall_hit *h)
{
    floor_ctx c = {x->e->s, x->e->sn, &x->q};
    for (int ch = 0; ch < CH_COUNT; ch++)
        if (engine_channels[ch]->floor && engine_channels[ch]->floor->measure)
            engine_channels[ch]->floor->measure(&c, i, h);
    int about = about_owner(x, i, h->mem.content);
    h->holds_name =
        about && x->q.asks_name && holds_other_name(x->e->sn, &x->q, i) && name_beside(x, h);
    h->holds_number =
        about && x->q.asks_number && holds_number(h->mem.content) &&
        floor_holds_amount(x->q.amount, h->mem.content) &&
        (!age_self(x) || floor_holds_own_age(h->mem.content)) &&
        (x->q.amount != AMOUNT_COUNT ||
         floor_holds_count(lexicon_default(), x->q.terms[x->q.focus].surface, h->mem.content));
    if (h->holds_number)
        answer_word_held(&x->q, h);
    if (h->holds_name && x->q.asks_surname)
        surname_words_held(&x->q, h);
    h->holds_kind = about && names_kind(x, i, h->mem.content);
    h->holds_slot =
        x->slot ? floor_slot_held(x->slot, h->mem.content, holds_other_name(x->e->sn, &x->q, i))
                : 0;
    /* on the date the question names, the date is what it asks about
     * ("what did John host in May"): the verb may be said in other words */
    h->holds_verb = about && x->verb && (h->on_date || floor_verb_held(x->verb, h->mem.content));
}

/* Evidence by association: a memory without evidence of its own passes when
 * an edge joins it to a pooled memory that has its own (the turn next to the
 * one that matched). The trace names that memory. */
static void floor_associate(run *x, recall_hit *hs, size_t n)
{
    const snapshot *sn = x->e->sn;
    for (size_t t = 0; t < n; t++) {
        if (hs[t].passed_by)
            continue;
        long i = snapshot_find(sn, hs[t].mem.rid);
        for (size_t u = 0; i >= 0 && u < n && !hs[t].passed_by; u++) {
            /* Evidence spreads from a memory that supports the query;
             * a pinned one passes because the user said it matters, which
             * says nothing about what is next to it. */
            const char *by = hs[u].passed_by;
            if (!by || strcmp(by, "association") == 0 || strcmp(by, "pinned") == 0)
                continue;
            long j = snapshot_find(sn, hs[u].mem.rid);
            const snap_edge *ed = NULL;
            size_t ne = 0;
            if (j >= 0)
                snapshot_edges(sn, (size_t)i, &ed, &ne); /* unreadable: no edge */
            for (size_t e = 0; e < ne; e++)
                if (ed[e].other == (uint32_t)j) {
                    hs[t].passed_by = "association";
                    snprintf(hs[t].associated, sizeof hs[t].associated, "%s", hs[u].mem.id);
                    snprintf(hs[t].floor_why, sizeof hs[t].floor_why,
                             "an edge joins it to %.64s, which passes by %s", hs[u].mem.id, by);
                    break;
                }
        }
    }
}

static int by_ranking(const void *a, const void *b)
{
    const recall_hit *x = a, *y = b;
    if (x->ranking_score != y->ranking_score)
        return x->ranking_score > y->ranking_score ? -1 : 1;
    return (x->mem.rid > y->mem.rid) - (x->mem.rid < y->mem.rid);
}

/* The external reranker over the pool: an adjustment 0.5 + its min-max
 * normalised score. On failure the ranking stays as fused, the response
 * says why, and the reranker is not asked again. */
static void rerank(run *x, recall_hit *hs, size_t n)
{
    recall_result *r = x->r;
    engine *e = x->e;
    r->rerank_status = "off";
    if (!e->rr_wanted || x->o->no_rerank || n == 0)
        return;
    r->rerank_status = "failed";
    if (!e->rr) {
        snprintf(r->rerank_error, sizeof r->rerank_error, "%s", e->rr_error);
        return;
    }
    const char **texts = malloc(n * sizeof *texts);
    double *score = malloc(n * sizeof *score);
    ms_error err;
    ms_error_clear(&err);
    ms_status st = texts && score ? MS_OK : ms_fail(&err, MS_NOMEM, "out of memory");
    for (size_t t = 0; !st && t < n; t++)
        texts[t] = hs[t].mem.content;
    if (!st)
        st = rerank_score(e->rr, r->query, texts, n, score, &err);
    if (st) {
        snprintf(e->rr_error, sizeof e->rr_error, "%s", err.msg);
        snprintf(r->rerank_error, sizeof r->rerank_error, "%s", err.msg);
        rerank_close(e->rr);
        e->rr = NULL;
    } else {
        double lo = score[0], hi = score[0];
        for (size_t t = 1; t < n; t++) {
            lo = fmin(lo, score[t]);
            hi = fmax(hi, score[t]);
        }
        /* halves: max - min of finite scores overflows (+-1e308), their
         * halves' difference never does */
        double span = hi / 2 - lo / 2;
        for (size_t t = 0; t < n; t++) {
            double f = span > 0 ? 0.5 + fmin(1.0, fmax(0.0, (score[t] / 2 - lo / 2) / span)) : 1.0;
            char d[96];
            snprintf(d, sizeof d, "0.5 + (score %.4g - min %.4g) / (2 x %.4g)", score[t], lo, span);
            add_adjustment(&hs[t], "rerank", f, d);
            ranking_of(&hs[t]);
        }
        r->rerank_status = "applied";
    }
    free(texts);
    free(score);
}

/* The second stage's adjustments over the pool (stage2.c). */
static ms_status second_stage(run *x, recall_hit *hs, size_t n, ms_error *err)
{
    uint32_t *idx = malloc((n + 1) * sizeof *idx);
    if (!idx)
        return ms_fail(err, MS_NOMEM, "out of memory");
    for (size_t t = 0; t < n; t++)
        idx[t] = x->fused.v[t].idx;
    stage2_in in = {x->e->sn, &x->q, x->prof->eg_speaker};
    ms_status st = stage2_apply(&in, hs, idx, n, err);
    for (size_t t = 0; t < n; t++)
        ranking_of(&hs[t]);
    free(idx);
    return st;
}

/* The floor's thresholds and rule into the response, and room for the
 * pool's numbers. */
static ms_status floor_setup(run *x, size_t pool, ms_error *err)
{
    recall_result *r = x->r;
    r->floor_applied = !x->o->no_floor;
    r->floor_rule = FLOOR_RULE;
    r->floor_unknown_terms = x->q.unknown_terms;
    r->floor_named = x->q.n_named + x->q.n_qents;
    r->floor_lexical_open = x->q.n_named + x->q.n_qents > 0 || predicate_known(&x->q);
    r->floor_pool_cov = calloc(pool + 1, sizeof *r->floor_pool_cov);
    r->floor_pool_cos = calloc(pool + 1, sizeof *r->floor_pool_cos);
    r->floor_pool_ok = calloc(pool + 1, sizeof *r->floor_pool_ok);
    r->floor_pool_held = calloc(pool + 1, sizeof *r->floor_pool_held);
    if (!r->floor_pool_cov || !r->floor_pool_cos || !r->floor_pool_ok || !r->floor_pool_held)
        return ms_fail(err, MS_NOMEM, "out of memory");
    return MS_OK;
}

/* A pooled memory's predicate coverage counts the terms of the pooled
 * memories an edge joins it to as well (the question's words are often in
 * the turn before the answer). */
static void floor_neighbours(run *x, recall_hit *hs, size_t n)
{
    const snapshot *sn = x->e->sn;
    uint64_t *held = calloc(n + 1, sizeof *held);
    int *names = calloc(n + 1, sizeof *names), *numbers = calloc(n + 1, sizeof *numbers);
    int *kinds = calloc(n + 1, sizeof *kinds), *slots = calloc(n + 1, sizeof *slots);
    int *verbs = calloc(n + 1, sizeof *verbs);
    if (!held || !names || !numbers || !kinds || !slots || !verbs) {
        free(verbs);
        free(slots);
        free(held);
        free(names);
        free(numbers);
        free(kinds);
        return;
    }
    for (size_t t = 0; t < n; t++) {
        held[t] = hs[t].terms_held;
        names[t] = hs[t].holds_name;
        numbers[t] = hs[t].holds_number;
        kinds[t] = hs[t].holds_kind;
        slots[t] = hs[t].holds_slot;
        verbs[t] = hs[t].holds_verb;
        const snap_edge *ed = NULL;
        size_t ne = 0;
        snapshot_edges(sn, x->fused.v[t].idx, &ed, &ne); /* unreadable: no edge */
        for (size_t e = 0; e < ne; e++)
            for (size_t u = 0; u < n; u++)
                if (ed[e].other == x->fused.v[u].idx) {
                    held[t] |= hs[u].terms_held;
                    names[t] |= hs[u].holds_name;
                    numbers[t] |= hs[u].holds_number;
                    kinds[t] |= hs[u].holds_kind;
                    slots[t] |= hs[u].holds_slot;
                    verbs[t] |= hs[u].holds_verb;
                }
    }
    for (size_t t = 0; t < n; t++) {
        hs[t].context_coverage = floor_predicate_coverage(&x->q, held[t]);
        hs[t].context_held = held[t];
        hs[t].holds_name = names[t];
        hs[t].holds_number = numbers[t];
        hs[t].holds_kind = kinds[t];
        /* the verb and the filler in its exchange: it and the memories an
         * edge joins it to ("Who performed?" "It was Matt") */
        hs[t].holds_slot = (slots[t] & FLOOR_SLOT_VERB) && (slots[t] & FLOOR_SLOT_FILLER);
        hs[t].holds_verb = verbs[t];
    }
    free(verbs);
    free(held);
    free(names);
    free(numbers);
    free(kinds);
    free(slots);
}

/* Floor one pooled memory (index i, hit h), noting its numbers in the
 * response's pool summary. */
static void floor_one(run *x, uint32_t i, recall_hit *h)
{
    recall_result *r = x->r;
    floor_in in;
    const char *own = floor_pass(x, i, h, &in);
    h->passed_by = x->o->no_floor ? "no_floor" : own;
    r->floor_other_pass |= own && !floor_needs_focus(own);
    r->floor_pool_ok[r->floor_pool_n] = floor_answer_held(&in);
    r->floor_pool_cov[r->floor_pool_n] = fmax(h->pred_coverage, h->context_coverage);
    r->floor_pool_cos[r->floor_pool_n++] = h->rcosine;
    if (!r->floor_best_id || h->rcosine > r->floor_best_value) {
        free(r->floor_best_id);
        r->floor_best_id = strdup(h->mem.id);
        r->floor_best_value = h->rcosine;
    }
}

/* Passes by a rule of overlap or meaning (floor_rule.needs_focus) stand
 * only when one of them supports what the question asks (held): else each
 * is cut, its reason what it was, its rule, and "but no memory that passes
 * " what lacks says. -1 when one is held, else the number cut. */
static int cut_unheld(const run *x, recall_hit *hs, size_t n,
                      int (*held)(const run *, const recall_hit *), const char *lacks)
{
    for (size_t t = 0; t < n; t++)
        if (floor_needs_focus(hs[t].passed_by) && held(x, &hs[t]))
            return -1;
    int cut = 0;
    for (size_t t = 0; t < n; t++) {
        if (!floor_needs_focus(hs[t].passed_by))
            continue;
        char was[128];
        snprintf(was, sizeof was, "%s", hs[t].floor_why);
        snprintf(hs[t].floor_why, sizeof hs[t].floor_why,
                 "%.100s (%.12s), but no memory that passes %s", was, hs[t].passed_by, lacks);
        hs[t].passed_by = NULL;
        cut++;
    }
    return cut;
}

static int holds_focus(const run *x, const recall_hit *h)
{
    return h->states_focus || (((h->terms_held | h->context_held) >> x->q.focus) & 1);
}

/* A memory that states the attribute the question asks (stage2_states:
 * "I work as a nurse" for "what is my role") holds what the asked word
 * ("role") asks for as well as one that repeats it: each pass by overlap
 * or meaning that does, without the word, gets states_focus and says so in
 * its reason. */
static void focus_stated(const run *x, recall_hit *hs, size_t n)
{
    for (size_t t = 0; t < n; t++) {
        recall_hit *h = &hs[t];
        char phrase[64];
        if (!floor_needs_focus(h->passed_by) || holds_focus(x, h))
            continue;
        int attr = stage2_states(x->e->sn, &x->q, x->fused.v[t].idx, h, phrase, sizeof phrase);
        if (attr < 0)
            continue;
        h->states_focus = 1;
        size_t at = strlen(h->floor_why);
        snprintf(h->floor_why + at, sizeof h->floor_why - at,
                 "; it states the %s asked (\"%.40s\"), what \"%.32s\" asks about",
                 store_attr_name(attr), phrase, x->q.terms[x->q.focus].surface);
    }
}

static int holds_kind(const run *x, const recall_hit *h)
{
    (void)x;
    return h->holds_kind;
}

/* The asked word must be supported: when the question's form names what it
 * asks ("which city ..."), and no memory that passes by overlap or meaning
 * holds that word, itself or with a memory an edge joins it to, those
 * passes are cut: the pool says a lot about the studio and nothing about
 * its city. */
static void floor_focus(run *x, recall_hit *hs, size_t n)
{
    if (x->o->no_floor || x->q.focus < 0)
        return;
    char lacks[96];
    snprintf(lacks, sizeof lacks, "holds \"%.40s\", the word the question asks about",
             x->q.terms[x->q.focus].surface);
    focus_stated(x, hs, n);
    x->r->floor_focus_supported = cut_unheld(x, hs, n, holds_focus, lacks) < 0;
}

/* The kind asked for must be named: when the question asks which or what
 * kind of a nameable thing ("which city", "what instrument") and no memory
 * passing by overlap or meaning names one, itself or with a memory an edge
 * joins it to, those passes are cut: the pool talks about her city and
 * never says which. */
static void floor_kind(run *x, recall_hit *hs, size_t n)
{
    if (x->o->no_floor || !x->kinds)
        return;
    char lacks[96];
    if (x->owner)
        snprintf(lacks, sizeof lacks, "names %s \"%.24s\" beside \"%.24s\"",
                 x->q.kind_which ? "which" : "a kind of", x->q.kind, x->q.owner);
    else
        snprintf(lacks, sizeof lacks, "names %s \"%.32s\"%s, what the question asks for",
                 x->q.kind_which ? "which" : "a kind of", x->q.kind,
                 floor_kinds_titled(x->kinds) ? " or a title" : "");
    int cut = cut_unheld(x, hs, n, holds_kind, lacks);
    x->r->floor_kind_supported = cut < 0;
    x->kind_cut |= cut > 0;
}

static int holds_slot(const run *x, const recall_hit *h)
{
    (void)x;
    return h->holds_slot;
}

/* Who or where someone did something must be said: when the question asks
 * "who won ..." or "where did she grow up" and no memory passing by
 * overlap or meaning says, with the memories an edge joins it to, the verb
 * together with a name or a person (for where, a place), those passes are
 * cut: the pool talks about the contest and never says who won it. */
static void floor_slot_rule(run *x, recall_hit *hs, size_t n)
{
    if (x->o->no_floor || !x->slot)
        return;
    char lacks[96];
    snprintf(lacks, sizeof lacks, "says \"%.24s\" with %s", x->q.wh_verb,
             x->q.wh == WH_WHO ? "a name" : "a place");
    x->slot_cut |= cut_unheld(x, hs, n, holds_slot, lacks) > 0;
}

static int holds_verb(const run *x, const recall_hit *h)
{
    (void)x;
    return h->holds_verb;
}

/* What someone did must be said: when the question asks "what did she
 * study" and no memory passing by overlap or meaning says, with the
 * memories an edge joins it to, the verb or a word of its family
 * ("studies", "student"), those passes are cut: the pool talks about her
 * school and never says what she studied. */
static void floor_verb_rule(run *x, recall_hit *hs, size_t n)
{
    if (x->o->no_floor || !x->verb)
        return;
    char lacks[96];
    snprintf(lacks, sizeof lacks, "says \"%.32s\" or a word WordNet relates to it", x->q.what_verb);
    int cut = cut_unheld(x, hs, n, holds_verb, lacks);
    x->r->floor_verb_supported = cut < 0;
    x->verb_cut |= cut > 0;
}

/* For the sweeps (cmd_eval.c would_abstain): which pool-wide rules this
 * question applies, and what each pooled memory holds of what they ask.
 * A run without the floor marks the memories that state the asked
 * attribute as focus_stated marks those that pass, so that a sweep sees
 * what the floor would at any threshold. */
static void floor_pool_held(run *x, recall_hit *hs, size_t n)
{
    recall_result *r = x->r;
    int focus = x->q.focus >= 0;
    r->floor_checks = (focus ? FLOOR_HELD_FOCUS : 0) | (x->kinds ? FLOOR_HELD_KIND : 0) |
                      (x->slot ? FLOOR_HELD_SLOT : 0) | (x->verb ? FLOOR_HELD_VERB : 0);
    for (size_t t = 0; t < n && t < r->floor_pool_n; t++) {
        recall_hit *h = &hs[t];
        if (x->o->no_floor && focus && !holds_focus(x, h)) {
            char phrase[64];
            h->states_focus =
                stage2_states(x->e->sn, &x->q, x->fused.v[t].idx, h, phrase, sizeof phrase) >= 0;
        }
        r->floor_pool_held[t] = (!focus || holds_focus(x, h) ? FLOOR_HELD_FOCUS : 0) |
                                (!x->kinds || h->holds_kind ? FLOOR_HELD_KIND : 0) |
                                (!x->slot || h->holds_slot ? FLOOR_HELD_SLOT : 0) |
                                (!x->verb || h->holds_verb ? FLOOR_HELD_VERB : 0);
    }
}

/* r->floor_no_support: nothing about LEAD"WHAT" for the subject. */
static void no_support(recall_result *r, const char *lead, const char *what)
{
    int len = snprintf(r->floor_no_support, sizeof r->floor_no_support, "nothing about %s\"%s\"",
                       lead, what);
    if (r->floor_subject[0] && len > 0 && (size_t)len < sizeof r->floor_no_support)
        snprintf(r->floor_no_support + len, sizeof r->floor_no_support - (size_t)len, " for %s",
                 r->floor_subject);
}

/* What the pool says about the predicate; and, when nothing passed, the
 * part of the question that found no support. */
static void floor_summary(run *x, const recall_hit *hs, size_t n)
{
    recall_result *r = x->r;
    uint64_t held = 0;
    int any = 0, counted = 0, named = 0;
    for (size_t t = 0; t < n; t++) {
        held |= hs[t].terms_held;
        any |= hs[t].passed_by != NULL;
        counted |= hs[t].holds_number;
        named |= hs[t].holds_name;
    }
    for (size_t t = 0; t < n; t++)
        r->floor_best_coverage =
            fmax(r->floor_best_coverage, fmax(hs[t].pred_coverage, hs[t].context_coverage));
    for (int t = 0; t < x->q.n_terms && t < 64 && r->n_floor_terms < FLOOR_TERMS_MAX; t++) {
        const query_term *qt = &x->q.terms[t];
        if (!qt->predicate)
            continue;
        floor_term *ft = &r->floor_terms[r->n_floor_terms++];
        snprintf(ft->word, sizeof ft->word, "%s", qt->surface);
        ft->idf = qt->idf;
        ft->df = qt->df;
        ft->held = (held >> t) & 1;
    }
    size_t cap = sizeof r->floor_predicate;
    floor_describe(&x->q, held, r->floor_predicate, r->floor_unheld, r->floor_subject, cap);
    if (x->owner && x->q.n_subj == 1) /* "Melanie's daughter" */
        snprintf(r->floor_subject + strlen(r->floor_subject),
                 sizeof r->floor_subject - strlen(r->floor_subject), "'s %s", x->q.owner);
    if (x->q.focus >= 0) {
        snprintf(r->floor_focus, sizeof r->floor_focus, "%s", x->q.terms[x->q.focus].surface);
        r->floor_focus_held = (held >> x->q.focus) & 1;
    }
    if (x->kinds) {
        snprintf(r->floor_kind, sizeof r->floor_kind, "%s", x->q.kind);
        r->floor_kind_which = x->q.kind_which;
    }
    if (x->verb)
        snprintf(r->floor_verb, sizeof r->floor_verb, "%s", x->q.what_verb);
    if (any)
        return;
    /* the name of the thing or the last name when no memory says one
     * beside it, which kind when the kind rule cut, who or where when the slot rule
     * did, how many when memories hold the asked word and none counts it,
     * the verb when the verb rule did, the asked word when no memory holds
     * it, else the whole predicate */
    if (x->q.asks_surname && !named)
        no_support(r, "", "last name");
    else if (x->q.name_of && !named)
        no_support(r, "the name of ", x->q.terms[x->q.focus].surface);
    else if (x->kind_cut)
        no_support(r, x->q.kind_which ? "which " : "what ", x->q.kind);
    else if (x->slot_cut)
        no_support(r, x->q.wh == WH_WHO ? "who " : "where ", x->q.wh_verb);
    else if (age_self(x) && !counted)
        no_support(r, "", "age");
    else if (x->q.amount == AMOUNT_COUNT && !counted && r->floor_focus_held)
        no_support(r, "how many ", x->q.terms[x->q.focus].surface);
    else if (x->verb_cut)
        no_support(r, "", x->q.what_verb);
    else
        no_support(r, "",
                   r->floor_focus[0] && !r->floor_focus_held ? r->floor_focus
                   : r->floor_predicate[0]                   ? r->floor_predicate
                                                             : r->query);
}

/* The pool's n memories (the first n of the fused list) into hs[t].mem,
 * and their edges into the snapshot (what the floor's neighbours and
 * association follow), in batched reads (store_get_rids,
 * snapshot_edges_preload); on failure every hs[t].mem is still safe to
 * clear. */
static ms_status hydrate(run *x, recall_hit *hs, size_t n, ms_error *err)
{
    int64_t *rid = malloc((n + 1) * sizeof *rid);
    uint32_t *idx = malloc((n + 1) * sizeof *idx);
    store_memory *mem = calloc(n + 1, sizeof *mem);
    ms_status st = rid && idx && mem ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory");
    for (size_t t = 0; !st && t < n; t++) {
        idx[t] = x->fused.v[t].idx;
        rid[t] = x->e->sn->rid[idx[t]];
    }
    if (!st)
        st = store_get_rids(x->e->s, rid, n, mem, err);
    for (size_t t = 0; mem && t < n; t++)
        hs[t].mem = mem[t]; /* owned by the hit now */
    if (!st)
        snapshot_edges_preload(x->e->sn, idx, n);
    free(rid);
    free(idx);
    free(mem);
    return st;
}

/* Build, adjust, hydrate and floor the pool; fill hits and misses. */
static ms_status select_hits(run *x, ms_error *err)
{
    recall_result *r = x->r;
    size_t limit = (size_t)x->o->limit;
    size_t pool = limit * 3 > POOL_MIN ? limit * 3 : POOL_MIN;
    if (pool > x->fused.n)
        pool = x->fused.n;
    recall_hit *hs = calloc(pool + 1, sizeof *hs);
    if (!hs)
        return ms_fail(err, MS_NOMEM, "out of memory");
    ms_status st = floor_setup(x, pool, err);
    x->kinds = x->q.kind[0] ? floor_kinds_new(&x->q, lexicon_default()) : NULL;
    x->owner = x->q.owner[0] ? floor_owner_new(&x->q, lexicon_default()) : NULL;
    x->named = x->q.name_of ? floor_named_new(&x->q, lexicon_default()) : NULL;
    x->slot = x->q.wh_verb[0] ? floor_slot_new(&x->q, lexicon_default()) : NULL;
    x->verb = x->q.what_verb[0] ? floor_verb_new(&x->q, lexicon_default()) : NULL;
    if (!st)
        st = hydrate(x, hs, pool, err);
    for (size_t t = 0; !st && t < pool; t++) {
        uint32_t i = x->fused.v[t].idx;
        trace_hit(x, i, &hs[t]);
        adjust(x, i, &hs[t]);
        floor_measure(x, i, &hs[t]);
    }
    if (!st)
        floor_neighbours(x, hs, pool);
    for (size_t t = 0; !st && t < pool; t++)
        floor_one(x, x->fused.v[t].idx, &hs[t]);
    if (!st)
        st = second_stage(x, hs, pool, err);
    if (st) {
        for (size_t t = 0; t < pool; t++)
            store_memory_clear(&hs[t].mem);
        free(hs);
        floor_kinds_free(x->kinds);
        floor_kinds_free(x->owner);
        floor_kinds_free(x->named);
        floor_slot_free(x->slot);
        floor_verb_free(x->verb);
        x->kinds = x->owner = x->named = NULL;
        x->slot = NULL;
        x->verb = NULL;
        return st;
    }
    rerank(x, hs, pool);
    floor_focus(x, hs, pool);
    floor_kind(x, hs, pool);
    floor_slot_rule(x, hs, pool);
    floor_verb_rule(x, hs, pool);
    floor_pool_held(x, hs, pool);
    if (!x->o->no_floor)
        floor_associate(x, hs, pool);
    floor_summary(x, hs, pool);
    floor_kinds_free(x->kinds);
    floor_kinds_free(x->owner);
    floor_kinds_free(x->named);
    floor_slot_free(x->slot);
    floor_verb_free(x->verb);
    x->kinds = x->owner = x->named = NULL;
    x->slot = NULL;
    x->verb = NULL;
    for (size_t t = 0; x->o->explain_id && t < pool; t++)
        if (strcmp(hs[t].mem.id, x->o->explain_id) == 0)
            x->explain_passed_by = hs[t].passed_by;
    qsort(hs, pool, sizeof *hs, by_ranking);
    r->hits = calloc(limit + 1, sizeof *r->hits);
    r->misses = calloc(MISSES_MAX + 1, sizeof *r->misses);
    if (!r->hits || !r->misses)
        st = ms_fail(err, MS_NOMEM, "out of memory");
    for (size_t t = 0; t < pool; t++) {
        recall_hit *h = &hs[t];
        if (!st && h->passed_by && r->n_hits < limit) {
            h->rank_position = (int)r->n_hits + 1;
            r->hits[r->n_hits++] = *h;
        } else if (!st && !h->passed_by && r->n_misses < MISSES_MAX) {
            r->misses[r->n_misses++] = *h;
        } else {
            store_memory_clear(&h->mem);
        }
    }
    free(hs);
    return st;
}

/* ---- explain ------------------------------------------------------------------ */

static const char *verdict(const recall_explain *ex, const recall_result *r, int in_any_top)
{
    for (size_t t = 0; t < r->n_hits; t++)
        if (strcmp(r->hits[t].mem.id, ex->id) == 0)
            return "returned";
    if (!ex->fused_rank)
        return in_any_top ? "below_channel_top_n" : "not_a_candidate";
    for (size_t t = 0; t < r->n_misses; t++)
        if (strcmp(r->misses[t].mem.id, ex->id) == 0)
            return "below_floor";
    return ex->passes_floor || !r->floor_applied ? "below_limit" : "below_floor";
}

/* Where memory explain_id stands in every channel's full list. */
static ms_status explain(run *x, ms_error *err)
{
    recall_explain *ex = calloc(1, sizeof *ex);
    if (!ex || !(ex->id = strdup(x->o->explain_id))) {
        free(ex);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    x->r->explain = ex;
    store_memory m;
    ms_error nf;
    if (store_get(x->e->s, x->o->explain_id, 0, &m, &nf)) {
        ex->verdict = "not_in_store";
        return MS_OK;
    }
    ex->found = 1;
    long i = snapshot_find(x->e->sn, m.rid);
    if (i < 0) {
        ex->coverage = floor_coverage(&x->q, floor_terms_in(x->e->s, &x->q, m.content));
        store_memory_clear(&m);
        ex->verdict = "not_a_candidate";
        return MS_OK;
    }
    int in_any_top = 0;
    ms_status st = MS_OK;
    for (int c = 0; c < CH_COUNT && !st; c++) {
        ex->ch[c].weight = x->w[c];
        int rank = ranked_rank(&x->lists[c], (uint32_t)i);
        if (rank) {
            ex->in_top_n[c] = 1;
            in_any_top = 1;
        } else if (x->r->ch[c].active && engine_channels[c]->stage == 1) {
            /* a stage-one channel's full list: its rank beyond the top N */
            ranked_list full = {0}, in[CH_COUNT];
            input_lists(x, c, in);
            channel_ctx ctx = {x->e->s,     x->e->sn, &x->q,     x->o, x->e->emb,
                               x->e->sn->n, in,       &x->seeds, NULL, NULL};
            const char *note = NULL;
            st = engine_channels[c]->produce(&ctx, &full, &note, err);
            rank = st ? 0 : ranked_rank(&full, (uint32_t)i);
            if (rank)
                ex->ch[c].raw = full.v[rank - 1].raw;
            ranked_free(&full);
        } else if (rank == 0) {
            continue;
        }
        if (rank && ex->in_top_n[c])
            ex->ch[c].raw = x->lists[c].v[rank - 1].raw;
        if (rank) {
            ex->ch[c].ranked = 1;
            ex->ch[c].rank = rank;
            ex->ch[c].contribution = ex->in_top_n[c] ? x->w[c] / (x->k + rank) : 0;
            ex->fused += ex->ch[c].contribution;
        }
    }
    ex->fused_rank = ranked_rank(&x->fused, (uint32_t)i);
    recall_hit h = {.mem = m};
    trace_hit(x, (uint32_t)i, &h);
    adjust(x, (uint32_t)i, &h);
    ex->boosted = h.boosted;
    floor_measure(x, (uint32_t)i, &h);
    ex->coverage = h.coverage;
    ex->cosine = h.cosine;
    h.context_coverage = h.pred_coverage; /* its neighbours count only in the pool */
    h.context_held = h.terms_held;
    const char *own = floor_pass(x, (uint32_t)i, &h, NULL);
    /* a pass by overlap or meaning needs the asked word in the evidence */
    if (floor_needs_focus(own) && x->q.focus >= 0 && !x->r->floor_focus_supported &&
        !((h.terms_held >> x->q.focus) & 1))
        own = NULL;
    store_memory_clear(&h.mem);
    ex->passes_floor = own != NULL || x->explain_passed_by != NULL;
    ex->ranking_score = h.ranking_score;
    ex->relevance_score = h.relevance_score;
    ex->verdict = verdict(ex, x->r, in_any_top);
    /* a pooled memory was ranked with the pool's adjustments too (the
     * second stage, the reranker): report the score it was ranked by */
    for (size_t t = 0; t < x->r->n_hits; t++)
        if (strcmp(x->r->hits[t].mem.id, ex->id) == 0) {
            ex->rank_position = (int)t + 1;
            ex->ranking_score = x->r->hits[t].ranking_score;
        }
    for (size_t t = 0; t < x->r->n_misses; t++)
        if (strcmp(x->r->misses[t].mem.id, ex->id) == 0)
            ex->ranking_score = x->r->misses[t].ranking_score;
    return st;
}

/* ---- recall ------------------------------------------------------------------ */

/* A query made safe: invalid UTF-8 bytes become spaces; cut to the limit. */
static char *clean_query(const char *q)
{
    size_t n = strlen(q);
    if (n > ENGINE_QUERY_MAX)
        n = ENGINE_QUERY_MAX;
    char *c = malloc(n + 1);
    if (!c)
        return NULL;
    memcpy(c, q, n);
    c[n] = '\0';
    long bad;
    while ((bad = store_utf8_invalid_at(c, strlen(c))) >= 0)
        c[bad] = ' ';
    return c;
}

static void why_no_candidates(run *x)
{
    recall_result *r = x->r;
    const snapshot *sn = x->e->sn;
    int active = 0;
    for (int c = 0; c < CH_COUNT; c++)
        active += r->ch[c].active;
    if (sn->n == 0)
        snprintf(r->no_candidates_why, sizeof r->no_candidates_why,
                 "the profile \"%s\" holds no memories", sn->profile);
    else if (active == 0)
        snprintf(r->no_candidates_why, sizeof r->no_candidates_why,
                 "every channel is disabled or inactive");
    else
        snprintf(r->no_candidates_why, sizeof r->no_candidates_why,
                 "no channel found anything: no query word occurs in the store and nothing "
                 "is near it in meaning or time");
}

static void copy_analysis(run *x)
{
    recall_result *r = x->r;
    r->query_type = query_type_name(x->q.type);
    r->terms = calloc((size_t)x->q.n_terms + 1, sizeof *r->terms);
    for (int t = 0; r->terms && t < x->q.n_terms; t++)
        if ((r->terms[r->n_terms] = strdup(x->q.terms[t].text)))
            r->n_terms++;
    r->synonyms = calloc((size_t)x->q.n_syn + 1, sizeof *r->synonyms);
    for (int t = 0; r->synonyms && t < x->q.n_syn; t++) {
        char buf[160];
        snprintf(buf, sizeof buf, "%s>%s", x->q.syn[t].from, x->q.syn[t].word);
        if ((r->synonyms[r->n_synonyms] = strdup(buf)))
            r->n_synonyms++;
    }
    int n = x->q.n_named + x->q.n_qents;
    r->entities = calloc((size_t)n + 1, sizeof *r->entities);
    for (int t = 0; r->entities && t < n; t++) {
        uint32_t e = t < x->q.n_named ? x->q.named[t] : x->q.qents[t - x->q.n_named];
        if ((r->entities[r->n_entities] = strdup(snapshot_ent_norm(x->e->sn, e))))
            r->n_entities++;
    }
    r->dates = calloc((size_t)x->q.n_dates + 1, sizeof *r->dates);
    for (int t = 0; r->dates && t < x->q.n_dates; t++) {
        char a[32], b[32], buf[80];
        store_format_time(x->q.dates[t].start, a, sizeof a);
        store_format_time(x->q.dates[t].end, b, sizeof b);
        snprintf(buf, sizeof buf, "%s..%s", a, b);
        if ((r->dates[r->n_dates] = strdup(buf)))
            r->n_dates++;
    }
}

static ms_status pipeline(run *x, ms_error *err)
{
    ms_status st = refresh(x->e, err);
    int64_t now = x->o->as_of != STORE_TS_NONE ? x->o->as_of : (int64_t)time(NULL);
    if (!st)
        st = query_analyse(x->e->s, x->e->sn, x->e->emb, x->r->query, now, x->o->synonyms, &x->q,
                           err);
    if (st)
        return st;
    copy_analysis(x);
    set_weights(x);
    x->r->floor_threshold =
        x->o->floor_threshold >= 0 ? x->o->floor_threshold : FLOOR_COSINE_DEFAULT;
    x->r->floor_lexical = x->o->floor_lexical >= 0 ? x->o->floor_lexical : FLOOR_LEXICAL_DEFAULT;
    x->adapt_on = !x->o->no_adaptive && adaptive_count(x->e->ad) > 0;
    if (x->adapt_on)
        adaptive_channels(x->e->ad, x->q.type, x->adapt_delta);
    x->r->feedback_judgements = x->adapt_on ? adaptive_count(x->e->ad) : 0;
    channel_health(x);
    if ((st = require_channels(x, err)))
        return st;
    if ((st = run_channels(x, err)))
        return st;
    x->r->candidates = x->fused.n;
    enhance(x);
    if (x->fused.n == 0) {
        x->r->abstained = 1;
        x->r->abstention_reason = "no_candidates";
        why_no_candidates(x);
    } else if ((st = select_hits(x, err))) {
        return st;
    } else if (x->r->n_hits == 0) {
        x->r->abstained = 1;
        x->r->abstention_reason = "evidence_floor";
    }
    if (x->o->explain_id)
        st = explain(x, err);
    return st;
}

ms_status engine_recall(engine *e, const recall_opts *o, recall_result **out, ms_error *err)
{
    *out = NULL;
    if (!o->query)
        return ms_fail(err, MS_USAGE, "no query");
    if (o->limit < 1 || o->limit > ENGINE_LIMIT_MAX)
        return ms_fail(err, MS_USAGE, "limit must be 1 to %d", ENGINE_LIMIT_MAX);
    if (o->top_n < 1 || o->top_n > ENGINE_TOPN_MAX)
        return ms_fail(err, MS_USAGE, "top_n must be 1 to %d", ENGINE_TOPN_MAX);
    if (strlen(o->query) > ENGINE_QUERY_MAX)
        return ms_fail(err, MS_LIMIT, "query is %zu bytes; the limit is %d", strlen(o->query),
                       ENGINE_QUERY_MAX);
    if (o->reranker && (!e->rr_spec || strcmp(e->rr_spec, o->reranker) != 0))
        engine_set_reranker(e, o->reranker);
    double t0 = mono_ms();
    run x = {.e = e, .o = o};
    x.r = calloc(1, sizeof *x.r);
    if (!x.r || !(x.r->query = clean_query(o->query))) {
        free(x.r);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    x.r->rerank_status = "off";
    ms_status st = store_read_begin(e->s, err);
    if (!st) {
        st = pipeline(&x, err);
        store_end(e->s, NULL);
    }
    query_clear(&x.q);
    for (int c = 0; c < CH_COUNT; c++)
        ranked_free(&x.lists[c]);
    ranked_free(&x.seeds);
    ranked_free(&x.fused);
    x.r->timing_ms = mono_ms() - t0;
    if (st) {
        recall_free(x.r);
        return st;
    }
    *out = x.r;
    return MS_OK;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void recall_free(recall_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_hits; i++)
        store_memory_clear(&r->hits[i].mem);
    for (size_t i = 0; i < r->n_misses; i++)
        store_memory_clear(&r->misses[i].mem);
    free(r->hits);
    free(r->misses);
    free(r->query);
    free(r->floor_best_id);
    free(r->floor_pool_cov);
    free(r->floor_pool_cos);
    free(r->floor_pool_ok);
    free(r->floor_pool_held);
    free_strings(r->terms, r->n_terms);
    free_strings(r->synonyms, r->n_synonyms);
    free_strings(r->entities, r->n_entities);
    free_strings(r->dates, r->n_dates);
    if (r->explain)
        free(r->explain->id);
    free(r->explain);
    free(r);
}

const char *engine_query_type(engine *e, const char *text)
{
    ms_error err;
    if (store_read_begin(e->s, &err))
        return "general";
    query q = {0}; /* query_clear is safe when refresh fails before analysis */
    const char *name = "general";
    char *clean = clean_query(text); /* as engine_recall sees it: valid UTF-8, cut */
    if (clean && !refresh(e, &err) &&
        !query_analyse(e->s, e->sn, NULL, clean, (int64_t)time(NULL), 0, &q, &err))
        name = query_type_name(q.type);
    query_clear(&q);
    free(clean);
    store_end(e->s, NULL);
    return name;
}

/* ---- health -------------------------------------------------------------------- */

/* Channel health and counts; the counts are store_count's when full (the
 * pinned memories counted in the snapshot, not by a scan of the table;
 * the rest as the snapshot file keeps them when it was mapped, current in
 * this transaction, else counted), else only the memories, which the
 * snapshot holds. */
static ms_status health_fill(engine *e, engine_health *h, int full, ms_error *err)
{
    memset(h, 0, sizeof *h);
    ms_status st = store_read_begin(e->s, err);
    if (st)
        return st;
    st = refresh(e, err);
    if (!st && full && e->sn->counts_known)
        h->counts = e->sn->counts;
    else if (!st && full)
        st = store_count_some(e->s, 0, &h->counts, err);
    store_end(e->s, NULL);
    if (st)
        return st;
    if (!full)
        h->counts.memories = (int64_t)e->sn->n;
    for (size_t i = 0; full && i < e->sn->n; i++)
        h->counts.pinned += e->sn->pinned[i] != 0;
    for (int c = 0; c < CH_COUNT; c++) {
        h->ch[c].reason = engine_channels[c]->health(e->sn, e->emb);
        h->ch[c].active = h->ch[c].reason == NULL;
        h->ch[c].note = model_note(e->sn, h->ch[c].reason);
    }
    h->embedder_id = e->emb ? embed_id(e->emb) : NULL;
    h->embedder_dim = e->emb ? embed_dim(e->emb) : 0;
    h->store_embedder_id = e->sn->vec_embedder;
    h->vectors_missing = (int64_t)e->sn->n - (int64_t)e->sn->n_vec;
    return MS_OK;
}

ms_status engine_health_get(engine *e, engine_health *h, ms_error *err)
{
    return health_fill(e, h, 1, err);
}

ms_status engine_health_brief(engine *e, engine_health *h, ms_error *err)
{
    return health_fill(e, h, 0, err);
}

/* ---- reranking and feedback -------------------------------------------------- */

const char *engine_snapshot_note(const engine *e)
{
    return e->snap_note[0] ? e->snap_note : NULL;
}

void engine_set_reranker(engine *e, const char *spec)
{
    rerank_close(e->rr);
    e->rr = NULL;
    e->rr_error[0] = '\0';
    e->rr_wanted = spec != NULL;
    free(e->rr_spec);
    e->rr_spec = spec ? strdup(spec) : NULL;
    if (!spec)
        return;
    ms_error err;
    ms_error_clear(&err);
    e->rr = rerank_open(spec, &err);
    if (!e->rr)
        snprintf(e->rr_error, sizeof e->rr_error, "%s", err.msg);
}

int recall_rank_of(const recall_result *r, const char *id)
{
    for (size_t i = 0; r && i < r->n_hits; i++)
        if (strcmp(r->hits[i].mem.id, id) == 0)
            return (int)i + 1;
    return 0;
}

const recall_hit *recall_find(const recall_result *r, const char *id)
{
    int rank = recall_rank_of(r, id);
    if (rank)
        return &r->hits[rank - 1];
    for (size_t i = 0; i < r->n_misses; i++)
        if (strcmp(r->misses[i].mem.id, id) == 0)
            return &r->misses[i];
    return NULL;
}

/* The channels that had ranked memory id in r (0 when r did not hold it). */
static unsigned ranked_in(const recall_result *r, const char *id)
{
    const recall_hit *h = recall_find(r, id);
    if (h) {
        unsigned m = 0;
        for (int c = 0; c < CH_COUNT; c++)
            m |= h->ch[c].ranked ? CH_MASK(c) : 0;
        return m;
    }
    const recall_explain *ex = r->explain;
    unsigned m = 0;
    for (int c = 0; ex && ex->found && strcmp(ex->id, id) == 0 && c < CH_COUNT; c++)
        m |= ex->in_top_n[c] ? CH_MASK(c) : 0;
    return m;
}

static ms_status judge(engine *e, const recall_result *r, const char *id, int label, int keep,
                       ms_error *err)
{
    if (label != 1 && label != -1 && !(keep && label == 0))
        return ms_fail(err, MS_USAGE, "feedback is + (relevant) or - (not relevant)");
    store_memory m;
    ms_status st = store_get(e->s, id, 0, &m, err);
    if (st)
        return st;
    int64_t rid = m.rid;
    store_memory_clear(&m);
    unsigned mask = ranked_in(r, id);
    if (!keep)
        return adaptive_add(e->ad, e->s, rid, r->query, r->query_type, label, mask, err);
    store_feedback f = {
        .rid = rid, .query_type = (char *)r->query_type, .label = label, .channels = mask};
    return engine_feedback_put(e, rid, r->query, label ? &f : NULL, err);
}

ms_status engine_feedback_put(engine *e, int64_t rid, const char *text, const store_feedback *f,
                              ms_error *err)
{
    ms_status st = store_begin(e->s, err);
    if (!st && f)
        st = store_add_feedback(e->s, rid, text, f->query_type, f->label, f->channels, err);
    else if (!st)
        st = store_clear_feedback(e->s, rid, text, err);
    if (!st)
        st = store_end(e->s, err);
    else
        store_rollback(e->s);
    return st ? st : adaptive_load(e->ad, e->s, err);
}

ms_status engine_feedback(engine *e, const recall_result *r, const char *id, int label,
                          ms_error *err)
{
    return judge(e, r, id, label, 1, err);
}

ms_status engine_learn(engine *e, const recall_result *r, const char *id, int label, ms_error *err)
{
    return judge(e, r, id, label, 0, err);
}

ms_status engine_feedback_reset(engine *e, ms_error *err)
{
    ms_status st = store_begin(e->s, err);
    if (!st)
        st = store_feedback_reset(e->s, err);
    if (!st)
        st = store_end(e->s, err);
    else
        store_rollback(e->s);
    if (!st)
        adaptive_clear(e->ad);
    return st;
}

/* ---- identity ------------------------------------------------------------------ */

char *engine_config_text(engine *e, const recall_opts *o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fprintf(f, "embedder=%s:%d\nreranker=%s\n", e->emb ? embed_id(e->emb) : "none",
            e->emb ? embed_dim(e->emb) : 0, o->no_rerank || !e->rr_spec ? "none" : e->rr_spec);
    fprintf(f, "limit=%d\ntop_n=%d\nrrf_k=%.17g\nas_of=", o->limit, o->top_n, o->rrf_k);
    fprintf(f, o->as_of == STORE_TS_NONE ? "now\n" : "%lld\n", (long long)o->as_of);
    fprintf(f, "disabled=%u\nrequire=%u\nno_floor=%d\nno_adaptive=%d\n", o->disabled, o->require,
            o->no_floor, o->no_adaptive);
    fprintf(f, "floor_threshold=%.17g\nfloor_rule=%s\n",
            o->floor_threshold >= 0 ? o->floor_threshold : FLOOR_COSINE_DEFAULT, FLOOR_RULE);
    const first_stage_opts *fs = &o->first_stage;
    fprintf(f,
            "first_stage=prf:%d:%d:%.17g,sessions:%.17g,aspects:%.17g,seeds:%d:%.17g,"
            "kinds:%.17g:%d,hops:%.17g:%d,lists:%d,sets:%d\n",
            fs->prf_docs, fs->prf_terms, fs->prf_weight, fs->sessions, fs->aspects, fs->seeds,
            fs->seed_scale, fs->kinds, fs->kinds_per_session, fs->hops, fs->hops_per_session,
            fs->lists_only, fs->sets_only);
    for (int c = 0; c < CH_COUNT; c++)
        if (o->weights_set & CH_MASK(c))
            fprintf(f, "weight.%s=%.17g\n", engine_channel_name(c), o->weights[c]);
    for (int t = 0; t < QT_COUNT; t++) {
        const weight_profile *p = profile_for((query_type)t);
        fprintf(f, "type.%s=", query_type_name((query_type)t));
        for (int c = 0; c < CH_COUNT; c++)
            fprintf(f, "%.17g,", p->w[c]);
        fprintf(f, "aux=%.17g,eg=%.17g/%.17g,k=%.17g\n", p->temporal_aux, p->eg_speaker,
                p->eg_mention, p->rrf_k);
    }
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}
