/* supersede.c - finding, at import, the memories a newer one supersedes.
 *
 * A memory states an attribute of a subject when its text holds one of the
 * cue phrases below (`works at`, `lives in`, `is my manager`, `allergic
 * to`, ...) followed (or, for a few, preceded) by a value: the next word that
 * is not an article. A value that is a date (a month, a weekday, a number,
 * "the 2nd") makes the attribute the date of its subject. The subject is
 * what the statement is about: a name the memory is linked to that comes
 * before the cue in its sentence; else the speaker, for "I ...", "we ...",
 * "my manager"; else "the speaker's sister" for "my sister ..."; else, for
 * "she ...", "he ...", the names linked to the memory. A cue right after
 * "not", "n't", "never" or "no longer" states no value: it rejects one.
 * Two statements need no cue phrase: an age ("I'm 33", "Thirty-five as of
 * yesterday": age_facts) and a job title ("as a Senior Data Scientist",
 * "She's project lead": title_facts).
 *
 * Newer memory N supersedes older memory O (both of one profile) when they
 * state the same attribute of the same subject and either
 *   - N was written later (created time, then rid) and the values differ; or
 *   - N holds correction words ("correction", "actually", "not any more",
 *     "no longer", "wrong", "turns out", "mistaken") and rejects the value O
 *     states.
 * It is conservative: past tense ("worked at", "lived in") is no cue, a
 * memory with no subject states nothing, the values must be different words.
 * The relation's reason is the evidence: the attribute, both phrases, the
 * subject and the correction words (docs/ENGINE.md). */
#include "store_int.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum attr {
    A_EMPLOYER = STORE_ATTR_EMPLOYER,
    A_RESIDENCE = STORE_ATTR_RESIDENCE,
    A_MANAGER = STORE_ATTR_MANAGER,
    A_ROLE = STORE_ATTR_ROLE,
    A_ALLERGY = STORE_ATTR_ALLERGY,
    A_DATE = STORE_ATTR_DATE,
    A_LEAD = STORE_ATTR_LEAD,
    A_AGE = STORE_ATTR_AGE,
    A_COUNT = STORE_ATTR_COUNT
};

static const char *const attr_name[A_COUNT] = {"employer", "residence", "manager", "role",
                                               "allergy",  "date",      "lead",    "age"};

typedef struct cue {
    const char *text; /* lower case, matched at word boundaries */
    int attr;
    int before;  /* the value is the word before the cue */
    int speaker; /* the cue itself says the subject is the speaker ("my manager") */
    int then_at; /* a role; " at X" / " for X" later in the sentence is the employer */
    int after;   /* the subject is the name after the cue, the value the name before it
                    ("Priya has taken over Kestrel": who leads Kestrel) */
    int address; /* the value is the first word after the cue written with a capital or
                    a digit, across a colon ("the new address: 12 Wedmore Row") */
} cue;

static const cue cues[] = {
    {"works at", A_EMPLOYER, 0, 0, 0, 0, 0},      {"work at", A_EMPLOYER, 0, 0, 0, 0, 0},
    {"working at", A_EMPLOYER, 0, 0, 0, 0, 0},    {"works for", A_EMPLOYER, 0, 0, 0, 0, 0},
    {"work for", A_EMPLOYER, 0, 0, 0, 0, 0},      {"working for", A_EMPLOYER, 0, 0, 0, 0, 0},
    {"job at", A_EMPLOYER, 0, 0, 0, 0, 0},        {"starts at", A_EMPLOYER, 0, 0, 0, 0, 0},
    {"started at", A_EMPLOYER, 0, 0, 0, 0, 0},    {"employed by", A_EMPLOYER, 0, 0, 0, 0, 0},
    {"employed at", A_EMPLOYER, 0, 0, 0, 0, 0},   {"hired by", A_EMPLOYER, 0, 0, 0, 0, 0},
    {"lives in", A_RESIDENCE, 0, 0, 0, 0, 0},     {"live in", A_RESIDENCE, 0, 0, 0, 0, 0},
    {"living in", A_RESIDENCE, 0, 0, 0, 0, 0},    {"moved to", A_RESIDENCE, 0, 0, 0, 0, 0},
    {"moving to", A_RESIDENCE, 0, 0, 0, 0, 0},    {"relocate to", A_RESIDENCE, 0, 0, 0, 0, 0},
    {"relocated to", A_RESIDENCE, 0, 0, 0, 0, 0}, {"relocating to", A_RESIDENCE, 0, 0, 0, 0, 0},
    {"flat in", A_RESIDENCE, 0, 0, 0, 0, 0},      {"house in", A_RESIDENCE, 0, 0, 0, 0, 0},
    {"based in", A_RESIDENCE, 0, 0, 0, 0, 0},     {"is my manager", A_MANAGER, 1, 1, 0, 0, 0},
    {"my manager is", A_MANAGER, 0, 1, 0, 0, 0},  {"is my boss", A_MANAGER, 1, 1, 0, 0, 0},
    {"my boss is", A_MANAGER, 0, 1, 0, 0, 0},     {"reports to", A_MANAGER, 0, 0, 0, 0, 0},
    {"works as", A_ROLE, 0, 0, 1, 0, 0},          {"work as", A_ROLE, 0, 0, 1, 0, 0},
    {"working as", A_ROLE, 0, 0, 1, 0, 0},        {"promoted to", A_ROLE, 0, 0, 0, 0, 0},
    {"allergic to", A_ALLERGY, 0, 0, 0, 0, 0},    {"rescheduled to", A_DATE, 0, 0, 0, 0, 0},
    {"postponed to", A_DATE, 0, 0, 0, 0, 0},      {"pushed back to", A_DATE, 0, 0, 0, 0, 0},
    {"go-live is", A_DATE, 0, 0, 0, 0, 0},        {"goes live on", A_DATE, 0, 0, 0, 0, 0},
    {"new address", A_RESIDENCE, 0, 0, 0, 0, 1},  {"my address", A_RESIDENCE, 0, 1, 0, 0, 1},
    {"taken over", A_LEAD, 0, 0, 0, 1, 0},        {"took over", A_LEAD, 0, 0, 0, 1, 0},
    {"takes over", A_LEAD, 0, 0, 0, 1, 0},        {"in charge of", A_LEAD, 0, 0, 0, 1, 0},
};

static const char *const corrections[] = {"correction",  "actually",  "not any more",
                                          "not anymore", "no longer", "wrong",
                                          "turns out",   "mistaken",  NULL};

#define SUBJ_MAX 6
#define KEY_MAX 96

typedef struct fact {
    int64_t rid, ts; /* ts: created time */
    int attr;
    int negated;
    int correction;  /* the memory holds correction words */
    char value[48];  /* lower case */
    char phrase[64]; /* the cue and value as written, for the evidence */
    char subj[SUBJ_MAX][KEY_MAX];
    int n_subj;
} fact;

typedef struct facts {
    fact *v;
    size_t n, cap;
} facts;

/* One memory as the detector reads it. */
typedef struct mem_text {
    int64_t rid, ts;
    const char *content;
    const char *speaker; /* NULL when none */
    char **ents;         /* linked entities' match forms */
    size_t n_ents;
} mem_text;

/* isalnum of an ASCII byte is the same in every locale; written out, since
 * this is asked of every byte of every memory of an import. */
