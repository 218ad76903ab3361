/* cmd_bench.c - `memscope bench`: build the synthetic store of N memories
 * (bench_corpus.h), then time import, a cold open, recall (full and
 * bm25-only), each channel and the browser's key-press path over Q queries.
 *
 * The store is imported twice, each in one transaction with the built-in
 * embedder attached: as a JSONL file through import_file, as `memscope
 * import` does (import_jsonl_per_s; the store is then deleted), and turn by
 * turn through store_put, the path import_file takes after parsing a line
 * (import_per_s: embedding and enrichment included, making up the turns
 * not; this store is the one measured). Both give the same store.
 * --paired puts every chunk of each into a probe store too (probe_put): the
 * same turns, made again by the corpus for the JSONL import (jsonl_pair);
 * the probes' memory then counts in import_rss_mb.
 *
 * Benchmarks report; nothing here passes or fails on a time. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/embed.h"
#include "store/base/mono.h"
#include "engine/engine.h"
#include "store/import.h"
#include "tui/cli/bench_corpus.h"
#include "tui/cli/browser_face.h"
#include "tui/cli/cli.h"

#define BENCH_NOW 1735689600 /* 2025-01-01T00:00:00Z: "now" for the queries */
#define BENCH_COLS 120       /* the browser's screen for browser_ms */
#define BENCH_ROWS 40

enum {
    OPT_JSON = OPT_FIRST_OWN,
    OPT_MEMORIES,
    OPT_QUERIES,
    OPT_SEED,
    OPT_KEEP,
    OPT_LIST,
    OPT_PAIRED
};

/* ---- measuring ---------------------------------------------------------------------- */

typedef struct series {
    double *v;
    int n;
} series;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile p (0..100) of s; sorts s->v. */
static double pct(series *s, double p)
{
    if (s->n == 0)
        return 0;
    qsort(s->v, (size_t)s->n, sizeof *s->v, cmp_double);
    int k = (int)ceil(p / 100.0 * s->n) - 1;
    return s->v[k < 0 ? 0 : k];
}

/* An import's pace along the way: the clock (ms) and the memories done
 * when each tenth of the import was first reached, so a slow-down past
 * some size shows (import_*_by_tenth). */
typedef struct curve {
    double at[11];
    long done[11];
    int k; /* marks taken: 0 is the start */
} curve;

/* Take the marks that done (of total) has reached, at clock ms. */
static void curve_mark(curve *c, long done, long total, double ms)
{
    if (c->k == 0) {
        c->at[0] = ms;
        c->done[0] = 0;
        c->k = 1;
    }
    while (c->k <= 10 && done * 10 >= total * c->k) {
        c->at[c->k] = ms;
        c->done[c->k++] = done;
    }
}

/* Memories per second between marks i - 1 and j (1 <= i <= j <= 10), or
 * 0 when the marks are missing or no time passed. */
static double curve_rate(const curve *c, int i, int j)
{
    if (j >= c->k || i < 1)
        return 0;
    double s = (c->at[j] - c->at[i - 1]) / 1e3;
    return s > 0 ? (double)(c->done[j] - c->done[i - 1]) / s : 0;
}

typedef struct bench {
    long memories;
    int queries;
    uint64_t seed;
    int json, progress;
    int paired;       /* --paired: a probe store beside the store_put import */
    const char *keep; /* keep the store here */
    int existing;     /* --db: measure this store, build none */
    char path[512];
    char **q;
    double import_s, jsonl_s, open_ms; /* store_put path, `memscope import` path */
    double reopen_ms;     /* the next cold open: the snapshot file the first wrote, mapped */
    double import_rss_mb; /* peak RSS when both imports were done, before any recall */
    curve put_curve, jsonl_curve;
    curve probe_curve;     /* --paired: the probe's pace, by the measured store's tenths */
    curve jprobe_curve;    /* --paired: the same beside the JSONL import */
    char probe_path[600];  /* --paired: PATH.probe */
    double jsonl_t0;       /* mono_ms() when the JSONL import started */
    struct jsonl_pair *jp; /* --paired: the JSONL import's probe, while it runs */
    long long db_bytes;
    series full, bm25, browse, ch[CH_COUNT];
    const char *browse_label; /* "browser_ms" */
} bench;

static void progress(const bench *b, const char *what, long done, long total)
{
    if (b->progress && (done % 10 == 0 || done == total))
        cli_printf(stderr, "\rbench: %s %ld/%ld   ", what, done, total);
}

