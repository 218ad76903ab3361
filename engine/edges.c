/* edges.c - each memory's edges, from the snapshot file or read from the
 * store when first needed.
 *
 * Recall follows the edges of a few memories per query: the spreading
 * channel's seeds and the pool the evidence floor associates. The snapshot
 * file keeps every memory's edges in the form recall uses them (a list per
 * memory, snapshot_edges_all, written with the file), so a process that
 * maps it reads a few pages of it instead of the store's edge index.
 * Loading every edge when a profile is read from the tables (half a million
 * rows at 100,000 memories) cost a third of the time to the first results,
 * so such a snapshot reads a memory's edges the first time they are asked
 * for and keeps them. The
 * order is the one a load of the whole table in (src, dst, type) order
 * gives, so what spreads adds up in the same order. The memories whose
 * edges were allocated are listed, so that freeing them does not look at
 * every memory's slot (at 1,000,000 memories 8 MB, mostly never touched:
 * 6 ms of a whole recall process). */
#include "engine_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct snap_adj {
    size_t n;
    snap_edge e[];
} snap_adj;

static snap_adj no_edges; /* loaded, none */

/* Memory i's edges from the n store edges v touching it (sorted here, in
 * place), or NULL when out of memory. */
static snap_adj *adj_make(const snapshot *sn, size_t i, store_edge *v, size_t n)
{
    if (n > 1) /* qsort(NULL, 0) is undefined (UBSan) */
        qsort(v, n, sizeof *v, store_edge_cmp);
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
    if (!sn->has_edges || sn->adj_off || (!lz->adj && !(lz->adj = calloc(sn->n, sizeof *lz->adj))))
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
    if (sn->adj_off) {
        *out = sn->adj_file + sn->adj_off[i];
        *n = sn->adj_off[i + 1] - sn->adj_off[i];
        return 0;
    }
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

/* An edge of the profile between memories a and b (indices), while every
 * edge is gathered (snapshot_edges_all): 16 bytes, 5 million of them at
 * 1,000,000 memories. */
typedef struct pair_edge {
    uint32_t a, b;
    float w;
    uint8_t type;
} pair_edge;

typedef struct edge_gather {
    const snapshot *sn;
    pair_edge *v;
    size_t n, cap;
    int oom;
} edge_gather;

static int gather_edge(void *p, const store_edge *se)
{
    edge_gather *g = p;
    long a = snapshot_find(g->sn, se->src), b = snapshot_find(g->sn, se->dst);
    if (a < 0 || b < 0)
        return 0; /* an end in another profile: adj_make leaves it out */
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 4096;
        pair_edge *v = realloc(g->v, cap * sizeof *v);
        if (!v) {
            g->oom = 1;
            return 1;
        }
        g->v = v;
        g->cap = cap;
    }
    g->v[g->n++] = (pair_edge){(uint32_t)a, (uint32_t)b, (float)se->weight, (uint8_t)se->type};
    return 0;
}

/* Memory i's n edges at v, sorted as adj_make sorts them (by the store's
 * key: for one memory that is by the other end, then by type), each once
 * with its largest weight (the store may give an edge it keeps and derives
 * both times); their new count. Insertion sort: a memory has a few. */
static size_t adj_tidy(snap_edge *v, size_t n)
{
    for (size_t j = 1; j < n; j++) {
        snap_edge x = v[j];
        size_t k = j;
        for (; k > 0 &&
               (v[k - 1].other > x.other || (v[k - 1].other == x.other && v[k - 1].type > x.type));
             k--)
            v[k] = v[k - 1];
        v[k] = x;
    }
    size_t m = 0;
    for (size_t j = 0; j < n; j++) {
        if (m && v[m - 1].other == v[j].other && v[m - 1].type == v[j].type) {
            if (v[j].w > v[m - 1].w)
                v[m - 1].w = v[j].w;
        } else {
            v[m++] = v[j];
        }
    }
    return m;
}

/* The store's edges come in no set order; each is listed at both of its
 * ends, and each memory's list then sorted and made unique: what
 * adj_make's sort of one memory's edges gives. */