static int word_byte(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c >= 0x80 ||
           c == '\'' || c == '&' || c == '-';
}

/* Lower-case ASCII copy. Caller frees. */
static char *lower_copy(const char *s)
{
    size_t n = strlen(s);
    char *l = malloc(n + 1);
    for (size_t i = 0; l && i <= n; i++)
        l[i] = (char)tolower((unsigned char)s[i]);
    return l;
}

static int is_sentence_end(char c)
{
    return c == '.' || c == '!' || c == '?' || c == ';' || c == ':' || c == '\n';
}

/* The word at p (skipping spaces and one article) into out; the byte after it. */
static const char *next_word(const char *p, const char *end, char *out, size_t cap)
{
    static const char *const skip[] = {"the ",   "a ",   "an ",    "her ",        "his ",
                                       "their ", "our ", "my ",    "now ",        "on ",
                                       "for ",   "set ", "still ", "officially ", NULL};
    for (int round = 0; round < 3; round++) { /* "is now set for the ..." */
        while (p < end && *p == ' ')
            p++;
        int skipped = 0;
        for (int i = 0; skip[i] && !skipped; i++)
            if ((size_t)(end - p) > strlen(skip[i]) && strncmp(p, skip[i], strlen(skip[i])) == 0) {
                p += strlen(skip[i]);
                skipped = 1;
            }
        if (!skipped)
            break;
    }
    size_t n = 0;
    while (p < end && word_byte((unsigned char)*p) && n + 1 < cap)
        out[n++] = *p++;
    out[n] = '\0';
    return p;
}

/* The word that ends right before p (after start) into out, cut to cap;
 * returns where it starts. */
static const char *prev_word(const char *start, const char *p, char *out, size_t cap)
{
    while (p > start && p[-1] == ' ')
        p--;
    const char *e = p;
    while (p > start && word_byte((unsigned char)p[-1]))
        p--;
    size_t n = (size_t)(e - p) < cap - 1 ? (size_t)(e - p) : cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
    return p;
}

static int is_date_word(const char *w)
{
    static const char *const words[] = {
        "january",   "february",  "march",   "april",    "may",      "june",   "july",
        "august",    "september", "october", "november", "december", "monday", "tuesday",
        "wednesday", "thursday",  "friday",  "saturday", "sunday",   NULL};
    if (isdigit((unsigned char)w[0]))
        return 1;
    for (int i = 0; words[i]; i++)
        if (strcmp(w, words[i]) == 0)
            return 1;
    return 0;
}

static int ends_with_negation(const char *start, const char *p)
{
    static const char *const neg[] = {"not ", "n't ", "never ", "no longer ", NULL};
    for (int i = 0; neg[i]; i++) {
        size_t n = strlen(neg[i]);
        for (size_t back = n; back <= n + 8 && (size_t)(p - start) >= back; back++)
            if (strncmp(p - back, neg[i], n) == 0)
                return 1;
    }
    return 0;
}

/* Is value, where it first occurs in [s, e) of the lower-case text, written
 * with a capital (or a letter beyond ASCII) in m's own text? */
static int proper_name(const mem_text *m, const char *lower, const char *s, const char *e,
                       const char *value)
{
    const char *v = strstr(s, value);
    if (!v || v >= e)
        return 0;
    unsigned char c = (unsigned char)m->content[v - lower];
    return isupper(c) || c >= 0x80;
}

static void add_subject(fact *f, const char *key)
{
    for (int i = 0; i < f->n_subj; i++)
        if (strcmp(f->subj[i], key) == 0)
            return;
    if (f->n_subj < SUBJ_MAX && *key)
        snprintf(f->subj[f->n_subj++], KEY_MAX, "%s", key);
}

/* Does the lower-case text [a, b) hold word w at word boundaries? The
 * first such place. (memchr to each place the first byte is: an import
 * asks this for every cue of every memory.) */
static const char *find_word(const char *a, const char *b, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = a; n && p + n <= b; p++) {
        if (!(p = memchr(p, w[0], (size_t)(b - p) - n + 1)))
            return NULL;
        if (memcmp(p, w, n) == 0 && (p == a || !word_byte((unsigned char)p[-1])) &&
            (p + n == b || !word_byte((unsigned char)p[n])))
            return p;
    }
    return NULL;
}

/* Does text hold cue w at p, which starts a word? Compared as lower_copy
 * would write it. */
static int cue_at(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)p[i]) != (unsigned char)w[i])
            return 0;
    return p + n == end || !word_byte((unsigned char)tolower((unsigned char)p[n]));
}

/* The cues by first byte: bit k of cue_first[b] is set when cue k starts
 * with b. Built once (the cues are constant); a word start then tries only
 * the cues of its letter. */
_Static_assert(sizeof cues / sizeof *cues <= 64, "cue_first holds a bit per cue");
static uint64_t cue_first[256];
static pthread_once_t cue_first_once = PTHREAD_ONCE_INIT;

static void cue_first_build(void)
{
    for (size_t k = 0; k < sizeof cues / sizeof *cues; k++)
        cue_first[(unsigned char)cues[k].text[0]] |= 1ull << k;
}

int store_holds_cue(const char *text)
{
    pthread_once(&cue_first_once, cue_first_build);
    const char *end = text + strlen(text);
    int in_word = 0;
    for (const char *p = text; p < end; p++) {
        unsigned char c = (unsigned char)tolower((unsigned char)*p);
        for (uint64_t m = in_word ? 0 : cue_first[c]; m; m &= m - 1)
            if (cue_at(p, end, cues[__builtin_ctzll(m)].text))
                return 1;
        in_word = word_byte(c);
    }
    return 0;
}

const char *store_cue_text(size_t k)
{
    return k < sizeof cues / sizeof *cues ? cues[k].text : NULL;
}

/* Add the names linked to m that its text holds (not the speaker, not the
 * value) as subjects of f. */
static void names_in(const mem_text *m, const char *sp, const char *a, const char *b, fact *f)
{
    for (size_t i = 0; i < m->n_ents; i++)
        if (strcmp(m->ents[i], sp) != 0 && !strstr(m->ents[i], f->value) &&
            find_word(a, b, m->ents[i]))
            add_subject(f, m->ents[i]);
}

static int in_list(const char *w, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(w, list[i]) == 0)
            return 1;
    return 0;
}

/* Who the statement at cue position c of sentence [s, e) is about: the
 * speaker for "I ..." or "my manager"; for "she ...", "it's ..." the names
 * the memory holds; the speaker's X for "my X ..."; else the names before
 * the cue in its sentence. */
static void subjects(const mem_text *m, const char *lower, const char *s, const char *c,
                     const cue *k, fact *f)
{
    static const char *const first[] = {"i", "i'm", "we", "we're", "i've", "we've", "i'll", NULL};
    static const char *const pron[] = {"she",     "he", "she's", "he's", "they",
                                       "they're", "it", "it's",  NULL};
    char sp[KEY_MAX] = "";
    if (m->speaker)
        store_entity_norm(m->speaker, strlen(m->speaker), sp, sizeof sp);
    char w1[32], w2[32];
    prev_word(s, prev_word(s, c, w1, sizeof w1), w2, sizeof w2);
    const char *all = lower + strlen(lower);
    if (*sp && (k->speaker || in_list(w1, first) || in_list(w2, first))) {
        add_subject(f, sp);
    } else if (in_list(w1, pron) || in_list(w2, pron)) {
        names_in(m, sp, lower, all, f);
    } else if (*sp && (strcmp(w2, "my") == 0 || strcmp(w2, "our") == 0) && *w1) {
        char key[KEY_MAX];
        snprintf(key, sizeof key, "%.40s's %.40s", sp, w1);
        add_subject(f, key);
    } else {
        names_in(m, sp, s, c, f);
        for (int i = 0; !f->n_subj && pron[i]; i++)
            if (find_word(s, c, pron[i]))
                names_in(m, sp, lower, all, f);
    }
}