#define BENCH_CHUNK 512 /* turns made, untimed, before they are put */

/* --paired: a probe store that takes each chunk right after the measured
 * store, and is begun again at each tenth of the import, so that it holds
 * 0 to N/10 memories throughout. Its pace in a tenth is the machine's pace
 * at those moments on a store that does not grow; the measured store's
 * pace over it leaves what the store's own size costs, however the
 * machine's speed moves while they run (docs/SCALING.md). */
typedef struct probe {
    store *s;
    embedder *e;
    double clock; /* ms in its puts and in ending each tenth's transaction */
} probe;

/* --paired, beside the JSONL import: a probe that takes the turns the
 * import has written, made again by the corpus (which made the file), each
 * time the import reports its progress (every 0.2 s, on the thread that
 * writes). The wall time it takes there (ms) is off the import's clock. */
typedef struct jsonl_pair {
    probe p;
    corpus_turns g;
    corpus_turn *chunk; /* [BENCH_CHUNK] */
    long done;          /* turns the probe has taken */
    double ms;
    ms_status st; /* the probe's first failure, and its error */
    ms_error err;
} jsonl_pair;

static void jsonl_pair_feed(bench *b, long records);

static void import_progress(void *ctx, const import_stats *st)
{
    bench *b = ctx;
    double off = b->jp ? b->jp->ms : 0;
    curve_mark(&b->jsonl_curve, (long)st->records, b->memories, mono_ms() - b->jsonl_t0 - off);
    if (b->jp)
        jsonl_pair_feed(b, (long)st->records);
    if (b->progress)
        cli_printf(stderr, "\rbench: importing %llu/%ld   ", (unsigned long long)st->records,
                   b->memories);
}

static long long file_bytes(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
}

/* A new store at path with the built-in embedder attached, as `memscope
 * import` makes it; *s and *e are closed by close_store. */
static ms_status open_store(const char *path, store **s, embedder **e, ms_error *err)
{
    ms_status st = store_open(path, 0, s, err);
    if (!st && !(*e = embed_open(NULL, err)))
        st = err->code;
    if (!st) {
        store_vectorizer vz;
        embed_vectorizer(*e, &vz);
        store_set_vectorizer(*s, &vz);
        st = store_begin(*s, err);
    }
    return st;
}

static ms_status close_store(store *s, embedder *e, ms_status st, ms_error *err)
{
    if (!st)
        st = store_end(s, err);
    store_close(s);
    embed_close(e);
    return st;
}

/* A turn as a memory; its fields borrowed (store_put frees nothing of m). */
static void turn_memory(const corpus_turn *t, store_memory *m)
{
    store_memory_init(m);
    m->id = (char *)t->id;
    m->content = (char *)t->text;
    m->created_at = (char *)t->created;
    m->event_time = t->event[0] ? (char *)t->event : NULL;
    m->speaker = (char *)t->speaker;
    m->session = (char *)t->session;
    m->source = (char *)"bench";
    m->memory_confidence = t->confidence;
    m->trust_alpha = t->alpha;
    m->trust_beta = t->beta;
    m->importance = t->importance;
}

/* One turn through store_put, as import_file puts a parsed line, with the
 * turn after it (NULL: none known) as its hint. */
static ms_status put_turn(store *s, const corpus_turn *t, const corpus_turn *next, ms_error *err)
{
    store_memory m, n;
    turn_memory(t, &m);
    if (next)
        turn_memory(next, &n);
    store_put_hint(s, next ? &n : NULL);
    return store_put(s, &m, STORE_DUP_ERROR, NULL, err);
}

/* The probe, closed and deleted: begun again by the next probe_put. */
static ms_status probe_end(bench *b, probe *p, ms_status st, ms_error *err)
{
    if (!p->s)
        return st;
    st = close_store(p->s, p->e, st, err);
    p->s = NULL;
    p->e = NULL;
    cli_unlink_store(b->probe_path);
    return st;
}

/* The chunk just put into the measured store, put into the probe; done is
 * the measured store's count before the chunk. At the end of a tenth the
 * probe's transaction is ended on its clock: what store_end does there
 * (the text index and vectors still pending, the pages still to write) is
 * work for the tenth's memories that the measured store does during its
 * puts. Left off the clock, it made a small store read as much as a third
 * faster than it is (docs/SCALING.md, *The probe's own work*). Closing
 * the store (SQLite's checkpoint) is not on it: the measured store pays
 * that once, after its last tenth. */
