/* entity.c - entity extraction at write time.
 *
 * A memory is linked to: its speaker; capitalised names and multi-word names
 * in its text (minus a stop list of words that are capitalised only because
 * they start a sentence or are always capitalised, like "I" or "Monday");
 * quoted phrases; and any entities given with it. A single capitalised word
 * that starts a sentence is taken only when the profile already knows it as
 * an entity ("Caroline went..."), so "Thanks" or "Sounds" never become names;
 * a sentence's capitalised first word before a known name is not part of it
 * ("Asked Róisín about it" names Róisín, not "Asked Róisín"). */
#include "store_int.h"
#include "store/base/utf8.h"
#include "store/base/words.h"

#include <stdlib.h>
#include <string.h>

#define NAME_MAX_BYTES STORE_NAME_MAX_BYTES
#define NAME_MAX_WORDS 4
#define QUOTE_MAX_BYTES 60
#define QUOTE_MAX_WORDS 6

/* Capitalised words that are not names. Sorted for bsearch; lower case,
 * apostrophes as ASCII. */
static const char *const stop_words[] = {
    "a",         "about",    "absolutely", "actually",   "after",    "again",      "ah",
    "all",       "also",     "although",   "always",     "am",       "amazing",    "an",
    "and",       "another",  "any",        "anything",   "anyway",   "apr",        "april",
    "are",       "aren't",   "as",         "at",         "aug",      "august",     "aw",
    "awesome",   "aww",      "b",          "be",         "because",  "been",       "before",
    "being",     "besides",  "best",       "both",       "but",      "by",         "bye",
    "can",       "can't",    "cheers",     "cool",       "could",    "couldn't",   "d",
    "dear",      "dec",      "december",   "definitely", "did",      "didn't",     "do",
    "does",      "doesn't",  "don't",      "done",       "during",   "each",       "either",
    "enjoy",     "even",     "ever",       "every",      "everyone", "everything", "exactly",
    "excited",   "feb",      "february",   "finally",    "first",    "for",        "fri",
    "friday",    "from",     "fun",        "glad",       "go",       "good",       "got",
    "great",     "guess",    "ha",         "had",        "haha",     "hahaha",     "has",
    "have",      "haven't",  "having",     "he",         "he's",     "hello",      "her",
    "here",      "here's",   "hey",        "hi",         "him",      "his",        "hmm",
    "hope",      "how",      "how's",      "however",    "i",        "i'd",        "i'll",
    "i'm",       "i've",     "if",         "in",         "indeed",   "is",         "isn't",
    "it",        "it'd",     "it'll",      "it's",       "its",      "jan",        "january",
    "jul",       "july",     "jun",        "june",       "just",     "keep",       "kind",
    "last",      "later",    "let",        "let's",      "like",     "lol",        "look",
    "lots",      "love",     "mar",        "march",      "may",      "maybe",      "me",
    "mine",      "mon",      "monday",     "more",       "most",     "mr",         "mrs",
    "ms",        "much",     "must",       "my",         "myself",   "never",      "new",
    "next",      "nice",     "no",         "nope",       "nor",      "not",        "nothing",
    "nov",       "november", "now",        "oct",        "october",  "of",         "oh",
    "ok",        "okay",     "on",         "once",       "one",      "only",       "or",
    "other",     "our",      "ours",       "out",        "over",     "perhaps",    "please",
    "plus",      "pretty",   "probably",   "quite",      "re",       "really",     "right",
    "sat",       "saturday", "see",        "sep",        "sept",     "september",  "she",
    "she's",     "should",   "since",      "so",         "some",     "someone",    "something",
    "sometimes", "sorry",    "sounds",     "still",      "such",     "sun",        "sunday",
    "super",     "sure",     "take",       "thank",      "thanks",   "that",       "that's",
    "the",       "their",    "them",       "then",       "there",    "there's",    "these",
    "they",      "they're",  "thing",      "things",     "this",     "those",      "though",
    "thu",       "thursday", "thx",        "to",         "today",    "tomorrow",   "tonight",
    "too",       "totally",  "true",       "tue",        "tuesday",  "ugh",        "um",
    "umm",       "until",    "up",         "us",         "very",     "was",        "wasn't",
    "we",        "we'd",     "we'll",      "we're",      "we've",    "wed",        "wednesday",
    "well",      "went",     "were",       "what",       "what's",   "whatever",   "when",
    "where",     "which",    "while",      "who",        "who's",    "why",        "will",
    "wish",      "with",     "without",    "would",      "wouldn't", "wow",        "yay",
    "yeah",      "yep",      "yes",        "yesterday",  "yet",      "you",        "you'd",
    "you'll",    "you're",   "you've",     "your",       "yours",    "yup",
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int is_stop(const char *norm)
{
    return bsearch(&norm, stop_words, sizeof stop_words / sizeof *stop_words, sizeof *stop_words,
                   cmp_str) != NULL;
}

/* The code point at s, of which avail >= 1 bytes may be read, and its length
 * in *n (utf8_next: malformed or cut-short bytes are U+FFFD, one byte). */
static unsigned decode(const unsigned char *s, size_t avail, int *n)
{
    unsigned cp;
    *n = utf8_next((const char *)s, avail, &cp);
    return cp;
}

/* Lower-case match form of text[0..len): ASCII and Latin-1 upper case
 * folded, curly apostrophes made straight, runs of spaces collapsed. */
void store_entity_norm(const char *text, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    const unsigned char *s = (const unsigned char *)text;
    int space = 0;
    for (size_t i = 0; i < len && o + 4 < cap;) {
        int n;
        unsigned cp = decode(s + i, len - i, &n);
        if (cp == ' ' || cp == '\t' || cp == '\n') {
            space = o > 0;
        } else {
            if (space)
                out[o++] = ' ';
            space = 0;
            if (words_is_apostrophe(cp)) {
                out[o++] = '\'';
            } else if (cp >= 'A' && cp <= 'Z') {
                out[o++] = (char)(cp + 32);
            } else if (cp >= 0xc0 && cp <= 0xde && cp != 0xd7) {
                cp += 32;
                out[o++] = (char)(0xc0 | (cp >> 6));
                out[o++] = (char)(0x80 | (cp & 0x3f));
            } else {
                memcpy(out + o, s + i, (size_t)n);
                o += (size_t)n;
            }
        }
        i += (size_t)n;
    }
    out[o] = '\0';
}

typedef struct found {
    char name[NAME_MAX_BYTES + 1];
    int kind;  /* how it was first found: the entity's kind if it is new */
    int given; /* supplied with the memory (also when found otherwise too) */
} found;

typedef struct extraction {
    found *v;
    size_t n, cap;
} extraction;

static void add_found(extraction *x, const char *text, size_t len, int kind)
{
    if (len == 0 || len > NAME_MAX_BYTES || x->n >= x->cap)
        return;
    char norm[4 * NAME_MAX_BYTES + 8];
    store_entity_norm(text, len, norm, sizeof norm);
    if (!norm[0] || strlen(norm) > NAME_MAX_BYTES)
        return;
    for (size_t i = 0; i < x->n; i++) {
        char other[4 * NAME_MAX_BYTES + 8];
        store_entity_norm(x->v[i].name, strlen(x->v[i].name), other, sizeof other);
        if (strcmp(other, norm) == 0) {
            x->v[i].given |= kind == STORE_ENTITY_GIVEN;
            return;
        }
    }
    memcpy(x->v[x->n].name, text, len);
    x->v[x->n].name[len] = '\0';
    x->v[x->n].kind = kind;
    x->v[x->n].given = kind == STORE_ENTITY_GIVEN;
    x->n++;
}

static int word_is_stop(const char *text, const words_span *w)
{
    char norm[4 * NAME_MAX_BYTES + 8];
    if (w->end - w->start > NAME_MAX_BYTES)
        return 1;
    store_entity_norm(text + w->start, (size_t)(w->end - w->start), norm, sizeof norm);
    if (strlen(norm) < 2 || is_stop(norm))
        return 1;
    for (const char *p = norm; *p; p++)
        if (!(*p >= '0' && *p <= '9'))
            return 0;
    return 1; /* a number */
}

typedef int (*known_fn)(void *ctx, const char *text, size_t len);

/* Is text[0..len) a name already found in this memory (a given entity, the
 * speaker)? */
static int found_already(const extraction *x, const char *text, size_t len)
{
    char norm[4 * NAME_MAX_BYTES + 8], other[4 * NAME_MAX_BYTES + 8];
    store_entity_norm(text, len, norm, sizeof norm);
    for (size_t i = 0; i < x->n; i++) {
        store_entity_norm(x->v[i].name, strlen(x->v[i].name), other, sizeof other);
        if (strcmp(other, norm) == 0)
            return 1;
    }
    return 0;
}

/* Is words w[a..b) of text a name the profile or this memory knows? */
static int name_known(const char *text, const words_span *w, size_t a, size_t b, known_fn known,
                      void *kctx, const extraction *x)
{
    size_t len = (size_t)(w[b - 1].end - w[a].start);
    return known(kctx, text + w[a].start, len) || found_already(x, text + w[a].start, len);
}

/* The first word of the run w[i..j) that starts a sentence, when it is a
 * capitalised common word before a name ("Asked Róisín about it"): i + 1
 * when the name after it, or its first word, is known and neither the
 * first word nor the whole run is; else i. Nothing known keeps the run
 * whole ("Caroline Smith called"). */
static size_t name_start(const char *text, const words_span *w, size_t i, size_t j, known_fn known,
                         void *kctx, const extraction *x)
{
    if (!w[i].first || j < i + 2)
        return i;
    if (name_known(text, w, i, j, known, kctx, x) || name_known(text, w, i, i + 1, known, kctx, x))
        return i;
    if (name_known(text, w, i + 1, j, known, kctx, x) ||
        name_known(text, w, i + 1, i + 2, known, kctx, x))
        return i + 1;
    return i;
}

/* Can word k of text start or continue a name: capitalised, not a stop
 * word or a number (stop: word_is_stop of each word, worked out before,
 * or NULL)? */
static int name_word(const char *text, const words_span *w, const unsigned char *stop, size_t k)
{
    return w[k].cap && !(stop ? stop[k] : word_is_stop(text, &w[k]));
}

/* Runs of capitalised, non-stop words joined by single spaces; a single
 * word or a common first word that starts a sentence counts only as
 * name_start and the profile say. */
static void find_names(const char *text, const words_span *w, const unsigned char *stop, size_t n,
                       known_fn known, void *kctx, extraction *x)
{
    for (size_t i = 0; i < n;) {
        if (!name_word(text, w, stop, i)) {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < n && j - i < NAME_MAX_WORDS && w[j].joined && name_word(text, w, stop, j))
            j++;
        size_t a = name_start(text, w, i, j, known, kctx, x);
        size_t len = (size_t)(w[j - 1].end - w[a].start);
        int single_first = j == i + 1 && w[i].first;
        if (!single_first || known(kctx, text + w[a].start, len))
            add_found(x, text + w[a].start, len, STORE_ENTITY_NAME);
        i = j;
    }
}

/* Phrases between double quotes, straight or curly. */
static void find_quotes(const char *text, size_t len, extraction *x)
{
    for (size_t i = 0; i < len; i++) {
        size_t open_len = 0;
        if (text[i] == '"')
            open_len = 1;
        else if (i + 2 < len && (unsigned char)text[i] == 0xe2 &&
                 (unsigned char)text[i + 1] == 0x80 && (unsigned char)text[i + 2] == 0x9c)
            open_len = 3;
        if (!open_len)
            continue;
        size_t a = i + open_len, b = a;
        int words = 1;
        while (b < len && text[b] != '"' &&
               !((unsigned char)text[b] == 0xe2 && b + 2 < len &&
                 (unsigned char)text[b + 1] == 0x80 && (unsigned char)text[b + 2] == 0x9d)) {
            if (text[b] == ' ')
                words++;
            b++;
        }
        if (b >= len)
            return;
        if (b - a >= 2 && b - a <= QUOTE_MAX_BYTES && words <= QUOTE_MAX_WORDS)
            add_found(x, text + a, b - a, STORE_ENTITY_QUOTED);
        i = text[b] == '"' ? b : b + 2;
    }
}

/* ---- writing links ----------------------------------------------------- */

struct known_ctx {
    store *s;
};

/* The eid of the entity with match form norm in the profile, or 0 when
 * there is none: from the write cache (wcache.c), else asked and
 * remembered. */
static ms_status find_entity(store *s, const char *norm, int64_t *eid, ms_error *err)
{
    if (store_wcache_entity(s, norm, eid) >= 0)
        return MS_OK;
    sqlite3_stmt *st = store_stmt(s, ST_ENTITY_FIND, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, norm, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *eid = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "finding an entity", err);
    store_wcache_set_entity(s, norm, *eid);
    return MS_OK;
}

static int known_entity(void *p, const char *text, size_t len)
{
    store *s = ((struct known_ctx *)p)->s;
    char norm[4 * NAME_MAX_BYTES + 8];
    store_entity_norm(text, len, norm, sizeof norm);
    int64_t eid = 0;
    return find_entity(s, norm, &eid, NULL) == MS_OK && eid > 0;
}

/* Find or create the entity; *eid gets its id. */
static ms_status entity_id(store *s, const found *f, int64_t *eid, ms_error *err)
{
    char norm[4 * NAME_MAX_BYTES + 8];
    store_entity_norm(f->name, strlen(f->name), norm, sizeof norm);
    ms_status code = find_entity(s, norm, eid, err);
    if (code || *eid)
        return code;
    sqlite3_stmt *st = store_stmt(s, ST_ENTITY_INSERT, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, f->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, norm, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, f->kind);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "adding an entity", err);
    *eid = sqlite3_last_insert_rowid(s->db);
    store_wcache_set_entity(s, norm, *eid);
    return MS_OK;
}

