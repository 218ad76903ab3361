/* snapfile.c - the snapshot kept in a file that every process maps instead
 * of loading the tables again.
 *
 * The file holds a snapshot's arrays (engine_int.h) as they are in memory,
 * each in a section aligned to 64 bytes, after a header that says what they
 * were made from: the store's id and generation, its schema and the profile
 * (store_cache_key). A process maps the file only when all of that is what
 * its read transaction sees; else it loads the tables, as without a file,
 * and writes a new one into FILE.tmp (locked, so one writer at a time) and
 * renames it over FILE, so a reader sees the old file or the new one, never
 * half of one. Before anything in a mapped file is used, the header and
 * every section but the int8 codes and bm25's posting lists (each checked
 * against its own hash, postings.c) are checksummed (a code out of place
 * changes an estimate, never an address) and every index is checked to be
 * in range: once per file, not per process. A process that found the file
 * sound writes FILE.seal, which names the file as it was checked (device,
 * inode, size, change time, sums); a later process whose file still
 * matches its seal checks only the header. Every write to the file, a
 * truncate, a copy over it or a rename onto it moves its change time,
 * which no process can set back, so a file that matches its seal is the
 * file that was checked. A file changed less than SEAL_AGE seconds before
 * it was opened is not sealed: a change in the same tick of the clock
 * would keep the change time.
 *
 * Where: beside the store (PATH.snap, PATH.HHHHHHHH.snap for a profile but
 * the default) when the store file and its folder are writable by the
 * user (however the store was opened); else in the
 * user's cache ($XDG_CACHE_HOME/memscope, ~/.cache/memscope). Profiles of
 * fewer than SNAPFILE_MIN memories are loaded as before. MEMSCOPE_SNAPSHOT
 * "off" never uses a file, "always" at any size. */
#include "engine_int.h"
#include "store/base/mono.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SNAPFILE_MIN 10000 /* memories: below this the tables load in a few ms */
#define SNAP_MAGIC "MSSNAP\r\n"
/* 9: the time marks (S_MARKS) also hold the memories that say something
 * was just done (temporal_says_just_done); a file of 8 has them without.
 * 10: the header keeps the store's counts (health) */
#define SNAP_FORMAT 10
#define SNAP_ENDIAN 0x01020304u
#define SNAP_HEAD 4096 /* bytes of header; the sections follow */
#define SNAP_ALIGN 64
/* At this offset in the header page, outside the checksummed header: the
 * generation of the snapshot this file's was extended from (snapgrow.c), 0
 * when it was read from the tables whole. Informational: nothing trusts it. */
#define SNAP_GROWN_AT (SNAP_HEAD - 8)
#define SEAL_MAGIC "MSSEAL\r\n"
#define SEAL_AGE 2 /* seconds: a file changed more recently is checked but not sealed */

enum snap_sec {
    S_RID,
    S_RID_INDEX,
    S_WHEN,
    S_CREATED,
    S_SESSION,
    S_SPEAKER,
    S_PINNED,
    S_TRUST,
    S_CONFIDENCE,
    S_SUP_IDX,
    S_SUP_BY,
    S_SUP_OFF,
    S_SUP_TEXT,
    S_QV, /* the int8 codes: not checksummed */
    S_Q_SCALE,
    S_Q_RESID,
    S_Q_NORM,
    S_BLK_MAX,
    S_Q_SLOPE,
    S_HAS_VEC,
    S_ENT_OFF,
    S_ENT_TEXT,
    S_ENT_KIND,
    S_ENT_SPEAKER,
    S_ME_OFF,
    S_ME_ENT,
    S_EM_OFF,
    S_EM_MEM,
    S_ENT_MAP,
    S_EMBEDDER,
    S_MARKS,      /* which memories say when (temporal_marks) */
    S_DOCLEN,     /* the text index's row lengths (store_doclen_get) */
    S_POSTINGS,   /* bm25's postings: their tables (postings_build) */
    S_POST_LISTS, /* and their lists, right after: checked list by list */
    S_QX_AT,      /* each memory's exact floats by code (vectors_put_exact) */
    S_QX_N,
    S_QX_CODE,
    S_QX_VAL,
    S_ADJ_OFF, /* each memory's edges (snapshot_edges_all), or empty */
    S_ADJ,
    S_DAY, /* the memories by day (temporal_by_day), or empty */
    S_DAY_IDX,
    S_DUR, /* which memories say how long (temporal_durations), or empty */
    S_COUNT
};

typedef struct snap_head {
    char magic[8];
    uint32_t format, endian, vec_block, head_bytes;
    char uid[40];
    int64_t generation, schema;
    char profile[STORE_PROFILE_MAX + 8];
    uint64_t n, n_all, rid_base, rid_span, n_sup, n_ent, n_vec, ent_map_cap, file_bytes;
    int64_t newest, newest_created;
    int32_t dim, has_edges;
    int64_t doclen_base;
    /* store_count_some's at this generation: memories, entities, links,
       edges, vectors; counts_known 0 when they could not be read */
    int64_t counts[5];
    int32_t counts_known, zero;
    uint64_t off[S_COUNT], len[S_COUNT];
    uint64_t body_sum; /* every section but S_QV and S_POST_LISTS */
    uint64_t head_sum; /* the header before this field */
} snap_head;

_Static_assert(sizeof(snap_head) <= SNAP_HEAD, "the header fits its page");

/* FILE.seal: the file as it was when a process checked it whole. No sum of
 * its own: a torn or stale seal does not match the file's fields. */
typedef struct snap_seal {
    char magic[8];
    uint32_t format, zero;
    uint64_t dev, ino, size;
    int64_t ctime_s, ctime_ns;
    uint64_t head_sum, body_sum; /* the header's */
} snap_seal;

/* ---- checksums -------------------------------------------------------------- */

