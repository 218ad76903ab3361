/* snapfile-test.c - what the snapshot file keeps in the form recall uses
 * it (engine/snapfile.c) is what recall would work out without it:
 *   - every memory's edges (snapshot_edges_all, one scan of the store's
 *     edges) are those snapshot_edges reads from the store for it, in the
 *     same order, bit for bit, on stores of sessions, shared names and
 *     given edges of every type, with a second profile whose edges reach
 *     into the first, a memory of many edges and memories of none;
 *   - a grown file's edges (snapshot_edges_extend: the base's lists kept
 *     for the memories no new edge touches, the others read) are those a
 *     full read gives, byte for byte, after appends that add sessions,
 *     names and a second profile's memories;
 *   - which memories say how long (temporal_durations) give the same
 *     when-lists as their texts read for each query, over random bm25
 *     lists; a grown file's copies its base's for the base's memories and
 *     reads the others.
 *   - a column joined over a mapped base's pages (snap_cow_join) moved
 *     into memory of its own when it must grow (snap_big_realloc) keeps
 *     every byte, and its mapping is let go of.
 * (The memories by day the file keeps are checked in scan-test.c, through
 * the date lists they give.) Links the store and the engine. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/engine_int.h"
#include "store/store.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-snapfile-test-XXXXXX";
#include "tests/testdir.h"

static unsigned seed = 20251202;
static unsigned rnd(unsigned n)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
}

static const char *const names[] = {"Ada", "Bram", "Cleo", "Dov", "Esme", "Farid", "Gus", "Hana"};

/* One memory of the current profile: id, speaker and a name or two in its
 * text (entity edges), a session of a few (session edges), a time. */
static ms_status put_one(store *s, const char *prefix, int k, ms_error *err)
{
    store_memory m;
    store_memory_init(&m);
    char id[32], text[160], sess[16], when[32];
    snprintf(id, sizeof id, "%s%d", prefix, k);
    const char *a = names[rnd(8)], *b = names[rnd(8)];
    snprintf(text, sizeof text, "%s: I saw %s and %s by the canal, note %d", a, b, names[rnd(8)],
             k);
    snprintf(sess, sizeof sess, "%s%d", prefix, k / (3 + (int)rnd(5)));
    snprintf(when, sizeof when, "%04u-%02u-%02uT%02u:00:00Z", 2020 + rnd(5), 1 + rnd(12),
             1 + rnd(28), rnd(24));
    m.id = strdup(id);
    m.content = strdup(text);
    m.speaker = strdup(a);
    m.session = strdup(sess);
    m.created_at = strdup(when);
    ms_status st = store_put(s, &m, STORE_DUP_ERROR, NULL, err);
    store_memory_clear(&m);
    return st;
}

/* A store of n memories in profile "default" and n / 4 in "other", with
 * given edges of every type among the first ones, between the profiles,
 * 60 on memory 0, and five memories of none. */
static store *edge_store(const char *name, int n)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_open(tpath(name), 0, &s, &err);
    if (!st)
        st = store_begin(s, &err);
    for (int k = 0; !st && k < n; k++)
        st = put_one(s, "m", k, &err);
    if (!st)
        st = store_use_profile(s, "other", &err);
    for (int k = 0; !st && k < n / 4; k++)
        st = put_one(s, "o", k, &err);
    if (!st)
        st = store_use_profile(s, STORE_DEFAULT_PROFILE, &err);
    for (int k = 0; !st && k < 5; k++) { /* no speaker, session nor name: no edge */
        store_memory m;
        store_memory_init(&m);
        char id[16];
        snprintf(id, sizeof id, "lone%d", k);
        m.id = strdup(id);
        m.content = strdup("a quiet afternoon with nothing planned");
        char when[32];
        snprintf(when, sizeof when, "%d-01-01T00:00:00Z", 1900 + 20 * k);
        m.created_at = strdup(when);
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        store_memory_clear(&m);
    }
    for (int k = 0; !st && k < 200; k++) { /* given edges, rids 1.. n + n / 4 */
        int64_t a = 1 + rnd((unsigned)(n + n / 4)), b = 1 + rnd((unsigned)(n + n / 4));
        if (a != b)
            store_add_edge(s, a, b, 1 + (int)rnd(4), rnd(1000) / 999.0, NULL);
    }
    for (int k = 2; !st && k < 62; k++)
        store_add_edge(s, 1, k, STORE_EDGE_RELATION, 0.25 + k / 100.0, NULL);
    if (!st)
        st = store_end(s, &err);
    if (st) {
        diag("edge store %s: %s", name, err.msg);
        store_close(s);
        return NULL;
    }
    return s;
}