/* A date value: the month and weekday names and the numbers ("2nd" is 2) of
 * the six words from p, space separated, into out. */
static void date_value(const char *p, const char *end, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (int w = 0; w < 6 && p < end; w++) {
        char word[32];
        const char *q = next_word(p, end, word, sizeof word);
        if (q == p)
            break;
        p = q;
        while (p < end && !word_byte((unsigned char)*p))
            p++;
        size_t n = strlen(word);
        if (isdigit((unsigned char)word[0]))
            while (n && !isdigit((unsigned char)word[n - 1]))
                word[--n] = '\0';
        if (n && is_date_word(word) && o + n + 2 < cap) {
            memcpy(out + o, " ", 1);
            memcpy(out + o + 1, word, n + 1);
            o += n + 1;
        }
    }
    if (o)
        out[o++] = ' ', out[o] = '\0';
}

/* Do two date values name one day: a word in common? */
static int same_date(const char *a, const char *b)
{
    for (const char *p = a; *p;) {
        const char *q = strchr(p + 1, ' ');
        if (!q)
            break;
        char w[40];
        snprintf(w, sizeof w, "%.*s", (int)(q - p + 1), p);
        if (strstr(b, w))
            return 1;
        p = q;
    }
    return 0;
}

static int push_fact(facts *fs, const fact *f)
{
    if (fs->n == fs->cap) {
        fact *g = realloc(fs->v, (fs->cap = fs->cap ? 2 * fs->cap : 16) * sizeof *g);
        if (!g)
            return -1;
        fs->v = g;
    }
    fs->v[fs->n++] = *f;
    return 0;
}

/* The speaker's match form into sp (cap KEY_MAX), "" when none. */
static void speaker_key(const mem_text *m, char *sp)
{
    sp[0] = '\0';
    if (m->speaker)
        store_entity_norm(m->speaker, strlen(m->speaker), sp, KEY_MAX);
}

/* The first name linked to m that [a, b) holds, not the speaker's, into
 * out; where it is in *at. 0 when none. */
static int first_name(const mem_text *m, const char *sp, const char *a, const char *b, char *out,
                      size_t cap, const char **at)
{
    const char *best = NULL;
    for (size_t i = 0; i < m->n_ents; i++) {
        const char *p = strcmp(m->ents[i], sp) != 0 ? find_word(a, b, m->ents[i]) : NULL;
        if (p && (!best || p < best)) {
            best = p;
            snprintf(out, cap, "%s", m->ents[i]);
        }
    }
    *at = best;
    return best != NULL;
}

/* The first word of [a, b) that m's text writes with a capital, into out;
 * where it is, or NULL. */
static const char *capital_word(const mem_text *m, const char *lower, const char *a, const char *b,
                                char *out, size_t cap)
{
    for (const char *p = a; p < b; p++)
        if ((p == lower || !word_byte((unsigned char)p[-1])) &&
            isupper((unsigned char)m->content[p - lower])) {
            size_t n = 0;
            while (p + n < b && word_byte((unsigned char)p[n]) && n + 1 < cap)
                n++;
            snprintf(out, cap, "%.*s", (int)n, p);
            return p;
        }
    return NULL;
}

/* A lead: "Priya Shah has taken over Kestrel", "I'm in charge of Kestrel".
 * The subject is the name after the cue, the value who leads it: the name
 * before the cue, or the speaker for "I ...". */
static int lead_fact(const mem_text *m, const char *lower, const char *s, const char *c,
                     const char *e, const cue *k, fact *f, facts *fs)
{
    char sp[KEY_MAX], subj[KEY_MAX], w1[32], w2[32];
    static const char *const first[] = {"i", "i've", "i'm", "we", "we've", "we're", NULL};
    speaker_key(m, sp);
    const char *after = c + strlen(k->text), *subj_at, *from = c;
    if (!first_name(m, sp, after, e, subj, sizeof subj, &subj_at))
        return 0;
    prev_word(s, prev_word(s, c, w1, sizeof w1), w2, sizeof w2);
    if (*sp && (in_list(w1, first) || in_list(w2, first)))
        snprintf(f->value, sizeof f->value, "%.*s", (int)sizeof f->value - 1, sp);
    else if (!first_name(m, sp, s, c, f->value, sizeof f->value, &from) &&
             !(from = capital_word(m, lower, s, c, f->value, sizeof f->value)))
        return 0;
    size_t off = (size_t)(from - lower), len = (size_t)(subj_at - from) + strlen(subj);
    snprintf(f->phrase, sizeof f->phrase, "%.*s", (int)(len < 60 ? len : 60), m->content + off);
    add_subject(f, subj);
    return push_fact(fs, f);
}

/* An address: the first word after the cue that begins with a capital or a
 * digit, up to the end of the next sentence but for a colon; the subject is
 * whoever subjects() finds, else the speaker (who asks to keep their own). */
static int address_fact(const mem_text *m, const char *lower, const char *s, const char *c,
                        const cue *k, fact *f, facts *fs)
{
    const char *p = c + strlen(k->text);
    while (*p && *p != '.' && *p != '!' && *p != '?' && *p != '\n') {
        unsigned char o = (unsigned char)m->content[p - lower];
        if ((isupper(o) || isdigit(o)) && (p == lower || !word_byte((unsigned char)p[-1])))
            break;
        p++;
    }
    size_t n = 0;
    while (word_byte((unsigned char)p[n]) && n + 1 < sizeof f->value)
        n++;
    if (!n)
        return 0;
    snprintf(f->value, sizeof f->value, "%.*s", (int)n, p);
    size_t off = (size_t)(c - lower), len = (size_t)(p - c) + n;
    snprintf(f->phrase, sizeof f->phrase, "%.*s", (int)(len < 60 ? len : 60), m->content + off);
    subjects(m, lower, s, c, k, f);
    char sp[KEY_MAX];
    speaker_key(m, sp);
    if (!f->n_subj && *sp)
        add_subject(f, sp);
    return f->n_subj ? push_fact(fs, f) : 0;
}