/* A 64-bit hash of p[0..n) in four lanes (fast enough for a hundred MB). */
static uint64_t snap_hash(const void *p, size_t n, uint64_t seed)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t h[4] = {seed ^ k, seed + k, seed * 3 + 1, ~seed};
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int l = 0; l < 4; l++) {
            uint64_t w;
            memcpy(&w, b + i + 8 * l, 8);
            h[l] = (h[l] ^ w) * k;
            h[l] ^= h[l] >> 29;
        }
    uint64_t r = n;
    for (int l = 0; l < 4; l++)
        r = (r ^ h[l]) * k + (uint64_t)l;
    for (; i < n; i++)
        r = (r ^ b[i]) * 0x100000001b3ull;
    return r ^ (r >> 31);
}

static uint64_t head_sum(const snap_head *h)
{
    return snap_hash(h, offsetof(snap_head, head_sum), 7);
}

/* ---- where the file is --------------------------------------------------- */

static uint64_t fnv64(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static int dir_writable(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    return access(dir, W_OK) == 0;
}

/* The user's cache folder for snapshot files into buf (made 0700 when
 * missing); -1 when there is none. */
static int cache_dir(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, cap, "%s/memscope", xdg);
    else if (home && home[0] == '/')
        n = snprintf(buf, cap, "%s/.cache/memscope", home);
    else
        return -1;
    if (n < 0 || (size_t)n >= cap)
        return -1;
    char *slash = strrchr(buf, '/');
    *slash = '\0';
    mkdir(buf, 0700); /* ~/.cache; EEXIST is fine */
    *slash = '/';
    if (mkdir(buf, 0700) && errno != EEXIST)
        return -1;
    return access(buf, W_OK) == 0 ? 0 : -1;
}