static ms_status probe_put(bench *b, probe *p, curve *c, const corpus_turn *chunk, int n, long done,
                           ms_error *err)
{
    ms_status st = p->s ? MS_OK : open_store(b->probe_path, &p->s, &p->e, err);
    int tenth_done = (done + n) * 10 / b->memories > done * 10 / b->memories;
    double t0 = mono_ms();
    for (int k = 0; !st && k < n; k++)
        st = put_turn(p->s, &chunk[k], k + 1 < n ? &chunk[k + 1] : NULL, err);
    if (!st && tenth_done)
        st = store_end(p->s, err);
    p->clock += mono_ms() - t0;
    curve_mark(c, done + n, b->memories, p->clock);
    if (!st && tenth_done)
        st = probe_end(b, p, st, err); /* begin again */
    return st;
}

/* The measured store: every turn through store_put in one transaction
 * with the built-in embedder attached (what import_file does after parsing
 * each line), timed from the first write to the closed file. Making up
 * the turns is not import: they are made BENCH_CHUNK at a time outside
 * the clock. */
static ms_status build_store(bench *b, const corpus *w, ms_error *err)
{
    corpus_turn *chunk = malloc(BENCH_CHUNK * sizeof *chunk);
    if (!chunk)
        return ms_fail(err, MS_NOMEM, "out of memory");
    corpus_turns g;
    corpus_turns_init(&g, w, b->seed, b->memories);
    store *s = NULL;
    embedder *e = NULL;
    probe p = {0};
    double t0 = mono_ms();
    ms_status st = open_store(b->path, &s, &e, err);
    double clock = mono_ms() - t0;
    long done = 0;
    while (!st) {
        int n = 0;
        while (n < BENCH_CHUNK && corpus_next(&g, &chunk[n]))
            n++;
        if (n == 0)
            break;
        t0 = mono_ms();
        for (int k = 0; !st && k < n; k++)
            st = put_turn(s, &chunk[k], k + 1 < n ? &chunk[k + 1] : NULL, err);
        clock += mono_ms() - t0;
        curve_mark(&b->put_curve, done + n, b->memories, clock);
        if (b->paired && !st)
            st = probe_put(b, &p, &b->probe_curve, chunk, n, done, err);
        if ((done + n) / 10000 > done / 10000)
            progress(b, "importing", done + n, b->memories);
        done += n;
    }
    st = probe_end(b, &p, st, err);
    t0 = mono_ms();
    st = close_store(s, e, st, err);
    b->import_s = (clock + mono_ms() - t0) / 1e3;
    b->db_bytes = file_bytes(b->path);
    free(chunk);
    return st;
}

/* `memscope import FILE` into a scratch store at path (deleted after):
 * the seconds it took, from the first write to the closed file, the
 * probe's time (--paired) left out. The corpus w made FILE. */
static ms_status import_jsonl(bench *b, const corpus *w, const char *src, const char *path,
                              ms_error *err)
{
    store *s = NULL;
    embedder *e = NULL;
    jsonl_pair jp = {0};
    if (b->paired) {
        if (!(jp.chunk = malloc(BENCH_CHUNK * sizeof *jp.chunk)))
            return ms_fail(err, MS_NOMEM, "out of memory");
        corpus_turns_init(&jp.g, w, b->seed, b->memories);
        b->jp = &jp;
    }
    double t0 = b->jsonl_t0 = mono_ms();
    ms_status st = open_store(path, &s, &e, err);
    import_opts io = {.format = IMPORT_JSONL, .dup = STORE_DUP_ERROR};
    io.progress = import_progress; /* every 0.2 s: the curve's marks */
    io.progress_ctx = b;
    import_stats stats = {0};
    if (!st)
        st = import_file(s, src, &io, &stats, err);
    st = close_store(s, e, st, err);
    b->jsonl_s = (mono_ms() - t0 - jp.ms) / 1e3;
    cli_unlink_store(path);
    b->jp = NULL;
    if (!st && jp.st) { /* the import went through; its probe did not */
        st = jp.st;
        if (err)
            *err = jp.err;
    }
    st = probe_end(b, &jp.p, st, err);
    free(jp.chunk);
    return st;
}

/* The turns the JSONL import has written since the last call, records in
 * all, into its probe, BENCH_CHUNK at a time as build_store's probe takes
 * them; fewer only for the last. Whatever the probe does here, making the
 * turns included, is off the import's clock. */