/* The links of an appended memory, written together (write_links). */
typedef struct link_rows {
    int64_t eid[STORE_ENTITIES_MAX];
    int given[STORE_ENTITIES_MAX];
    int speaker[STORE_ENTITIES_MAX];
    int n;
} link_rows;

/* How many of n rows the next statement writes (4, 2 or 1; at most max),
 * and which statement: one of several rows costs SQLite less than that
 * many. The statements of 2 and 4 rows follow one's in enum stmt_id. */
static int rows_take(int n, int max, enum stmt_id one, enum stmt_id *id)
{
    int take = n >= 4 && max >= 4 ? 4 : n >= 2 ? 2 : 1;
    *id = (enum stmt_id)(one + (take == 4 ? 2 : take == 2 ? 1 : 0));
    return take;
}

/* Insert memory rid's links l (new rows: an appended memory has none). */
static ms_status write_links(store *s, int64_t rid, const link_rows *l, ms_error *err)
{
    for (int k = 0; k < l->n;) {
        enum stmt_id id;
        int take = rows_take(l->n - k, 4, ST_LINK_ADD, &id);
        sqlite3_stmt *st = store_stmt(s, id, err);
        if (!st)
            return err ? err->code : MS_SQL;
        for (int j = 0; j < take; j++, k++) {
            sqlite3_bind_int64(st, 4 * j + 1, rid);
            sqlite3_bind_int64(st, 4 * j + 2, l->eid[k]);
            sqlite3_bind_int(st, 4 * j + 3, l->given[k]);
            sqlite3_bind_int(st, 4 * j + 4, l->speaker[k]);
        }
        int rc = sqlite3_step(st);
        if (rc != SQLITE_DONE)
            return store_sql_fail(s, rc, "linking an entity", err);
    }
    return MS_OK;
}

