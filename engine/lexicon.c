/* lexicon.c - synonyms from a WordNet database (WNDB files).
 *
 * The index files (index.POS: one line per lemma, sorted bytewise, the
 * licence as lines that start with two spaces, which sort first) and the
 * exception lists (POS.exc: "inflected base...") are mapped and searched
 * by bisection over their bytes, so opening the lexicon reads none of them
 * (the 6 MB of Debian's were read and indexed by line at every process's
 * first which/what question); a synset is read from data.POS at the byte
 * offset its index line gives (pread, so threads may share the lexicon). Base forms follow
 * WordNet's morphy: the exception list, else the word itself and the
 * detachment rules of its part of speech, each kept when the index holds
 * it. */
#include "lexicon.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MEMSCOPE_WORDNET_DIR
#define MEMSCOPE_WORDNET_DIR "/usr/share/wordnet"
#endif

#define POS_N 4
#define WORD_MAX 64
#define SEEN_MAX 64
#define LINE_MAX_LEN 8192

static const char *const pos_name[POS_N] = {"noun", "verb", "adj", "adv"};

/* A sorted text file in memory: mapped, or read when a mapping would not
 * be followed by a NUL (a file of whole pages), text[len] == '\0' either way. */
typedef struct sorted_file {
    char *text;
    size_t len;
    int mapped; /* text is a mapping of len bytes, else malloc'd */
} sorted_file;

struct lexicon {
    sorted_file index[POS_N];
    sorted_file exc[POS_N];
    int data[POS_N]; /* data.POS, -1 when absent */
};

/* ---- files ------------------------------------------------------------- */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (cap - n < 65536) {
            char *b = realloc(buf, cap = cap ? 2 * cap : 1 << 20);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Map (or read) path into sf; 0, or -1 when it cannot be read. The bytes
 * past the end of a file up to its last page are zeros in a mapping, so
 * text[len] is a NUL unless the file fills its last page. */
static int sorted_load(sorted_file *sf, const char *path)
{
    memset(sf, 0, sizeof *sf);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    long page = sysconf(_SC_PAGESIZE);
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && page > 0 &&
        st.st_size % page != 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            sf->text = m;
            sf->len = (size_t)st.st_size;
            sf->mapped = 1;
        }
    }
    if (fd >= 0)
        close(fd);
    if (!sf->text)
        sf->text = read_all(path, &sf->len);
    return sf->text ? 0 : -1;
}

static void sorted_free(sorted_file *sf)
{
    if (sf->mapped)
        munmap(sf->text, sf->len);
    else
        free(sf->text);
}

/* Compare the line at l with key[0..n) as its first field: <0, 0, >0. */
static int line_cmp(const char *l, const char *end, const char *key, size_t n)
{
    size_t room = (size_t)(end - l);
    int c = memcmp(l, key, n < room ? n : room);
    if (c == 0 && room < n)
        return -1; /* the file ends inside the key */
    if (c == 0)
        c = room > n && l[n] == ' ' ? 0 : 1;
    return c;
}

/* The line whose first field is key[0..n), or NULL: bisection over the
 * bytes, lo always the start of a line. A licence line (two spaces first)
 * sorts before every key. */
static const char *sorted_find(const sorted_file *sf, const char *key, size_t n)
{
    const char *t = sf->text, *end = sf->text + sf->len;
    size_t lo = 0, hi = sf->len;
    if (n == 0)
        return NULL;
    while (lo < hi) {
        size_t at = lo + (hi - lo) / 2;
        while (at > lo && t[at - 1] != '\n')
            at--;
        int c = line_cmp(t + at, end, key, n);
        if (c == 0)
            return t + at;
        if (c > 0) {
            hi = at;
        } else {
            const char *nl = memchr(t + at, '\n', sf->len - at);
            lo = nl ? (size_t)(nl - t) + 1 : sf->len;
        }
    }
    return NULL;
}

/* ---- opening ----------------------------------------------------------- */

