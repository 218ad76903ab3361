/* edges.c - each memory's edges, read from the store when first needed.
 *
 * Recall follows the edges of a few memories per query: the spreading
 * channel's seeds and the pool the evidence floor associates. Loading every
 * edge when a profile is opened (half a million rows at 100,000 memories)
 * cost a third of the time to the first results, so the snapshot reads a
 * memory's edges the first time they are asked for and keeps them. The
 * order is the one a load of the whole table in (src, dst, type) order
 * gives, so what spreads adds up in the same order. The memories whose
 * edges were allocated are listed, so that freeing them does not look at
 * every memory's slot (at 1,000,000 memories 8 MB, mostly never touched:
 * 6 ms of a whole recall process). */
#include "engine_int.h"

#include <stdlib.h>

typedef struct snap_adj {
    size_t n;
    snap_edge e[];
} snap_adj;

static snap_adj no_edges; /* loaded, none */

static int by_key(const void *a, const void *b)
{
    const store_edge *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return (x->type > y->type) - (x->type < y->type);
}

/* Memory i's edges from the n store edges v touching it (sorted here, in
 * place), or NULL when out of memory. */
static snap_adj *adj_make(const snapshot *sn, size_t i, store_edge *v, size_t n)
{
    if (n > 1) /* qsort(NULL, 0) is undefined (UBSan) */
        qsort(v, n, sizeof *v, by_key);
    snap_adj *a = n ? malloc(sizeof *a + n * sizeof a->e[0]) : &no_edges;
    if (!a)
        return NULL;
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        long other = snapshot_find(sn, v[j].src == sn->rid[i] ? v[j].dst : v[j].src);
        if (other < 0)
            continue; /* in another profile */
        a->e[k++] = (snap_edge){(uint32_t)other, (float)v[j].weight, (uint8_t)v[j].type};
    }
    if (n)
        a->n = k;
    return a;
}

/* Keep a as memory i's edges, listing i when a was allocated; NULL (a
 * freed) when the list cannot grow, or when a is NULL. */
static snap_adj *adj_keep(snapshot_lazy *lz, size_t i, snap_adj *a)
{
    if (a && a != &no_edges && lz->n_held == lz->cap_held) {
        size_t cap = lz->cap_held ? 2 * lz->cap_held : 64;
        uint32_t *held = realloc(lz->adj_held, cap * sizeof *held);
        if (!held) {
            free(a);
            return NULL;
        }
        lz->adj_held = held;
        lz->cap_held = cap;
    }
    if (a && a != &no_edges)
        lz->adj_held[lz->n_held++] = (uint32_t)i;
    if (a)
        lz->adj[i] = a;
    return a;
}

/* Read memory i's edges from the store. */
static snap_adj *adj_load(const snapshot *sn, size_t i)
{
    store_edge *v = NULL;
    size_t n = 0;
    if (store_edges_of(sn->s, sn->rid[i], &v, &n, NULL))
        return NULL;
    snap_adj *a = adj_make(sn, i, v, n);
    free(v);
    return a;
}

void snapshot_edges_preload(const snapshot *sn, const uint32_t *idx, size_t n)
{
    snapshot_lazy *lz = sn->lazy;
    if (!sn->has_edges || (!lz->adj && !(lz->adj = calloc(sn->n, sizeof *lz->adj))))
        return;
    uint32_t *want = malloc((n + 1) * sizeof *want);
    int64_t *rid = malloc((n + 1) * sizeof *rid);
    size_t m = 0;
    for (size_t t = 0; want && rid && t < n; t++)
        if (idx[t] < sn->n && !lz->adj[idx[t]]) {
            want[m] = idx[t];
            rid[m++] = sn->rid[idx[t]];
        }
    store_edge *v = NULL;
    size_t *first = NULL;
    if (m && !store_edges_of_rids(sn->s, rid, m, &v, &first, NULL))
        for (size_t k = 0; k < m; k++)
            adj_keep(lz, want[k], adj_make(sn, want[k], v + first[k], first[k + 1] - first[k]));
    free(v);
    free(first);
    free(want);
    free(rid);
}

int snapshot_edges(const snapshot *sn, size_t i, const snap_edge **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    snapshot_lazy *lz = sn->lazy;
    if (!sn->has_edges || i >= sn->n)
        return 0;
    if (!lz->adj && !(lz->adj = calloc(sn->n, sizeof *lz->adj)))
        return -1;
    if (!lz->adj[i] && !adj_keep(lz, i, adj_load(sn, i)))
        return -1;
    *out = lz->adj[i]->e;
    *n = lz->adj[i]->n;
    return 0;
}

void snapshot_edges_free(snapshot_lazy *lz)
{
    for (size_t k = 0; k < lz->n_held; k++)
        free(lz->adj[lz->adj_held[k]]);
    free(lz->adj_held);
    free(lz->adj);
    lz->adj = NULL;
    lz->adj_held = NULL;
    lz->n_held = lz->cap_held = 0;
}
