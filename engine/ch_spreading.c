/* ch_spreading.c - spreading activation over the stored graph.
 *
 * Evidence often sits next to the turn that matched: the other speaker's
 * question before it, the answer or reaction after it. Seeds are the top
 * SPREAD_SEEDS memories of a first fusion of semantic, bm25 and temporal;
 * a seed at rank r starts with activation a = 1/sqrt(r) and keeps it. In one
 * step each seed passes on:
 *   - along session-adjacency edges: a * 0.5 * w (w = 1 for the next turn,
 *     0.5 two turns away), times SPREAD_FORWARD = 1.5 towards later turns,
 *     because answers follow questions;
 *   - along temporal-proximity edges: a * 0.5 * w;
 *   - through each entity it mentions that at most SPREAD_ENTITY_DF memories
 *     mention (a pet, a place; not a speaker): a * 0.5 / df to each of them.
 *   - for a question about now (query.c about_now), to each memory that
 *     supersedes the seed: a, all of it (the current version of what the
 *     seed says; stage2.c `latest` then lets it take the seed's place).
 * What several seeds pass adds up. raw = the activation. The constants are
 * measured in docs/QUALITY.md (one step, 10 seeds, forward 1.5). */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>

#define SPREAD_SEEDS 10
#define SPREAD_BASE 0.5
#define SPREAD_FORWARD 1.5
#define SPREAD_ENTITY_DF 20

static const char *health(const snapshot *sn, embedder *emb)
{
    (void)emb;
    if (sn->n == 0)
        return "store_empty";
    int edges = sn->has_edges;
    int links = sn->me_off && sn->me_off[sn->n] > 0;
    return edges || links ? NULL : "no_edges";
}

/* The activation of each memory reached, in the order first reached. */
typedef struct spread {
    idx_sum act;
    uint32_t *touched;
    size_t n, cap;
    int oom;
} spread;

static void give(spread *sp, uint32_t v, double amount)
{
    int added;
    double *a = sp->oom ? NULL : idx_sum_at(&sp->act, v, &added);
    if (a && added && sp->n == sp->cap) {
        size_t cap = sp->cap ? 2 * sp->cap : 256;
        uint32_t *t = realloc(sp->touched, cap * sizeof *t);
        if (t) {
            sp->touched = t;
            sp->cap = cap;
        } else {
            a = NULL;
        }
    }
    if (!a) {
        sp->oom = 1;
        return;
    }
    if (added)
        sp->touched[sp->n++] = v;
    *a += amount;
}

/* Along the seed's stored edges (session adjacency, temporal proximity,
 * links the source store recorded).
 * -1 when they cannot be read. */
static int along_edges(const snapshot *sn, uint32_t u, double a, spread *sp)
{
    const snap_edge *ed;
    size_t ne;
    if (snapshot_edges(sn, u, &ed, &ne))
        return -1;
    for (size_t e = 0; e < ne; e++) {
        uint32_t v = ed[e].other;
        double w = SPREAD_BASE * ed[e].w * a;
        if (ed[e].type == STORE_EDGE_SESSION)
            give(sp, v, sn->rid[v] > sn->rid[u] ? SPREAD_FORWARD * w : w);
        else if (ed[e].type == STORE_EDGE_TEMPORAL || ed[e].type == STORE_EDGE_RELATION)
            give(sp, v, w);
        /* entity edges: walked through the entity links below instead */
    }
    return 0;
}

/* Through the rare entities the seed mentions. */
static void through_entities(const snapshot *sn, uint32_t u, double a, spread *sp)
{
    for (uint32_t p = sn->me_off[u]; p < sn->me_off[u + 1]; p++) {
        uint32_t ent = sn->me_ent[p];
        uint32_t df = sn->em_off[ent + 1] - sn->em_off[ent];
        if ((int32_t)ent == sn->speaker_ent[u] || sn->ent_speaker[ent] || df > SPREAD_ENTITY_DF)
            continue;
        for (uint32_t q = sn->em_off[ent]; q < sn->em_off[ent + 1]; q++)
            if (sn->em_mem[q] != u)
                give(sp, sn->em_mem[q], a * SPREAD_BASE / df);
    }
}

/* How far down the seed fusion seeds are taken: SPREAD_SEEDS, or with the
 * first-stage option seeds=N:S (firststage.c) N, where a seed below
 * SPREAD_SEEDS counts only when it is the first of its session (S times
 * its activation). */
static size_t diverse_seeds(const channel_ctx *c)
{
    const first_stage_opts *f = &c->o->first_stage;
    if (f->seeds > SPREAD_SEEDS && f->seed_scale > 0 && firststage_applies(f, c->q))
        return (size_t)f->seeds;
    return SPREAD_SEEDS;
}

/* Is seed r the first of the seed fusion's list in its session? */
static int fresh_session(const snapshot *sn, const ranked_list *seeds, size_t r)
{
    int32_t s = sn->session[seeds->v[r].idx];
    for (size_t p = 0; s >= 0 && p < r; p++)
        if (sn->session[seeds->v[p].idx] == s)
            return 0;
    return s >= 0;
}

static ms_status produce(const channel_ctx *c, ranked_list *out, const char **note, ms_error *err)
{
    const snapshot *sn = c->sn;
    const ranked_list *seeds = c->seed_fusion;
    if (!seeds || seeds->n == 0) {
        *note = "no seeds: the other channels found nothing";
        return MS_OK;
    }
    spread sp = {0};
    ms_status st = MS_OK;
    for (size_t r = 0; r < seeds->n && r < SPREAD_SEEDS; r++)
        give(&sp, seeds->v[r].idx, 1.0 / sqrt((double)r + 1.0));
    size_t n_seeds = diverse_seeds(c);
    int more = 0; /* seeds past SPREAD_SEEDS, each the first of its session */
    for (size_t r = 0; r < seeds->n && r < n_seeds; r++) {
        uint32_t u = seeds->v[r].idx;
        double a = 1.0 / sqrt((double)r + 1.0);
        if (r >= SPREAD_SEEDS) {
            if (!fresh_session(sn, seeds, r))
                continue;
            a *= c->o->first_stage.seed_scale;
            give(&sp, u, a);
            more++;
        }
        if (along_edges(sn, u, a, &sp)) {
            st = ms_fail(err, MS_SQL, "cannot read the edges of memory #%lld",
                         (long long)sn->rid[u]);
            goto done;
        }
        through_entities(sn, u, a, &sp);
        const snap_succ *succ;
        size_t k = c->q->about_now ? snapshot_successors(sn, u, &succ) : 0;
        for (size_t j = 0; j < k; j++)
            give(&sp, succ[j].newer, a);
    }
    if (!st && sp.oom)
        st = ms_fail(err, MS_NOMEM, "out of memory");
    if (n_seeds > SPREAD_SEEDS)
        firststage_account(c, "seeds %d:%g: %d more, the first of their sessions down to rank %zu",
                           c->o->first_stage.seeds, c->o->first_stage.seed_scale, more, n_seeds);
    for (size_t t = 0; t < sp.n && !st; t++)
        if (ranked_push(out, sp.touched[t], *idx_sum_find(&sp.act, sp.touched[t])))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    if (!st)
        ranked_finish(out, sn, c->top_n);
done:
    idx_sum_free(&sp.act);
    free(sp.touched);
    return st;
}

const channel_ops ch_spreading_ops = {
    .name = "spreading",
    .short_name = "spr",
    .stage = 2,
    .inputs = 0,
    .applies = NULL,
    .health = health,
    .produce = produce,
};