/* One cue occurrence at c in sentence [s, e) of m's lower-case text. */
static int one_fact(const mem_text *m, const char *lower, const char *s, const char *c,
                    const char *e, const cue *k, int correction, facts *fs)
{
    fact f;
    memset(&f, 0, sizeof f);
    f.rid = m->rid;
    f.ts = m->ts;
    f.attr = k->attr;
    f.correction = correction;
    f.negated = ends_with_negation(s, c);
    const char *after = c + strlen(k->text);
    if (k->after)
        return lead_fact(m, lower, s, c, e, k, &f, fs);
    if (k->address)
        return address_fact(m, lower, s, c, k, &f, fs);
    if (k->before)
        prev_word(s, c, f.value, sizeof f.value);
    else
        next_word(after, e, f.value, sizeof f.value);
    if (!f.value[0])
        return 0;
    if (is_date_word(f.value) ||
        (strncmp(f.value, "the", 3) == 0 && isdigit((unsigned char)f.value[3])))
        f.attr = A_DATE;
    else if (k->attr == A_DATE)
        return 0; /* a date cue without a date */
    else if (k->attr != A_ROLE && k->attr != A_ALLERGY && !proper_name(m, lower, s, e, f.value))
        return 0; /* "working at it": a workplace, a town, a manager has a name */
    size_t off = (size_t)(c - lower), len = (size_t)(after - c);
    if (k->before) { /* "Inês is my manager" */
        size_t v = strlen(f.value);
        const char *vs = c;
        while (vs > s && vs[-1] == ' ')
            vs--;
        vs = vs - v >= s ? vs - v : s;
        off = (size_t)(vs - lower);
        len = (size_t)(after - vs);
    } else {
        const char *ve = strstr(after, f.value);
        len = ve && ve < e ? (size_t)(ve - c) + strlen(f.value) : len;
    }
    snprintf(f.phrase, sizeof f.phrase, "%.*s", (int)(len < 60 ? len : 60), m->content + off);
    if (f.attr == A_DATE)
        date_value(k->before ? c : after, e, f.value, sizeof f.value);
    subjects(m, lower, s, c, k, &f);
    if (!f.n_subj)
        return 0;
    if (push_fact(fs, &f))
        return -1;
    if (k->then_at) { /* "works as an analyst at Westway": the employer too */
        const char *at = find_word(after, e, "at");
        at = at ? at : find_word(after, e, "for");
        if (at) {
            fact g = f;
            g.attr = A_EMPLOYER;
            const char *w = at;
            while (w < e && word_byte((unsigned char)*w))
                w++;
            const char *vend = next_word(w, e, g.value, sizeof g.value);
            size_t goff = (size_t)(at - lower), glen = (size_t)(vend - at);
            snprintf(g.phrase, sizeof g.phrase, "%.*s", (int)(glen < 60 ? glen : 60),
                     m->content + goff);
            if (g.value[0] && push_fact(fs, &g))
                return -1;
        }
    }
    return 0;
}

/* ---- ages and titles: statements without a cue phrase ------------------------ */

static const cue age_cue = {"", A_AGE, 0, 0, 0, 0, 0};
static const cue title_cue = {"", A_ROLE, 0, 0, 0, 0, 0};

/* The word from p (spaces skipped, nothing else) into out; its end, or p
 * when a non-word byte comes first ("33, and ..."). */
static const char *raw_word(const char *p, const char *e, char *out, size_t cap)
{
    while (p < e && *p == ' ')
        p++;
    size_t n = 0;
    while (p + n < e && word_byte((unsigned char)p[n]) && n + 1 < cap)
        n++;
    memcpy(out, p, n); /* word bytes: no NUL among them */
    out[n] = '\0';
    return p + n;
}

/* The age a word says: whole digits 1..119, or a number word ("thirty-five",
 * "nine"); else -1. */
static int age_number(const char *w)
{
    static const char *const units[] = {
        "zero",     "one",     "two",     "three",     "four",     "five",     "six",
        "seven",    "eight",   "nine",    "ten",       "eleven",   "twelve",   "thirteen",
        "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", NULL};
    static const char *const tens[] = {"twenty",  "thirty", "forty",  "fifty", "sixty",
                                       "seventy", "eighty", "ninety", NULL};
    if (isdigit((unsigned char)w[0])) {
        int v = 0;
        for (const char *p = w; *p; p++)
            if (!isdigit((unsigned char)*p) || (v = v * 10 + (*p - '0')) > 119)
                return -1;
        return v >= 1 ? v : -1;
    }
    /* this is asked of every word of every memory: most start with a
     * letter no number word starts with */
    if (!w[0] || !memchr("otfsen", w[0], 6))
        return -1;
    /* two bytes compared before the rest: "the", "to" and "so" start as
     * several number words do */
    for (int i = 1; units[i]; i++)
        if (units[i][0] == w[0] && units[i][1] == w[1] && strcmp(w, units[i]) == 0)
            return i;
    for (int i = 0; tens[i]; i++) {
        if (tens[i][0] != w[0] || tens[i][1] != w[1])
            continue;
        size_t n = strlen(tens[i]);
        if (strncmp(w, tens[i], n) != 0)
            continue;
        if (!w[n])
            return 20 + 10 * i;
        for (int u = 1; w[n] == '-' && u < 10; u++)
            if (strcmp(w + n + 1, units[u]) == 0)
                return 20 + 10 * i + u;
    }
    return -1;
}

/* Is the number [p, q) of sentence [s, e) an age? After "I'm", "she's",
 * "is", "turned" (with "officially", "just" ... between), or first in its
 * sentence before "as of" ("Thirty-five as of yesterday"); and followed by
 * nothing, "years old", or a word of time or a joining one ("today", "and"),
 * not a unit ("5 minutes", "100%"). *from gets where the statement starts. */
static int age_at(const char *s, const char *p, const char *q, const char *e, const char **from)
{
    static const char *const before[] = {"i'm", "im",     "am",      "he's",  "she's",
                                         "is",  "turned", "turning", "turns", NULL};
    static const char *const skip[] = {"officially", "now", "just", "finally", "already", NULL};
    static const char *const after[] = {"today", "now",      "and",   "but",  "this",
                                        "next",  "on",       "in",    "so",   "yesterday",
                                        "last",  "tomorrow", "since", "soon", NULL};
    char w[32], nx[32], nx2[32];
    if (q < e && *q != ' ' && !strchr(",.!?;)", *q))
        return 0; /* "100%", "5:30" */
    const char *b = prev_word(s, p, w, sizeof w);
    if (in_list(w, skip))
        b = prev_word(s, b, w, sizeof w);
    const char *r = raw_word(q, e, nx, sizeof nx);
    raw_word(r, e, nx2, sizeof nx2);
    int first = !*w, as_of = strcmp(nx, "as") == 0 && strcmp(nx2, "of") == 0;
    int ends = !*nx || in_list(nx, after) ||
               ((strcmp(nx, "years") == 0 || strcmp(nx, "year") == 0) && strcmp(nx2, "old") == 0);
    *from = first ? p : b;
    return (in_list(w, before) && (ends || as_of)) || (first && as_of);
}

/* Ages: "I'm 33", "I'm officially 34", "Sam turned 40", "Thirty-five as of
 * yesterday". The subject is whoever subjects() finds before the number,
 * else, for a number that opens its sentence, the speaker. The value is the
 * number in digits. */
static int age_facts(const mem_text *m, const char *lower, const char *s, const char *e,
                     int correction, facts *fs)
{
    for (const char *p = s; p < e;) {
        char w[32];
        const char *q = raw_word(p, e, w, sizeof w), *from;
        if (q == p) {
            p++;
            continue;
        }
        const char *at = q - strlen(w);
        int age = age_number(w);
        p = q;
        if (age < 0 || !age_at(s, at, q, e, &from))
            continue;
        fact f;
        memset(&f, 0, sizeof f);
        f.rid = m->rid;
        f.ts = m->ts;
        f.attr = A_AGE;
        f.correction = correction;
        snprintf(f.value, sizeof f.value, "%d", age);
        char a1[32], a2[32];
        const char *r1 = raw_word(q, e, a1, sizeof a1), *r2 = raw_word(r1, e, a2, sizeof a2);
        const char *to = from == at && !strcmp(a1, "as") && !strcmp(a2, "of") ? r2 : q;
        snprintf(f.phrase, sizeof f.phrase, "%.*s", (int)(to - from < 60 ? to - from : 60),
                 m->content + (from - lower));
        subjects(m, lower, s, at, &age_cue, &f);
        char sp[KEY_MAX];
        speaker_key(m, sp);
        if (!f.n_subj && from == at && *sp)
            add_subject(&f, sp);
        if (f.n_subj && push_fact(fs, &f))
            return -1;
    }
    return 0;
}

