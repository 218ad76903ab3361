/* bench_corpus.c - the synthetic dialogue store and queries of `memscope
 * bench` (see bench_corpus.h). */
#include "tui/cli/bench_corpus.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "store/store.h"

#define BENCH_T0 1672531200      /* 2023-01-01T00:00:00Z: the first session */
#define BENCH_SPAN (730 * 86400) /* two years of sessions */
#define BENCH_WORDS 3000         /* content vocabulary */
#define BENCH_NAMES 400          /* recurring names (entities) */
#define BENCH_PAIRS 30           /* pairs of speakers who talk */

/* ---- randomness ---------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng; /* corpus_turns keeps its s */

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

struct corpus {
    char **words; /* [BENCH_WORDS] content words, rank order */
    char **names; /* [BENCH_NAMES] recurring names */
    int pair[BENCH_PAIRS][2];
    zipf zv, zw, zn, zp; /* every word, content words, names, pairs */
};
typedef struct corpus world;

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

static void world_clear(world *w)
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
    char *b;
    size_t n, cap;
} sbuf;

static void put(sbuf *s, const char *t)
{
    size_t k = strlen(t);
    if (s->n + k + 1 < s->cap) {
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

static void make_turn(const world *w, rng *r, long i, int64_t when, const char *spk,
                      const char *other, long session, corpus_turn *t)
{
    sbuf text = {t->text, 0, sizeof t->text};
    turn_text(w, r, spk, other, &text);
    t->len = text.n;
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

void corpus_turns_init(corpus_turns *g, const corpus *w, uint64_t seed, long n)
{
    *g = (corpus_turns){.w = w, .rng = seed, .n = n};
}

int corpus_next(corpus_turns *g, corpus_turn *t)
{
    if (g->i >= g->n)
        return 0;
    rng r = {g->rng};
    if (g->k == g->len) { /* a new session */
        if (g->len)
            g->session++;
        g->len = rng_int(&r, 10, 40);
        g->k = 0;
        g->pair = g->w->pair[zipf_draw(&g->w->zp, &r)];
        g->when = BENCH_T0 + (int64_t)((double)g->i / (double)g->n * BENCH_SPAN) +
                  rng_int(&r, 8 * 3600, 20 * 3600);
    }
    int who = (g->k + (int)(g->session & 1)) & 1;
    make_turn(g->w, &r, g->i, g->when, speaker_names[g->pair[who]], speaker_names[g->pair[!who]],
              g->session, t);
    g->when += rng_int(&r, 20, 240);
    g->k++;
    g->i++;
    g->rng = r.s;
    return 1;
}

/* A turn as a JSONL line of `memscope import`. */
static int write_turn(FILE *p, const corpus_turn *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", t->id);
    cJSON_AddStringToObject(o, "content", t->text);
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

int corpus_write_jsonl(const corpus *w, uint64_t seed, long n, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    corpus_turns g;
    corpus_turns_init(&g, w, seed, n);
    corpus_turn t;
    int rc = 0;
    while (rc == 0 && corpus_next(&g, &t))
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

char **corpus_queries(const corpus *w, uint64_t seed, int n)
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

corpus *corpus_new(uint64_t seed)
{
    corpus *w = malloc(sizeof *w);
    if (w && world_init(w, seed)) {
        corpus_free(w);
        return NULL;
    }
    return w;
}

void corpus_free(corpus *w)
{
    if (!w)
        return;
    world_clear(w);
    free(w);
}