lexicon *lexicon_open(const char *dir)
{
    if (!dir)
        dir = getenv("MEMSCOPE_WORDNET");
    if (!dir)
        dir = MEMSCOPE_WORDNET_DIR;
    if (!*dir)
        return NULL;
    lexicon *lx = calloc(1, sizeof *lx);
    if (!lx)
        return NULL;
    int found = 0;
    for (int p = 0; p < POS_N; p++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/data.%s", dir, pos_name[p]);
        lx->data[p] = open(path, O_RDONLY | O_CLOEXEC);
        snprintf(path, sizeof path, "%s/index.%s", dir, pos_name[p]);
        if (lx->data[p] >= 0 && sorted_load(&lx->index[p], path) == 0)
            found++;
        snprintf(path, sizeof path, "%s/%s.exc", dir, pos_name[p]);
        if (sorted_load(&lx->exc[p], path) != 0)
            sorted_free(&lx->exc[p]), memset(&lx->exc[p], 0, sizeof lx->exc[p]);
    }
    if (!found) {
        lexicon_close(lx);
        return NULL;
    }
    return lx;
}

void lexicon_close(lexicon *lx)
{
    if (!lx)
        return;
    for (int p = 0; p < POS_N; p++) {
        sorted_free(&lx->index[p]);
        sorted_free(&lx->exc[p]);
        if (lx->data[p] >= 0)
            close(lx->data[p]);
    }
    free(lx);
}

static lexicon *default_lx;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void open_default(void)
{
    default_lx = lexicon_open(NULL);
}

const lexicon *lexicon_default(void)
{
    pthread_once(&default_once, open_default);
    return default_lx;
}

/* ---- base forms ---------------------------------------------------------- */

/* WordNet's detachment rules: suffix -> ending, by part of speech. */
typedef struct rule {
    const char *suffix, *ending;
} rule;

static const rule noun_rules[] = {{"s", ""},      {"ses", "s"},   {"xes", "x"},
                                  {"zes", "z"},   {"ches", "ch"}, {"shes", "sh"},
                                  {"men", "man"}, {"ies", "y"},   {NULL, NULL}};
static const rule verb_rules[] = {{"s", ""},  {"ies", "y"}, {"es", "e"}, {"es", ""},  {"ed", "e"},
                                  {"ed", ""}, {"ing", "e"}, {"ing", ""}, {NULL, NULL}};
static const rule adj_rules[] = {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}, {NULL, NULL}};
static const rule *const pos_rules[POS_N] = {noun_rules, verb_rules, adj_rules, NULL};

/* The base forms of word in part of speech p: up to max of WORD_MAX bytes. */
typedef char base_form[WORD_MAX];

static int add_base(const lexicon *lx, int p, base_form *out, int n, int max, const char *w,
                    size_t len)
{
    if (n >= max || len == 0 || len >= WORD_MAX || !sorted_find(&lx->index[p], w, len))
        return n;
    for (int k = 0; k < n; k++)
        if (strlen(out[k]) == len && memcmp(out[k], w, len) == 0)
            return n;
    memcpy(out[n], w, len);
    out[n][len] = '\0';
    return n + 1;
}

static int base_forms(const lexicon *lx, int p, const char *w, size_t len, base_form *out, int max)
{
    int n = 0;
    const char *e = lx->exc[p].text ? sorted_find(&lx->exc[p], w, len) : NULL;
    if (e) {
        const char *s = e + len;
        while (*s == ' ') {
            const char *t = ++s;
            while (*s && *s != ' ' && *s != '\n')
                s++;
            n = add_base(lx, p, out, n, max, t, (size_t)(s - t));
        }
    }
    n = add_base(lx, p, out, n, max, w, len);
    for (const rule *r = pos_rules[p]; r && r->suffix; r++) {
        size_t sl = strlen(r->suffix), el = strlen(r->ending);
        if (len <= sl || len - sl + el >= WORD_MAX || memcmp(w + len - sl, r->suffix, sl) != 0)
            continue;
        char b[WORD_MAX];
        memcpy(b, w, len - sl);
        memcpy(b + len - sl, r->ending, el);
        n = add_base(lx, p, out, n, max, b, len - sl + el);
    }
    return n;
}