/* The head nouns of job titles: the last word of "Senior Data Scientist",
 * "project lead", "a scheduling analyst". */
static const char *const title_heads[] = {
    "analyst",    "scientist",   "engineer",    "developer",    "designer",      "architect",
    "manager",    "director",    "lead",        "officer",      "consultant",    "researcher",
    "specialist", "coordinator", "editor",      "accountant",   "administrator", "nurse",
    "teacher",    "lecturer",    "professor",   "surgeon",      "technician",    "supervisor",
    "intern",     "chef",        "programmer",  "planner",      "strategist",    "executive",
    "founder",    "president",   "counselor",   "counsellor",   "therapist",     "physiotherapist",
    "pharmacist", "paramedic",   "electrician", "plumber",      "librarian",     "journalist",
    "lawyer",     "solicitor",   "paralegal",   "receptionist", "instructor",    "tutor",
    NULL};

/* Is c the capital it is in m's text? */
static int capital_at(const mem_text *m, const char *lower, const char *c)
{
    unsigned char o = (unsigned char)m->content[c - lower];
    return isupper(o) || o >= 0x80;
}

/* A job title ending at head noun [h, q) of sentence [s, e): up to three
 * words before it (all written with capitals when the head is: "Senior Data
 * Scientist"), said after "as a", "I'm a", "she's", "is the", "became", or,
 * written with capitals, on its own. The role of whoever subjects() finds
 * before it, else of the speaker. Not after "my", "his", ... ("is my
 * manager" is a manager) nor "worked as" (the past) nor "works as" (a cue of
 * its own); the head must end the title ("lead singer" is not "lead"). */
static int title_fact(const mem_text *m, const char *lower, const char *s, const char *h,
                      const char *q, const char *e, int correction, facts *fs)
{
    static const char *const follow[] = {"on",  "at",    "for",  "of",   "in",    "with", "and",
                                         "now", "since", "from", "here", "there", NULL};
    static const char *const intro[] = {"i'm", "she's", "he's",   "they're", "is",      "am",
                                        "are", "as",    "became", "become",  "becomes", NULL};
    static const char *const speaks[] = {"i'm", "she's", "he's", "they're", NULL};
    static const char *const stop[] = {"my", "his",  "her",    "their", "our", "your", "a",
                                       "an", "the",  "not",    "no",    "i",   "she",  "he",
                                       "we", "they", "former", "ex",    "to",  "it",   NULL};
    char w[32];
    raw_word(q, e, w, sizeof w);
    if (*w && !in_list(w, follow))
        return 0;
    int caps = capital_at(m, lower, h);
    const char *ts = h, *b;
    for (int n = 0; n < 3; n++) {
        b = prev_word(s, ts, w, sizeof w);
        if (!*w || in_list(w, stop) || in_list(w, intro) || (caps && !capital_at(m, lower, b)))
            break;
        ts = b;
    }
    b = prev_word(s, ts, w, sizeof w);
    if (strcmp(w, "a") == 0 || strcmp(w, "an") == 0 || strcmp(w, "the") == 0)
        b = prev_word(s, b, w, sizeof w);
    int said = in_list(w, intro), words = 1;
    for (const char *p = ts; p < h; p++)
        words += *p == ' ';
    if (said && strcmp(w, "as") == 0) { /* not "such as", "six years as" */
        static const char *const not_as[] = {"such", "years", "year", "months", "weeks",  "days",
                                             "time", "well",  "same", "so",     "decade", NULL};
        char v[32];
        prev_word(s, b, v, sizeof v);
        if (strncmp(v, "work", 4) == 0 || in_list(v, not_as))
            return 0;
    }
    if (!said && !(caps && words >= 2))
        return 0;
    fact f;
    memset(&f, 0, sizeof f);
    f.rid = m->rid;
    f.ts = m->ts;
    f.attr = A_ROLE;
    f.correction = correction;
    const char *from = said ? b : ts, *c = said && in_list(w, speaks) ? b + strlen(w) : from;
    f.negated = ends_with_negation(s, from);
    snprintf(f.value, sizeof f.value, "%.*s", (int)(q - ts < 47 ? q - ts : 47), ts);
    snprintf(f.phrase, sizeof f.phrase, "%.*s", (int)(q - from < 60 ? q - from : 60),
             m->content + (from - lower));
    subjects(m, lower, s, c, &title_cue, &f);
    char sp[KEY_MAX];
    speaker_key(m, sp);
    if (!f.n_subj && !said && *sp)
        add_subject(&f, sp);
    return f.n_subj ? push_fact(fs, &f) : 0;
}

/* Every job title of sentence [s, e), into fs. */
static int title_facts(const mem_text *m, const char *lower, const char *s, const char *e,
                       int correction, facts *fs)
{
    for (int k = 0; title_heads[k]; k++)
        for (const char *h = find_word(s, e, title_heads[k]); h;
             h = find_word(h + 1, e, title_heads[k]))
            if (title_fact(m, lower, s, h, h + strlen(title_heads[k]), e, correction, fs))
                return -1;
    return 0;
}

/* The title heads by first byte, as cue_first holds the cues. */
_Static_assert(sizeof title_heads / sizeof *title_heads <= 65, "head_first holds a bit per head");
static uint64_t head_first[256];
static pthread_once_t head_first_once = PTHREAD_ONCE_INIT;

static void head_first_build(void)
{
    for (size_t k = 0; title_heads[k]; k++)
        head_first[(unsigned char)title_heads[k][0]] |= 1ull << k;
}

/* Does the lower-case text hold a title head as a whole word? The heads
 * are letters, so one is found at word boundaries (find_word) exactly where
 * a whole run of word bytes is that head: one pass over the runs, each
 * compared with the heads of its first letter. */
