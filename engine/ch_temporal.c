/* ch_temporal.c - the time channel. Which list it gives depends on the
 * query (docs/ENGINE.md, measured in docs/QUALITY.md):
 *
 *  - a date named ("on 8 May 2023", "in July 2022", "May 8"): memories near
 *    it. The distance of a memory's day o from the named range [s, e] is
 *    o - e after it, 2 (s - o) before it (people mostly tell of what has
 *    happened, so a session after the date may narrate it) and 0 inside; a
 *    date named without a year takes the nearest of the store's years.
 *    A memory of the bm25 list that says when in its own words ("my trip
 *    to the UK last Friday", "next Saturday": the when-list's marks), told
 *    within TOLD_WITHIN days of the range
 *    (by the distance above), is as far as the nearest day or week its
 *    words name, resolved against its own time (engine/dates.c), when that
 *    is nearer: its session's date is when it was told, not when it
 *    happened. The texts of those memories are read in one batch
 *    (store_get_rids), not a query each.
 *    Memories within TEMPORAL_WINDOW days, nearest first, then by their
 *    bm25 rank. raw = -(distance in days) - bm25_rank / 1000.
 *  - a "when / how long" question (type temporal): the bm25 list kept to
 *    memories that carry a time expression ("last Friday", "two years
 *    ago", a month, a year, a weekend, a holiday, a day of the month such
 *    as "on the 15th": the words engine/dates.c reads) or say that
 *    something was just done ("I just got accepted": at the time of
 *    telling, temporal_says_just_done), in bm25 order, and
 *    those that say how long something has lasted ("for three years now":
 *    temporal_says_duration), which answers "how long" and, from the time it was
 *    said, "when did he get them". raw = the bm25 score.
 *  - a recency question: the first RECENCY_POOL of the bm25 list, newest
 *    first, ties in bm25 order. raw = day number - bm25_rank / 1000. When it
 *    is about now and asks an attribute the supersession detector knows,
 *    with the current values of that attribute (current_values), ranked as
 *    if just after the bm25 list.
 * With no date and neither question type it has nothing to say. */
#include "engine_int.h"
#include "lexicon.h"
#include "store/base/civil.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TEMPORAL_WINDOW 45 /* days */
#define TOLD_WITHIN 31     /* days after a range a memory's "last Friday" may tell of it */
#define TOLD_DATES 8       /* the dates read from one memory's words */
#define TEMPORAL_LIMIT 100
#define RECENCY_POOL 50
#define CURRENT_MAX 16 /* current values of the asked attribute in the recency list */

/* The recipe's time expressions as an FTS5 query (stems come from FTS5). */
static const char time_expression[] =
    "yesterday OR today OR tonight OR tomorrow OR recently OR lately OR ago OR monday OR "
    "tuesday OR wednesday OR thursday OR friday OR saturday OR sunday OR january OR february "
    "OR march OR april OR june OR july OR august OR september OR october OR november OR "
    "december OR 19* OR 20* OR \"last night\" OR \"last morning\" OR "
    "\"last evening\" OR \"last week\" OR \"last weekend\" OR "
    "\"last month\" OR \"last year\" OR \"last summer\" OR "
    "\"last winter\" OR \"last spring\" OR \"last fall\" OR "
    "\"last autumn\" OR \"this morning\" OR \"this evening\" OR "
    "\"this week\" OR \"this weekend\" OR \"this month\" OR "
    "\"this year\" OR \"this summer\" OR \"next week\" OR "
    "\"next weekend\" OR \"next month\" OR \"next year\" OR "
    "\"past week\" OR \"past month\" OR \"past year\" OR weekend OR fortnight OR "
    "christmas OR xmas OR easter OR thanksgiving OR halloween OR valentine OR "
    "1st OR 2nd OR 3rd OR 4th OR 5th OR 6th OR 7th OR 8th OR 9th "
    "OR 10th OR 11th OR 12th OR 13th OR 14th OR 15th OR 16th OR 17th OR 18th OR 19th OR 20th OR "
    "21st OR 22nd OR 23rd OR 24th OR 25th OR 26th OR 27th OR 28th OR 29th OR 30th OR 31st";

static int64_t day_of(int64_t ts)
{
    return ts >= 0 ? ts / 86400 : -((-ts + 86399) / 86400);
}

static const char *health(const snapshot *sn, embedder *emb)
{
    (void)emb;
    return sn->n == 0 ? "store_empty" : NULL;
}

/* Days from the range [s, e] (inclusive days) to day o, one-sided. */
static int64_t distance(int64_t o, int64_t s, int64_t e)
{
    return o > e ? o - e : o < s ? 2 * (s - o) : 0;
}

/* The smallest distance of day o from date d, trying every year of the
 * store for a date named without one. */
static int64_t date_distance(const date_range *d, int64_t o, const int *years, int ny)
{
    int64_t s = day_of(d->start), e = day_of(d->end) - 1;
    if (!d->no_year || ny == 0)
        return distance(o, s, e);
    int y0;
    unsigned m0, d0, m1, d1;
    int y1;
    civil_from_days(s, &y0, &m0, &d0);
    civil_from_days(e, &y1, &m1, &d1);
    int64_t best = INT64_MAX;
    for (int k = 0; k < ny; k++) {
        int shift = years[k] - y0;
        int64_t ss = civil_days(y0 + shift, m0, d0);
        int64_t ee = civil_days(y1 + shift, m1, d1);
        int64_t v = distance(o, ss, ee);
        if (v < best)
            best = v;
    }
    return best;
}