static void jsonl_pair_feed(bench *b, long records)
{
    jsonl_pair *jp = b->jp;
    double t0 = mono_ms();
    while (!jp->st && records - jp->done >= (records < b->memories ? BENCH_CHUNK : 1)) {
        int n = 0;
        while (n < BENCH_CHUNK && jp->done + n < records && corpus_next(&jp->g, &jp->chunk[n]))
            n++;
        if (n == 0)
            break;
        ms_error_clear(&jp->err);
        jp->st = probe_put(b, &jp->p, &b->jprobe_curve, jp->chunk, n, jp->done, &jp->err);
        jp->done += n;
    }
    jp->ms += mono_ms() - t0;
}

static void opts_for(recall_opts *o, const char *q, unsigned disabled)
{
    recall_opts_init(o);
    o->query = q;
    o->as_of = BENCH_NOW;
    o->disabled = disabled;
}

/* One recall and its JSON with traces, as `memscope recall --json --trace`
 * produces; the time it took in *ms, the result in *out (may be NULL). */
static ms_status timed_recall(engine *e, const char *q, unsigned disabled, double *ms,
                              recall_result **out, ms_error *err)
{
    recall_opts o;
    opts_for(&o, q, disabled);
    recall_result *r = NULL;
    double t0 = mono_ms();
    ms_status st = engine_recall(e, &o, &r, err);
    char *json = st ? NULL : recall_json(r, 1);
    *ms = mono_ms() - t0;
    free(json);
    if (out)
        *out = r;
    else
        recall_free(r);
    return st;
}

/* Close everything, then open the store and an engine and answer the first
 * query: the time to first results. */
static ms_status cold_open(bench *b, store **s, engine **e, double *open_ms, ms_error *err)
{
    double t0 = mono_ms(), ms;
    ms_status st = store_open(b->path, STORE_OPEN_NOCREATE | STORE_OPEN_READONLY, s, err);
    if (!st)
        st = engine_open(*s, NULL, e, err);
    if (!st)
        st = timed_recall(*e, b->q[0], 0, &ms, NULL, err);
    *open_ms = mono_ms() - t0;
    return st;
}

static ms_status run_queries(bench *b, engine *e, ms_error *err)
{
    ms_status st = MS_OK;
    for (int i = 0; !st && i < b->queries; i++) {
        recall_result *r = NULL;
        st = timed_recall(e, b->q[i], 0, &b->full.v[i], &r, err);
        for (int c = 0; !st && c < CH_COUNT; c++)
            if (r->ch[c].active)
                b->ch[c].v[b->ch[c].n++] = r->ch[c].ms;
        recall_free(r);
        b->full.n = i + 1;
        if (!st)
            st = timed_recall(e, b->q[i], CH_ALL & ~CH_MASK(CH_BM25), &b->bm25.v[i], NULL, err);
        b->bm25.n = i + 1;
        progress(b, "recall", i + 1, b->queries);
    }
    return st;
}

static void browser_progress(void *ctx, int done)
{
    const bench *b = ctx;
    progress(b, "browser", done, b->queries);
}

/* The browser's path for one key press, headless, for every query
 * (browse_bench_keys): everything but the debounce pause and the
 * terminal's own drawing. */
static ms_status run_browser(bench *b, engine *e, store *s, ms_error *err)
{
    ms_status st = browse_bench_keys(e, s, b->path, b->q, b->queries, BENCH_COLS, BENCH_ROWS,
                                     b->browse.v, browser_progress, b, err);
    b->browse.n = st ? 0 : b->queries;
    return st;
}

static ms_status measure(bench *b, ms_error *err)
{
    store *s = NULL;
    engine *e = NULL;
    ms_status st = cold_open(b, &s, &e, &b->open_ms, err);
    /* the count from the snapshot, as the status bar takes it: store_count
     * also counts the links and the derived edges (2 s at 1M) */
    engine_health h;
    if (!st && b->existing && !(st = engine_health_brief(e, &h, err)))
        b->memories = (long)h.counts.memories;
    if (!st)
        st = run_queries(b, e, err);
    if (!st && run_browser(b, e, s, err))
        st = err->code ? err->code : MS_NOMEM;
    engine_close(e);
    store_close(s);
    s = NULL;
    e = NULL;
    if (!st)
        st = cold_open(b, &s, &e, &b->reopen_ms, err);
    engine_close(e);
    store_close(s);
    return st;
}

/* ---- reporting ------------------------------------------------------------------------ */

static double peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* kilobytes on Linux */
}