int store_holds_title_head(const char *lower)
{
    pthread_once(&head_first_once, head_first_build);
    for (const char *p = lower; *p;) {
        if (!word_byte((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *q = p;
        while (*q && word_byte((unsigned char)*q))
            q++;
        for (uint64_t m = head_first[(unsigned char)*p]; m; m &= m - 1) {
            const char *h = title_heads[__builtin_ctzll(m)];
            if (strlen(h) == (size_t)(q - p) && memcmp(p, h, (size_t)(q - p)) == 0)
                return 1;
        }
        p = q;
    }
    return 0;
}

const char *store_title_head_text(size_t k)
{
    return k < sizeof title_heads / sizeof *title_heads ? title_heads[k] : NULL;
}

/* Might the lower-case text state an age or a title: a head noun, or a
 * number after "I'm", "is", "turned" ... (memory_facts decides)? */
static int any_age_or_title(const char *lower)
{
    if (store_holds_title_head(lower))
        return 1;
    for (const char *s = lower; *s;) {
        const char *e = s;
        while (*e && !is_sentence_end(*e))
            e++;
        for (const char *p = s; p < e;) {
            char w[32];
            const char *q = raw_word(p, e, w, sizeof w), *from;
            if (q == p) {
                p++;
                continue;
            }
            if (age_number(w) >= 0 && age_at(s, q - strlen(w), q, e, &from))
                return 1;
            p = q;
        }
        s = *e ? e + 1 : e;
    }
    return 0;
}

/* Might the text state anything (memory_facts decides)? A cue is found in
 * the text itself (store_holds_cue); an age or a title in a lower-case copy.
 * -1 when out of memory. */
static int might_state(const char *content)
{
    if (store_holds_cue(content))
        return 1;
    char *lower = lower_copy(content);
    if (!lower)
        return -1;
    int yes = any_age_or_title(lower);
    free(lower);
    return yes;
}

int store_might_state(const char *content)
{
    return content ? might_state(content) : 0;
}

void store_note_new_facts(store *s, int64_t after)
{
    store_facts_clear(s);
    s->facts_on = s->in_txn;
    s->facts_after = after;
}

void store_facts_clear(store *s)
{
    free(s->facts);
    s->facts = NULL;
    s->n_facts = s->cap_facts = 0;
    s->facts_on = 0;
    s->facts_noted = 0;
}

ms_status store_note_fact(store *s, const store_memory *m, ms_error *err)
{
    if (!s->facts_on)
        return MS_OK;
    int yes = m->might_state >= 0 ? m->might_state : store_might_state(m->content);
    if (yes < 0)
        return ms_fail(err, MS_NOMEM, "out of memory");
    if (m->rid <= s->facts_after || (s->n_facts && m->rid <= s->facts[s->n_facts - 1])) {
        s->facts_on = 0; /* not in rid order after all: read them all */
        return MS_OK;
    }
    s->facts_noted++;
    if (!yes)
        return MS_OK;
    if (s->n_facts == s->cap_facts) {
        size_t cap = s->cap_facts ? 2 * s->cap_facts : 64;
        int64_t *g = realloc(s->facts, cap * sizeof *g);
        if (!g)
            return ms_fail(err, MS_NOMEM, "out of memory");
        s->facts = g;
        s->cap_facts = cap;
    }
    s->facts[s->n_facts++] = m->rid;
    return MS_OK;
}

/* Every fact memory m states, into fs. -1 when out of memory. */
static int memory_facts(const mem_text *m, facts *fs)
{
    char *lower = lower_copy(m->content);
    if (!lower)
        return -1;
    int correction = 0;
    for (int i = 0; corrections[i] && !correction; i++)
        correction = find_word(lower, lower + strlen(lower), corrections[i]) != NULL;
    int rc = 0;
    for (const char *s = lower; !rc && *s;) {
        const char *e = s;
        while (*e && !is_sentence_end(*e))
            e++;
        for (size_t k = 0; !rc && k < sizeof cues / sizeof *cues; k++)
            for (const char *c = find_word(s, e, cues[k].text); !rc && c;
                 c = find_word(c + 1, e, cues[k].text))
                rc = one_fact(m, lower, s, c, e, &cues[k], correction, fs);
        if (!rc)
            rc = age_facts(m, lower, s, e, correction, fs);
        if (!rc)
            rc = title_facts(m, lower, s, e, correction, fs);
        s = *e ? e + 1 : e;
    }
    free(lower);
    return rc;
}

static int same_subject(const fact *a, const fact *b)
{
    for (int i = 0; i < a->n_subj; i++)
        for (int j = 0; j < b->n_subj; j++)
            if (strcmp(a->subj[i], b->subj[j]) == 0)
                return i + 1;
    return 0;
}

/* Does n supersede o? Then reason gets the evidence. */
static int supersedes(const fact *n, const fact *o, char *reason, size_t cap)
{
    if (n->rid == o->rid || n->attr != o->attr || o->negated)
        return 0;
    int later = n->ts > o->ts || (n->ts == o->ts && n->rid > o->rid);
    int subj = same_subject(n, o);
    if (!later || !subj)
        return 0;
    const char *who = n->subj[subj - 1];
    int same = n->attr == A_DATE ? same_date(n->value, o->value) : strcmp(n->value, o->value) == 0;
    if (!n->negated && !same && n->attr != A_ALLERGY) { /* one can have two allergies */
        snprintf(reason, cap, "%s of %s: \"%s\" after \"%s\"%s", attr_name[n->attr], who, n->phrase,
                 o->phrase, n->correction ? "; correction words" : "");
        return 1;
    }
    if (n->negated && n->correction && same) {
        snprintf(reason, cap, "%s of %s: a correction rejects \"%s\" (\"%s\")", attr_name[n->attr],
                 who, o->phrase, n->phrase);
        return 1;
    }
    return 0;
}

/* ---- what a memory states, what a question asks ------------------------------ */

const char *store_attr_name(int attr)
{
    return attr >= 0 && attr < A_COUNT ? attr_name[attr] : "?";
}

int store_states(const char *content, const char *speaker, char *const *ents, size_t n_ents,
                 int attr, int (*about)(const char *subject, void *arg), void *arg, char *phrase,
                 size_t cap)
{
    mem_text m = {0, 0, content, speaker, (char **)ents, n_ents};
    facts fs = {0};
    int found = 0;
    phrase[0] = '\0';
    if (content && might_state(content) > 0 && memory_facts(&m, &fs) == 0)
        for (size_t i = 0; i < fs.n && !found; i++) {
            int yes = 0, veto = 0;
            for (int j = 0; fs.v[i].attr == attr && j < fs.v[i].n_subj; j++) {
                int v = about(fs.v[i].subj[j], arg);
                yes |= v > 0;
                veto |= v < 0;
            }
            if ((found = yes && !veto))
                snprintf(phrase, cap, "%s", fs.v[i].phrase);
        }
    free(fs.v);
    return found;
}

/* Does the lower-case, space-padded text hold any of the words or phrases? */
static int holds_any(const char *padded, const char *const *list)
{
    for (int i = 0; list[i]; i++) {
        char w[40];
        snprintf(w, sizeof w, " %s ", list[i]);
        if (strstr(padded, w))
            return 1;
    }
    return 0;
}

/* The question's words: lower case, punctuation but "'" and "&" as spaces,
 * padded with a space each side. Caller frees. */
static char *question_words(const char *q)
{
    size_t n = strlen(q);
    char *w = malloc(n + 3);
    if (!w)
        return NULL;
    w[0] = ' ';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)q[i];
        w[i + 1] = (char)(isalnum(c) || c >= 0x80 || c == '\'' || c == '-' ? tolower(c) : ' ');
    }
    w[n + 1] = ' ';
    w[n + 2] = '\0';
    return w;
}

/* The attribute the question's words ask, or -1 (the first rule that holds). */
static int attr_of_words(const char *w)
{
    static const char *const lead[] = {"in charge", "leads",      "runs", "heads",
                                       "took over", "taken over", NULL};
    static const char *const manager[] = {"manager", "boss", "report to", "reports to", NULL};
    static const char *const allergy[] = {"allergic", "allergy", "allergies", NULL};
    static const char *const role[] = {"job title", "role",     "position",
                                       "work as",   "works as", NULL};
    static const char *const live[] = {"live", "lives", "living", "based", NULL};
    static const char *const work[] = {"work", "works", "working", NULL};
    static const char *const employer[] = {"work for", "works for", "employer", "which company",
                                           NULL};
    static const char *const where[] = {"where", NULL};
    static const char *const address[] = {"address", NULL};
    static const char *const age[] = {"how old", "age", NULL};
    if (holds_any(w, age))
        return A_AGE;
    if (holds_any(w, lead) && strncmp(w, " who ", 5) == 0)
        return A_LEAD;
    if (holds_any(w, manager))
        return A_MANAGER;
    if (holds_any(w, allergy))
        return A_ALLERGY;
    if (holds_any(w, role))
        return A_ROLE;
    if (holds_any(w, address) || (holds_any(w, where) && holds_any(w, live)))
        return A_RESIDENCE;
    if (holds_any(w, employer) || (holds_any(w, where) && holds_any(w, work)))
        return A_EMPLOYER;
    return -1;
}

/* Whom the question's words ask about: "my X" for a noun X that is not the
 * attribute's own word ("my sister") someone else; "I", "me", "my job" the
 * speaker. */
static int who_of_words(const char *w)
{
    static const char *const own[] = {"job",   "title",    "role",    "position", "manager",
                                      "boss",  "employer", "address", "home",     "current",
                                      "new",   "allergy",  "age",     "team",     "company",
                                      "place", NULL};
    static const char *const self[] = {"i", "i'm", "me", "am", NULL};
    const char *my = strstr(w, " my ");
    if (my) {
        char x[32];
        size_t n = 0;
        for (const char *p = my + 4; *p && *p != ' ' && n + 1 < sizeof x; p++)
            x[n++] = *p;
        x[n] = '\0';
        return in_list(x, own) ? STORE_WHO_SELF : STORE_WHO_OTHER;
    }
    return holds_any(w, self) ? STORE_WHO_SELF : STORE_WHO_ANY;
}

int store_attr_asked(const char *question, int *who)
{
    *who = STORE_WHO_ANY;
    char *w = question ? question_words(question) : NULL;
    if (!w)
        return -1;
    int attr = attr_of_words(w);
    if (attr >= 0)
        *who = who_of_words(w);
    free(w);
    return attr;
}

/* ---- reading the profile --------------------------------------------------- */

typedef struct profile_mems {
    mem_text *v;
    size_t n;
} profile_mems;

static void mems_free(profile_mems *pm)
{
    for (size_t i = 0; i < pm->n; i++) {
        free((char *)pm->v[i].content);
        free((char *)pm->v[i].speaker);
        for (size_t j = 0; j < pm->v[i].n_ents; j++)
            free(pm->v[i].ents[j]);
        free(pm->v[i].ents);
    }
    free(pm->v);
}

/* The entities linked to m, in the order of their match forms. */
static ms_status read_entities_of(store *s, sqlite3_stmt *st, mem_text *m, ms_error *err)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, m->rid);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char **g = realloc(m->ents, (m->n_ents + 1) * sizeof *g);
        if (!g || !(g[m->n_ents] = store_col_text(st, 0))) {
            if (g)
                m->ents = g;
            return ms_fail(err, MS_NOMEM, "out of memory");
        }
        m->ents = g;
        m->n_ents++;
    }
    return rc == SQLITE_DONE ? MS_OK
                             : store_sql_fail(s, rc, "reading memories for supersession", err);
}

