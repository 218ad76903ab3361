/* cmd_bench.c - `memscope bench`: build a synthetic store of N memories,
 * then time import, a cold open, recall (full and bm25-only), each channel
 * and the browser's key-press path over Q queries.
 *
 * The store is deterministic from the seed: dialogue turns "Speaker: ..."
 * whose words follow one Zipf law (exponent 1) over about 3000 words ranked
 * as in English (the words a dialogue is held together with first: "i",
 * "the", "and"...; then common content words; then made-up ones), recurring
 * capitalised names (entities, some of two words), pairs of speakers talking
 * in sessions of 10-40 adjacent turns, dates spread over two years
 * (2023-2024), some turns with an event time, a time expression or a quoted
 * title. It is imported twice, each in one transaction with the built-in
 * embedder attached: as a JSONL file through import_file, as `memscope
 * import` does (import_jsonl_per_s; the store is then deleted), and turn by
 * turn through store_put, the path import_file takes after parsing a line
 * (import_per_s: embedding and enrichment included, making up the turns
 * not; this store is the one measured). Both give the same store. The queries depend on the seed
 * only, not on N, so runs at different sizes answer the same questions.
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

#include "tui/cli/cli.h"
#include "engine/embed.h"
#include "engine/engine.h"
#include "store/import.h"
#include "tui/browser/view.h"

#define BENCH_T0 1672531200      /* 2023-01-01T00:00:00Z: the first session */
#define BENCH_SPAN (730 * 86400) /* two years of sessions */
#define BENCH_NOW 1735689600     /* 2025-01-01T00:00:00Z: "now" for the queries */
#define BENCH_WORDS 3000         /* content vocabulary */
#define BENCH_NAMES 400          /* recurring names (entities) */
#define BENCH_PAIRS 30           /* pairs of speakers who talk */
#define BENCH_COLS 120           /* the browser's screen for browser_ms */
#define BENCH_ROWS 40

enum { OPT_JSON = OPT_FIRST_OWN, OPT_MEMORIES, OPT_QUERIES, OPT_SEED, OPT_KEEP, OPT_LIST };