_Static_assert(STORE_EDGE_BATCH_MAX <= 2, "edges have statements of one and two rows");

ms_status store_edges_write(store *s, int64_t dst, const store_edge_batch *x, ms_error *err)
{
    for (int k = 0; k < x->n;) {
        enum stmt_id id;
        int take = rows_take(x->n - k, STORE_EDGE_BATCH_MAX, ST_EDGE_ADD, &id);
        sqlite3_stmt *st = store_stmt(s, id, err);
        if (!st)
            return err ? err->code : MS_SQL;
        for (int j = 0; j < take; j++, k++) {
            sqlite3_bind_int64(st, 4 * j + 1, x->src[k]);
            sqlite3_bind_int64(st, 4 * j + 2, dst);
            sqlite3_bind_int(st, 4 * j + 3, x->type[k]);
            sqlite3_bind_double(st, 4 * j + 4, x->w[k]);
        }
        int rc = sqlite3_step(st);
        if (rc != SQLITE_DONE)
            return store_sql_fail(s, rc, "adding an edge", err);
    }
    return MS_OK;
}

/* Link m to the entity: at once (an upsert), or, while appending, the link
 * gathered into *links, to be written together (a new memory has no links
 * yet, and its entities differ). The link says whether it is m's speaker's:
 * the entity edges derived from the links (graph.c) leave those out. */