/* The distinct years of the memories' days, at most 64. */
static int store_years(const snapshot *sn, int *years)
{
    int n = 0;
    for (size_t i = 0; i < sn->n && n < 64; i++) {
        int y;
        unsigned m, d;
        civil_from_days(day_of(sn->when[i]), &y, &m, &d);
        int seen = 0;
        for (int k = 0; k < n; k++)
            seen |= years[k] == y;
        if (!seen)
            years[n++] = y;
    }
    return n;
}

/* ---- memories by day ------------------------------------------------------- */

/* The memories sorted by the day of their `when` (ties by index) and the
 * years store_years gives: in the snapshot file, else built on a
 * snapshot's first dated query, so a date costs binary searches and a
 * pass over the memories near it. */
struct time_index {
    int64_t *day;  /* [n] ascending */
    uint32_t *idx; /* [n] the memory of each */
    int years[64];
    int ny;
    int lent; /* day and idx are the snapshot file's */
};

void time_index_free(time_index *t)
{
    if (!t)
        return;
    if (!t->lent) {
        free(t->day);
        free(t->idx);
    }
    free(t);
}

/* The first position from lo whose day is >= day (n when none). */
static size_t time_index_from(const time_index *t, size_t lo, size_t n, int64_t day)
{
    size_t hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->day[mid] < day)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first position whose day is >= day (n when none). */
static size_t time_index_find(const time_index *t, size_t n, int64_t day)
{
    return time_index_from(t, 0, n, day);
}

/* Counting sort by day when the days span little more than n, else qsort
 * of (day, index) pairs; both keep ties in index order. 0, or -1 when out
 * of memory. */
typedef struct day_pair {
    int64_t day;
    uint32_t idx;
} day_pair;