/* ---- synsets --------------------------------------------------------------- */

/* The i-th space-separated field of line l (NULL past the end), its length in *n. */
static const char *field(const char *l, int i, size_t *n)
{
    for (; i > 0; i--) {
        l = strchr(l, ' ');
        if (!l || l[1] == '\n' || !l[1])
            return NULL;
        l++;
    }
    *n = strcspn(l, " \n");
    return l;
}

/* The synset offsets of the first LEXICON_SENSES senses of index line l. */
static int sense_offsets(const char *l, long *off, int senses)
{
    size_t n;
    const char *f = field(l, 2, &n);
    int synsets = f ? atoi(f) : 0;
    f = field(l, 3, &n);
    int ptrs = f ? atoi(f) : 0;
    int first = 4 + ptrs + 2, k = 0;
    for (; k < synsets && k < senses; k++) {
        if (!(f = field(l, first + k, &n)))
            break;
        off[k] = atol(f);
    }
    return k;
}

typedef struct collect {
    char seen[SEEN_MAX][WORD_MAX];
    int n_seen, given, stop;
    lexicon_fn fn;
    void *ctx;
} collect;

static int seen_add(collect *c, const char *w, size_t n)
{
    for (int k = 0; k < c->n_seen; k++)
        if (strlen(c->seen[k]) == n && memcmp(c->seen[k], w, n) == 0)
            return 0;
    if (c->n_seen == SEEN_MAX)
        return 0;
    memcpy(c->seen[c->n_seen], w, n);
    c->seen[c->n_seen++][n] = '\0';
    return 1;
}

/* One word of a synset line: lower-cased, its adjective marker "(a)" cut;
 * given when it is one token of letters not seen before. */
static void synset_word(collect *c, const char *w, size_t n)
{
    const char *paren = memchr(w, '(', n);
    if (paren)
        n = (size_t)(paren - w);
    if (n == 0 || n >= WORD_MAX)
        return;
    char low[WORD_MAX];
    for (size_t i = 0; i < n; i++) {
        char ch = w[i];
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch + 32);
        if (ch < 'a' || ch > 'z')
            return;
        low[i] = ch;
    }
    if (seen_add(c, low, n) && !c->stop) {
        c->given++;
        c->stop = c->fn(c->ctx, low, n);
    }
}

/* The words of the synset at byte off of data file fd. */
static void synset_words(collect *c, int fd, long off)
{
    char l[LINE_MAX_LEN];
    ssize_t got = pread(fd, l, sizeof l - 1, off);
    if (got <= 0)
        return;
    l[got] = '\0';
    char *nl = strchr(l, '\n');
    if (nl)
        nl[0] = '\0';
    size_t n;
    const char *f = field(l, 3, &n);
    int words = f ? (int)strtol(f, NULL, 16) : 0;
    for (int k = 0; k < words && !c->stop; k++)
        if ((f = field(l, 4 + 2 * k, &n)))
            synset_word(c, f, n);
}

int lexicon_senses(const lexicon *lx, const char *word, size_t n)
{
    if (!lx || n == 0 || n >= WORD_MAX)
        return 0;
    int total = 0;
    for (int p = 0; p < POS_N; p++) {
        base_form base[8];
        int nb = lx->index[p].text ? base_forms(lx, p, word, n, base, 8) : 0;
        for (int b = 0; b < nb; b++) {
            size_t fl;
            const char *f = field(sorted_find(&lx->index[p], base[b], strlen(base[b])), 2, &fl);
            total += f ? atoi(f) : 0;
        }
    }
    return total;
}