static ms_status link_one(store *s, const store_memory *m, const found *f, int append,
                          link_rows *links, ms_error *err)
{
    int64_t eid = 0;
    ms_status code = entity_id(s, f, &eid, err);
    if (code)
        return code;
    int speaker = f->kind == STORE_ENTITY_SPEAKER;
    if (append) {
        links->eid[links->n] = eid;
        links->speaker[links->n] = speaker;
        links->given[links->n++] = f->given;
        return MS_OK;
    }
    sqlite3_stmt *st = store_stmt(s, ST_LINK_INSERT, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, m->rid);
    sqlite3_bind_int64(st, 2, eid);
    sqlite3_bind_int(st, 3, f->given);
    sqlite3_bind_int(st, 4, speaker);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "linking an entity", err);
    return MS_OK;
}

int store_speaker_norm(const char *speaker, char *norm, size_t cap)
{
    size_t len = speaker ? strlen(speaker) : 0;
    if (len == 0 || len > NAME_MAX_BYTES)
        return 0;
    store_entity_norm(speaker, len, norm, cap);
    return norm[0] && strlen(norm) <= NAME_MAX_BYTES;
}

/* Skip a leading "Speaker:" that repeats the speaker field. */
static size_t speaker_prefix(const store_memory *m)
{
    if (!m->speaker)
        return 0;
    size_t n = strlen(m->speaker);
    if (n && strncmp(m->content, m->speaker, n) == 0 && m->content[n] == ':')
        return n + 1;
    return 0;
}

