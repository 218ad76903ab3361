/* tokring.c - FTS5's porter tokenizer, with the tokens of recent texts
 * used again.
 *
 * The text index cuts each memory's words three times: in its own text,
 * and in the neighbour text of the turns before and after it (context.c:
 * "body of the turn before" + " " + "body of the turn after"). Cutting
 * (unicode61's folding, porter's stems) was 258 M of a 20,000-line
 * import's writing thread (callgrind), two thirds of it on words cut
 * before.
 *
 * unicode61 (with its default token characters) never lets a token cross
 * a space or a colon, and porter stems each token alone, so the tokens of
 * "A B" are those of A followed by those of B, B's offsets moved by the
 * length of "A ". This wrapper is registered on the store's connection
 * under the name "porter", over SQLite's own (the table's declaration,
 * and every other SQLite client of the file, are unchanged). For a
 * document's text it remembers the tokens of the last RING texts it cut
 * (a memory's body: its text after a leading "Name: "; the rest of a
 * neighbour text), and where a new text is, from a space or its start, one
 * of them followed by a space or its end, it hands FTS5 the remembered
 * tokens instead of cutting again. Anything else, queries and texts of
 * other tokenizer arguments included, goes to SQLite's porter as it is.
 * tests/store-test.c compares the index of random sessions built with and
 * without it, byte for byte. MEMSCOPE_FTS_REUSE=off turns it off. */
#include "store_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RING 8
#define REMEMBER_MIN 16 /* shorter texts are cut again, not remembered */
#define PREFIX_MAX 64   /* where a "Name:" before a body may end */

typedef struct tok_rec {
    int flags, start, end; /* as cut, offsets from the text's start */
    int at, len;           /* its bytes in the text's arena */
} tok_rec;

typedef struct cut {
    char *text; /* a copy of what was cut */
    int len;
    tok_rec *tok;
    int n, cap;
    char *bytes; /* the tokens' bytes */
    int nbytes, capbytes;
} cut;

typedef struct wrapper {
    fts5_tokenizer real; /* SQLite's porter */
    void *real_user;
} wrapper;

typedef struct tokring {
    const wrapper *w;
    Fts5Tokenizer *inner; /* SQLite's porter instance */
    int on;
    cut ring[RING];
    int next; /* the slot the next text remembered takes */
} tokring;

static void cut_free(cut *c)
{
    free(c->text);
    free(c->tok);
    free(c->bytes);
    memset(c, 0, sizeof *c);
}

static int tr_create(void *user, const char **arg, int n_arg, Fts5Tokenizer **out)
{
    const wrapper *w = user;
    tokring *t = calloc(1, sizeof *t);
    if (!t)
        return SQLITE_NOMEM;
    t->w = w;
    int rc = w->real.xCreate(w->real_user, arg, n_arg, &t->inner);
    if (rc != SQLITE_OK) {
        free(t);
        return rc;
    }
    /* the table's own arguments only: others may make ':' a token character */
    const char *off = getenv("MEMSCOPE_FTS_REUSE");
    t->on = n_arg == 3 && strcmp(arg[0], "unicode61") == 0 &&
            strcmp(arg[1], "remove_diacritics") == 0 && strcmp(arg[2], "2") == 0 &&
            !(off && strcmp(off, "off") == 0);
    *out = (Fts5Tokenizer *)t;
    return SQLITE_OK;
}

static void tr_delete(Fts5Tokenizer *p)
{
    tokring *t = (tokring *)p;
    for (int i = 0; i < RING; i++)
        cut_free(&t->ring[i]);
    t->w->real.xDelete(t->inner);
    free(t);
}

typedef int (*token_fn)(void *, int, const char *, int, int, int);

static uint64_t reused; /* tokens handed on from memory, in this process */

uint64_t store_tokring_reused(void)
{
    return __atomic_load_n(&reused, __ATOMIC_RELAXED);
}

/* Hand FTS5 the tokens of c, as if cut at offset base. */
static int replay(const cut *c, int base, void *ctx, token_fn fn)
{
    __atomic_add_fetch(&reused, (uint64_t)c->n, __ATOMIC_RELAXED);
    for (int i = 0; i < c->n; i++) {
        const tok_rec *r = &c->tok[i];
        int rc = fn(ctx, r->flags, c->bytes + r->at, r->len, r->start + base, r->end + base);
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

/* The remembered text that text[p..n) starts with, up to a space or its
 * end; NULL when none. */
static const cut *match_at(const tokring *t, const char *text, int p, int n)
{
    for (int i = 0; i < RING; i++) {
        const cut *c = &t->ring[i];
        if (c->len && c->len <= n - p && (p + c->len == n || text[p + c->len] == ' ') &&
            text[p] == c->text[0] && memcmp(text + p, c->text, (size_t)c->len) == 0)
            return c;
    }
    return NULL;
}

/* While SQLite's porter cuts text[base..n): each token to FTS5 (offsets
 * from the text's start) and into rec (offsets from base). */
typedef struct cutting {
    cut *rec; /* NULL: forward only */
    int base;
    void *ctx;
    token_fn fn;
    int nomem;
} cutting;

static int rec_token(cut *c, int flags, const char *tok, int len, int start, int end)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 32;
        tok_rec *g = realloc(c->tok, (size_t)cap * sizeof *g);
        if (!g)
            return -1;
        c->tok = g;
        c->cap = cap;
    }
    if (c->nbytes + len > c->capbytes) {
        int cap = c->capbytes ? 2 * c->capbytes : 256;
        while (cap < c->nbytes + len)
            cap *= 2;
        char *g = realloc(c->bytes, (size_t)cap);
        if (!g)
            return -1;
        c->bytes = g;
        c->capbytes = cap;
    }
    memcpy(c->bytes + c->nbytes, tok, (size_t)len);
    c->tok[c->n++] = (tok_rec){flags, start, end, c->nbytes, len};
    c->nbytes += len;
    return 0;
}