int lexicon_synonyms(const lexicon *lx, const char *word, size_t n, int senses, lexicon_fn fn,
                     void *ctx)
{
    if (!lx || n == 0 || n >= WORD_MAX)
        return 0;
    collect *c = calloc(1, sizeof *c);
    if (!c)
        return 0;
    c->fn = fn;
    c->ctx = ctx;
    base_form base[POS_N][8];
    int nb[POS_N];
    seen_add(c, word, n); /* never the word itself, nor its base forms */
    for (int p = 0; p < POS_N; p++) {
        nb[p] = lx->index[p].text ? base_forms(lx, p, word, n, base[p], 8) : 0;
        for (int b = 0; b < nb[p]; b++)
            seen_add(c, base[p][b], strlen(base[p][b]));
    }
    for (int p = 0; p < POS_N && !c->stop; p++)
        for (int b = 0; b < nb[p] && !c->stop; b++) {
            long off[LEXICON_SENSES_MAX];
            int k = sense_offsets(sorted_find(&lx->index[p], base[p][b], strlen(base[p][b])), off,
                                  senses < LEXICON_SENSES_MAX ? senses : LEXICON_SENSES_MAX);
            for (int s = 0; s < k && !c->stop; s++)
                synset_words(c, lx->data[p], off[s]);
        }
    int given = c->given;
    free(c);
    return given;
}

/* ---- kinds ------------------------------------------------------------------ */

#define NOUN 0
#define VERB 1
#define ADJ 2
#define KIND_LINE_MAX 16384 /* WordNet 3.0's longest noun synset line is 12972 bytes */

int lexicon_is_noun(const lexicon *lx, const char *word, size_t n)
{
    base_form b[8];
    return lx && n > 0 && n < WORD_MAX && lx->index[NOUN].text &&
           base_forms(lx, NOUN, word, n, b, 8) > 0;
}

int lexicon_is_adjective(const lexicon *lx, const char *word, size_t n)
{
    base_form b[8];
    return lx && n > 0 && n < WORD_MAX && lx->index[ADJ].text &&
           base_forms(lx, ADJ, word, n, b, 8) > 0;
}

/* The offset of the first sense of word's first noun base form, or -1. */
static long first_noun_sense(const lexicon *lx, const char *word, size_t n, base_form *b)
{
    long off;
    if (!lx || n == 0 || n >= WORD_MAX || !lx->index[NOUN].text ||
        base_forms(lx, NOUN, word, n, b, 1) < 1)
        return -1;
    return sense_offsets(sorted_find(&lx->index[NOUN], b[0], strlen(b[0])), &off, 1) == 1 ? off
                                                                                          : -1;
}

/* The synset line at byte off of data file p into l (cap bytes), its
 * newline cut; 0, or -1 when it cannot be read. */
static int data_line(const lexicon *lx, int p, long off, char *l, size_t cap)
{
    if (p < 0 || lx->data[p] < 0)
        return -1;
    ssize_t got = pread(lx->data[p], l, cap - 1, off);
    if (got <= 0)
        return -1;
    l[got] = '\0';
    char *nl = strchr(l, '\n');
    if (nl)
        nl[0] = '\0';
    return 0;
}

int lexicon_noun_class(const lexicon *lx, const char *word, size_t n)
{
    base_form b[1];
    long off = first_noun_sense(lx, word, n, b);
    char l[64];
    size_t fl;
    const char *f;
    if (off < 0 || data_line(lx, NOUN, off, l, sizeof l) || !(f = field(l, 1, &fl)))
        return -1;
    return atoi(f);
}

/* The walk below a noun's senses: synsets to visit, and a hash set of
 * those seen (open addressing, offset + 1, 0 empty; at least 2 x max
 * slots, a power of two). */
typedef struct kind_walk {
    long *todo, *seen;
    size_t n_todo, n_seen, max, mask;
    int over;
} kind_walk;

static int kind_push(kind_walk *w, long off)
{
    size_t h = ((size_t)off * 2654435761u) & w->mask;
    for (; w->seen[h]; h = (h + 1) & w->mask)
        if (w->seen[h] == off + 1)
            return 0;
    if (w->n_seen == w->max) {
        w->over = 1;
        return -1;
    }
    w->seen[h] = off + 1;
    w->n_seen++;
    w->todo[w->n_todo++] = off;
    return 0;
}