/* The words of m's text, from words_split, with a stop mark each (after
 * the n spans): what store_memory_words works out ahead of a put. */
struct store_words {
    const char *content, *speaker; /* what they were made from */
    size_t skip, len;              /* the text: content + skip, len bytes */
    size_t n;
    words_span w[];
};

enum { WORDS_MAX = 4096 };

static const unsigned char *words_stops(const struct store_words *ws)
{
    return (const unsigned char *)(ws->w + ws->n);
}

int store_memory_words(store_memory *m)
{
    free(m->words);
    m->words = NULL;
    if (!m->content)
        return 0;
    size_t skip = speaker_prefix(m), len = strlen(m->content + skip);
    const char *text = m->content + skip;
    enum { FEW = 256 }; /* most texts: no allocation but the result's */
    words_span few[FEW], *w = few;
    size_t n = words_split(text, len, w, FEW);
    if (n == FEW) {
        if (!(w = malloc(WORDS_MAX * sizeof *w)))
            return -1;
        n = words_split(text, len, w, WORDS_MAX);
    }
    struct store_words *ws = malloc(sizeof *ws + n * sizeof *w + n);
    if (ws) {
        *ws = (struct store_words){m->content, m->speaker, skip, len, n};
        memcpy(ws->w, w, n * sizeof *w);
        unsigned char *stop = (unsigned char *)(ws->w + n);
        for (size_t k = 0; k < n; k++)
            stop[k] = w[k].cap && word_is_stop(text, &w[k]);
    }
    if (w != few)
        free(w);
    m->words = ws;
    return ws ? 0 : -1;
}