/* The process's resident memory that is its own (RssAnon of
 * /proc/self/status, now), in MB: unlike the peak RSS, no page of a file it
 * maps (the store is mapped by read-only connections, the snapshot file by
 * every engine) counts in it. -1 when it cannot be read. */
static double anon_rss_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    double mb = -1;
    long kb;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %ld kB", &kb) == 1)
            mb = (double)kb / 1024.0;
    if (f)
        fclose(f);
    return mb;
}

static double r3(double v)
{
    return round(v * 1000) / 1000;
}

static cJSON *pct_json(series *s, int p99)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "p50", r3(pct(s, 50)));
    cJSON_AddNumberToObject(o, "p95", r3(pct(s, 95)));
    if (p99)
        cJSON_AddNumberToObject(o, "p99", r3(pct(s, 99)));
    return o;
}

/* name_by_tenth_per_s: the pace of each tenth; name_first_30_per_s and
 * name_last_70_per_s: of the first three tenths and of the seven after;
 * name_tenths_4_6_per_s and name_tenths_8_10_per_s: of the three tenths
 * after the first 30 % and of the last three, whose ratio is the drop-off
 * past 300k of a 1M import as issue 17 measured it (docs/SCALING.md). */
static void add_curve(cJSON *o, const char *name, const curve *c)
{
    char key[64];
    snprintf(key, sizeof key, "%s_by_tenth_per_s", name);
    cJSON *a = cJSON_AddArrayToObject(o, key);
    for (int i = 1; i <= 10; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(round(curve_rate(c, i, i))));
    snprintf(key, sizeof key, "%s_first_30_per_s", name);
    cJSON_AddNumberToObject(o, key, round(curve_rate(c, 1, 3)));
    snprintf(key, sizeof key, "%s_last_70_per_s", name);
    cJSON_AddNumberToObject(o, key, round(curve_rate(c, 4, 10)));
    snprintf(key, sizeof key, "%s_tenths_4_6_per_s", name);
    cJSON_AddNumberToObject(o, key, round(curve_rate(c, 4, 6)));
    snprintf(key, sizeof key, "%s_tenths_8_10_per_s", name);
    cJSON_AddNumberToObject(o, key, round(curve_rate(c, 8, 10)));
}

static double ratio_or_0(double x, double y)
{
    return x > 0 && y > 0 ? x / y : 0;
}

/* --paired: an import's pace (m) over its probe's (p), from tenth i to
 * tenth j; 0 when either is missing. */
static double paired_rate(const curve *m, const curve *p, int i, int j)
{
    return ratio_or_0(curve_rate(m, i, j), curve_rate(p, i, j));
}

/* --paired: the drop-off past 300k (tenths 8-10 over 4-6) and the last 70 %
 * over the first 30 %, each paired; 0 when the import was too small. */
static void paired_drops(const curve *m, const curve *p, double *past_300k, double *last_70)
{
    *past_300k = ratio_or_0(paired_rate(m, p, 8, 10), paired_rate(m, p, 4, 6));
    *last_70 = ratio_or_0(paired_rate(m, p, 4, 10), paired_rate(m, p, 1, 3));
}

/* name_probe_by_tenth_per_s, name_paired_by_tenth (each tenth's pace over
 * the probe's) and the drop-offs measured so: name_paired_past_300k (tenths
 * 8-10 over 4-6) and name_paired_last_70_first_30. */
static void add_paired(cJSON *o, const char *name, const curve *m, const curve *p)
{
    char key[64];
    snprintf(key, sizeof key, "%s_probe_by_tenth_per_s", name);
    cJSON *pa = cJSON_AddArrayToObject(o, key);
    snprintf(key, sizeof key, "%s_paired_by_tenth", name);
    cJSON *ra = cJSON_AddArrayToObject(o, key);
    for (int i = 1; i <= 10; i++) {
        cJSON_AddItemToArray(pa, cJSON_CreateNumber(round(curve_rate(p, i, i))));
        cJSON_AddItemToArray(ra, cJSON_CreateNumber(r3(paired_rate(m, p, i, i))));
    }
    double past, late;
    paired_drops(m, p, &past, &late);
    snprintf(key, sizeof key, "%s_paired_past_300k", name);
    cJSON_AddNumberToObject(o, key, r3(past));
    snprintf(key, sizeof key, "%s_paired_last_70_first_30", name);
    cJSON_AddNumberToObject(o, key, r3(late));
}

