/* edges.c - each memory's edges, read from the store when first needed.
 *
 * Recall follows the edges of a few memories per query: the spreading
 * channel's seeds and the pool the evidence floor associates. Loading every
 * edge when a profile is opened (half a million rows at 100,000 memories)
 * cost a third of the time to the first results, so the snapshot reads a
 * memory's edges the first time they are asked for and keeps them. The
 * order is the one a load of the whole table in (src, dst, type) order
 * gives, so what spreads adds up in the same order. */
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

/* Read memory i's edges from the store. */
static snap_adj *adj_load(const snapshot *sn, size_t i)
{
    store_edge *v = NULL;
    size_t n = 0;
    if (store_edges_of(sn->s, sn->rid[i], &v, &n, NULL))
        return NULL;
    if (n > 1) /* qsort(NULL, 0) is undefined (UBSan) */
        qsort(v, n, sizeof *v, by_key);
    snap_adj *a = n ? malloc(sizeof *a + n * sizeof a->e[0]) : &no_edges;
    if (!a) {
        free(v);
        return NULL;
    }
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        long other = snapshot_find(sn, v[j].src == sn->rid[i] ? v[j].dst : v[j].src);
        if (other < 0)
            continue; /* in another profile */
        a->e[k++] = (snap_edge){(uint32_t)other, (float)v[j].weight, (uint8_t)v[j].type};
    }
    if (n)
        a->n = k;
    free(v);
    return a;
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
    if (!lz->adj[i] && !(lz->adj[i] = adj_load(sn, i)))
        return -1;
    *out = lz->adj[i]->e;
    *n = lz->adj[i]->n;
    return 0;
}

void snapshot_edges_free(snapshot_lazy *lz, size_t n)
{
    for (size_t i = 0; lz->adj && i < n; i++)
        if (lz->adj[i] != &no_edges)
            free(lz->adj[i]);
    free(lz->adj);
    lz->adj = NULL;
}