ms_status store_link_entities(store *s, const store_memory *m, int append, ms_error *err)
{
    found v[STORE_ENTITIES_MAX];
    extraction x = {v, 0, STORE_ENTITIES_MAX};
    if (m->speaker && *m->speaker)
        add_found(&x, m->speaker, strlen(m->speaker), STORE_ENTITY_SPEAKER);
    for (size_t i = 0; i < m->n_entities; i++)
        add_found(&x, m->entities[i], strlen(m->entities[i]), STORE_ENTITY_GIVEN);
    size_t skip = speaker_prefix(m);
    const char *text = m->content + skip;
    size_t len = strlen(text);
    struct known_ctx kc = {s};
    const struct store_words *ws = m->words;
    if (ws && ws->content == m->content && ws->speaker == m->speaker && ws->skip == skip &&
        ws->len == len) {
        find_names(text, ws->w, words_stops(ws), ws->n, known_entity, &kc, &x);
    } else {
        words_span *w = malloc(WORDS_MAX * sizeof *w);
        if (!w)
            return ms_fail(err, MS_NOMEM, "out of memory extracting entities");
        size_t nw = words_split(text, len, w, WORDS_MAX);
        find_names(text, w, NULL, nw, known_entity, &kc, &x);
        free(w);
    }
    find_quotes(text, len, &x);
    link_rows links = {.n = 0};
    ms_status code = MS_OK;
    for (size_t i = 0; !code && i < x.n; i++)
        code = link_one(s, m, &x.v[i], append, &links, err);
    return code ? code : write_links(s, m->rid, &links, err);
}

/* Is norm linked to rid as a given entity? */
static int given_link(store *s, int64_t rid, const char *norm)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT 1 FROM memory_entities l JOIN entities e ON e.eid=l.eid"
                           " WHERE l.rid=?1 AND l.given AND e.profile=?2 AND e.norm=?3",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, rid);
    sqlite3_bind_text(st, 2, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, norm, -1, SQLITE_STATIC);
    int yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

int store_given_entities_match(store *s, int64_t rid, const store_memory *m)
{
    char norm[4 * NAME_MAX_BYTES + 8], other[4 * NAME_MAX_BYTES + 8];
    int64_t distinct = 0;
    for (size_t i = 0; i < m->n_entities; i++) {
        store_entity_norm(m->entities[i], strlen(m->entities[i]), norm, sizeof norm);
        if (!norm[0] || strlen(norm) > NAME_MAX_BYTES)
            continue; /* never linked (see add_found) */
        int repeat = 0;
        for (size_t j = 0; j < i && !repeat; j++) {
            store_entity_norm(m->entities[j], strlen(m->entities[j]), other, sizeof other);
            repeat = strcmp(norm, other) == 0;
        }
        if (repeat)
            continue;
        if (!given_link(s, rid, norm))
            return 0;
        distinct++;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM memory_entities WHERE rid=?1 AND given", -1,
                           &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, rid);
    int same = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == distinct;
    sqlite3_finalize(st);
    return same;
}