static void print_json(bench *b)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "memories", (double)b->memories);
    cJSON_AddNumberToObject(o, "queries", b->queries);
    cJSON_AddNumberToObject(o, "seed", (double)b->seed);
    if (b->existing) {
        cJSON_AddNullToObject(o, "import_per_s");
        cJSON_AddNullToObject(o, "import_s");
        cJSON_AddNullToObject(o, "import_jsonl_per_s");
    } else {
        cJSON_AddNumberToObject(o, "import_per_s", round((double)b->memories / b->import_s));
        cJSON_AddNumberToObject(o, "import_s", r3(b->import_s));
        cJSON_AddNumberToObject(o, "import_jsonl_per_s", round((double)b->memories / b->jsonl_s));
        add_curve(o, "import", &b->put_curve);
        add_curve(o, "import_jsonl", &b->jsonl_curve);
        if (b->paired) {
            add_paired(o, "import", &b->put_curve, &b->probe_curve);
            add_paired(o, "import_jsonl", &b->jsonl_curve, &b->jprobe_curve);
        }
    }
    cJSON_AddNumberToObject(o, "db_bytes", (double)b->db_bytes);
    cJSON_AddNumberToObject(o, "rss_mb", round(peak_rss_mb() * 10) / 10);
    double anon = anon_rss_mb();
    if (anon >= 0)
        cJSON_AddNumberToObject(o, "rss_anon_mb", round(anon * 10) / 10);
    else
        cJSON_AddNullToObject(o, "rss_anon_mb");
    if (b->existing)
        cJSON_AddNullToObject(o, "import_rss_mb");
    else
        cJSON_AddNumberToObject(o, "import_rss_mb", round(b->import_rss_mb * 10) / 10);
    cJSON_AddItemToObject(o, "recall_ms", pct_json(&b->full, 1));
    cJSON_AddItemToObject(o, "bm25_only_ms", pct_json(&b->bm25, 0));
    cJSON *ch = cJSON_AddObjectToObject(o, "channels_ms");
    for (int c = 0; c < CH_COUNT; c++)
        cJSON_AddItemToObject(ch, engine_channel_name(c), pct_json(&b->ch[c], 0));
    cJSON_AddNumberToObject(o, "open_ms", r3(b->open_ms));
    cJSON_AddNumberToObject(o, "reopen_ms", r3(b->reopen_ms));
    cJSON_AddItemToObject(o, b->browse_label, pct_json(&b->browse, 1));
    char screen[32];
    snprintf(screen, sizeof screen, "%dx%d", BENCH_COLS, BENCH_ROWS);
    cJSON_AddStringToObject(o, "browser_screen", screen);
    char *text = cJSON_PrintUnformatted(o);
    cli_printf(stdout, "%s\n", text ? text : "{}");
    free(text);
    cJSON_Delete(o);
}

static void print_row(const char *what, series *s, int p99)
{
    cli_printf(stdout, "  %-22s %9.3f %9.3f", what, pct(s, 50), pct(s, 95));
    if (p99)
        cli_printf(stdout, " %9.3f", pct(s, 99));
    putchar('\n');
}

/* The table's line for one paired import (--paired). */
static void print_paired(const char *name, const curve *m, const curve *p)
{
    /* too few memories for ten tenths of chunks: no ratio, not x 0 */
    double r[2];
    paired_drops(m, p, &r[0], &r[1]);
    char text[2][16] = {"-", "-"};
    for (int i = 0; i < 2; i++)
        if (r[i] > 0)
            snprintf(text[i], sizeof text[i], "x %.3f", r[i]);
    cli_printf(stdout,
               "  paired with a probe    %s past 300k (tenths 8-10 over 4-6), %s last 70 %% "
               "over first 30 %% (%s)\n",
               text[0], text[1], name);
}