static void test_edges(const char *name, int n)
{
    store *s = edge_store(name, n);
    snapshot *sn = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (!s || store_read_begin(s, &err) || snapshot_load(s, &sn, &err)) {
        ok(0, "%s: store and snapshot (%s)", name, err.msg);
        store_close(s);
        return;
    }
    uint32_t *off = NULL;
    snap_edge *all = NULL;
    long long count = snapshot_edges_all(s, sn, &off, &all);
    size_t wrong = 0, most = 0, none = 0, checked = 0;
    for (size_t i = 0; count >= 0 && i < sn->n; i++) {
        const snap_edge *e;
        size_t ne;
        if (snapshot_edges(sn, i, &e, &ne) || ne != off[i + 1] - off[i]) {
            wrong++;
            continue;
        }
        most = ne > most ? ne : most;
        none += ne == 0;
        for (size_t k = 0; k < ne; k++, checked++) {
            const snap_edge *f = &all[off[i] + k];
            wrong += e[k].other != f->other || memcmp(&e[k].w, &f->w, sizeof f->w) != 0 ||
                     e[k].type != f->type;
        }
        for (size_t k = off[i]; k < off[i + 1]; k++) { /* the file's padding is 0 */
            const unsigned char *b = (const unsigned char *)&all[k];
            wrong += b[offsetof(snap_edge, type) + 1] != 0;
        }
    }
    ok(count > 0 && (size_t)count == checked && wrong == 0 && most >= 60 && none >= 5 &&
           sn->n == (size_t)n + 5,
       "%s: the %lld edges of %zu memories kept for the file are those read from the store, in "
       "order, bit for bit (%zu differ; at most %zu a memory, %zu with none)",
       name, count, sn->n, wrong, most, none);
    free(off);
    free(all);
    snapshot_free(sn);
    store_end(s, NULL);
    store_close(s);
}

/* The edges of a store grown by appends, extended from its snapshot's
 * before them, against a full read. */
static void test_edges_extend(void)
{
    int n = 1500;
    store *s = edge_store("extend.db", n);
    snapshot *old = NULL, *sn = NULL;
    uint32_t *off0 = NULL, *off = NULL, *off_all = NULL;
    snap_edge *e0 = NULL, *e = NULL, *e_all = NULL;
    ms_error err;
    ms_error_clear(&err);
    int bad = !s || store_read_begin(s, &err) || snapshot_load(s, &old, &err) ||
              snapshot_edges_all(s, old, &off0, &e0) < 0;
    if (s)
        store_end(s, NULL);
    bad = bad || store_begin(s, &err);
    for (int k = n; !bad && k < n + 60; k++) /* sessions go on, names recur */
        bad = put_one(s, "m", k, &err) != MS_OK;
    bad = bad || store_use_profile(s, "other", &err);
    for (int k = n; !bad && k < n + 10; k++)
        bad = put_one(s, "o", k, &err) != MS_OK;
    bad = bad || store_use_profile(s, STORE_DEFAULT_PROFILE, &err) || store_end(s, &err) ||
          store_read_begin(s, &err) || snapshot_load(s, &sn, &err);
    long long got = -1, want = -1;
    if (!bad) {
        old->adj_off = off0; /* as a mapped base holds them */
        old->adj_file = e0;
        got = snapshot_edges_extend(s, sn, old, old->n, &off, &e);
        want = snapshot_edges_all(s, sn, &off_all, &e_all);
    }
    size_t kept = 0; /* old memories whose list is the base's, untouched */
    for (size_t i = 0; got >= 0 && i < old->n; i++)
        kept += off0[i + 1] - off0[i] == off[i + 1] - off[i];
    ok(!bad && got > 0 && got == want && sn->n == old->n + 60 &&
           memcmp(off, off_all, (sn->n + 1) * sizeof *off) == 0 &&
           memcmp(e, e_all, (size_t)got * sizeof *e) == 0 && kept > old->n / 2 && kept < old->n,
       "after 70 appends: %lld edges of %zu memories extended from the base's (%zu of %zu old "
       "lists as they were) are a full read's, byte for byte (%s)",
       got, sn ? sn->n : 0, kept, old ? old->n : 0, err.msg);
    if (old) { /* not the snapshot's own */
        old->adj_off = NULL;
        old->adj_file = NULL;
    }
    free(off0);
    free(e0);
    free(off);
    free(e);
    free(off_all);
    free(e_all);
    snapshot_free(old);
    snapshot_free(sn);
    if (s)
        store_end(s, NULL);
    store_close(s);
}

