/* labels.c - reading query JSONL and unanswerable question lists into a
 * label_set (the rules are in labels.h). */
#include "tui/cli/labels.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine.h"

void labels_init(label_set *s)
{
    memset(s, 0, sizeof *s);
}

static void question_free(label_question *q)
{
    free(q->qid);
    free(q->question);
    for (size_t i = 0; i < q->n_evidence; i++)
        free(q->evidence[i]);
    free(q->evidence);
}

/* Drop the questions from index n on, and files from nf on. */
static void labels_truncate(label_set *s, size_t n, size_t nf)
{
    while (s->n > n)
        question_free(&s->q[--s->n]);
    while (s->n_files > nf)
        free(s->files[--s->n_files]);
}

void labels_free(label_set *s)
{
    labels_truncate(s, 0, 0);
    free(s->q);
    free(s->files);
    labels_init(s);
}

static label_question *labels_add(label_set *s)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        label_question *g = realloc(s->q, cap * sizeof *g);
        if (!g)
            return NULL;
        s->q = g;
        s->cap = cap;
    }
    label_question *q = &s->q[s->n++];
    memset(q, 0, sizeof *q);
    q->file = (int)s->n_files - 1;
    return q;
}

static int labels_add_file(label_set *s, const char *path)
{
    char **g = realloc(s->files, (s->n_files + 1) * sizeof *g);
    if (!g)
        return -1;
    s->files = g;
    if (!(s->files[s->n_files] = strdup(path)))
        return -1;
    s->n_files++;
    return 0;
}

static ms_status nomem(ms_error *err)
{
    return ms_fail(err, MS_NOMEM, "out of memory reading labels");
}

/* The evidence ids of o into q. 0, or a reason. */
static const char *take_evidence(label_question *q, const cJSON *ev)
{
    if (!ev || cJSON_IsNull(ev))
        return NULL;
    if (!cJSON_IsArray(ev))
        return "\"evidence\" must be an array of ids";
    size_t n = (size_t)cJSON_GetArraySize(ev);
    q->evidence = calloc(n ? n : 1, sizeof *q->evidence);
    if (!q->evidence)
        return "out of memory";
    const cJSON *id;
    cJSON_ArrayForEach(id, ev)
    {
        if (!cJSON_IsString(id) || !id->valuestring[0])
            return "\"evidence\" must hold memory ids (strings)";
        if (!(q->evidence[q->n_evidence++] = strdup(id->valuestring)))
            return "out of memory";
    }
    return NULL;
}

/* Fill q from the object o; NULL, or the reason the line is refused. */
static const char *take_object(label_question *q, const cJSON *o, const char *path, long line)
{
    const cJSON *qt = cJSON_GetObjectItemCaseSensitive(o, "question");
    const cJSON *qid = cJSON_GetObjectItemCaseSensitive(o, "qid");
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(o, "category");
    const cJSON *ans = cJSON_GetObjectItemCaseSensitive(o, "answerable");
    if (!cJSON_IsString(qt) || !qt->valuestring[0])
        return "expected {\"question\": \"...\"}";
    if (cat && !cJSON_IsNumber(cat))
        return "\"category\" must be a number";
    if (ans && !cJSON_IsBool(ans))
        return "\"answerable\" must be true or false";
    const char *why = take_evidence(q, cJSON_GetObjectItemCaseSensitive(o, "evidence"));
    if (why)
        return why;
    if (cJSON_IsFalse(ans) && q->n_evidence)
        return "\"answerable\": false with evidence: which is it?";
    char where[64];
    snprintf(where, sizeof where, ":%ld", line);
    q->question = strdup(qt->valuestring);
    q->qid = cJSON_IsString(qid) ? strdup(qid->valuestring) : malloc(strlen(path) + 64);
    if (q->qid && !cJSON_IsString(qid))
        snprintf(q->qid, strlen(path) + 64, "%s%s", path, where);
    q->category = cat ? cat->valueint : 0;
    q->answerable = !cJSON_IsFalse(ans);
    return q->question && q->qid ? NULL : "out of memory";
}