static void print_table(bench *b)
{
    cli_printf(stdout, "memscope bench: %ld memories, %d queries, seed %llu\n", b->memories,
               b->queries, (unsigned long long)b->seed);
    if (b->existing)
        cli_printf(stdout, "  import                 - (an existing store: %s)\n", b->path);
    else
        cli_printf(stdout,
                   "  import                 %.0f memories/s through store_put (%.2f s, embedding "
                   "and enrichment included)\n"
                   "  import from JSONL      %.0f memories/s (`memscope import`: parsing too)\n",
                   (double)b->memories / b->import_s, b->import_s,
                   (double)b->memories / b->jsonl_s);
    if (!b->existing && b->paired) {
        print_paired("store_put", &b->put_curve, &b->probe_curve);
        print_paired("JSONL", &b->jsonl_curve, &b->jprobe_curve);
    }
    cli_printf(stdout, "  store                  %.1f MB\n", (double)b->db_bytes / 1e6);
    cli_printf(stdout, "  cold open              %.1f ms to first results\n", b->open_ms);
    cli_printf(stdout, "  the next cold open     %.1f ms (the snapshot file mapped)\n",
               b->reopen_ms);
    cli_printf(stdout,
               "  peak RSS               %.1f MB (the mapped pages of the store and the "
               "snapshot file included)\n",
               peak_rss_mb());
    if (!b->existing)
        cli_printf(stdout, "  peak RSS of the import %.1f MB (before any recall)\n",
                   b->import_rss_mb);
    double anon = anon_rss_mb();
    if (anon >= 0)
        cli_printf(stdout, "  its own memory at end  %.1f MB (RssAnon: no file's pages)\n", anon);
    cli_printf(stdout, "\n  %-22s %9s %9s %9s\n", "ms", "p50", "p95", "p99");
    print_row("recall (all channels)", &b->full, 1);
    print_row("recall (bm25 only)", &b->bm25, 0);
    for (int c = 0; c < CH_COUNT; c++) {
        char name[40];
        snprintf(name, sizeof name, "  channel %s", engine_channel_name(c));
        print_row(name, &b->ch[c], 0);
    }
    char name[48];
    snprintf(name, sizeof name, "browser key (%dx%d)", BENCH_COLS, BENCH_ROWS);
    print_row(name, &b->browse, 1);
}

/* ---- the command ------------------------------------------------------------------------ */

static const char bench_usage[] =
    "usage: memscope bench [--json] [--memories N] [--queries Q] [--seed S]\n"
    "                      [--keep PATH | --db PATH] [--paired] [--list-queries]\n"
    "\n"
    "Build a synthetic store of N memories (default 10000) in a temporary file,\n"
    "deterministic from the seed (default 1): dialogue turns from a Zipf vocabulary,\n"
    "speakers, sessions of 10-40 turns, dates over 2023-2024, recurring names, the\n"
    "built-in embedder's vectors. Then time Q queries (default 200) of mixed types:\n"
    "full recall with traces, the same with only bm25, each channel, a cold open to\n"
    "the first results, and the browser's key press to finished screen (headless).\n"
    "Queries use --as-of 2025-01-01T00:00:00Z.\n"
    "\n"
    "  --json          one JSON object instead of the table\n"
    "  --keep PATH     build the store at PATH (must not exist) and keep it\n"
    "  --db PATH       build nothing: time the open and the queries on this store\n"
    "  --paired        put each chunk of each import into a probe store too, begun\n"
    "                  again at each tenth: an import's pace over its probe's shows\n"
    "                  what the store's growth costs while the machine's speed\n"
    "                  moves (import_paired_*, import_jsonl_paired_*)\n"
    "  --list-queries  print the Q queries, one a line, and stop\n";

static int run_bench(cli_common *c, int argc, char **argv);
const cli_command cmd_bench = {"bench", "time import and recall on a synthetic store", bench_usage,
                               run_bench};

static int parse_args(bench *b, cli_common *c, int argc, char **argv, int *list)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        {"json", no_argument, NULL, OPT_JSON},
        {"memories", required_argument, NULL, OPT_MEMORIES},
        {"queries", required_argument, NULL, OPT_QUERIES},
        {"seed", required_argument, NULL, OPT_SEED},
        {"keep", required_argument, NULL, OPT_KEEP},
        {"list-queries", no_argument, NULL, OPT_LIST},
        {"paired", no_argument, NULL, OPT_PAIRED},
        {0, 0, 0, 0},
    };
    int opt;
    long v;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_bench))
            continue;
        if (opt == OPT_JSON)
            b->json = 1;
        else if (opt == OPT_LIST)
            *list = 1;
        else if (opt == OPT_PAIRED)
            b->paired = 1;
        else if (opt == OPT_KEEP)
            b->keep = optarg;
        else if (opt == OPT_MEMORIES && !cli_parse_int(optarg, 1, 10000000, &v))
            b->memories = v;
        else if (opt == OPT_QUERIES && !cli_parse_int(optarg, 1, 100000, &v))
            b->queries = (int)v;
        else if (opt == OPT_SEED && !cli_parse_int(optarg, 0, 0x7fffffffL, &v))
            b->seed = (uint64_t)v;
        else if (opt == OPT_MEMORIES || opt == OPT_QUERIES || opt == OPT_SEED)
            return cli_usage(&cmd_bench, "--memories takes 1 to 10000000, --queries 1 to "
                                         "100000, --seed 0 to 2147483647");
        else
            return cli_bad_option(&cmd_bench, argv);
    }
    if (optind < argc)
        return cli_usage(&cmd_bench, "unexpected argument '%s'", argv[optind]);
    if (b->paired && c->db)
        return cli_usage(&cmd_bench, "--paired times an import, and --db builds none");
    return EXIT_OK;
}