/* Texts that say how long, or when, or neither, in the ways the when-list
 * reads them. */
static const char *const told[] = {
    "Ada: we have been climbing for 3 years now",
    "Bram: six months now at the bakery",
    "Cleo: it took a couple of weeks to heal",
    "Dov: since then I kept the boat",
    "Esme: a decade ago I lived by the sea",
    "Farid: yesterday the ferry was late",
    "Gus: the garden, the garden, the garden",
    "Hana: for two decades the shop stood there",
    "Ada: years and years of rain",
    "Bram: last Friday we met at the mill",
    "Cleo: many weeks passed before the letter came",
    "Dov: nothing to report about the lake",
};

static store *told_store(const char *name, int n)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_open(tpath(name), 0, &s, &err);
    if (!st)
        st = store_begin(s, &err);
    for (int k = 0; !st && k < n; k++) {
        store_memory m;
        store_memory_init(&m);
        char id[16], text[160], when[32];
        snprintf(id, sizeof id, "t%d", k);
        snprintf(text, sizeof text, "%s, note %d", told[rnd(sizeof told / sizeof *told)], k);
        snprintf(when, sizeof when, "2024-%02u-%02uT10:00:00Z", 1 + rnd(12), 1 + rnd(28));
        m.id = strdup(id);
        m.content = strdup(text);
        m.created_at = strdup(when);
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        store_memory_clear(&m);
    }
    if (!st)
        st = store_end(s, &err);
    if (st) {
        diag("told store %s: %s", name, err.msg);
        store_close(s);
        return NULL;
    }
    return s;
}

/* The when-list of a random bm25 list, into out. */
static ms_status when_list(store *s, const snapshot *sn, ranked_list *bm, ranked_list *out)
{
    query q = {0};
    q.type = QT_TEMPORAL;
    ranked_list lists[CH_COUNT] = {0};
    lists[CH_BM25] = *bm;
    channel_ctx c = {0};
    c.s = s;
    c.sn = sn;
    c.q = &q;
    c.top_n = 200;
    c.lists = lists;
    const char *note = NULL;
    ms_error err;
    ms_error_clear(&err);
    return ch_temporal_ops.produce(&c, out, &note, &err);
}

static void test_durations(void)
{
    int n = 900;
    store *s = told_store("told.db", n);
    snapshot *sn = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (!s || store_read_begin(s, &err) || snapshot_load(s, &sn, &err)) {
        ok(0, "durations: store and snapshot (%s)", err.msg);
        store_close(s);
        return;
    }
    uint8_t *dur = NULL, *grown = NULL, *base = malloc((size_t)n);
    size_t differ = 0, listed = 0, says = 0, copied = 0;
    if (temporal_durations(s, sn, NULL, 0, &dur) || !base) {
        ok(0, "durations: temporal_durations");
    } else {
        for (size_t i = 0; i < sn->n; i++)
            says += dur[i];
        for (int t = 0; t < 40; t++) {
            ranked_list bm = {0}, got = {0}, want = {0};
            size_t step = 1 + rnd(7), at = rnd((unsigned)sn->n); /* distinct, as bm25's are */
            for (size_t r = 0, m = 1 + rnd(120); r < m; r++)
                ranked_push(&bm, (uint32_t)((at + r * step) % sn->n), 100.0 - (double)r);
            sn->dur_file = NULL; /* the texts read */
            ms_status a = when_list(s, sn, &bm, &want);
            sn->dur_file = dur; /* the file's */
            ms_status b = when_list(s, sn, &bm, &got);
            int same = !a && !b && got.n == want.n;
            for (size_t k = 0; same && k < got.n; k++)
                same = got.v[k].idx == want.v[k].idx && got.v[k].raw == want.v[k].raw;
            differ += !same;
            listed += want.n;
            ranked_free(&bm);
            ranked_free(&got);
            ranked_free(&want);
        }
        sn->dur_file = NULL;
        memset(base, 2, (size_t)n); /* marks what is copied, not read */
        if (!temporal_durations(s, sn, base, (size_t)n / 3, &grown))
            for (size_t i = 0; i < sn->n; i++)
                copied += i < (size_t)n / 3 ? grown[i] == 2 : grown[i] == dur[i];
    }
    ok(differ == 0 && listed > 0 && says > 0 && says < sn->n,
       "durations: 40 when-lists from the file's durations (%zu of %zu memories say how long) "
       "equal those from the texts read (%zu differ, %zu listed)",
       says, sn->n, differ, listed);
    ok(copied == sn->n,
       "durations of a grown file: the base's %d copied, the others read (%zu of "
       "%zu right)",
       n / 3, copied, sn->n);
    free(dur);
    free(grown);
    free(base);
    snapshot_free(sn);
    store_end(s, NULL);
    store_close(s);
}