/* ---- randomness ---------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

/* splitmix64: the same sequence from the same seed on every machine. */
static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [lo, hi]. */
static int rng_int(rng *r, int lo, int hi)
{
    return lo + (int)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Zipf over ranks 0..n-1: P(r) proportional to 1 / (r + 1)^s. */
typedef struct zipf {
    double *cum;
    int n;
} zipf;

static int zipf_init(zipf *z, int n, double s)
{
    z->n = n;
    z->cum = malloc((size_t)n * sizeof *z->cum);
    if (!z->cum)
        return -1;
    double t = 0;
    for (int i = 0; i < n; i++)
        z->cum[i] = (t += 1.0 / pow(i + 1, s));
    return 0;
}

static int zipf_draw(const zipf *z, rng *r)
{
    double u = rng_unit(r) * z->cum[z->n - 1];
    int lo = 0, hi = z->n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (z->cum[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- the world: words, names, speakers ------------------------------------ */

/* Content words people talk about, most frequent first; made-up words
 * follow them in the vocabulary. */
static const char *const common_words[] = {
    "time",        "day",        "work",      "trip",      "friends",   "family",       "dinner",
    "weekend",     "home",       "kids",      "book",      "movie",     "garden",       "dog",
    "job",         "school",     "class",     "music",     "party",     "food",         "walk",
    "park",        "coffee",     "city",      "house",     "car",       "beach",        "photo",
    "cake",        "game",       "project",   "sister",    "brother",   "mom",          "dad",
    "birthday",    "gift",       "concert",   "painting",  "hike",      "camping",      "recipe",
    "guitar",      "piano",      "team",      "match",     "marathon",  "yoga",         "workshop",
    "pottery",     "camera",     "trail",     "lake",      "mountain",  "tea",          "bakery",
    "restaurant",  "pizza",      "soup",      "festival",  "parade",    "volunteer",    "shelter",
    "charity",     "adoption",   "baby",      "doctor",    "therapy",   "meditation",   "journal",
    "poem",        "novel",      "story",     "podcast",   "song",      "album",        "band",
    "lesson",      "sculpture",  "exhibit",   "gallery",   "flight",    "hotel",        "vacation",
    "island",      "ocean",      "sunset",    "storm",     "snow",      "flowers",      "tomatoes",
    "bike",        "kayak",      "fishing",   "tent",      "campfire",  "stars",        "telescope",
    "chess",       "puzzle",     "library",   "course",    "degree",    "exam",         "thesis",
    "promotion",   "office",     "meeting",   "colleague", "client",    "presentation", "deadline",
    "budget",      "market",     "dress",     "shoes",     "jacket",    "necklace",     "ring",
    "neighbour",   "landlord",   "plants",    "bird",      "horse",     "farm",         "bread",
    "wine",        "salad",      "train",     "bus",       "bridge",    "river",        "forest",
    "museum",      "theatre",    "dance",     "swimming",  "tennis",    "football",     "running",
    "cooking",     "baking",     "knitting",  "drawing",   "writing",   "reading",      "singing",
    "choir",       "church",     "community", "mentor",    "interview", "apartment",    "wedding",
    "anniversary", "graduation", "holiday",   "passport",
};

/* Words a dialogue is held together with (many are stop words). */
static const char *const glue_words[] = {
    "i",    "the",   "and",    "to",    "a",     "was",   "it",    "we",    "my",   "so",
    "that", "you",   "really", "just",  "with",  "for",   "of",    "on",    "in",   "had",
    "have", "is",    "this",   "went",  "got",   "be",    "about", "at",    "but",  "like",
    "too",  "all",   "after",  "been",  "did",   "do",    "think", "know",  "love", "great",
    "nice", "new",   "some",   "much",  "what",  "how",   "our",   "took",  "made", "saw",
    "felt", "tried", "found",  "loved", "start", "again", "still", "maybe", "fun",  "amazing",
};

static const char *const speaker_names[] = {
    "Ana",  "Ben",  "Carla", "Dev",   "Elena", "Farid", "Greta", "Hugo", "Iris",  "Jonas",
    "Kira", "Liam", "Maya",  "Nico",  "Olga",  "Pablo", "Quinn", "Rosa", "Sami",  "Tara",
    "Umar", "Vera", "Wes",   "Xenia", "Yusuf", "Zoe",   "Amir",  "Bea",  "Caleb", "Dina",
    "Emil", "Fay",  "Gil",   "Hana",  "Ivo",   "Jade",  "Kofi",  "Lena", "Milo",  "Nora",
};
#define N_SPEAKERS ((int)(sizeof speaker_names / sizeof *speaker_names))

static const char *const time_phrases[] = {
    "yesterday",   "last week",       "last month",   "two days ago", "on Monday",
    "on Saturday", "last summer",     "this morning", "in March",     "in October",
    "next week",   "a few years ago", "last weekend", "in 2023",      "last night",
};

/* Words no generated memory holds: the off-topic queries. */
static const char *const offtopic_words[] = {
    "quantum",        "chromodynamics", "submarine",      "periscope",   "volcano",   "tectonic",
    "cryptocurrency", "mitochondria",   "photosynthesis", "kilimanjaro", "saxophone", "algebra",
    "parliament",     "semiconductor",  "glacier",        "nebula",      "tariff",    "espresso",
    "hydraulic",      "thermostat",     "asteroid",       "vaccine",     "mortgage",  "plumbing",
    "satellite",      "encryption",     "compiler",       "turbine",     "dinosaur",  "penguin",
};

typedef struct world {
    char **words; /* [BENCH_WORDS] content words, rank order */
    char **names; /* [BENCH_NAMES] recurring names */
    int pair[BENCH_PAIRS][2];
    zipf zv, zw, zn, zp; /* every word, content words, names, pairs */
} world;

#define NELEM(a) ((int)(sizeof(a) / sizeof *(a)))

static char *made_up_word(int i)
{
    static const char *const onset[] = {"b",  "d",  "f",  "g",  "k",  "l", "m",  "n",
                                        "p",  "r",  "s",  "t",  "v",  "z", "br", "dr",
                                        "gr", "pl", "st", "tr", "sk", "fl"};
    static const char *const vowel[] = {"a", "e", "i", "o", "u"};
    static const char *const coda[] = {"", "n", "r", "l"};
    enum { NO = 22, NV = 5, NS = NO * NV, NC = 4 };
    /* i -> a distinct (syllable, syllable, coda) by a stride coprime to the
     * number of combinations */
    int k = (int)(((long)i * 7919L + 13) % (NS * NS * NC));
    int a = k % NS, b = (k / NS) % NS, c = k / (NS * NS);
    char buf[32];
    snprintf(buf, sizeof buf, "%s%s%s%s%s", onset[a / NV], vowel[a % NV], onset[b / NV],
             vowel[b % NV], coda[c]);
    return strdup(buf);
}

static char *made_up_name(rng *r, int i)
{
    static const char *const first[] = {
        "Al",  "Be", "Cor", "Da",   "El",  "Fen", "Gra", "Hol", "Is", "Jo",  "Ka", "Lin", "Mar",
        "Nor", "Or", "Pel", "Quin", "Ros", "Sa",  "Tor", "Ul",  "Ve", "Wyn", "Ya", "Zel"};
    static const char *const last[] = {"a",  "en", "io",   "ra",  "el",
                                       "on", "is", "ette", "and", "ic"};
    static const char *const place[] = {"Lake", "Port", "Cafe", "Mount", "Club"};
    int nf = NELEM(first), nl = NELEM(last);
    int k = i % (nf * nl), mid = i / (nf * nl);
    char buf[64];
    snprintf(buf, sizeof buf, "%s%s%s", first[k % nf], mid ? "ber" : "", last[k / nf]);
    if (rng_unit(r) < 0.15) { /* a place of two words */
        char two[80];
        snprintf(two, sizeof two, "%s %s", place[rng_int(r, 0, NELEM(place) - 1)], buf);
        return strdup(two);
    }
    return strdup(buf);
}

static void world_free(world *w)
{
    for (int i = 0; w->words && i < BENCH_WORDS; i++)
        free(w->words[i]);
    for (int i = 0; w->names && i < BENCH_NAMES; i++)
        free(w->names[i]);
    free(w->words);
    free(w->names);
    free(w->zw.cum);
    free(w->zv.cum);
    free(w->zn.cum);
    free(w->zp.cum);
}

static int world_init(world *w, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    rng r = {seed ^ 0x5eedf00dull};
    w->words = calloc(BENCH_WORDS, sizeof *w->words);
    w->names = calloc(BENCH_NAMES, sizeof *w->names);
    if (!w->words || !w->names)
        return -1;
    int nc = NELEM(common_words);
    for (int i = 0; i < BENCH_WORDS; i++)
        if (!(w->words[i] =
                  i < nc ? strdup(common_words[i]) : made_up_word(i - nc + (int)(seed % 97))))
            return -1;
    for (int i = 0; i < BENCH_NAMES; i++)
        if (!(w->names[i] = made_up_name(&r, i)))
            return -1;
    for (int p = 0; p < BENCH_PAIRS; p++) {
        w->pair[p][0] = rng_int(&r, 0, N_SPEAKERS - 1);
        do
            w->pair[p][1] = rng_int(&r, 0, N_SPEAKERS - 1);
        while (w->pair[p][1] == w->pair[p][0]);
    }
    if (zipf_init(&w->zv, NELEM(glue_words) + BENCH_WORDS, 1.0) ||
        zipf_init(&w->zw, BENCH_WORDS, 1.0) || zipf_init(&w->zn, BENCH_NAMES, 1.1) ||
        zipf_init(&w->zp, BENCH_PAIRS, 0.8))
        return -1;
    return 0;
}

/* ---- text ------------------------------------------------------------------ */

typedef struct sbuf {
    char b[2048];
    size_t n;
} sbuf;

static void put(sbuf *s, const char *t)
{
    size_t k = strlen(t);
    if (s->n + k + 1 < sizeof s->b) {
        memcpy(s->b + s->n, t, k + 1);
        s->n += k;
    }
}

/* A word with its first letter capitalised. */
static void put_cap(sbuf *s, const char *t)
{
    size_t at = s->n;
    put(s, t);
    if (at < s->n && s->b[at] >= 'a' && s->b[at] <= 'z')
        s->b[at] = (char)(s->b[at] - 32);
}

/* One sentence: glue and content words, sometimes a name or a quoted
 * title, sometimes a time expression. */
static void sentence(const world *w, rng *r, sbuf *s)
{
    int n = rng_int(r, 4, 14);
    int name_at = rng_unit(r) < 0.3 ? rng_int(r, 1, n - 1) : -1;
    for (int k = 0; k < n; k++) {
        int v = zipf_draw(&w->zv, r);
        const char *t = v < NELEM(glue_words) ? glue_words[v] : w->words[v - NELEM(glue_words)];
        if (k)
            put(s, " ");
        if (k == name_at)
            put(s, w->names[zipf_draw(&w->zn, r)]);
        else if (k == 0 || strcmp(t, "i") == 0)
            put_cap(s, t);
        else
            put(s, t);
    }
    if (rng_unit(r) < 0.02) {
        put(s, " \"");
        put_cap(s, w->words[zipf_draw(&w->zw, r)]);
        put(s, " ");
        put(s, w->words[zipf_draw(&w->zw, r)]);
        put(s, "\"");
    }
    if (rng_unit(r) < 0.12) {
        put(s, " ");
        put(s, time_phrases[rng_int(r, 0, NELEM(time_phrases) - 1)]);
    }
    double p = rng_unit(r);
    put(s, p < 0.7 ? "." : p < 0.8 ? "!" : "?");
}

/* "Speaker: sentences", sometimes addressing the other speaker. */
static void turn_text(const world *w, rng *r, const char *speaker, const char *other, sbuf *s)
{
    s->n = 0;
    s->b[0] = '\0';
    put(s, speaker);
    put(s, ": ");
    if (rng_unit(r) < 0.08) {
        put(s, other);
        put(s, ", ");
    }
    int k = rng_int(r, 1, 3);
    for (int i = 0; i < k; i++) {
        if (i)
            put(s, " ");
        sentence(w, r, s);
    }
}

/* ---- the store --------------------------------------------------------------- */

/* One generated turn, as both paths take it. */
typedef struct turn {
    char id[32], session[32], created[32], event[32]; /* event "" = none */
    const char *speaker;
    sbuf text;
    double confidence, alpha, beta, importance;
} turn;

static void make_turn(const world *w, rng *r, long i, int64_t when, const char *spk,
                      const char *other, long session, turn *t)
{
    turn_text(w, r, spk, other, &t->text);
    snprintf(t->id, sizeof t->id, "b%07ld", i);
    snprintf(t->session, sizeof t->session, "s%05ld", session);
    store_format_time(when, t->created, sizeof t->created);
    t->event[0] = '\0';
    if (rng_unit(r) < 0.15)
        store_format_time(when - rng_int(r, 0, 10) * 86400, t->event, sizeof t->event);
    t->speaker = spk;
    t->confidence = rng_int(r, 50, 100) / 100.0;
    t->alpha = rng_int(r, 1, 9);
    t->beta = rng_int(r, 1, 3);
    t->importance = rng_int(r, 1, 9) / 10.0;
}

/* The turns of a store, one at a time: n turns, in sessions of 10-40 turns
 * of one pair of speakers, in time order over two years. */
typedef struct turns {
    const world *w;
    rng r;
    long n, i, session;
    int len, k; /* turns in this session, and done */
    const int *pair;
    int64_t when;
} turns;

static void turns_init(turns *g, const world *w, uint64_t seed, long n)
{
    *g = (turns){.w = w, .r = {seed}, .n = n};
}

/* The next turn into *t; 0 when there are no more. */
static int next_turn(turns *g, turn *t)
{
    if (g->i >= g->n)
        return 0;
    if (g->k == g->len) { /* a new session */
        if (g->len)
            g->session++;
        g->len = rng_int(&g->r, 10, 40);
        g->k = 0;
        g->pair = g->w->pair[zipf_draw(&g->w->zp, &g->r)];
        g->when = BENCH_T0 + (int64_t)((double)g->i / (double)g->n * BENCH_SPAN) +
                  rng_int(&g->r, 8 * 3600, 20 * 3600);
    }
    int who = (g->k + (int)(g->session & 1)) & 1;
    make_turn(g->w, &g->r, g->i, g->when, speaker_names[g->pair[who]], speaker_names[g->pair[!who]],
              g->session, t);
    g->when += rng_int(&g->r, 20, 240);
    g->k++;
    g->i++;
    return 1;
}

/* A turn as a JSONL line of `memscope import`. */
static int write_turn(FILE *p, const turn *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", t->id);
    cJSON_AddStringToObject(o, "content", t->text.b);
    cJSON_AddStringToObject(o, "created_at", t->created);
    if (t->event[0])
        cJSON_AddStringToObject(o, "event_time", t->event);
    cJSON_AddStringToObject(o, "speaker", t->speaker);
    cJSON_AddStringToObject(o, "session", t->session);
    cJSON_AddStringToObject(o, "source", "bench");
    cJSON_AddNumberToObject(o, "memory_confidence", t->confidence);
    cJSON *tr = cJSON_AddObjectToObject(o, "trust");
    cJSON_AddNumberToObject(tr, "alpha", t->alpha);
    cJSON_AddNumberToObject(tr, "beta", t->beta);
    cJSON_AddNumberToObject(o, "importance", t->importance);
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!line)
        return -1;
    int rc = fprintf(p, "%s\n", line) < 0 ? -1 : 0;
    free(line);
    return rc;
}

static int write_jsonl(const world *w, uint64_t seed, long n, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    turns g;
    turns_init(&g, w, seed, n);
    turn t;
    int rc = 0;
    while (rc == 0 && next_turn(&g, &t))
        rc = write_turn(f, &t);
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

/* ---- queries --------------------------------------------------------------------- */

typedef struct qgen {
    const world *w;
    rng r;
} qgen;

static const char *q_word(qgen *g)
{
    return g->w->words[zipf_draw(&g->w->zw, &g->r)];
}

static const char *q_speaker(qgen *g)
{
    return speaker_names[g->w->pair[zipf_draw(&g->w->zp, &g->r)][rng_int(&g->r, 0, 1)]];
}

static void q_date(qgen *g, char *buf, size_t len)
{
    static const char *const months[] = {"January",   "February", "March",    "April",
                                         "May",       "June",     "July",     "August",
                                         "September", "October",  "November", "December"};
    int y = rng_int(&g->r, 2023, 2024), m = rng_int(&g->r, 0, 11), d = rng_int(&g->r, 1, 28);
    switch (rng_int(&g->r, 0, 2)) {
    case 0:
        snprintf(buf, len, "on %d %s %d", d, months[m], y);
        break;
    case 1:
        snprintf(buf, len, "in %s %d", months[m], y);
        break;
    default:
        snprintf(buf, len, "on %s %d", months[m], d);
    }
}

/* One query of a type drawn from the mix: general words, a date, a
 * when-question, a speaker named, a name of the store, a recency question,
 * or words the store has never seen. */
static char *make_query(qgen *g)
{
    char q[512], date[64];
    double p = rng_unit(&g->r);
    const char *a = q_word(g), *b = q_word(g), *c = q_word(g);
    if (p < 0.25) {
        snprintf(q, sizeof q, "%s %s and the %s", a, b, c);
    } else if (p < 0.40) {
        q_date(g, date, sizeof date);
        snprintf(q, sizeof q, "What did we talk about %s about the %s?", date, a);
    } else if (p < 0.55) {
        snprintf(q, sizeof q, "When did %s go to the %s?", q_speaker(g), a);
    } else if (p < 0.70) {
        snprintf(q, sizeof q, "What does %s think about the %s and %s?", q_speaker(g), a, b);
    } else if (p < 0.80) {
        snprintf(q, sizeof q, "Who is %s and what about the %s?",
                 g->w->names[zipf_draw(&g->w->zn, &g->r)], a);
    } else if (p < 0.85) {
        snprintf(q, sizeof q, "What is the latest on the %s?", a);
    } else {
        int n = NELEM(offtopic_words);
        snprintf(q, sizeof q, "%s %s %s", offtopic_words[rng_int(&g->r, 0, n - 1)],
                 offtopic_words[rng_int(&g->r, 0, n - 1)],
                 offtopic_words[rng_int(&g->r, 0, n - 1)]);
    }
    return strdup(q);
}

static char **make_queries(const world *w, uint64_t seed, int n)
{
    qgen g = {w, {seed ^ 0x9e37ull}};
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int i = 0; v && i < n; i++)
        if (!(v[i] = make_query(&g))) {
            for (int k = 0; k < i; k++)
                free(v[k]);
            free(v);
            return NULL;
        }
    return v;
}

/* ---- measuring ---------------------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

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
    const char *keep; /* keep the store here */
    int existing;     /* --db: measure this store, build none */
    char path[512];
    char **q;
    double import_s, jsonl_s, open_ms; /* store_put path, `memscope import` path */
    curve put_curve, jsonl_curve;
    double jsonl_t0; /* now_ms() when the JSONL import started */
    long long db_bytes;
    series full, bm25, browse, ch[CH_COUNT];
    const char *browse_label; /* "browser_ms" */
} bench;

static void progress(const bench *b, const char *what, long done, long total)
{
    if (b->progress && (done % 10 == 0 || done == total))
        cli_printf(stderr, "\rbench: %s %ld/%ld   ", what, done, total);
}

static void import_progress(void *ctx, const import_stats *st)
{
    bench *b = ctx;
    curve_mark(&b->jsonl_curve, (long)st->records, b->memories, now_ms() - b->jsonl_t0);
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

/* `memscope import FILE` into a scratch store at path (deleted after):
 * the seconds it took, from the first write to the closed file. */
static ms_status import_jsonl(bench *b, const char *src, const char *path, ms_error *err)
{
    store *s = NULL;
    embedder *e = NULL;
    double t0 = b->jsonl_t0 = now_ms();
    ms_status st = open_store(path, &s, &e, err);
    import_opts io = {.format = IMPORT_JSONL, .dup = STORE_DUP_ERROR};
    io.progress = import_progress; /* every 0.2 s: the curve's marks */
    io.progress_ctx = b;
    import_stats stats = {0};
    if (!st)
        st = import_file(s, src, &io, &stats, err);
    st = close_store(s, e, st, err);
    b->jsonl_s = (now_ms() - t0) / 1e3;
    cli_unlink_store(path);
    return st;
}

/* One turn through store_put, as import_file puts a parsed line. */
static ms_status put_turn(store *s, const turn *t, ms_error *err)
{
    store_memory m;
    store_memory_init(&m);
    m.id = (char *)t->id; /* borrowed: store_put frees nothing of m */
    m.content = (char *)t->text.b;
    m.created_at = (char *)t->created;
    m.event_time = t->event[0] ? (char *)t->event : NULL;
    m.speaker = (char *)t->speaker;
    m.session = (char *)t->session;
    m.source = (char *)"bench";
    m.memory_confidence = t->confidence;
    m.trust_alpha = t->alpha;
    m.trust_beta = t->beta;
    m.importance = t->importance;
    return store_put(s, &m, STORE_DUP_ERROR, NULL, err);
}

#define BENCH_CHUNK 512 /* turns made, untimed, before they are put */

/* The measured store: every turn through store_put in one transaction
 * with the built-in embedder attached (what import_file does after parsing
 * each line), timed from the first write to the closed file. Making up
 * the turns is not import: they are made BENCH_CHUNK at a time outside
 * the clock. */
static ms_status build_store(bench *b, const world *w, ms_error *err)
{
    turn *chunk = malloc(BENCH_CHUNK * sizeof *chunk);
    if (!chunk)
        return ms_fail(err, MS_NOMEM, "out of memory");
    turns g;
    turns_init(&g, w, b->seed, b->memories);
    store *s = NULL;
    embedder *e = NULL;
    double t0 = now_ms();
    ms_status st = open_store(b->path, &s, &e, err);
    double clock = now_ms() - t0;
    long done = 0;
    while (!st) {
        int n = 0;
        while (n < BENCH_CHUNK && next_turn(&g, &chunk[n]))
            n++;
        if (n == 0)
            break;
        t0 = now_ms();
        for (int k = 0; !st && k < n; k++)
            st = put_turn(s, &chunk[k], err);
        clock += now_ms() - t0;
        curve_mark(&b->put_curve, done + n, b->memories, clock);
        if ((done + n) / 10000 > done / 10000)
            progress(b, "importing", done + n, b->memories);
        done += n;
    }
    t0 = now_ms();
    st = close_store(s, e, st, err);
    b->import_s = (clock + now_ms() - t0) / 1e3;
    b->db_bytes = file_bytes(b->path);
    free(chunk);
    return st;
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
    double t0 = now_ms();
    ms_status st = engine_recall(e, &o, &r, err);
    char *json = st ? NULL : recall_json(r, 1);
    *ms = now_ms() - t0;
    free(json);
    if (out)
        *out = r;
    else
        recall_free(r);
    return st;
}

/* Close everything, then open the store and an engine and answer the first
 * query: the time to first results. */
static ms_status cold_open(bench *b, store **s, engine **e, ms_error *err)
{
    double t0 = now_ms(), ms;
    ms_status st = store_open(b->path, STORE_OPEN_NOCREATE | STORE_OPEN_READONLY, s, err);
    if (!st)
        st = engine_open(*s, NULL, e, err);
    if (!st)
        st = timed_recall(*e, b->q[0], 0, &ms, NULL, err);
    b->open_ms = now_ms() - t0;
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

/* The browser's path for one key press, headless: the query line gets the
 * query's last character, the screen is laid out (the echo), the model
 * recalls, the screen is laid out again. Everything but the debounce pause
 * and the terminal's own drawing. */
static int run_browser(bench *b, engine *e, store *s, ms_error *err)
{
    view_model vm;
    view_screen scr;
    if (view_model_init(&vm, e, s, b->path, err))
        return -1;
    view_screen_init(&scr);
    int rc = 0;
    for (int i = 0; !rc && i < b->queries; i++) {
        const char *q = b->q[i];
        size_t n = strlen(q);
        char head[512];
        snprintf(head, sizeof head, "%.*s", (int)(n ? n - 1 : 0), q);
        view_set_query(&vm, head);
        double t0 = now_ms();
        ledit_insert(&vm.query, (wchar_t)(unsigned char)q[n - 1]);
        rc = view_layout(&vm, BENCH_COLS, BENCH_ROWS, &scr);
        if (!rc)
            view_model_update(&vm);
        if (!rc)
            rc = view_layout(&vm, BENCH_COLS, BENCH_ROWS, &scr);
        b->browse.v[b->browse.n++] = now_ms() - t0;
        progress(b, "browser", i + 1, b->queries);
    }
    view_screen_free(&scr);
    view_model_free(&vm);
    if (rc)
        ms_fail(err, MS_NOMEM, "out of memory laying out the browser");
    return rc;
}

static ms_status measure(bench *b, ms_error *err)
{
    store *s = NULL;
    engine *e = NULL;
    ms_status st = cold_open(b, &s, &e, err);
    store_counts n;
    if (!st && b->existing && !(st = store_count(s, &n, err)))
        b->memories = (long)n.memories;
    if (!st)
        st = run_queries(b, e, err);
    if (!st && run_browser(b, e, s, err))
        st = err->code ? err->code : MS_NOMEM;
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
 * name_last_70_per_s: of the first three tenths and of the seven after. */
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
    }
    cJSON_AddNumberToObject(o, "db_bytes", (double)b->db_bytes);
    cJSON_AddNumberToObject(o, "rss_mb", round(peak_rss_mb() * 10) / 10);
    cJSON_AddItemToObject(o, "recall_ms", pct_json(&b->full, 1));
    cJSON_AddItemToObject(o, "bm25_only_ms", pct_json(&b->bm25, 0));
    cJSON *ch = cJSON_AddObjectToObject(o, "channels_ms");
    for (int c = 0; c < CH_COUNT; c++)
        cJSON_AddItemToObject(ch, engine_channel_name(c), pct_json(&b->ch[c], 0));
    cJSON_AddNumberToObject(o, "open_ms", r3(b->open_ms));
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
    cli_printf(stdout, "  store                  %.1f MB\n", (double)b->db_bytes / 1e6);
    cli_printf(stdout, "  cold open              %.1f ms to first results\n", b->open_ms);
    cli_printf(stdout, "  peak RSS               %.1f MB\n", peak_rss_mb());
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
    "                      [--keep PATH | --db PATH] [--list-queries]\n"
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

static int bench_run(bench *b, const world *w)
{
    char src[600], scratch[600];
    snprintf(src, sizeof src, "%s.jsonl", b->path);
    snprintf(scratch, sizeof scratch, "%s.import", b->path);
    if (write_jsonl(w, b->seed, b->memories, src)) {
        unlink(src);
        return cli_error(EXIT_RUNTIME, "cannot write %s: %s", src, strerror(errno));
    }
    ms_error err;
    ms_error_clear(&err);
    ms_status st = import_jsonl(b, src, scratch, &err);
    unlink(src);
    if (!st)
        st = build_store(b, w, &err);
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
    world w;
    if (world_init(&w, b.seed) || !(b.q = make_queries(&w, b.seed, b.queries)) ||
        alloc_series(&b)) {
        world_free(&w);
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
        status = bench_run(&b, &w);
        if (!b.keep || status)
            cli_unlink_store(b.path);
    }
    world_free(&w);
    free_bench(&b);
    return status;
}