static int alloc_series(bench *b)
{
    series *all[CH_COUNT + 3] = {&b->full, &b->bm25, &b->browse};
    for (int c = 0; c < CH_COUNT; c++)
        all[3 + c] = &b->ch[c];
    for (int i = 0; i < CH_COUNT + 3; i++)
        if (!(all[i]->v = calloc((size_t)b->queries + 1, sizeof(double))))
            return -1;
    return 0;
}

static void free_bench(bench *b)
{
    for (int i = 0; b->q && i < b->queries; i++)
        free(b->q[i]);
    free(b->q);
    free(b->full.v);
    free(b->bm25.v);
    free(b->browse.v);
    for (int c = 0; c < CH_COUNT; c++)
        free(b->ch[c].v);
}

/* Where the store goes: --keep PATH, else a fresh temporary file. */
static int pick_path(bench *b)
{
    if (b->keep) {
        struct stat sb;
        if (stat(b->keep, &sb) == 0)
            return cli_error(EXIT_RUNTIME, "%s exists; --keep needs a new path", b->keep);
        snprintf(b->path, sizeof b->path, "%s", b->keep);
        return EXIT_OK;
    }
    const char *dir = getenv("TMPDIR");
    snprintf(b->path, sizeof b->path, "%s/memscope-bench-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(b->path);
    if (fd < 0)
        return cli_error(EXIT_RUNTIME, "cannot create a temporary file: %s", strerror(errno));
    close(fd);
    return EXIT_OK;
}

static int bench_run(bench *b, const corpus *w)
{
    char src[600], scratch[600];
    snprintf(src, sizeof src, "%s.jsonl", b->path);
    snprintf(scratch, sizeof scratch, "%s.import", b->path);
    snprintf(b->probe_path, sizeof b->probe_path, "%s.probe", b->path);
    if (corpus_write_jsonl(w, b->seed, b->memories, src)) {
        unlink(src);
        return cli_error(EXIT_RUNTIME, "cannot write %s: %s", src, strerror(errno));
    }
    ms_error err;
    ms_error_clear(&err);
    ms_status st = import_jsonl(b, w, src, scratch, &err);
    unlink(src);
    if (!st)
        st = build_store(b, w, &err);
    b->import_rss_mb = peak_rss_mb();
    if (!st)
        st = measure(b, &err);
    if (b->progress)
        cli_put_own(stderr, "\r\033[K");
    if (st)
        return cli_fail(&err);
    if (b->json)
        print_json(b);
    else
        print_table(b);
    return EXIT_OK;
}

static int run_bench(cli_common *c, int argc, char **argv)
{
    bench b = {.memories = 10000, .queries = 200, .seed = 1, .browse_label = "browser_ms"};
    int list = 0;
    int status = parse_args(&b, c, argc, argv, &list);
    if (status)
        return status;
    b.progress = cli_tty(2);
    corpus *w = corpus_new(b.seed);
    if (!w || !(b.q = corpus_queries(w, b.seed, b.queries)) || alloc_series(&b)) {
        corpus_free(w);
        free_bench(&b);
        return cli_error(EXIT_RUNTIME, "out of memory");
    }
    if (list) {
        for (int i = 0; i < b.queries; i++)
            cli_printf(stdout, "%s\n", b.q[i]);
    } else if (c->db) { /* an existing store: open and queries only */
        b.existing = 1;
        snprintf(b.path, sizeof b.path, "%s", c->db);
        b.db_bytes = file_bytes(b.path);
        ms_error err;
        ms_error_clear(&err);
        status = measure(&b, &err) ? cli_fail(&err) : EXIT_OK;
        if (!status && b.json)
            print_json(&b);
        else if (!status)
            print_table(&b);
    } else if (!(status = pick_path(&b))) {
        status = bench_run(&b, w);
        if (!b.keep || status)
            cli_unlink_store(b.path);
    }
    corpus_free(w);
    free_bench(&b);
    return status;
}