int snapfile_path(store *s, char *buf, size_t cap)
{
    const char *path = store_path(s), *profile = store_profile(s);
    char tag[24] = "";
    if (strcmp(profile, STORE_DEFAULT_PROFILE) != 0)
        snprintf(tag, sizeof tag, ".%08x", (unsigned)(fnv64(profile) & 0xffffffffu));
    int n;
    if (access(path, W_OK) == 0 && dir_writable(path)) { /* recall opens stores read-only */
        n = snprintf(buf, cap, "%s%s.snap", path, tag);
    } else {
        char dir[PATH_MAX], real[PATH_MAX];
        if (cache_dir(dir, sizeof dir) || !realpath(path, real))
            return -1;
        const char *base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
        n = snprintf(buf, cap, "%s/%016llx-%.64s%s.snap", dir, (unsigned long long)fnv64(real),
                     base, tag);
    }
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* ---- the sections of a snapshot ------------------------------------------- */

static size_t blocks_of(size_t n)
{
    return (n + VEC_BLOCK - 1) / VEC_BLOCK;
}

/* Strings as offsets and text: off[k] is where string k starts, off[n] the
 * length of text. */
typedef struct flat {
    uint32_t *off;
    char *text;
    size_t len;
} flat;

/* What the file keeps beyond the snapshot's arrays. */
typedef struct snap_more {
    flat sup, ent;         /* sup_text and ent_norm */
    const uint8_t *marks;  /* [n] or NULL */
    const int32_t *doclen; /* [doclen_span] or NULL */
    int64_t doclen_base;
    size_t doclen_span;
    const char *post; /* [post_len] or NULL: the tables, then the lists from post_lists */
    size_t post_len, post_lists;
    const uint32_t *adj_off; /* [n + 1] or NULL */
    const snap_edge *adj;    /* [n_adj] */
    size_t n_adj;
    const int64_t *day; /* [n] or NULL */
    const uint32_t *day_idx;
    const uint8_t *dur; /* [n] or NULL */
    store_counts counts;
    int counts_known;
} snap_more;

static int flatten(char *const *v, size_t n, flat *f)
{
    f->off = malloc((n + 1) * sizeof *f->off);
    f->len = 0;
    for (size_t k = 0; f->off && k < n; k++)
        f->len += strlen(v[k]) + 1;
    f->text = malloc(f->len + 1);
    if (!f->off || !f->text || f->len > UINT32_MAX)
        return -1;
    size_t at = 0;
    for (size_t k = 0; k < n; k++) {
        f->off[k] = (uint32_t)at;
        size_t l = strlen(v[k]) + 1;
        memcpy(f->text + at, v[k], l);
        at += l;
    }
    f->off[n] = (uint32_t)at;
    return 0;
}

/* What each section of sn holds, with the flattened strings. */
static void sections_of(const snapshot *sn, const snap_more *x, const void *p[S_COUNT],
                        uint64_t len[S_COUNT])
{
    const flat *sup = &x->sup, *ent = &x->ent;
    size_t n = sn->n, blocks = sn->dim ? blocks_of(n) : 0;
    const void *ptr[S_COUNT] = {
        [S_RID] = sn->rid,
        [S_RID_INDEX] = sn->rid_index,
        [S_WHEN] = sn->when,
        [S_CREATED] = sn->created,
        [S_SESSION] = sn->session,
        [S_SPEAKER] = sn->speaker_ent,
        [S_PINNED] = sn->pinned,
        [S_TRUST] = sn->trust,
        [S_CONFIDENCE] = sn->confidence,
        [S_SUP_IDX] = sn->sup_idx,
        [S_SUP_BY] = sn->sup_by,
        [S_SUP_OFF] = sup->off,
        [S_SUP_TEXT] = sup->text,
        [S_QV] = sn->qv,
        [S_Q_SCALE] = sn->q_scale,
        [S_Q_RESID] = sn->q_resid,
        [S_Q_NORM] = sn->q_norm,
        [S_BLK_MAX] = sn->blk_max,
        [S_Q_SLOPE] = sn->q_slope,
        [S_HAS_VEC] = sn->has_vec,
        [S_ENT_OFF] = ent->off,
        [S_ENT_TEXT] = ent->text,
        [S_ENT_KIND] = sn->ent_kind,
        [S_ENT_SPEAKER] = sn->ent_speaker,
        [S_ME_OFF] = sn->me_off,
        [S_ME_ENT] = sn->me_ent,
        [S_EM_OFF] = sn->em_off,
        [S_EM_MEM] = sn->em_mem,
        [S_ENT_MAP] = sn->ent_map,
        [S_EMBEDDER] = sn->vec_embedder,
        [S_MARKS] = x->marks,
        [S_DOCLEN] = x->doclen,
        [S_POSTINGS] = x->post,
        [S_POST_LISTS] = x->post ? x->post + x->post_lists : NULL,
        [S_QX_AT] = sn->qx_at,
        [S_QX_N] = sn->qx_n,
        [S_QX_CODE] = sn->qx_code,
        [S_QX_VAL] = sn->qx_val,
        [S_ADJ_OFF] = x->adj_off,
        [S_ADJ] = x->adj,
        [S_DAY] = x->day,
        [S_DAY_IDX] = x->day_idx,
        [S_DUR] = x->dur,
    };
    uint64_t l[S_COUNT] = {
        [S_RID] = n * 8,
        [S_RID_INDEX] = sn->rid_index ? sn->rid_span * 4 : 0,
        [S_WHEN] = n * 8,
        [S_CREATED] = n * 8,
        [S_SESSION] = n * 4,
        [S_SPEAKER] = n * 4,
        [S_PINNED] = n,
        [S_TRUST] = n * 8,
        [S_CONFIDENCE] = n * 8,
        [S_SUP_IDX] = sn->n_sup * 4,
        [S_SUP_BY] = sn->n_sup,
        [S_SUP_OFF] = (sn->n_sup + 1) * 4,
        [S_SUP_TEXT] = sup->len,
        [S_QV] = blocks * (uint64_t)sn->dim * VEC_BLOCK,
        [S_Q_SCALE] = sn->dim ? n * 8 : 0,
        [S_Q_RESID] = sn->dim ? n * 8 : 0,
        [S_Q_NORM] = sn->dim ? n * 8 : 0,
        [S_BLK_MAX] = blocks * 3 * 8,
        [S_Q_SLOPE] = sn->dim ? n : 0,
        [S_HAS_VEC] = n,
        [S_ENT_OFF] = (sn->n_ent + 1) * 4,
        [S_ENT_TEXT] = ent->len,
        [S_ENT_KIND] = sn->n_ent,
        [S_ENT_SPEAKER] = sn->n_ent,
        [S_ME_OFF] = (n + 1) * 4,
        [S_ME_ENT] = (uint64_t)sn->me_off[n] * 4,
        [S_EM_OFF] = (sn->n_ent + 1) * 4,
        [S_EM_MEM] = (uint64_t)sn->em_off[sn->n_ent] * 4,
        [S_ENT_MAP] = sn->ent_map_cap * 4,
        [S_EMBEDDER] = sn->vec_embedder ? strlen(sn->vec_embedder) + 1 : 0,
        [S_MARKS] = x->marks ? n : 0,
        [S_DOCLEN] = x->doclen ? x->doclen_span * 4 : 0,
        [S_POSTINGS] = x->post ? x->post_lists : 0,
        [S_POST_LISTS] = x->post ? x->post_len - x->post_lists : 0,
        [S_QX_AT] = sn->dim ? n * 4 : 0,
        [S_QX_N] = sn->dim ? n : 0,
        [S_QX_CODE] = sn->n_qx,
        [S_QX_VAL] = sn->n_qx * 4,
        [S_ADJ_OFF] = x->adj_off ? (n + 1) * 4 : 0,
        [S_ADJ] = x->adj_off ? x->n_adj * sizeof(snap_edge) : 0,
        [S_DAY] = x->day ? n * 8 : 0,
        [S_DAY_IDX] = x->day ? n * 4 : 0,
        [S_DUR] = x->dur ? n : 0,
    };
    memcpy(p, ptr, sizeof ptr);
    memcpy(len, l, sizeof l);
}

/* ---- writing ------------------------------------------------------------ */

static int write_all(int fd, const void *p, size_t n)
{
    const char *b = p;
    while (n) {
        ssize_t w = write(fd, b, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The header of sn's file under key, with the section offsets. */
static void head_of(const snapshot *sn, const store_key *key, const snap_more *x,
                    const uint64_t len[S_COUNT], snap_head *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, SNAP_MAGIC, 8);
    h->format = SNAP_FORMAT;
    h->endian = SNAP_ENDIAN;
    h->vec_block = VEC_BLOCK;
    h->head_bytes = SNAP_HEAD;
    memcpy(h->uid, key->uid, sizeof key->uid);
    h->generation = key->generation;
    h->schema = key->schema;
    snprintf(h->profile, sizeof h->profile, "%s", sn->profile);
    h->n = sn->n;
    h->n_all = (uint64_t)sn->n_all;
    h->rid_base = (uint64_t)sn->rid_base;
    h->rid_span = sn->rid_index ? sn->rid_span : 0;
    h->n_sup = sn->n_sup;
    h->n_ent = sn->n_ent;
    h->n_vec = sn->n_vec;
    h->ent_map_cap = sn->ent_map_cap;
    h->newest = sn->newest;
    h->newest_created = sn->newest_created;
    h->dim = sn->dim;
    h->has_edges = sn->has_edges;
    h->doclen_base = x->doclen_base;
    if (x->counts_known) {
        const store_counts *c = &x->counts;
        int64_t v[5] = {c->memories, c->entities, c->links, c->edges, c->vectors};
        memcpy(h->counts, v, sizeof v);
        h->counts_known = 1;
    }
    uint64_t at = SNAP_HEAD;
    for (int k = 0; k < S_COUNT; k++) {
        h->off[k] = at;
        h->len[k] = len[k];
        at += (len[k] + SNAP_ALIGN - 1) / SNAP_ALIGN * SNAP_ALIGN;
    }
    h->file_bytes = at;
}

/* The sections and the header into fd. */
static int write_body(int fd, const snapshot *sn, const store_key *key, snap_more *x)
{
    int bad =
        flatten(sn->sup_text, sn->n_sup, &x->sup) || flatten(sn->ent_norm, sn->n_ent, &x->ent);
    const void *p[S_COUNT];
    uint64_t len[S_COUNT];
    snap_head h;
    if (!bad) {
        sections_of(sn, x, p, len);
        head_of(sn, key, x, len, &h);
    }
    static const char zero[SNAP_HEAD];
    bad = bad || write_all(fd, zero, SNAP_HEAD);
    for (int k = 0; !bad && k < S_COUNT; k++) {
        size_t pad = (size_t)(h.off[k] + len[k] + SNAP_ALIGN - 1) / SNAP_ALIGN * SNAP_ALIGN -
                     (size_t)(h.off[k] + len[k]);
        if (k != S_QV && k != S_POST_LISTS)
            h.body_sum = snap_hash(p[k], len[k], h.body_sum + (uint64_t)k);
        bad = (len[k] && write_all(fd, p[k], len[k])) || write_all(fd, zero, pad);
    }
    if (bad)
        return -1;
    h.head_sum = head_sum(&h);
    int64_t grown = sn->grown_from;
    return pwrite(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
                   pwrite(fd, &grown, sizeof grown, SNAP_GROWN_AT) == (ssize_t)sizeof grown
               ? 0
               : -1;
}

/* FILE.tmp, opened and locked by this process alone; -1 when another is
 * writing it (or it cannot be made). */
static int open_tmp(const char *tmp)
{
    int fd = open(tmp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    struct stat a, b;
    if (flock(fd, LOCK_EX | LOCK_NB) || fstat(fd, &a) || stat(tmp, &b) || a.st_ino != b.st_ino ||
        a.st_dev != b.st_dev || ftruncate(fd, 0)) {
        close(fd); /* locked, or renamed by the writer we waited for */
        return -1;
    }
    return fd;
}

static snapshot *map_file(store *s, const store_key *key, int as_base, int64_t *generation,
                          char *note, size_t cap);

/* The file grown sn grew from, when it is still there (a base of key), or
 * NULL: bm25's postings and the durations are extended from it. */
static snapshot *grown_base(store *s, const snapshot *sn, const store_key *key)
{
    char note[PATH_MAX + 128];
    return sn->grown_from ? map_file(s, key, 1, NULL, note, sizeof note) : NULL;
}

/* How many of sn's first memories are base's, in order (0 when base is
 * NULL or they are not). */
static size_t base_rows(const snapshot *base, const snapshot *sn)
{
    return base && base->n <= sn->n && memcmp(base->rid, sn->rid, base->n * sizeof *sn->rid) == 0
               ? base->n
               : 0;
}

void snapfile_save(store *s, const snapshot *sn, const store_key *key)
{
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    if (snapfile_path(s, path, sizeof path))
        return;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open_tmp(tmp);
    if (fd < 0)
        return;
    snap_more x = {0};
    if (store_doclen_get(s, &x.doclen, &x.doclen_base, &x.doclen_span))
        x.doclen = NULL;
    /* what `memscope health` counts, kept for the processes that map the
       file (at 1M 0.4 s of SQL, most of it the derived edges): this
       transaction is at the file's generation (save_snapshot) */
    x.counts_known = store_count_some(s, 0, &x.counts, NULL) == MS_OK;
    snapshot *base = grown_base(s, sn, key);
    size_t old = base_rows(base, sn);
    uint8_t *marks = NULL; /* a grown file's: its base's, and the new memories' */
    size_t marks_old = base && base->marks_file ? old : 0;
    if (!temporal_marks(s, sn, marks_old ? base->marks_file : NULL, marks_old, &marks, NULL))
        x.marks = marks;
    /* the edges first: their gathering is let go of before the postings are built */
    uint32_t *adj_off = NULL;
    snap_edge *adj = NULL;
    long long n_adj = -1;
    if (sn->has_edges && old)
        n_adj = snapshot_edges_extend(s, sn, base, old, &adj_off, &adj);
    if (sn->has_edges && n_adj < 0)
        n_adj = snapshot_edges_all(s, sn, &adj_off, &adj);
    if (n_adj >= 0) {
        x.adj_off = adj_off;
        x.adj = adj;
        x.n_adj = (size_t)n_adj;
    }
    uint8_t *dur = NULL;
    size_t dur_old = base && base->dur_file ? old : 0;
    if (temporal_durations(s, sn, dur_old ? base->dur_file : NULL, dur_old, &dur) == 0)
        x.dur = dur;
    void *post = base && base->post
                     ? postings_extend(s, sn, base->post, base->file_len, base->file_len_base,
                                       base->file_len_span, &x.post_len, &x.post_lists)
                     : NULL;
    snapshot_free(base);
    if (!post)
        post = postings_build(s, sn, &x.post_len, &x.post_lists);
    x.post = post;
    int64_t *day = NULL;
    uint32_t *day_idx = NULL;
    if (temporal_by_day(sn, &day, &day_idx) == 0) {
        x.day = day;
        x.day_idx = day_idx;
    }
    if (write_body(fd, sn, key, &x) || fsync(fd) || rename(tmp, path))
        unlink(tmp);
    else /* on disk now: drop the pages write() cached in pieces of any
          * size, for the next reader to read them in 2 MB ones (map_huge) */
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    free(marks);
    free(post);
    free(adj_off);
    free(adj);
    free(day);
    free(day_idx);
    free(dur);
    free(x.sup.off);
    free(x.sup.text);
    free(x.ent.off);
    free(x.ent.text);
}

/* The file mapped read-only, its pages to be read into the page cache in
 * 2 MB folios where the kernel can (MADV_HUGEPAGE; Linux maps a file this
 * large 2 MB aligned): a process then maps 2 MB with one page fault, where
 * smaller folios cost a fault for each 64 KB or so and, on a virtual
 * machine, a trap to the host for each 4 KB page first touched
 * (docs/PERFORMANCE.md, item 73). Only pages not yet in the page cache are
 * read so, which is why snapfile_save drops the file's pages after writing
 * it. The advice failing changes nothing else. MAP_FAILED when mmap fails. */
static void *map_huge(int fd, size_t len)
{
    void *base = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
#ifdef MADV_HUGEPAGE
    if (base != MAP_FAILED)
        (void)madvise(base, len, MADV_HUGEPAGE);
#endif
    return base;
}

/* ---- the seal -------------------------------------------------------------- */

static void seal_of(const struct stat *st, const snap_head *h, snap_seal *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->magic, SEAL_MAGIC, 8);
    out->format = SNAP_FORMAT;
    out->dev = (uint64_t)st->st_dev;
    out->ino = (uint64_t)st->st_ino;
    out->size = (uint64_t)st->st_size;
    out->ctime_s = (int64_t)st->st_ctim.tv_sec;
    out->ctime_ns = (int64_t)st->st_ctim.tv_nsec;
    out->head_sum = h->head_sum;
    out->body_sum = h->body_sum;
}

/* Does path.seal say that the file st describes, with header h, was
 * checked whole? */
static int seal_holds(const char *path, const struct stat *st, const snap_head *h)
{
    char name[PATH_MAX + 8];
    snprintf(name, sizeof name, "%s.seal", path);
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    snap_seal want, got;
    seal_of(st, h, &want);
    int same = pread(fd, &got, sizeof got, 0) == (ssize_t)sizeof got &&
               memcmp(&want, &got, sizeof got) == 0;
    close(fd);
    return same;
}

/* Seal the file st describes (checked whole, sound) when it is still at
 * path: written into path.seal.tmp and renamed, like the file. */
static void seal_write(const char *path, const struct stat *st, const snap_head *h)
{
    char name[PATH_MAX + 8], tmp[PATH_MAX + 16];
    struct stat now;
    if (stat(path, &now) || now.st_ino != st->st_ino || now.st_dev != st->st_dev)
        return; /* replaced since: its own reader seals the new one */
    snprintf(name, sizeof name, "%s.seal", path);
    snprintf(tmp, sizeof tmp, "%s.tmp", name);
    int fd = open_tmp(tmp);
    if (fd < 0)
        return;
    snap_seal seal;
    seal_of(st, h, &seal);
    if (write_all(fd, &seal, sizeof seal) || rename(tmp, name))
        unlink(tmp);
    close(fd);
}

/* Was the file st describes last changed at least SEAL_AGE seconds ago? */
static int seal_old_enough(const struct stat *st)
{
    struct timespec now;
    return clock_gettime(CLOCK_REALTIME, &now) == 0 && now.tv_sec - st->st_ctim.tv_sec >= SEAL_AGE;
}

/* ---- reading -------------------------------------------------------------- */

/* Does the header describe a whole file of this format, made under key for
 * profile (or, as a base, under an older key of the store since which it
 * only appended)? *why says what is wrong when not. */
static int head_ok(const snap_head *h, uint64_t size, const store_key *key, const char *profile,
                   int base, const char **why)
{
    *why = "not a memscope snapshot file";
    if (memcmp(h->magic, SNAP_MAGIC, 8) != 0)
        return 0;
    *why = "made by another version of memscope";
    if (h->format != SNAP_FORMAT || h->endian != SNAP_ENDIAN || h->vec_block != VEC_BLOCK ||
        h->head_bytes != SNAP_HEAD)
        return 0;
    *why = "damaged (its header does not add up)";
    if (h->head_sum != head_sum(h) || h->file_bytes != size || h->dim < 0 ||
        h->dim > STORE_DIM_MAX || h->n == 0 || h->n > UINT32_MAX || h->n_ent > UINT32_MAX)
        return 0;
    for (int k = 0; k < S_COUNT; k++)
        if (h->off[k] % SNAP_ALIGN || h->off[k] > size || h->len[k] > size - h->off[k])
            return 0;
    *why = "made for another store";
    if (memcmp(h->uid, key->uid, sizeof key->uid) != 0)
        return 0;
    *why = NULL; /* stale: silently rebuilt */
    if (h->schema != key->schema || strncmp(h->profile, profile, sizeof h->profile) != 0)
        return 0;
    if (base)
        return h->generation < key->generation && h->generation >= key->rewritten;
    return h->generation == key->generation;
}

/* Section k of the file at base, or NULL when it is empty. */
static const void *sec(const snap_head *h, const char *base, int k)
{
    return h->len[k] ? base + h->off[k] : NULL;
}

/* Point sn's edges and days into the mapped file at base when it has them
 * (each may be empty); -1 when a length is not what the header's counts
 * make it. */
static int point_more(snapshot *sn, const snap_head *h, const char *base)
{
    if (h->len[S_ADJ_OFF]) {
        const uint32_t *off = (const uint32_t *)sec(h, base, S_ADJ_OFF);
        if (!sn->has_edges || h->len[S_ADJ_OFF] != (sn->n + 1) * 4 ||
            h->len[S_ADJ] != (uint64_t)off[sn->n] * sizeof(snap_edge))
            return -1;
        sn->adj_off = off;
        sn->adj_file = (const snap_edge *)sec(h, base, S_ADJ);
    } else if (h->len[S_ADJ]) {
        return -1;
    }
    if (h->len[S_DAY] || h->len[S_DAY_IDX]) {
        if (h->len[S_DAY] != sn->n * 8 || h->len[S_DAY_IDX] != sn->n * 4)
            return -1;
        sn->day_file = (const int64_t *)sec(h, base, S_DAY);
        sn->day_idx_file = (const uint32_t *)sec(h, base, S_DAY_IDX);
    }
    if (h->len[S_DUR] && h->len[S_DUR] != sn->n)
        return -1;
    sn->dur_file = (const uint8_t *)sec(h, base, S_DUR);
    return 0;
}

/* Point sn's arrays into the mapped file at base; -1 when a section's
 * length is not what the header's counts make it. */
static int point_into(snapshot *sn, const snap_head *h, const char *base)
{
    sn->rid = (int64_t *)sec(h, base, S_RID);
    sn->rid_index = (int32_t *)sec(h, base, S_RID_INDEX);
    sn->when = (int64_t *)sec(h, base, S_WHEN);
    sn->created = (int64_t *)sec(h, base, S_CREATED);
    sn->session = (int32_t *)sec(h, base, S_SESSION);
    sn->speaker_ent = (int32_t *)sec(h, base, S_SPEAKER);
    sn->pinned = (uint8_t *)sec(h, base, S_PINNED);
    sn->trust = (double *)sec(h, base, S_TRUST);
    sn->confidence = (double *)sec(h, base, S_CONFIDENCE);
    sn->sup_idx = (uint32_t *)sec(h, base, S_SUP_IDX);
    sn->sup_by = (uint8_t *)sec(h, base, S_SUP_BY);
    sn->qv = (int8_t *)sec(h, base, S_QV);
    sn->q_scale = (double *)sec(h, base, S_Q_SCALE);
    sn->q_resid = (double *)sec(h, base, S_Q_RESID);
    sn->q_norm = (double *)sec(h, base, S_Q_NORM);
    sn->blk_max = (double *)sec(h, base, S_BLK_MAX);
    sn->q_slope = (uint8_t *)sec(h, base, S_Q_SLOPE);
    sn->has_vec = (uint8_t *)sec(h, base, S_HAS_VEC);
    sn->ent_kind = (uint8_t *)sec(h, base, S_ENT_KIND);
    sn->ent_speaker = (uint8_t *)sec(h, base, S_ENT_SPEAKER);
    sn->me_ent = (uint32_t *)sec(h, base, S_ME_ENT);
    sn->em_mem = (uint32_t *)sec(h, base, S_EM_MEM);
    sn->ent_map = (uint32_t *)sec(h, base, S_ENT_MAP);
    if (h->len[S_ME_OFF] != (sn->n + 1) * 4 || h->len[S_EM_OFF] != (sn->n_ent + 1) * 4)
        return -1;
    sn->me_off = (uint32_t *)sec(h, base, S_ME_OFF);
    sn->em_off = (uint32_t *)sec(h, base, S_EM_OFF);
    sn->qx_at = (uint32_t *)sec(h, base, S_QX_AT);
    sn->qx_n = (uint8_t *)sec(h, base, S_QX_N);
    sn->qx_code = (int8_t *)sec(h, base, S_QX_CODE);
    sn->qx_val = (float *)sec(h, base, S_QX_VAL);
    sn->n_qx = h->len[S_QX_CODE];
    snap_more x = {.sup.len = h->len[S_SUP_TEXT], .ent.len = h->len[S_ENT_TEXT]};
    const void *p[S_COUNT];
    uint64_t len[S_COUNT];
    sections_of(sn, &x, p, len);
    for (int k = 0; k < S_COUNT; k++)
        if (k != S_EMBEDDER && k != S_MARKS && k != S_DOCLEN && k != S_POSTINGS &&
            k != S_POST_LISTS && k != S_ADJ_OFF && k != S_ADJ && k != S_DAY && k != S_DAY_IDX &&
            k != S_DUR && len[k] != h->len[k])
            return -1;
    if ((h->len[S_MARKS] && h->len[S_MARKS] != sn->n) || h->len[S_DOCLEN] % 4)
        return -1;
    sn->marks_file = (const uint8_t *)sec(h, base, S_MARKS);
    sn->doclen = (const int32_t *)sec(h, base, S_DOCLEN);
    return point_more(sn, h, base);
}

/* Do the n strings at offsets off into text of len bytes each end in it? */
static int strings_ok(const uint32_t *off, size_t n, const char *text, size_t len)
{
    if (off[0] != 0 || off[n] != len)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (off[k + 1] <= off[k] || off[k + 1] > len || text[off[k + 1] - 1] != '\0')
            return 0;
    return 1;
}

/* Strings from offsets into text of len bytes: v[k] (an array the caller
 * frees, the strings in the file); -1 when an offset or an end is wrong. */
static int strings_of(const uint32_t *off, size_t n, const char *text, size_t len, char ***v)
{
    *v = calloc(n + 1, sizeof **v);
    if (!*v || !strings_ok(off, n, text, len))
        return -1;
    for (size_t k = 0; k < n; k++)
        (*v)[k] = (char *)text + off[k];
    return 0;
}

static int offsets_ok(const uint32_t *off, size_t n, uint64_t items)
{
    if (off[0] != 0 || off[n] != items)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (off[k + 1] < off[k])
            return 0;
    return 1;
}

static int all_below(const uint32_t *v, size_t n, uint64_t lim)
{
    uint32_t bad = 0;
    for (size_t k = 0; k < n; k++)
        bad |= v[k] >= lim;
    return !bad;
}

static int ids_ok(const int32_t *v, size_t n, int64_t lim)
{
    int bad = 0;
    for (size_t k = 0; k < n; k++)
        bad |= v[k] < -1 || v[k] >= lim;
    return !bad;
}

/* Each memory's exact pairs within the file's. */
static int exact_ok(const snapshot *sn)
{
    int bad = 0;
    for (size_t i = 0; sn->qx_n && i < sn->n; i++)
        bad |= (uint64_t)sn->qx_at[i] + sn->qx_n[i] > sn->n_qx;
    return !bad;
}

/* Each memory's edges within the file's, their other ends memories. */
static int edges_ok(const snapshot *sn)
{
    if (!sn->adj_off)
        return 1;
    uint32_t bad = 0, count = sn->adj_off[sn->n];
    if (!offsets_ok(sn->adj_off, sn->n, count))
        return 0;
    for (uint32_t k = 0; k < count; k++)
        bad |= sn->adj_file[k].other >= sn->n;
    return !bad;
}

/* Every index of the mapped snapshot in range, the rids ascending. */
static int indices_ok(const snapshot *sn)
{
    size_t n = sn->n;
    for (size_t i = 1; i < n; i++)
        if (sn->rid[i] <= sn->rid[i - 1])
            return 0;
    for (size_t k = 1; k < sn->n_sup; k++)
        if (sn->sup_idx[k] <= sn->sup_idx[k - 1])
            return 0;
    return offsets_ok(sn->me_off, n, sn->me_off[n]) &&
           offsets_ok(sn->em_off, sn->n_ent, sn->em_off[sn->n_ent]) &&
           all_below(sn->me_ent, sn->me_off[n], sn->n_ent) &&
           all_below(sn->em_mem, sn->em_off[sn->n_ent], n) &&
           all_below(sn->sup_idx, sn->n_sup, n) &&
           all_below(sn->ent_map, sn->ent_map_cap, sn->n_ent + 1) &&
           (!sn->rid_index || ids_ok(sn->rid_index, sn->rid_span, (int64_t)n)) &&
           ids_ok(sn->speaker_ent, n, (int64_t)sn->n_ent) && exact_ok(sn) && edges_ok(sn) &&
           (!sn->day_idx_file || all_below(sn->day_idx_file, n, n)) &&
           (sn->ent_map_cap >= 64 && (sn->ent_map_cap & (sn->ent_map_cap - 1)) == 0);
}

static uint64_t body_sum(const snap_head *h, const char *base)
{
    uint64_t sum = 0;
    for (int k = 0; k < S_COUNT; k++)
        if (k != S_QV && k != S_POST_LISTS)
            sum = snap_hash(base + h->off[k], h->len[k], sum + (uint64_t)k);
    return sum;
}

/* The scalars of the header into sn. */
static void scalars_of(snapshot *sn, const snap_head *h)
{
    snprintf(sn->profile, sizeof sn->profile, "%.*s", STORE_PROFILE_MAX, h->profile);
    sn->n = h->n;
    sn->n_all = (int64_t)h->n_all;
    sn->rid_base = (int64_t)h->rid_base;
    sn->rid_span = h->rid_span;
    sn->n_sup = h->n_sup;
    sn->n_ent = h->n_ent;
    sn->n_vec = h->n_vec;
    sn->ent_map_cap = h->ent_map_cap;
    sn->newest = h->newest;
    sn->newest_created = h->newest_created;
    sn->dim = h->dim;
    sn->has_edges = h->has_edges;
    sn->counts_known = h->counts_known == 1;
    sn->counts =
        (store_counts){h->counts[0], h->counts[1], h->counts[2], h->counts[3], h->counts[4], 0};
    sn->stage_blk = SIZE_MAX;
}

/* What a snapshot needs beyond its arrays: the embedder's note, the cache
 * of exact vectors, the lazy parts. */
static int extras_of(snapshot *sn, store *s, const snap_head *h, const char *base)
{
    sn->s = s;
    if (!(sn->lazy = calloc(1, sizeof *sn->lazy)))
        return -1;
    if (!sn->dim)
        return 0;
    const char *id = base + h->off[S_EMBEDDER];
    if (!h->len[S_EMBEDDER] || id[h->len[S_EMBEDDER] - 1] != '\0' ||
        !(sn->vec_embedder = strdup(id)))
        return -1;
    size_t len = strlen(id) + 128;
    if ((sn->vec_note = malloc(len)))
        snprintf(sn->vec_note, len,
                 "store vectors from %s, %d-d; no query embedder for that model - see "
                 "docs/EMBEDDERS.md",
                 id, sn->dim);
    return (sn->exact = vcache_new(sn->dim, sn->n)) && sn->vec_note ? 0 : -1;
}

/* bm25's postings in the mapped file at base: their tables and every list
 * checked (once per file), or, sealed, as found sound then; NULL when they
 * do not add up. */
static postings *open_postings(const snap_head *h, const char *base, const snapshot *sn, int sealed)
{
    if (h->off[S_POST_LISTS] != h->off[S_POSTINGS] + h->len[S_POSTINGS])
        return NULL;
    const char *blob = base + h->off[S_POSTINGS];
    size_t len = h->len[S_POSTINGS] + h->len[S_POST_LISTS];
    if (sealed)
        return postings_open_sound(blob, len, sn->n, sn->n_all);
    postings *p = postings_open(blob, len, sn->n, sn->n_all);
    if (p && !postings_lists_ok(p)) {
        postings_free(p);
        p = NULL;
    }
    return p;
}

/* The snapshot in the mapped file at base, which it then owns (unmapped
 * by snapshot_free, also when this fails); why says what is wrong with it
 * when NULL. sealed: the file was checked whole before (its seal holds),
 * so its sections are not summed nor its indices checked again. */
static snapshot *snap_from(store *s, const snap_head *h, const char *base, int sealed, int lend,
                           const char **why)
{
    snapshot *sn = calloc(1, sizeof *sn);
    if (!sn)
        return NULL;
    sn->map = (void *)base;
    sn->map_len = h->file_bytes;
    sn->map_fd = -1; /* map_file gives it the file's */
    scalars_of(sn, h);
    *why = "damaged (a section is not what its header says)";
    int ok = point_into(sn, h, base) == 0;
    if (ok && !sealed && body_sum(h, base) != h->body_sum)
        ok = 0;
    if (ok && !sealed && !indices_ok(sn)) {
        *why = "damaged (an index is out of range)";
        ok = 0;
    }
    sn->ent_off_file = (const uint32_t *)(base + h->off[S_ENT_OFF]);
    sn->ent_text_file = base + h->off[S_ENT_TEXT];
    if (ok && (strings_of((const uint32_t *)(base + h->off[S_SUP_OFF]), sn->n_sup,
                          base + h->off[S_SUP_TEXT], h->len[S_SUP_TEXT], &sn->sup_text) ||
               (!sealed &&
                !strings_ok(sn->ent_off_file, sn->n_ent, sn->ent_text_file, h->len[S_ENT_TEXT])))) {
        *why = "damaged (its strings do not add up)";
        ok = 0;
    }
    if (ok && extras_of(sn, s, h, base)) {
        *why = "not loaded: out of memory";
        ok = 0;
    }
    ms_error err; /* the relations are not in the file: few, read as the tables are */
    if (ok && snapshot_load_successors(s, sn, &err)) {
        *why = "not loaded: the store's relations cannot be read";
        ok = 0;
    }
    if (ok && h->len[S_POSTINGS] && !(sn->post = open_postings(h, base, sn, sealed))) {
        *why = "damaged (its postings do not add up)";
        ok = 0;
    }
    if (!ok) {
        sn->doclen = NULL; /* not lent yet */
        snapshot_free(sn); /* unmaps */
        return NULL;
    }
    sn->file_len = sn->doclen;
    sn->file_len_base = h->doclen_base;
    sn->file_len_span = (size_t)(h->len[S_DOCLEN] / 4);
    if (sn->doclen &&
        (!lend || store_doclen_lend(s, sn->doclen, sn->file_len_base, sn->file_len_span)))
        sn->doclen = NULL; /* the store reads its own */
    sn->data_version = store_data_version(s);
    return sn;
}

void engine_remove_files(const char *path)
{
    /* the file, the one being written (snapfile_save) and their seals (seal_write) */
    static const char *const side[] = {".snap", ".snap.tmp", ".snap.seal", ".snap.seal.tmp"};
    char name[PATH_MAX + 16];
    for (size_t k = 0; k < sizeof side / sizeof *side; k++)
        if (snprintf(name, sizeof name, "%s%s", path, side[k]) < (int)sizeof name)
            unlink(name);
}

int snapfile_wanted(size_t n)
{
    const char *env = getenv("MEMSCOPE_SNAPSHOT");
    if (env && strcmp(env, "off") == 0)
        return 0;
    if (env && strcmp(env, "always") == 0)
        return n > 0;
    return n >= SNAPFILE_MIN;
}

/* The file's snapshot when head_ok says so (as_base: its base). */
static snapshot *map_file(store *s, const store_key *key, int as_base, int64_t *generation,
                          char *note, size_t cap)
{
    char path[PATH_MAX];
    note[0] = '\0';
    const char *env = getenv("MEMSCOPE_SNAPSHOT");
    if ((env && strcmp(env, "off") == 0) || snapfile_path(s, path, sizeof path))
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL; /* none yet */
    struct stat st = {0};
    snap_head h;
    const char *why = "unreadable";
    snapshot *sn = NULL;
    void *base = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= SNAP_HEAD &&
        pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
        head_ok(&h, (uint64_t)st.st_size, key, store_profile(s), as_base, &why))
        base = map_huge(fd, (size_t)st.st_size);
    else if (st.st_size < SNAP_HEAD)
        why = "damaged (cut short)";
    int sealed = 0, sealable = 0;
    if (base != MAP_FAILED) {
        sealed = seal_holds(path, &st, &h);
        sealable = !sealed && seal_old_enough(&st);          /* the clock read before the file is */
        sn = snap_from(s, &h, base, sealed, !as_base, &why); /* a base's lengths are stale */
    }
    if (sn) /* kept open: a snapshot grown from this one maps parts of it (vectors_alloc_from) */
        sn->map_fd = fd;
    else
        close(fd);
    if (sn && sealable)
        seal_write(path, &st, &h);
    if (!sn && why)
        snprintf(note, cap, "snapshot file %s is %s; the tables were read instead", path, why);
    if (sn && generation)
        *generation = h.generation;
    return sn;
}

void snapfile_seal_saved(store *s, const store_key *key)
{
    char path[PATH_MAX], note[PATH_MAX + 128];
    struct stat st;
    struct timespec now;
    if (snapfile_path(s, path, sizeof path) || stat(path, &st) ||
        clock_gettime(CLOCK_REALTIME, &now))
        return;
    long long wait_ms = ((long long)st.st_ctim.tv_sec + SEAL_AGE - now.tv_sec) * 1000 + 100;
    mono_sleep_ms(wait_ms <= (SEAL_AGE + 2) * 1000LL ? wait_ms : 0);
    if (store_read_begin(s, NULL))
        return;
    snapshot *sn = map_file(s, key, 0, NULL, note, sizeof note); /* seals it when sound */
    /* and reads every page of it once: the int8 codes, which the check
     * leaves, into the page cache too, in the 2 MB pieces map_huge asks for */
    volatile uint8_t sink = 0;
    for (size_t o = 0; sn && sn->map && o < sn->map_len; o += 4096)
        sink ^= ((const volatile uint8_t *)sn->map)[o];
    (void)sink;
    snapshot_free(sn);
    store_end(s, NULL);
}

snapshot *snapfile_open(store *s, const store_key *key, char *note, size_t cap)
{
    return map_file(s, key, 0, NULL, note, cap);
}

snapshot *snapfile_open_base(store *s, const store_key *key, int64_t *generation)
{
    char note[PATH_MAX + 128]; /* a damaged file is said when it is opened as current */
    return map_file(s, key, 1, generation, note, sizeof note);
}
