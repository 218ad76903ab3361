/* ranked.c - (memory, score) lists, best first, ties by rid. */
#include "engine_int.h"

#include <stdlib.h>

int ranked_push(ranked_list *l, uint32_t idx, double raw)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        ranked *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (ranked){idx, raw};
    return 0;
}

/* qsort has no context argument: the snapshot being sorted against. Recall
 * runs one query at a time per process thread, so a thread-local is enough. */
static _Thread_local const snapshot *sort_sn;

static int by_score(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->raw != y->raw)
        return x->raw > y->raw ? -1 : 1;
    int64_t rx = sort_sn->rid[x->idx], ry = sort_sn->rid[y->idx];
    return (rx > ry) - (rx < ry);
}

static void swap(ranked *a, ranked *b)
{
    ranked t = *a;
    *a = *b;
    *b = t;
}

/* Move the `keep` best entries to the front (in no order): quickselect with
 * a median-of-three pivot. */
static void select_best(ranked *v, size_t n, size_t keep)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (by_score(&v[mid], &v[lo]) < 0)
            swap(&v[mid], &v[lo]);
        if (by_score(&v[hi], &v[lo]) < 0)
            swap(&v[hi], &v[lo]);
        if (by_score(&v[hi], &v[mid]) < 0)
            swap(&v[hi], &v[mid]);
        ranked pivot = v[mid];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (by_score(&v[i], &pivot) < 0)
                i++;
            while (by_score(&v[j], &pivot) > 0)
                j--;
            if (i <= j) {
                swap(&v[i], &v[j]);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (keep <= j)
            hi = j;
        else if (keep >= i)
            lo = i;
        else
            return;
    }
}

/* Is a before b: a higher raw, or the same and a lower rid? by_score's
 * order, inlined into the sort below. */
static int before(const snapshot *sn, const ranked *a, const ranked *b)
{
    if (a->raw != b->raw)
        return a->raw > b->raw;
    return sn->rid[a->idx] < sn->rid[b->idx];
}

static void sift_down(const snapshot *sn, ranked *v, size_t i, size_t n)
{
    for (size_t c; (c = 2 * i + 1) < n; i = c) {
        if (c + 1 < n && before(sn, &v[c], &v[c + 1]))
            c++;
        if (!before(sn, &v[i], &v[c]))
            return;
        swap(&v[i], &v[c]);
    }
}

/* v[n] best first, as qsort with by_score sorts it: the order is total
 * (no two memories share a rid, and entries of one memory with the same raw
 * are the same), so any sort gives the same array. Quicksort with the
 * comparison inlined (qsort's calls through a pointer were a tenth of a
 * channel's list), insertion sort for short runs, heapsort past a depth. */
static void sort_ranked(const snapshot *sn, ranked *v, size_t n, int depth)
{
    while (n > 16) {
        if (depth-- == 0) { /* heapsort: worst first at the root, then down */
            for (size_t i = n / 2; i-- > 0;)
                sift_down(sn, v, i, n);
            for (size_t e = n - 1; e > 0; e--) {
                swap(&v[0], &v[e]);
                sift_down(sn, v, 0, e);
            }
            return;
        }
        size_t mid = n / 2;
        if (before(sn, &v[mid], &v[0]))
            swap(&v[mid], &v[0]);
        if (before(sn, &v[n - 1], &v[0]))
            swap(&v[n - 1], &v[0]);
        if (before(sn, &v[n - 1], &v[mid]))
            swap(&v[n - 1], &v[mid]);
        ranked pivot = v[mid];
        size_t i = 0, j = n - 1;
        for (;;) {
            while (before(sn, &v[i], &pivot))
                i++;
            while (before(sn, &pivot, &v[j]))
                j--;
            if (i >= j)
                break;
            swap(&v[i], &v[j]);
            i++;
            j--;
        }
        /* v[0..j] come before or tie the pivot, v[j+1..n) after or tie */
        if (j + 1 < n - j - 1) {
            sort_ranked(sn, v, j + 1, depth);
            v += j + 1;
            n -= j + 1;
        } else {
            sort_ranked(sn, v + j + 1, n - j - 1, depth);
            n = j + 1;
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && before(sn, &v[k], &v[k - 1]); k--)
            swap(&v[k], &v[k - 1]);
}

void ranked_finish(ranked_list *l, const snapshot *sn, size_t keep)
{
    sort_sn = sn;
    if (keep > 0 && l->n > 2 * keep + 16) {
        select_best(l->v, l->n, keep);
        l->n = keep;
    }
    int depth = 0;
    for (size_t m = l->n; m > 1; m >>= 1)
        depth += 2;
    if (l->n > 1)
        sort_ranked(sn, l->v, l->n, depth);
    if (l->n > keep)
        l->n = keep;
}

void ranked_free(ranked_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

int ranked_rank(const ranked_list *l, uint32_t idx)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].idx == idx)
            return (int)i + 1;
    return 0;
}

/* ---- sums per memory ---------------------------------------------------------- */

static size_t idx_slot(const idx_sum *m, uint32_t idx)
{
    size_t mask = m->cap - 1, j = (size_t)((idx * 2654435761u) & mask);
    while (m->key[j] && m->key[j] != idx + 1)
        j = (j + 1) & mask;
    return j;
}

/* Twice the slots, every entry moved; -1 when out of memory. */
static int idx_grow(idx_sum *m)
{
    idx_sum g = {calloc(m->cap ? 2 * m->cap : 256, sizeof *g.key), NULL, m->n,
                 m->cap ? 2 * m->cap : 256};
    g.val = malloc(g.cap * sizeof *g.val);
    if (!g.key || !g.val) {
        free(g.key);
        free(g.val);
        return -1;
    }
    for (size_t j = 0; j < m->cap; j++)
        if (m->key[j]) {
            size_t k = idx_slot(&g, m->key[j] - 1);
            g.key[k] = m->key[j];
            g.val[k] = m->val[j];
        }
    free(m->key);
    free(m->val);
    *m = g;
    return 0;
}

double *idx_sum_at(idx_sum *m, uint32_t idx, int *added)
{
    if (added)
        *added = 0;
    if ((m->n + 1) * 2 > m->cap && idx_grow(m))
        return NULL;
    size_t j = idx_slot(m, idx);
    if (!m->key[j]) {
        m->key[j] = idx + 1;
        m->val[j] = 0;
        m->n++;
        if (added)
            *added = 1;
    }
    return &m->val[j];
}

const double *idx_sum_find(const idx_sum *m, uint32_t idx)
{
    if (!m->cap)
        return NULL;
    size_t j = idx_slot(m, idx);
    return m->key[j] ? &m->val[j] : NULL;
}

void idx_sum_free(idx_sum *m)
{
    free(m->key);
    free(m->val);
    *m = (idx_sum){0};
}