/* Is the parsed line labelled? Answerable with evidence in category 0-4,
 * or marked unanswerable. */
static int labelled(const label_question *q)
{
    if (!q->answerable)
        return 1;
    return q->n_evidence > 0 && q->category >= 0 && q->category <= 4;
}

static ms_status parse_line(label_set *s, const char *path, long lineno, const char *line,
                            ms_error *err)
{
    cJSON *o = cJSON_Parse(line);
    if (!o || !cJSON_IsObject(o)) {
        const char *at = o ? line : cJSON_GetErrorPtr();
        long col = at && at >= line && at <= line + strlen(line) ? (long)(at - line) + 1 : 1;
        cJSON_Delete(o);
        return ms_fail(err, MS_PARSE, "%s:%ld:%ld: %s", path, lineno, col,
                       o ? "expected a JSON object" : "malformed JSON");
    }
    label_question *q = labels_add(s);
    const char *why = q ? take_object(q, o, path, lineno) : "out of memory";
    cJSON_Delete(o);
    if (why)
        return ms_fail(err, q ? MS_PARSE : MS_NOMEM, "%s:%ld:1: %s", path, lineno, why);
    q->line = lineno;
    if (!labelled(q)) {
        question_free(q);
        s->n--;
        s->skipped++;
    }
    return MS_OK;
}

typedef ms_status (*line_fn)(label_set *, const char *, long, const char *, ms_error *);

/* Call one_line for each line of path; restore s on failure. */
static ms_status read_lines(label_set *s, const char *path, ms_error *err, line_fn one_line)
{
    size_t n0 = s->n, nf0 = s->n_files, skipped0 = s->skipped;
    FILE *f = fopen(path, "r");
    if (!f)
        return ms_fail(err, MS_IO, "cannot open %s: %s", path, strerror(errno));
    if (labels_add_file(s, path)) {
        fclose(f);
        return nomem(err);
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    ms_status rc = MS_OK;
    while (rc == MS_OK && getline(&line, &cap, f) > 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[strspn(line, " \t")] != '\0')
            rc = one_line(s, path, lineno, line, err);
    }
    if (rc == MS_OK && ferror(f))
        rc = ms_fail(err, MS_IO, "cannot read %s: %s", path, strerror(errno));
    free(line);
    fclose(f);
    if (rc) {
        labels_truncate(s, n0, nf0);
        s->skipped = skipped0;
    }
    return rc;
}

ms_status labels_read_jsonl(label_set *s, const char *path, ms_error *err)
{
    return read_lines(s, path, err, parse_line);
}

static ms_status text_line(label_set *s, const char *path, long lineno, const char *line,
                           ms_error *err)
{
    const char *t = line + strspn(line, " \t");
    if (*t == '#')
        return MS_OK;
    if (strlen(t) > ENGINE_QUERY_MAX)
        return ms_fail(err, MS_PARSE, "%s:%ld: the question is %zu bytes; the limit is %d", path,
                       lineno, strlen(t), ENGINE_QUERY_MAX);
    label_question *q = labels_add(s);
    if (!q)
        return nomem(err);
    q->line = lineno;
    q->question = strdup(t);
    q->qid = malloc(strlen(path) + 32);
    if (!q->question || !q->qid)
        return nomem(err);
    snprintf(q->qid, strlen(path) + 32, "%s:%ld", path, lineno);
    q->answerable = 0;
    return MS_OK;
}

ms_status labels_read_unanswerable(label_set *s, const char *path, ms_error *err)
{
    return read_lines(s, path, err, text_line);
}

char *labels_normalize(const char *question)
{
    size_t n = strlen(question);
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    int space = 0;
    for (const char *p = question; *p; p++) {
        if (isspace((unsigned char)*p)) {
            space = o > out;
            continue;
        }
        if (space)
            *o++ = ' ';
        space = 0;
        *o++ = (char)tolower((unsigned char)*p);
    }
    *o = '\0';
    return out;
}