/* The next space-separated field of *p (its length in *n), moving *p past
 * it; NULL at the end of the line. */
static const char *next_field(const char **p, size_t *n)
{
    const char *f = *p;
    while (*f == ' ')
        f++;
    if (!*f || *f == '\n')
        return NULL;
    *n = strcspn(f, " \n");
    *p = f + *n;
    return f;
}

/* Give the words of synset line l (own as said) and push its hyponyms and
 * instances ("~", "~i"), reading the line once. Non-zero when fn asked to
 * stop. */
static int kind_synset(kind_walk *w, const char *l, int own, lexicon_kind_fn fn, void *ctx)
{
    size_t n;
    const char *f = NULL;
    for (int k = 0; k < 4; k++) /* offset, lex_filenum, ss_type, w_cnt */
        f = next_field(&l, &n);
    int words = f ? (int)strtol(f, NULL, 16) : 0;
    for (int k = 0; k < words; k++) {
        if (!(f = next_field(&l, &n)))
            return 0;
        char low[WORD_MAX];
        for (size_t i = 0; i < n && n < WORD_MAX; i++)
            low[i] = (char)(f[i] >= 'A' && f[i] <= 'Z' ? f[i] + 32 : f[i]);
        if (n < WORD_MAX && fn(ctx, low, n, own))
            return 1;
        next_field(&l, &n); /* lex_id */
    }
    f = next_field(&l, &n);
    int ptrs = f ? atoi(f) : 0;
    for (int k = 0; k < ptrs && !w->over; k++) {
        size_t on, pn, tn;
        const char *sym = next_field(&l, &n), *o = next_field(&l, &on);
        if (!next_field(&l, &pn) || !next_field(&l, &tn))
            break;
        if (sym[0] == '~' && (n == 1 || (n == 2 && sym[1] == 'i')))
            kind_push(w, atol(o));
    }
    return 0;
}

int lexicon_kinds(const lexicon *lx, const char *word, size_t n, int senses, int max,
                  lexicon_kind_fn fn, void *ctx)
{
    base_form b[1];
    long off[LEXICON_SENSES_MAX];
    if (first_noun_sense(lx, word, n, b) < 0 || max <= 0)
        return -1;
    int k = sense_offsets(sorted_find(&lx->index[NOUN], b[0], strlen(b[0])), off,
                          senses < LEXICON_SENSES_MAX ? senses : LEXICON_SENSES_MAX);
    size_t slots = 2;
    while (slots < 2 * (size_t)max)
        slots *= 2;
    kind_walk w = {.todo = malloc((size_t)max * sizeof(long)),
                   .seen = calloc(slots, sizeof(long)),
                   .max = (size_t)max,
                   .mask = slots - 1};
    char *l = malloc(KIND_LINE_MAX);
    int stop = !w.todo || !w.seen || !l;
    for (int s = 0; s < k && !stop; s++)
        kind_push(&w, off[s]);
    for (size_t at = 0; !stop && !w.over && at < w.n_todo; at++)
        stop = !data_line(lx, NOUN, w.todo[at], l, KIND_LINE_MAX) &&
               kind_synset(&w, l, at < (size_t)k, fn, ctx);
    int visited = w.over || !w.todo || !w.seen || !l ? -1 : (int)w.n_seen;
    free(w.todo);
    free(w.seen);
    free(l);
    return visited;
}

/* The base forms of word as a pos (NOUN, VERB) through fn, as the two
 * below promise. */
static int pos_bases(const lexicon *lx, int pos, const char *word, size_t n, lexicon_fn fn,
                     void *ctx)
{
    base_form b[8];
    int nb =
        lx && n > 0 && n < WORD_MAX && lx->index[pos].text ? base_forms(lx, pos, word, n, b, 8) : 0;
    for (int k = 0; k < nb; k++)
        if (fn(ctx, b[k], strlen(b[k])))
            return k + 1;
    return nb;
}