/* Keep the row at st as the next memory of pm when its text holds a cue
 * (the others state nothing: not kept, so that an import of a million
 * memories does not hold their texts). */
static ms_status keep_if_cued(sqlite3_stmt *st, profile_mems *pm, size_t *cap, ms_error *err)
{
    const char *content = (const char *)sqlite3_column_text(st, 2);
    int cued = content ? might_state(content) : 0;
    if (cued < 0)
        return ms_fail(err, MS_NOMEM, "out of memory");
    if (!cued)
        return MS_OK;
    if (pm->n == *cap) {
        mem_text *g = realloc(pm->v, (*cap = *cap ? 2 * *cap : 64) * sizeof *g);
        if (!g)
            return ms_fail(err, MS_NOMEM, "out of memory");
        pm->v = g;
    }
    mem_text *m = &pm->v[pm->n++];
    memset(m, 0, sizeof *m);
    m->rid = sqlite3_column_int64(st, 0);
    m->ts = sqlite3_column_int64(st, 1);
    m->content = store_col_text(st, 2);
    m->speaker = store_col_text(st, 3);
    return m->content ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory");
}

/* Did every memory after rid `after` come through puts noted since
 * store_note_new_facts(after) (then s->facts lists those that might state
 * a fact)? The noted rids are distinct, above `after` and at most the
 * largest rid, so when there are as many as rids in between, every row
 * there was noted (a noted row deleted since is not read). */
static int facts_noted_all(store *s, int64_t after)
{
    int64_t max = 0;
    return s->facts_on && s->facts_after == after && store_max_rid(s, &max, NULL) == MS_OK &&
           max - after == s->facts_noted;
}

/* The memories of the current profile after rid `after` that hold a cue,
 * in rid order, with their entities; with listed, those fact_candidates
 * lists (cand_catch_up first), which are all of them. */
static ms_status read_profile(store *s, int64_t after, int listed, profile_mems *pm, ms_error *err)
{
    const char *what = "reading memories for supersession";
    /* only the noted memories that might state a fact, when they are
     * known: the rows they name, in the same (rid) order */
    int noted = !listed && facts_noted_all(s, after);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                listed  ? "SELECT m.rid, m.created_ts, m.content, m.speaker"
                                          " FROM fact_candidates c CROSS JOIN memories m"
                                          " ON m.rid = c.rid WHERE m.profile=?1 AND c.rid > ?2"
                                          " ORDER BY c.rid"
                                : noted ? "SELECT rid, created_ts, content, speaker FROM memories"
                                          " WHERE rid=?2 AND profile=?1"
                                        /* in rowid order: an index on profile would sort
                                           every text in a temporary tree */
                                        : "SELECT rid, created_ts, content, speaker FROM memories"
                                          " NOT INDEXED WHERE profile=?1 AND rid > ?2 ORDER BY rid",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, what, err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    size_t cap = 0;
    ms_status code = MS_OK;
    for (size_t i = 0; !code && i < (noted ? s->n_facts : 1); i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 2, noted ? s->facts[i] : after);
        while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW)
            code = keep_if_cued(st, pm, &cap, err);
        if (!code && rc != SQLITE_DONE)
            code = store_sql_fail(s, rc, what, err);
    }
    sqlite3_finalize(st);
    if (code || !pm->n)
        return code;
    rc = sqlite3_prepare_v2(s->db, STORE_CUED_ENTITIES_SQL, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, what, err);
    sqlite3_bind_text(st, 2, s->profile, -1, SQLITE_STATIC);
    for (size_t i = 0; !code && i < pm->n; i++)
        code = read_entities_of(s, st, &pm->v[i], err);
    sqlite3_finalize(st);
    return code;
}