long long snapshot_edges_all(store *s, const snapshot *sn, uint32_t **off, snap_edge **e)
{
    *off = NULL;
    *e = NULL;
    edge_gather g = {sn, NULL, 0, 0, 0};
    if (store_scan_edges(s, gather_edge, &g, NULL) || g.oom || 2 * (uint64_t)g.n > UINT32_MAX) {
        free(g.v);
        return -1;
    }
    uint32_t *o = calloc(sn->n + 2, sizeof *o);
    snap_edge *v = calloc(2 * g.n + 1, sizeof *v); /* zeroed: the file's padding bytes */
    if (!o || !v) {
        free(o);
        free(v);
        free(g.v);
        return -1;
    }
    for (size_t k = 0; k < g.n; k++) { /* a counting sort by memory, stable */
        o[g.v[k].a + 2]++;
        o[g.v[k].b + 2]++;
    }
    for (size_t i = 2; i < sn->n + 2; i++)
        o[i] += o[i - 1];
    for (size_t k = 0; k < g.n; k++) {
        const pair_edge *x = &g.v[k];
        snap_edge *at = &v[o[x->a + 1]++]; /* set field by field: the padding stays 0 */
        at->other = x->b;
        at->w = x->w;
        at->type = x->type;
        at = &v[o[x->b + 1]++];
        at->other = x->a;
        at->w = x->w;
        at->type = x->type;
    }
    free(g.v);
    uint32_t to = 0, from = 0;
    for (size_t i = 0; i < sn->n; i++) { /* o[i + 1] is where memory i's end */
        size_t len = adj_tidy(v + from, o[i + 1] - from);
        memmove(v + to, v + from, len * sizeof *v);
        from = o[i + 1];
        o[i] = to;
        to += (uint32_t)len;
    }
    o[sn->n] = to;
    memset(v + to, 0, (2 * g.n + 1 - to) * sizeof *v); /* the file's padding bytes */
    *off = o; /* o[i] is where memory i's edges start, o[n] their count */
    *e = v;
    return (long long)o[sn->n];
}

/* While the edges added since a base are read: which memories they touch. */
typedef struct touch_ctx {
    const snapshot *sn;
    uint8_t *touched; /* [n] */
} touch_ctx;

static int touch_edge(void *p, const store_edge *se)
{
    touch_ctx *t = p;
    long a = snapshot_find(t->sn, se->src), b = snapshot_find(t->sn, se->dst);
    if (a >= 0)
        t->touched[a] = 1;
    if (b >= 0)
        t->touched[b] = 1;
    return 0;
}

/* The lists of the touched memories of sn, read as snapshot_edges reads
 * them, into lists[i] (NULL for the others); -1 when one cannot be read. */
static int read_touched(const snapshot *sn, const uint8_t *touched, snap_adj **lists)
{
    for (size_t i = 0; i < sn->n; i++)
        if (touched[i] && !(lists[i] = adj_load(sn, i)))
            return -1;
    return 0;
}

static void free_lists(snap_adj **lists, size_t n)
{
    for (size_t i = 0; lists && i < n; i++)
        if (lists[i] != &no_edges)
            free(lists[i]);
    free(lists);
}

long long snapshot_edges_extend(store *s, const snapshot *sn, const snapshot *base, size_t base_n,
                                uint32_t **off, snap_edge **e)
{
    *off = NULL;
    *e = NULL;
    if (!base->adj_off || base_n == 0 || base_n > base->n || base_n > sn->n)
        return -1;
    touch_ctx t = {sn, calloc(sn->n + 1, 1)};
    snap_adj **lists = calloc(sn->n + 1, sizeof *lists);
    uint32_t *o = calloc(sn->n + 2, sizeof *o);
    int bad = !t.touched || !lists || !o ||
              store_scan_edges_after(s, sn->rid[base_n - 1], touch_edge, &t, NULL) ||
              read_touched(sn, t.touched, lists);
    uint64_t count = 0;
    for (size_t i = 0; !bad && i < sn->n; i++) {
        count += lists[i]     ? lists[i]->n
                 : i < base_n ? base->adj_off[i + 1] - base->adj_off[i]
                              : 0; /* new, untouched: no edge */
        o[i + 1] = (uint32_t)count;
        bad = count > UINT32_MAX;
    }
    snap_edge *v = bad ? NULL : calloc(count + 1, sizeof *v); /* zeroed: the padding bytes */
    for (size_t i = 0; v && i < sn->n; i++) {
        for (size_t k = 0; lists[i] && k < lists[i]->n; k++) { /* the padding stays 0 */
            v[o[i] + k].other = lists[i]->e[k].other;
            v[o[i] + k].w = lists[i]->e[k].w;
            v[o[i] + k].type = lists[i]->e[k].type;
        }
        if (!lists[i] && i < base_n)
            memcpy(v + o[i], base->adj_file + base->adj_off[i], (o[i + 1] - o[i]) * sizeof *v);
    }
    free(t.touched);
    free_lists(lists, sn->n);
    if (!v) {
        free(o);
        return -1;
    }
    *off = o;
    *e = v;
    return (long long)count;
}