int lexicon_noun_bases(const lexicon *lx, const char *word, size_t n, lexicon_fn fn, void *ctx)
{
    return pos_bases(lx, NOUN, word, n, fn, ctx);
}

int lexicon_verb_bases(const lexicon *lx, const char *word, size_t n, lexicon_fn fn, void *ctx)
{
    return pos_bases(lx, VERB, word, n, fn, ctx);
}

/* ---- a verb's family ---------------------------------------------------- */

/* The pos index of a pointer's part-of-speech letter, or -1. */
static int pointer_pos(char c)
{
    return c == 'n' ? NOUN : c == 'v' ? VERB : c == 'a' || c == 's' ? ADJ : c == 'r' ? 3 : -1;
}

/* Give the word-th word (1-based) of the synset at off of data file p,
 * unless it is a noun of a person (noun.person, 18: "painter", "student"
 * name who does it, not what is done). */
static void synset_nth_word(collect *c, const lexicon *lx, int p, long off, int word)
{
    char l[LINE_MAX_LEN];
    size_t n;
    const char *f;
    if (data_line(lx, p, off, l, sizeof l) || !(f = field(l, 1, &n)) ||
        (p == NOUN && atoi(f) == 18) || !(f = field(l, 3, &n)))
        return;
    int words = (int)strtol(f, NULL, 16);
    if (word >= 1 && word <= words && (f = field(l, 4 + 2 * (word - 1), &n)))
        synset_word(c, f, n);
}

/* Is the word-th word (1-based) of verb synset line l the lemma base? */
static int synset_word_is(const char *l, int word, const char *base)
{
    size_t n;
    const char *f = field(l, 4 + 2 * (word - 1), &n);
    if (!f || n != strlen(base))
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((f[i] >= 'A' && f[i] <= 'Z' ? f[i] + 32 : f[i]) != base[i])
            return 0;
    return 1;
}

/* The words of the verb synset at off and of the words its derivation
 * pointers ("+") from base (or from the whole synset) lead to, but for
 * nouns of persons. The line is read once, field by field. */
static void verb_synset_family(collect *c, const lexicon *lx, long off, const char *base)
{
    char l[LINE_MAX_LEN];
    size_t n;
    const char *f = NULL;
    if (data_line(lx, VERB, off, l, sizeof l))
        return;
    const char *at = l;
    for (int k = 0; k < 4; k++) /* offset, lex_filenum, ss_type, w_cnt */
        f = next_field(&at, &n);
    int words = f ? (int)strtol(f, NULL, 16) : 0;
    for (int k = 0; k < words && !c->stop; k++) {
        if (!(f = next_field(&at, &n)))
            return;
        synset_word(c, f, n);
        next_field(&at, &n); /* lex_id */
    }
    if (!(f = next_field(&at, &n)))
        return;
    int ptrs = atoi(f);
    for (int k = 0; k < ptrs && !c->stop; k++) {
        size_t sn = 0, on = 0, pn = 0, tn = 0;
        const char *sym = next_field(&at, &sn), *o = next_field(&at, &on);
        const char *ps = next_field(&at, &pn), *st = next_field(&at, &tn);
        if (!sym || !o || !ps || !st || tn != 4)
            break;
        if (sn != 1 || sym[0] != '+')
            continue;
        char hex[3] = {st[0], st[1], '\0'};
        int src = (int)strtol(hex, NULL, 16);
        hex[0] = st[2];
        hex[1] = st[3];
        int tgt = (int)strtol(hex, NULL, 16);
        if (src != 0 && !synset_word_is(l, src, base))
            continue;
        if (tgt > 0)
            synset_nth_word(c, lx, pointer_pos(ps[0]), atol(o), tgt);
    }
}