static int on_cut(void *p, int flags, const char *tok, int len, int start, int end)
{
    cutting *k = p;
    if (k->rec && !k->nomem && rec_token(k->rec, flags, tok, len, start, end) != 0)
        k->nomem = 1; /* forgotten, not wrong: the text is not remembered */
    return k->fn(k->ctx, flags, tok, len, start + k->base, end + k->base);
}

/* The slot for a new text, emptied. */
static cut *take_slot(tokring *t)
{
    cut *c = &t->ring[t->next];
    t->next = (t->next + 1) % RING;
    c->len = 0;
    c->n = 0;
    c->nbytes = 0;
    return c;
}

/* Remember text[0..len) (its tokens already in c), or forget c. */
static void keep(cut *c, const char *text, int len, int nomem)
{
    char *copy = nomem ? NULL : realloc(c->text, (size_t)len);
    if (!copy) {
        c->len = 0;
        return;
    }
    memcpy(copy, text, (size_t)len);
    c->text = copy;
    c->len = len;
}

/* Cut text[p..n) with SQLite's porter, handing each token on; remember
 * it when long enough. */
static int cut_rest(tokring *t, void *ctx, const char *text, int p, int n, token_fn fn)
{
    cut *c = n - p >= REMEMBER_MIN ? take_slot(t) : NULL;
    cutting k = {c, p, ctx, fn, 0};
    int rc = t->w->real.xTokenize(t->inner, &k, FTS5_TOKENIZE_DOCUMENT, text + p, n - p, on_cut);
    if (c)
        keep(c, text + p, n - p, k.nomem || rc != SQLITE_OK);
    return rc;
}

/* Where a body after a leading "Name:" (and one space) starts, 0 when
 * the text has no colon in its first PREFIX_MAX bytes or nothing after. */
static int after_colon(const char *text, int n)
{
    for (int i = 0; i < n && i < PREFIX_MAX; i++)
        if (text[i] == ':') {
            int q = i + 1 + (i + 1 < n && text[i + 1] == ' ');
            return q < n && text[q] != ' ' ? q : 0;
        }
    return 0;
}

/* A memory's own text, "Name: body": the body's tokens remembered apart
 * from the name's, since neighbour texts hold the body alone. */
static int cut_named(tokring *t, void *ctx, const char *text, int n, int q, token_fn fn)
{
    const cut *known = n - q >= REMEMBER_MIN ? match_at(t, text, q, n) : NULL;
    if (known && known->len != n - q)
        known = NULL; /* the body must end where the text does */
    cutting k = {NULL, 0, ctx, fn, 0};
    int rc = t->w->real.xTokenize(t->inner, &k, FTS5_TOKENIZE_DOCUMENT, text, q, on_cut);
    if (rc != SQLITE_OK)
        return rc;
    return known ? replay(known, q, ctx, fn) : cut_rest(t, ctx, text, q, n, fn);
}

static int tr_tokenize(Fts5Tokenizer *p, void *ctx, int flags, const char *text, int n, token_fn fn)
{
    tokring *t = (tokring *)p;
    if (!t->on || flags != FTS5_TOKENIZE_DOCUMENT || n < REMEMBER_MIN)
        return t->w->real.xTokenize(t->inner, ctx, flags, text, n, fn);
    const cut *c = match_at(t, text, 0, n);
    int q = c ? 0 : after_colon(text, n);
    if (q)
        return cut_named(t, ctx, text, n, q, fn);
    int at = 0; /* c: the cut found at at, from the first lookup above */
    while (c) {
        int rc = replay(c, at, ctx, fn);
        if (rc != SQLITE_OK)
            return rc;
        at += c->len + 1; /* past the space after it */
        if (at >= n)
            return SQLITE_OK;
        c = match_at(t, text, at, n);
    }
    return cut_rest(t, ctx, text, at, n, fn);
}

int store_tokring_register(fts5_api *api)
{
    wrapper *w = calloc(1, sizeof *w);
    if (!w)
        return SQLITE_NOMEM;
    int rc = api->xFindTokenizer(api, "porter", &w->real_user, &w->real);
    if (rc != SQLITE_OK) {
        free(w);
        return rc;
    }
    fts5_tokenizer mine = {tr_create, tr_delete, tr_tokenize};
    return api->xCreateTokenizer(api, "porter", w, &mine, free);
}