static int by_day(const void *a, const void *b)
{
    const day_pair *x = a, *y = b;
    if (x->day != y->day)
        return x->day < y->day ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int time_index_sort(const snapshot *sn, time_index *t)
{
    size_t n = sn->n;
    int64_t lo = day_of(sn->when[0]), hi = lo;
    for (size_t i = 1; i < n; i++) {
        int64_t d = day_of(sn->when[i]);
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    if (span <= 4 * (uint64_t)n + 4096) {
        size_t *at = calloc((size_t)span + 1, sizeof *at);
        if (!at)
            return -1;
        for (size_t i = 0; i < n; i++)
            at[day_of(sn->when[i]) - lo + 1]++;
        for (size_t k = 1; k <= span; k++)
            at[k] += at[k - 1];
        for (size_t i = 0; i < n; i++) {
            int64_t d = day_of(sn->when[i]);
            size_t p = at[d - lo]++;
            t->day[p] = d;
            t->idx[p] = (uint32_t)i;
        }
        free(at);
        return 0;
    }
    day_pair *v = malloc(n * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++)
        v[i] = (day_pair){day_of(sn->when[i]), (uint32_t)i};
    qsort(v, n, sizeof *v, by_day);
    for (size_t k = 0; k < n; k++) {
        t->day[k] = v[k].day;
        t->idx[k] = v[k].idx;
    }
    free(v);
    return 0;
}

/* The distinct years of the sorted days, a binary search per year; past 64
 * years store_years decides which 64. */
static void time_index_years(const snapshot *sn, time_index *t)
{
    t->ny = 0;
    for (size_t j = 0; j < sn->n;) {
        if (t->ny == 64) {
            t->ny = store_years(sn, t->years);
            return;
        }
        int y;
        unsigned m, d;
        civil_from_days(t->day[j], &y, &m, &d);
        t->years[t->ny++] = y;
        j = time_index_find(t, sn->n, civil_days((int64_t)y + 1, 1, 1));
    }
}

/* sn's memories by day, sorted into t's arrays (allocated here); -1 when
 * out of memory. */
static int time_index_build(const snapshot *sn, time_index *t)
{
    t->day = malloc((sn->n + 1) * sizeof *t->day);
    t->idx = malloc((sn->n + 1) * sizeof *t->idx);
    return !t->day || !t->idx || (sn->n && time_index_sort(sn, t)) ? -1 : 0;
}

int temporal_by_day(const snapshot *sn, int64_t **day, uint32_t **idx)
{
    time_index t = {0};
    if (time_index_build(sn, &t)) {
        free(t.day);
        free(t.idx);
        return -1;
    }
    *day = t.day;
    *idx = t.idx;
    return 0;
}

static ms_status time_index_get(const snapshot *sn, const time_index **out, ms_error *err)
{
    snapshot_lazy *lz = sn->lazy;
    if (!lz->by_day) {
        time_index *t = calloc(1, sizeof *t);
        if (t && sn->day_file) { /* the file's: only the pages a query reads */
            t->day = (int64_t *)sn->day_file;
            t->idx = (uint32_t *)sn->day_idx_file;
            t->lent = 1;
        }
        if (!t || (!t->lent && time_index_build(sn, t))) {
            time_index_free(t);
            return ms_fail(err, MS_NOMEM, "out of memory");
        }
        time_index_years(sn, t);
        lz->by_day = t;
    }
    *out = lz->by_day;
    return MS_OK;
}

/* ---- the date list ------------------------------------------------------------ */

/* Days [lo, hi]. */
typedef struct day_span {
    int64_t lo, hi;
} day_span;

static int by_lo(const void *a, const void *b)
{
    const day_span *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Every day o with distance(o, s, e) <= TEMPORAL_WINDOW is in the span: after
 * e up to the window, before s up to half of it (and e + 1 when e < s). */
static day_span window_of(int64_t s, int64_t e)
{
    int64_t lo = s - TEMPORAL_WINDOW / 2;
    return (day_span){lo < e + 1 ? lo : e + 1, e + TEMPORAL_WINDOW};
}

/* The spans of days within the window of some date of the query, as
 * date_distance tries them (each of the store's years for a date named
 * without one), sorted and merged; *n gets their number. NULL when out of
 * memory. */
static day_span *date_spans(const query *q, const int *years, int ny, size_t *n)
{
    day_span *v = malloc(((size_t)q->n_dates * (size_t)(ny > 0 ? ny : 1) + 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    for (int j = 0; j < q->n_dates; j++) {
        const date_range *d = &q->dates[j];
        int64_t s = day_of(d->start), e = day_of(d->end) - 1;
        if (!d->no_year || ny == 0) {
            v[k++] = window_of(s, e);
            continue;
        }
        int y0, y1;
        unsigned m0, d0, m1, d1;
        civil_from_days(s, &y0, &m0, &d0);
        civil_from_days(e, &y1, &m1, &d1);
        for (int t = 0; t < ny; t++) {
            int shift = years[t] - y0;
            v[k++] = window_of(civil_days(y0 + shift, m0, d0), civil_days(y1 + shift, m1, d1));
        }
    }
    qsort(v, k, sizeof *v, by_lo);
    size_t m = 0;
    for (size_t j = 0; j < k; j++) {
        if (m > 0 && v[j].lo <= v[m - 1].hi)
            v[m - 1].hi = v[j].hi > v[m - 1].hi ? v[j].hi : v[m - 1].hi;
        else
            v[m++] = v[j];
    }
    *n = m;
    return v;
}

/* The bm25 list by memory index, for ranked_rank's answer by binary search. */
typedef struct rank_of {
    uint32_t idx; /* first, for idx_lower */
    int rank;
} rank_of;

/* The first of v[n], records of size bytes that begin with a memory's
 * index and are sorted by it, whose index is not below i. */
static size_t idx_lower(const void *v, size_t n, size_t size, uint32_t i)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t at;
        memcpy(&at, (const char *)v + mid * size, sizeof at);
        if (at < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int by_idx(const void *a, const void *b)
{
    const rank_of *x = a, *y = b;
    if (x->idx != y->idx)
        return x->idx < y->idx ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* 1-based rank of memory i in v[n] (sorted by_idx), its first; 0 = absent. */
static int rank_find(const rank_of *v, size_t n, uint32_t i)
{
    size_t k = idx_lower(v, n, sizeof *v, i);
    return k < n && v[k].idx == i ? v[k].rank : 0;
}

static ms_status time_marks(const channel_ctx *c, const uint8_t **out, ms_error *err);

/* The smallest distance of day o from the query's dates. */
static int64_t day_distance(const channel_ctx *c, const time_index *t, int64_t o)
{
    int64_t best = INT64_MAX;
    for (int q = 0; q < c->q->n_dates; q++) {
        int64_t v = date_distance(&c->q->dates[q], o, t->years, t->ny);
        best = v < best ? v : best;
    }
    return best;
}

/* The smallest distance from a query date of a day or week that memory i's
 * text names, resolved against its time; INT64_MAX when it names none. */
static int64_t told_distance(const channel_ctx *c, uint32_t i, const char *text,
                             const time_index *t)
{
    int64_t best = INT64_MAX;
    date_range r[TOLD_DATES];
    int n = text ? dates_parse(text, c->sn->when[i], r, TOLD_DATES) : 0;
    for (int k = 0; k < n; k++) {
        if (r[k].grain != GRAIN_DAY && r[k].grain != GRAIN_WEEK)
            continue;
        for (int64_t o = day_of(r[k].start); o < day_of(r[k].end - 1) + 1; o++) {
            int64_t v = day_distance(c, t, o);
            best = v < best ? v : best;
        }
    }
    return best;
}

/* A memory whose own words may tell of a query date, and how far the
 * dates they name are from it. */
typedef struct told {
    uint32_t idx;   /* first, for idx_lower */
    int64_t dist;   /* of the days its words name; INT64_MAX when none */
    int64_t on_day; /* of the day it was told (day_distance) */
} told;

/* Is memory i one whose words date_list reads: in the bm25 list, saying
 * when in its own words, told within TOLD_WITHIN days after a query date?
 * *on_day gets the distance of the day it was told. */
static int may_tell(const channel_ctx *c, const time_index *t, const uint8_t *mark, uint32_t i,
                    int64_t *on_day)
{
    int64_t best = day_distance(c, t, day_of(c->sn->when[i]));
    *on_day = best;
    return best > 0 && best <= TOLD_WITHIN && mark[i];
}

/* The told distances of every memory of ranks[n] (the bm25 list by index)
 * that may_tell, by index, into *out (*n_out; caller frees): their texts
 * read in one batch (store_get_rids), not one query each. */
static ms_status told_all(const channel_ctx *c, const time_index *t, const rank_of *ranks, size_t n,
                          const uint8_t *mark, told **out, size_t *n_out, ms_error *err)
{
    told *v = malloc((n + 1) * sizeof *v);
    int64_t *rid = malloc((n + 1) * sizeof *rid);
    store_memory *m = calloc(n + 1, sizeof *m);
    size_t k = 0;
    ms_status st = v && rid && m ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory");
    for (size_t r = 0; !st && r < n; r++)
        if ((r == 0 || ranks[r].idx != ranks[r - 1].idx) &&
            may_tell(c, t, mark, ranks[r].idx, &v[k].on_day)) {
            v[k].idx = ranks[r].idx;
            rid[k++] = c->sn->rid[ranks[r].idx];
        }
    if (!st && k)
        st = store_get_rids(c->s, rid, k, m, err);
    for (size_t j = 0; !st && j < k; j++)
        v[j].dist = told_distance(c, v[j].idx, m[j].content, t);
    for (size_t j = 0; m && j < k; j++)
        store_memory_clear(&m[j]);
    free(m);
    free(rid);
    if (st) {
        free(v);
        return st;
    }
    *out = v;
    *n_out = k;
    return MS_OK;
}

/* Memory i's told distance in v[n] (by index); INT64_MAX when absent. */
static int64_t told_find(const told *v, size_t n, uint32_t i)
{
    size_t k = idx_lower(v, n, sizeof *v, i);
    return k < n && v[k].idx == i ? v[k].dist : INT64_MAX;
}

/* The memories of one day of the day index, t->idx[from .. to), dist days
 * from the query's dates (day_distance). */
typedef struct day_run {
    size_t from, to;
    int64_t dist;
} day_run;

/* The days of the spans as runs of the day index, each with its distance
 * (worked out once a day, not once a memory), into *out (*n; caller
 * frees). -1 when out of memory. */
static int day_runs(const channel_ctx *c, const time_index *t, const day_span *spans,
                    size_t n_spans, day_run **out, size_t *n)
{
    size_t n_mem = c->sn->n, cap = 64, k = 0;
    day_run *v = malloc(cap * sizeof *v);
    for (size_t s = 0; v && s < n_spans; s++) {
        size_t j = time_index_find(t, n_mem, spans[s].lo);
        while (v && j < n_mem && t->day[j] <= spans[s].hi) {
            if (k == cap) {
                day_run *grown = realloc(v, 2 * cap * sizeof *v);
                if (!grown)
                    free(v);
                v = grown;
                cap *= 2;
                if (!v)
                    break;
            }
            size_t to = time_index_from(t, j, n_mem, t->day[j] + 1);
            v[k++] = (day_run){j, to, day_distance(c, t, t->day[j])};
            j = to;
        }
    }
    *out = v;
    *n = v ? k : 0;
    return v ? 0 : -1;
}

/* The farthest distance a memory among the list's first keep can have.
 * At least keep memories are within d days of a query date for the least
 * such d (each at the distance date_list gives it: a told one at its told
 * distance when that is nearer), and their raws are at least -d - ranks /
 * 1000, where ranks is the largest bm25 rank a raw takes (999 for a memory
 * not in the list); a memory e days away has at most -e - 1 / 1000, below
 * all of them once e > d + (ranks - 1) / 1000. TEMPORAL_WINDOW when fewer
 * than keep are within it. */
static int64_t dist_cut(const day_run *runs, size_t n_runs, const told *tolds, size_t n_told,
                        size_t keep, size_t ranks)
{
    size_t at[TEMPORAL_WINDOW + 1] = {0}, sum = 0;
    for (size_t k = 0; k < n_runs; k++)
        if (runs[k].dist <= TEMPORAL_WINDOW)
            at[runs[k].dist] += runs[k].to - runs[k].from;
    for (size_t k = 0; k < n_told; k++) /* on_day <= TOLD_WITHIN: in a run */
        if (tolds[k].dist < tolds[k].on_day) {
            at[tolds[k].on_day]--;
            at[tolds[k].dist]++;
        }
    int64_t slack = (int64_t)((ranks > 999 ? ranks : 999) - 1) / 1000;
    for (int64_t d = 0; d <= TEMPORAL_WINDOW; d++)
        if ((sum += at[d]) >= keep)
            return d + slack < TEMPORAL_WINDOW ? d + slack : TEMPORAL_WINDOW;
    return TEMPORAL_WINDOW;
}

/* Push memory i at distance dist with its bm25 rank r (0: not in the
 * list). -1 when out of memory. */
static int push_dated(ranked_list *out, uint32_t i, int64_t dist, int r)
{
    return ranked_push(out, i, -(double)dist - (r ? r : 999) / 1000.0);
}

/* Memories within the window of the query's dates: only those of the days
 * near them are looked at, each as a linear pass over every memory would
 * (date_distance, its bm25 rank), and of those only the ones that can be
 * among the first keep (dist_cut) are listed before they are taken. */
static ms_status date_list(const channel_ctx *c, ranked_list *out, ms_error *err)
{
    const snapshot *sn = c->sn;
    const time_index *t = NULL;
    ms_status st = time_index_get(sn, &t, err);
    if (st)
        return st;
    const ranked_list *bm = &c->lists[CH_BM25];
    size_t n_spans = 0, n_told = 0, n_runs = 0;
    size_t keep = c->top_n < TEMPORAL_LIMIT ? c->top_n : TEMPORAL_LIMIT;
    day_span *spans = date_spans(c->q, t->years, t->ny, &n_spans);
    rank_of *ranks = malloc((bm->n + 1) * sizeof *ranks);
    told *tolds = NULL;
    day_run *runs = NULL;
    if (!spans || !ranks || day_runs(c, t, spans, n_spans, &runs, &n_runs)) {
        free(spans);
        free(ranks);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    for (size_t r = 0; r < bm->n; r++)
        ranks[r] = (rank_of){bm->v[r].idx, (int)r + 1};
    qsort(ranks, bm->n, sizeof *ranks, by_idx);
    const uint8_t *mark = NULL;
    st = time_marks(c, &mark, err);
    if (!st)
        st = told_all(c, t, ranks, bm->n, mark, &tolds, &n_told, err);
    int64_t cut = st ? -1 : dist_cut(runs, n_runs, tolds, n_told, keep, bm->n);
    for (size_t k = 0; !st && k < n_runs; k++) {
        if (runs[k].dist > cut)
            continue; /* its told memories are pushed below */
        for (size_t j = runs[k].from; !st && j < runs[k].to; j++) {
            int64_t best = runs[k].dist;
            int r = rank_find(ranks, bm->n, t->idx[j]);
            if (best > 0 && best <= TOLD_WITHIN && r && mark[t->idx[j]]) {
                int64_t v = told_find(tolds, n_told, t->idx[j]);
                best = v < best ? v : best;
            }
            if (push_dated(out, t->idx[j], best, r))
                st = ms_fail(err, MS_NOMEM, "out of memory");
        }
    }
    /* a memory told on a day beyond the cut whose words name a day within it */
    for (size_t k = 0; !st && k < n_told; k++)
        if (tolds[k].on_day > cut && tolds[k].dist <= cut &&
            push_dated(out, tolds[k].idx, tolds[k].dist, rank_find(ranks, bm->n, tolds[k].idx)))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    free(spans);
    free(ranks);
    free(tolds);
    free(runs);
    if (st)
        return st;
    ranked_finish(out, sn, keep);
    return MS_OK;
}

/* Which memories say when in their own words (their content holds a time
 * expression, or says that something was just done)? The same for every
 * query, so worked out once per snapshot: for a memory the bm25 list
 * holds, this is exactly "matches the query's terms AND content : (time
 * expressions)", or its text says_just_done. */
struct mark_ctx {
    const snapshot *sn;
    uint8_t *mark;
    int64_t *rid; /* the rids of the memories holding "just", mark_just */
    size_t n, cap;
    int oom;
};

static int mark_rid(void *p, int64_t rid)
{
    struct mark_ctx *m = p;
    long i = snapshot_find(m->sn, rid);
    if (i >= 0)
        m->mark[i] = 1;
    return 0;
}

static int just_rid(void *p, int64_t rid)
{
    struct mark_ctx *m = p;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        int64_t *v = realloc(m->rid, cap * sizeof *v);
        if (!v) {
            m->oom = 1;
            return 1;
        }
        m->rid = v;
        m->cap = cap;
    }
    m->rid[m->n++] = rid;
    return 0;
}

/* Mark the memories after rid `after` not marked yet whose content holds
 * "just" and says_just_done: their texts read STORE_GET_BATCH at a time. */
static ms_status mark_just(store *s, struct mark_ctx *m, int64_t after, ms_error *err)
{
    ms_status st = store_fts_match_after(s, "content : just", after, just_rid, m, err);
    if (!st && m->oom)
        st = ms_fail(err, MS_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t j = 0; j < m->n; j++) { /* only those not marked already */
        long i = snapshot_find(m->sn, m->rid[j]);
        if (i >= 0 && !m->mark[i])
            m->rid[k++] = m->rid[j];
    }
    store_memory got[STORE_GET_BATCH];
    for (size_t a = 0; !st && a < k; a += STORE_GET_BATCH) {
        size_t b = k - a < STORE_GET_BATCH ? k - a : STORE_GET_BATCH;
        st = store_get_rids(s, m->rid + a, b, got, err);
        for (size_t j = 0; j < b; j++) {
            long i = snapshot_find(m->sn, m->rid[a + j]);
            if (!st && i >= 0 && temporal_says_just_done(got[j].content))
                m->mark[i] = 1;
            store_memory_clear(&got[j]);
        }
    }
    return st;
}

ms_status temporal_marks(store *s, const snapshot *sn, const uint8_t *base, size_t base_n,
                         uint8_t **out, ms_error *err)
{
    uint8_t *mark = calloc(sn->n + 1, 1);
    *out = NULL;
    if (!mark)
        return ms_fail(err, MS_NOMEM, "out of memory");
    if (base_n > sn->n)
        base_n = 0;
    if (base_n) /* a memory's content does not change while the store only appends */
        memcpy(mark, base, base_n);
    int64_t after = base_n ? sn->rid[base_n - 1] : INT64_MIN;
    char match[sizeof time_expression + 16];
    snprintf(match, sizeof match, "content : (%s)", time_expression);
    struct mark_ctx m = {sn, mark, NULL, 0, 0, 0};
    ms_status st = store_fts_match_after(s, match, after, mark_rid, &m, err);
    if (!st)
        st = mark_just(s, &m, after, err);
    free(m.rid);
    if (st) {
        free(mark);
        return st;
    }
    *out = mark;
    return MS_OK;
}

static ms_status time_marks(const channel_ctx *c, const uint8_t **out, ms_error *err)
{
    snapshot_lazy *lz = c->sn->lazy;
    if (c->sn->marks_file) { /* worked out when the snapshot file was written */
        *out = c->sn->marks_file;
        return MS_OK;
    }
    if (!lz->time_marks) {
        ms_status st = temporal_marks(c->s, c->sn, NULL, 0, &lz->time_marks, err);
        if (st)
            return st;
    }
    *out = lz->time_marks;
    return MS_OK;
}

/* Is the word p[n] (isalnum bytes) the lower-case word lc, ignoring case
 * as tolower does? */
static int word_eq(const char *p, size_t n, const char *lc)
{
    size_t k = 0;
    while (k < n && lc[k] && (char)tolower((unsigned char)p[k]) == lc[k])
        k++;
    return k == n && lc[k] == '\0';
}

static int word_in(const char *p, size_t n, const char *const *list)
{
    for (int k = 0; list[k]; k++)
        if (word_eq(p, n, list[k]))
            return 1;
    return 0;
}

/* Is the word p[n] a past form of a verb: a regular one, ending in "ed"
 * after a letter other than "e" ("opened", "started"; not "need",
 * "speed"), or a form WordNet's exception list of verbs gives a base
 * ("got", "won", "been"; not the present "am", "is", "are", "has")? */
static int past_form(const char *p, size_t n)
{
    static const char *const present[] = {"am", "is", "are", "has", NULL};
    char w[32];
    if (n < 2 || n >= sizeof w)
        return 0;
    for (size_t k = 0; k < n; k++)
        w[k] = (char)tolower((unsigned char)p[k]);
    w[n] = '\0';
    if (n >= 4 && w[n - 2] == 'e' && w[n - 1] == 'd' && w[n - 3] != 'e')
        return 1;
    return !word_in(p, n, present) && lexicon_verb_irregular(lexicon_default(), w, n);
}

int temporal_says_just_done(const char *text)
{
    /* words split at bytes that are not letters, as temporal_says_duration
     * does at bytes that are not isalnum */
    int just = 0;
    for (const char *p = text; p && *p;) {
        while (*p && !isalpha((unsigned char)*p))
            p++;
        size_t n = 0;
        while (isalpha((unsigned char)p[n]) || p[n] == '\'')
            n++;
        if (!n)
            break;
        if (just && past_form(p, n))
            return 1;
        just = n == 4 && word_eq(p, n, "just");
        p += n;
    }
    return 0;
}

/* Does text say how long something has lasted: an amount (digits, a
 * number word, "a", "a couple of", "a few", "several", "many") right before
 * a unit of time ("for 3 years", "just under a year", "six months now")?
 * The words dates.c reads ("last year", "two years ago") are the time
 * marks already. */
int temporal_says_duration(const char *text)
{
    static const char *const amount[] = {"a",       "an",     "one",    "two",    "three",   "four",
                                         "five",    "six",    "seven",  "eight",  "nine",    "ten",
                                         "eleven",  "twelve", "few",    "couple", "several", "many",
                                         "fifteen", "twenty", "thirty", "half",   NULL};
    static const char *const unit[] = {"year",  "years",  "month",   "months", "week",
                                       "weeks", "decade", "decades", NULL};
    /* Words split at bytes that are not isalnum, compared as tolower
     * makes them. A word is a unit only with 4 to 7 bytes, and only then is
     * the word before it asked whether it is an amount (or starts with a
     * digit). */
    const char *prev = NULL;
    size_t prev_n = 0;
    for (const char *p = text; p && *p;) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        size_t n = 0;
        while (isalnum((unsigned char)p[n]))
            n++;
        if (!n)
            break;
        if (prev && n >= 4 && n <= 7 && word_in(p, n, unit) &&
            (isdigit((unsigned char)tolower((unsigned char)prev[0])) ||
             word_in(prev, prev_n, amount)))
            return 1;
        prev = p;
        prev_n = n;
        p += n;
    }
    return 0;
}

/* The terms of the snapshot's postings that hold a unit of time of
 * temporal_says_duration ("year", "yearli", "weekend", "decad"), into *t
 * (*n; worked out on the first when-question). A memory whose own text
 * holds none of them cannot say how long: FTS5's tokenizer splits words
 * where temporal_says_duration does but for letters beyond ASCII, which it
 * keeps in the word ("yearsé" is one token to it, "years" then a
 * non-alphanumeric byte to temporal_says_duration: the term still holds
 * "year"), lowers letters as tolower does, and its stemmer changes only a
 * word's ending, never a unit inside it (nor "decad" of "decade"). 0 when
 * there are no postings or the terms could not be listed: read every
 * text. */
static int unit_terms(const snapshot *sn, const long **t, size_t *n)
{
    static const char *const unit[] = {"year", "month", "week", "decad", NULL};
    snapshot_lazy *lz = sn->lazy;
    if (!sn->post)
        return 0;
    if (!lz->unit_terms_done)
        lz->unit_terms_done =
            postings_terms_holding(sn->post, unit, &lz->unit_terms, &lz->n_unit_terms) ? 2 : 1;
    *t = lz->unit_terms;
    *n = lz->n_unit_terms;
    return lz->unit_terms_done == 1;
}

/* Might memory i say how long, not being marked: 1 unless the postings say
 * its own text holds no unit of time (unit_terms). */
static int may_last(const channel_ctx *c, const uint8_t *mark, int units, const long *t, size_t n,
                    uint32_t i)
{
    return !mark[i] && (!units || postings_own_any(c->sn->post, t, n, i) != 0);
}

/* The memories of bm25's list that temporal_says_duration, not marked
 * already, by rank (set in *dur, caller frees): from the snapshot file when
 * it holds them, else the texts of those that may_last read in one batch. */
static ms_status durations(const channel_ctx *c, const uint8_t *mark, uint8_t **dur, ms_error *err)
{
    const ranked_list *bm = &c->lists[CH_BM25];
    size_t n = bm->n, n_units = 0;
    const long *units = NULL;
    if (c->sn->dur_file) {
        if (!(*dur = calloc(n + 1, 1)))
            return ms_fail(err, MS_NOMEM, "out of memory");
        for (size_t r = 0; r < n; r++)
            (*dur)[r] = !mark[bm->v[r].idx] && c->sn->dur_file[bm->v[r].idx];
        return MS_OK;
    }
    int by_units = unit_terms(c->sn, &units, &n_units);
    int64_t *rid = malloc((n + 1) * sizeof *rid);
    size_t *at = malloc((n + 1) * sizeof *at);
    store_memory *m = calloc(n + 1, sizeof *m);
    *dur = calloc(n + 1, 1);
    size_t k = 0;
    ms_status st = rid && at && m && *dur ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory");
    for (size_t r = 0; !st && r < n; r++)
        if (may_last(c, mark, by_units, units, n_units, bm->v[r].idx)) {
            at[k] = r;
            rid[k++] = c->sn->rid[bm->v[r].idx];
        }
    if (!st && k)
        st = store_get_rids(c->s, rid, k, m, err);
    for (size_t j = 0; !st && j < k; j++)
        (*dur)[at[j]] = m[j].content && temporal_says_duration(m[j].content);
    for (size_t j = 0; m && j < k; j++)
        store_memory_clear(&m[j]);
    free(m);
    free(rid);
    free(at);
    return st;
}

struct dur_ctx {
    const snapshot *sn;
    uint8_t *dur;
};

static int dur_row(void *p, int64_t rid, const char *content, int clen, const char *context,
                   int xlen)
{
    (void)clen; /* temporal_says_duration reads to the NUL, as from store_get_rids */
    (void)context;
    (void)xlen;
    struct dur_ctx *d = p;
    long i = snapshot_find(d->sn, rid);
    if (i >= 0)
        d->dur[i] = (uint8_t)temporal_says_duration(content);
    return 0;
}

int temporal_durations(store *s, const snapshot *sn, const uint8_t *base, size_t base_n,
                       uint8_t **out)
{
    *out = NULL;
    uint8_t *dur = calloc(sn->n + 1, 1);
    if (!dur)
        return -1;
    if (base_n > sn->n)
        base_n = 0;
    if (base_n)
        memcpy(dur, base, base_n);
    struct dur_ctx d = {sn, dur};
    if (store_scan_content(s, base_n ? sn->rid[base_n - 1] : INT64_MIN, dur_row, &d, NULL)) {
        free(dur);
        return -1;
    }
    *out = dur;
    return 0;
}

static ms_status when_list(const channel_ctx *c, ranked_list *out, ms_error *err)
{
    const ranked_list *bm = &c->lists[CH_BM25];
    if (bm->n == 0)
        return MS_OK;
    const uint8_t *mark = NULL;
    uint8_t *dur = NULL; /* by bm25 rank: says how long */
    ms_status st = time_marks(c, &mark, err);
    if (!st)
        st = durations(c, mark, &dur, err);
    for (size_t r = 0; !st && r < bm->n; r++)
        if ((mark[bm->v[r].idx] || (dur && dur[r])) && ranked_push(out, bm->v[r].idx, bm->v[r].raw))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    free(dur);
    return st;
}

/* Does a supersedes relation's reason ("age of leah: ...") speak of the
 * attribute named name? */
static int reason_of(const char *reason, const char *name)
{
    size_t n = strlen(name);
    return reason && strncmp(reason, name, n) == 0 && strncmp(reason + n, " of ", 4) == 0;
}

/* Is memory i, the newer end of a relation of attribute name, superseded
 * in that attribute in turn? */
static int replaced_in(const snapshot *sn, uint32_t i, const char *name)
{
    const snap_succ *first;
    size_t k = snapshot_successors(sn, i, &first);
    for (size_t j = 0; j < k; j++)
        if (reason_of(first[j].reason, name))
            return 1;
    return 0;
}

static int listed(const ranked_list *l, uint32_t i)
{
    for (size_t r = 0; r < l->n; r++)
        if (l->v[r].idx == i)
            return 1;
    return 0;
}

/* A question about now that asks an attribute the supersession detector
 * knows (store_attr_asked: "how old am I now?", "what is my job title
 * now?"): the memories that state its current value, which its words need
 * not hold ("Thirty-five as of yesterday"): the head of each chain of
 * supersedes relations of that attribute (the newer end that nothing
 * replaces in turn), at most CURRENT_MAX, after the bm25 ranks. Whose
 * value it is the second stage asks (stage2.c `states`). */
static ms_status current_values(const channel_ctx *c, ranked_list *out, ms_error *err)
{
    int who, attr = c->q->about_now ? store_attr_asked(c->q->text, &who) : -1;
    const snapshot *sn = c->sn;
    if (attr < 0)
        return MS_OK;
    const char *name = store_attr_name(attr);
    size_t added = 0;
    for (size_t k = sn->n_succ; k-- > 0 && added < CURRENT_MAX;) { /* the last older first */
        uint32_t i = sn->succ[k].newer;
        if (!reason_of(sn->succ[k].reason, name) || replaced_in(sn, i, name) || listed(out, i))
            continue;
        double raw = (double)day_of(sn->when[i]) - (double)(RECENCY_POOL + 1) / 1000.0;
        if (ranked_push(out, i, raw))
            return ms_fail(err, MS_NOMEM, "out of memory");
        added++;
    }
    return MS_OK;
}

static ms_status recency_list(const channel_ctx *c, ranked_list *out, ms_error *err)
{
    const ranked_list *bm = &c->lists[CH_BM25];
    for (size_t r = 0; r < bm->n && r < RECENCY_POOL; r++) {
        uint32_t i = bm->v[r].idx;
        double raw = (double)day_of(c->sn->when[i]) - (double)(r + 1) / 1000.0;
        if (ranked_push(out, i, raw))
            return ms_fail(err, MS_NOMEM, "out of memory");
    }
    ms_status st = current_values(c, out, err);
    if (!st)
        ranked_finish(out, c->sn, out->n);
    return st;
}

static ms_status produce(const channel_ctx *c, ranked_list *out, const char **note, ms_error *err)
{
    switch (temporal_mode(c->q)) {
    case TEMPORAL_DATE:
        return date_list(c, out, err);
    case TEMPORAL_WHEN:
        return when_list(c, out, err);
    case TEMPORAL_RECENT:
        return recency_list(c, out, err);
    default:
        *note = "no date, when-question or recency in the query";
        return MS_OK;
    }
}

temporal_mode_t temporal_mode(const query *q)
{
    if (q->n_dates > 0)
        return TEMPORAL_DATE;
    if (q->type == QT_TEMPORAL)
        return TEMPORAL_WHEN;
    if (q->type == QT_RECENCY)
        return TEMPORAL_RECENT;
    return TEMPORAL_NONE;
}

/* The temporal channel speaks to a query that names a date or asks when
 * or how recently. */
static int applies(const query *q)
{
    return temporal_mode(q) != TEMPORAL_NONE;
}

/* ---- the floor's temporal rule -------------------------------------------- */

/* Does memory i fall on a date the query names? The date list's raw is
 * minus the distance in days, minus the bm25 rank / 1000. */
static void floor_measure(const floor_ctx *c, uint32_t i, recall_hit *h)
{
    (void)i;
    h->on_date = temporal_mode(c->q) == TEMPORAL_DATE && h->ch[CH_TEMPORAL].ranked &&
                 h->ch[CH_TEMPORAL].raw > -1.0;
}

/* temporal: the memory falls on the date the query names, and every
 * predicate word occurs in the store. */
static const char *floor_judge_temporal(const floor_in *in, char *why, size_t len)
{
    if (in->on_date && floor_date_open(in)) {
        snprintf(why, len, "falls on the date the query names");
        return "temporal";
    }
    snprintf(why, len, "%s", in->on_date ? "on the date but about nothing the store knows" : "");
    return NULL;
}

static const char *const floor_names[] = {"temporal", NULL};

static const floor_rule floor_evidence = {
    .ask = 2,
    .tell = 3,
    .needs_focus = 0,
    .names = floor_names,
    .measure = floor_measure,
    .judge = floor_judge_temporal,
};

const channel_ops ch_temporal_ops = {
    .name = "temporal",
    .short_name = "temp",
    .stage = 1,
    .inputs = CH_MASK(CH_BM25),
    .applies = applies,
    .health = health,
    .produce = produce,
    .floor = &floor_evidence,
};