int lexicon_verb_family(const lexicon *lx, const char *word, size_t n, int senses, lexicon_fn fn,
                        void *ctx)
{
    if (!lx || n == 0 || n >= WORD_MAX || !lx->index[VERB].text)
        return 0;
    collect *c = calloc(1, sizeof *c);
    if (!c)
        return 0;
    c->fn = fn;
    c->ctx = ctx;
    base_form base[8];
    int nb = base_forms(lx, VERB, word, n, base, 8);
    for (int b = 0; b < nb && !c->stop; b++)
        synset_word(c, base[b], strlen(base[b]));
    for (int b = 0; b < nb && !c->stop; b++) {
        long off[LEXICON_SENSES_MAX];
        int k = sense_offsets(sorted_find(&lx->index[VERB], base[b], strlen(base[b])), off,
                              senses < LEXICON_SENSES_MAX ? senses : LEXICON_SENSES_MAX);
        for (int s = 0; s < k && !c->stop; s++)
            verb_synset_family(c, lx, off[s], base[b]);
    }
    int given = c->given;
    free(c);
    return given;
}

/* Frames of a clause or complement (WordNet's verb frames, 1-35). */
static int clausal_frame(int f)
{
    return (f >= 5 && f <= 7) || f == 26 || f == 28 || f == 29 || (f >= 32 && f <= 35);
}

int lexicon_verb_clausal(const lexicon *lx, const char *word, size_t n)
{
    base_form base[1];
    long off;
    char l[LINE_MAX_LEN];
    size_t fl;
    const char *f;
    if (!lx || n == 0 || n >= WORD_MAX || !lx->index[VERB].text ||
        base_forms(lx, VERB, word, n, base, 1) < 1 ||
        sense_offsets(sorted_find(&lx->index[VERB], base[0], strlen(base[0])), &off, 1) != 1 ||
        data_line(lx, VERB, off, l, sizeof l) || !(f = field(l, 3, &fl)))
        return 0;
    int words = (int)strtol(f, NULL, 16);
    if (!(f = field(l, 4 + 2 * words, &fl)))
        return 0;
    int at = 5 + 2 * words + 4 * atoi(f); /* f_cnt */
    if (!(f = field(l, at, &fl)))
        return 0;
    int frames = atoi(f);
    for (int k = 0; k < frames; k++) {
        /* "+ f_num w_num": the frame holds for word w_num, 00 all of them */
        const char *fn = field(l, at + 2 + 3 * k, &fl), *wn = field(l, at + 3 + 3 * k, &fl);
        if (!fn || !wn)
            break;
        int w = (int)strtol(wn, NULL, 16);
        if (clausal_frame(atoi(fn)) && (w == 0 || synset_word_is(l, w, base[0])))
            return 1;
    }
    return 0;
}

int lexicon_verb_class(const lexicon *lx, const char *word, size_t n)
{
    base_form base[1];
    long off;
    char l[64];
    size_t fl;
    const char *f;
    if (!lx || n == 0 || n >= WORD_MAX || !lx->index[VERB].text ||
        base_forms(lx, VERB, word, n, base, 1) < 1 ||
        sense_offsets(sorted_find(&lx->index[VERB], base[0], strlen(base[0])), &off, 1) != 1 ||
        data_line(lx, VERB, off, l, sizeof l) || !(f = field(l, 1, &fl)))
        return -1;
    return atoi(f);
}

int lexicon_verb_irregular(const lexicon *lx, const char *word, size_t n)
{
    return lx && n > 0 && n < WORD_MAX && lx->exc[VERB].text &&
           sorted_find(&lx->exc[VERB], word, n) != NULL;
}

int lexicon_exception_bases(const lexicon *lx, const char *word, size_t n, lexicon_fn fn, void *ctx)
{
    static const int pos[] = {NOUN, VERB};
    int given = 0;
    for (size_t p = 0; lx && n > 0 && n < WORD_MAX && p < sizeof pos / sizeof *pos; p++) {
        const char *e = lx->exc[pos[p]].text ? sorted_find(&lx->exc[pos[p]], word, n) : NULL;
        for (const char *s = e ? e + n : NULL; s && *s == ' ';) {
            const char *t = ++s;
            while (*s && *s != ' ' && *s != '\n')
                s++;
            given++;
            if (s > t && fn(ctx, t, (size_t)(s - t)))
                return given;
        }
    }
    return given;
}