/* snap_big_alloc: calloc's and malloc's contract at any size, whether or
 * not the kernel gives the array 2 MB pages. */
static void test_big_alloc(void)
{
    static const size_t sizes[] = {0, 100, SNAP_BIG - 1, SNAP_BIG, 3 * SNAP_BIG + 12345};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        unsigned char *z = snap_big_alloc(n, 1), *m = snap_big_alloc(n, 0);
        size_t nonzero = 0;
        for (size_t i = 0; z && i < n; i++)
            nonzero += z[i] != 0;
        ok(z && m && nonzero == 0, "%zu bytes: both allocated, the zeroed one all zero", n);
        if (z && m && n) { /* every byte can be written and read back */
            memset(m, 0xa5, n);
            memcpy(z, m, n);
            ok(z[0] == 0xa5 && z[n - 1] == 0xa5 && memcmp(z, m, n) == 0,
               "%zu bytes: written and read back whole", n);
        }
        free(z);
        free(m);
    }
}

/* How many mappings of this process name the file at path. */
static int mappings_of(const char *path)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, path) != NULL;
    if (f)
        fclose(f);
    return n;
}

/* A base "file" of 3 * SNAP_COW_MIN patterned bytes mapped as a snapshot
 * file is; a column joined from its middle, then grown past its room. */
static void test_cow_realloc(void)
{
    char path[sizeof tmpdir + 16];
    snprintf(path, sizeof path, "%s/cow.bin", tmpdir);
    size_t len = 3 * SNAP_COW_MIN, off = SNAP_COW_MIN / 2 + 100, keep = SNAP_COW_MIN + 7;
    unsigned char *pat = malloc(len);
    for (size_t i = 0; pat && i < len; i++)
        pat[i] = (unsigned char)(i * 7 + i / 251);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    int bad = !pat || fd < 0 || write(fd, pat, len) != (ssize_t)len;
    snapshot *old = calloc(1, sizeof *old), *sn = calloc(1, sizeof *sn);
    bad = bad || !old || !sn;
    if (!bad) {
        old->map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
        old->map_len = len;
        old->map_fd = fd;
        bad = old->map == MAP_FAILED;
    }
    unsigned char *p =
        bad ? NULL : snap_cow_join(sn, old, (const char *)old->map + off, keep, keep + 4096);
    ok(p && sn->n_cow == 1 && mappings_of(path) == 2 && memcmp(p, pat + off, keep) == 0 &&
           p[keep] == 0 && p[keep + 4095] == 0,
       "a column joined over the mapped base: the file mapped once more, its bytes, then zeros");
    unsigned char *q = p ? snap_big_realloc(sn, p, keep + 4096, 4 * keep) : NULL;
    if (q)
        memset(q + keep, 0x5a, 3 * keep); /* all of it is writable */
    ok(q && q != p && mappings_of(path) == 1 && memcmp(q, pat + off, keep) == 0 &&
           q[4 * keep - 1] == 0x5a,
       "grown past its room: moved into memory of its own with every byte, the mapping let go of");
    unsigned char *r = q ? snap_big_realloc(sn, q, 4 * keep, 8 * keep) : NULL;
    ok(r && memcmp(r, pat + off, keep) == 0 && r[4 * keep - 1] == 0x5a,
       "grown again: a plain realloc, the bytes kept");
    snap_big_free(sn, r ? r : q);
    if (old && old->map && old->map != MAP_FAILED)
        munmap(old->map, len);
    if (fd >= 0)
        close(fd);
    free(sn ? sn->cow : NULL);
    free(sn);
    free(old);
    free(pat);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory\n");
        return 1;
    }
    test_edges("edges-small.db", 300);
    test_edges("edges.db", 2000);
    test_edges_extend();
    test_durations();
    test_big_alloc();
    test_cow_realloc();
    remove_tmpdir();
    return done_testing();
}