/* ---- the memories that might state a fact ---------------------------------
 *
 * A detection compares the facts of the new memories with those of every
 * memory of their profile; reading every text for that took about 3 s of
 * an `add` at 1M (median 3.17 s), where 614 memories might state anything.
 * So the store
 * lists them: fact_candidates holds the rid of every memory at or below
 * meta 'fact_candidates_through' (the mark) whose text might state a fact
 * (might_state), and may hold others, which read_profile asks again. A put
 * at or below the mark (a replacement, a reused rid) lists or unlists its
 * memory, a delete unlists it, an undelete lists it; the memories above
 * the mark are listed when a detection needs the others (from the puts
 * noted, else by reading their texts once), and the mark moves to the
 * newest memory. A store upgraded to schema 11 starts with an empty list
 * and the mark at 0. */

/* The mark as this transaction sees it. */
static ms_status cand_through(store *s, int64_t *out, ms_error *err)
{
    if (s->cand_through >= 0) {
        *out = s->cand_through;
        return MS_OK;
    }
    ms_status code = store_query_int(s,
                                     "SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta"
                                     " WHERE key='fact_candidates_through'), 0)",
                                     out, err);
    if (!code)
        s->cand_through = *out;
    return code;
}

/* Run statement id with ?1 bound to v. */
static ms_status cand_run(store *s, enum stmt_id id, int64_t v, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, id, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, v);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? MS_OK : store_sql_fail(s, rc, "listing the fact candidates", err);
}

ms_status store_fact_candidate_put(store *s, const store_memory *m, ms_error *err)
{
    int64_t through;
    ms_status code = cand_through(s, &through, err);
    if (code || m->rid > through) /* listed when a detection needs it */
        return code;
    int yes = m->might_state >= 0 ? m->might_state : store_might_state(m->content);
    if (yes < 0)
        return ms_fail(err, MS_NOMEM, "out of memory");
    return cand_run(s, yes ? ST_CAND_LIST : ST_CAND_UNLIST, m->rid, err);
}

/* Each memory above the mark whose text might state a fact, listed, and
 * the mark moved to the newest memory: from the puts noted since
 * store_note_new_facts when they are every memory above the mark (cheap,
 * done after every detection), else, with force, by reading their texts.
 * The rows count as appended (store_key.rewritten): no copy keeps them. */
static ms_status cand_catch_up(store *s, int force, ms_error *err)
{
    int64_t through, last = 0;
    ms_status code = cand_through(s, &through, err);
    if (!code)
        code = store_max_rid(s, &last, err);
    if (code || through >= last)
        return code;
    int noted = through >= s->facts_after && facts_noted_all(s, s->facts_after);
    if (!noted && !force)
        return MS_OK;
    int64_t changes = sqlite3_total_changes64(s->db);
    sqlite3_stmt *st = NULL;
    for (size_t i = 0; noted && !code && i < s->n_facts; i++)
        if (s->facts[i] > through)
            code = cand_run(s, ST_CAND_LIST, s->facts[i], err);
    int rc = SQLITE_DONE;
    if (!noted && !code) {
        rc = sqlite3_prepare_v2(s->db,
                                "SELECT rid, content FROM memories NOT INDEXED WHERE rid > ?1"
                                " ORDER BY rid",
                                -1, &st, NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, through);
            while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
                const char *text = (const char *)sqlite3_column_text(st, 1);
                int yes = text ? might_state(text) : 0;
                if (yes < 0)
                    code = ms_fail(err, MS_NOMEM, "out of memory");
                else if (yes)
                    code = cand_run(s, ST_CAND_LIST, sqlite3_column_int64(st, 0), err);
            }
        }
        if (!code && rc != SQLITE_DONE)
            code = store_sql_fail(s, rc, "listing the fact candidates", err);
    }
    sqlite3_finalize(st);
    if (!code)
        code = cand_run(s, ST_CAND_MARK, last, err);
    if (!code) {
        s->cand_through = last;
        s->appended += sqlite3_total_changes64(s->db) - changes;
    }
    return code;
}

/* ---- detection ------------------------------------------------------------ */

static int by_time(const void *a, const void *b)
{
    const fact *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->rid > y->rid) - (x->rid < y->rid);
}

/* In the current profile: each pair of facts of which at least one memory
 * was written after `after` (a new memory may be the older fact). */
static ms_status detect_profile(store *s, int64_t after, uint64_t *found, ms_error *err)
{
    profile_mems pm = {0};
    facts fs = {0};
    /* the new memories first: when they state nothing, nothing else is read */
    ms_status code = read_profile(s, after, 0, &pm, err);
    for (size_t i = 0; !code && i < pm.n; i++)
        if (memory_facts(&pm.v[i], &fs))
            code = ms_fail(err, MS_NOMEM, "out of memory");
    if (!code && fs.n && after > 0) {
        fs.n = 0;
        mems_free(&pm);
        memset(&pm, 0, sizeof pm);
        code = cand_catch_up(s, 1, err);
        if (!code)
            code = read_profile(s, 0, 1, &pm, err);
        for (size_t i = 0; !code && i < pm.n; i++)
            if (memory_facts(&pm.v[i], &fs))
                code = ms_fail(err, MS_NOMEM, "out of memory");
    }
    if (!code && fs.n > 1) /* newer successors last: an older memory names the newest */
        qsort(fs.v, fs.n, sizeof *fs.v, by_time);
    for (size_t a = 0; !code && a < fs.n; a++) {
        for (size_t b = 0; !code && b < fs.n; b++) {
            if (fs.v[a].rid <= after && fs.v[b].rid <= after)
                continue; /* both were there before: decided then */
            char reason[STORE_FIELD_MAX < 400 ? STORE_FIELD_MAX : 400];
            if (!supersedes(&fs.v[a], &fs.v[b], reason, sizeof reason))
                continue;
            int added = 0;
            code = store_add_found_supersession(s, fs.v[a].rid, fs.v[b].rid, reason, &added, err);
            *found += (uint64_t)added;
        }
    }
    free(fs.v);
    mems_free(&pm);
    return code;
}

ms_status store_detect_supersession(store *s, int64_t after, uint64_t *found, ms_error *err)
{
    *found = 0;
    ms_status sync = store_relations_sync(s, err);
    if (sync)
        return sync;
    sqlite3_stmt *st;
    /* the rows after `after` by rowid: for a DISTINCT SQLite otherwise walks
     * a covering index of every memory (56-60 ms of each `add` at 1M); the
     * whole store (after 0) is read faster through that index */
    int rc = sqlite3_prepare_v2(s->db,
                                after > 0 ? "SELECT DISTINCT profile FROM memories NOT INDEXED"
                                            " WHERE rid > ?1"
                                          : "SELECT DISTINCT profile FROM memories WHERE rid > ?1",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "finding supersession", err);
    sqlite3_bind_int64(st, 1, after);
    char home[STORE_PROFILE_MAX + 1];
    snprintf(home, sizeof home, "%s", s->profile);
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        code = store_use_profile(s, (const char *)sqlite3_column_text(st, 0), err);
        if (!code)
            code = detect_profile(s, after, found, err);
    }
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "finding supersession", err);
    sqlite3_finalize(st);
    store_use_profile(s, home, NULL);
    if (!code) /* the new rows listed now, when the puts noted them */
        code = cand_catch_up(s, 0, err);
    return code;
}

ms_status store_max_rid(store *s, int64_t *rid, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "SELECT coalesce(max(rid), 0) FROM memories", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading the store", err);
    rc = sqlite3_step(st);
    *rid = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? MS_OK : store_sql_fail(s, rc, "reading the store", err);
}
