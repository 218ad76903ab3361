/* view_curate.c - the browser's writes: feedback as a toggle per memory
 * and query, editing a memory's fields, deleting it, and the session's
 * undo list. Each write is one store transaction and shows on the row (or,
 * deleted, leaves it); none happens on a read-only store (view_act refuses
 * first). */
#include "tui/browser/view.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* H | R of view_act.c (this file is compiled into tests/view-test.c with it) */
#define CURATE_HR (VIEW_HANDLED | VIEW_REDRAW)

void view_mark_rows(view_model *vm)
{
    for (size_t i = 0; vm->cur && i < vm->n_rows; i++) {
        view_row *row = &vm->rows[i];
        store_feedback f;
        int found = 0;
        ms_error err;
        row->judged = 0;
        if (!row->rels &&
            store_relations_of(vm->st, row->h->mem.rid, &row->rels, &row->n_rels, &err))
            row->n_rels = 0;
        if (row->kind == ROW_GONE ||
            store_feedback_of(vm->st, row->h->mem.rid, vm->cur->query, &f, &found, &err))
            continue;
        row->judged = found ? f.label : 0;
        store_feedback_clear(&f);
    }
}

/* ---- the undo list ------------------------------------------------------------ */

static void view_undo_entry_free(view_undo *u)
{
    free(u->query);
    store_feedback_clear(&u->before);
    store_memory_clear(&u->mem);
    store_removed_free(u->removed);
    free(u->was.other_id);
    free(u->was.reason);
    memset(u, 0, sizeof *u);
}

void view_undo_free(view_model *vm)
{
    for (int i = 0; i < vm->n_undo; i++)
        view_undo_entry_free(&vm->undo[i]);
    vm->n_undo = 0;
}

/* A new entry at the end (the oldest is forgotten when the list is full). */
static view_undo *view_undo_push(view_model *vm)
{
    if (vm->n_undo == VIEW_UNDO_MAX) {
        view_undo_entry_free(&vm->undo[0]);
        memmove(vm->undo, vm->undo + 1, sizeof *vm->undo * (VIEW_UNDO_MAX - 1));
        vm->n_undo--;
    }
    view_undo *u = &vm->undo[vm->n_undo++];
    memset(u, 0, sizeof *u);
    return u;
}

/* ---- feedback ---------------------------------------------------------------- */

static const char *view_label_text(int label)
{
    return label > 0 ? "relevant" : label < 0 ? "not relevant" : "unjudged";
}

/* Remember the judgement rid has for query now, for undo; -1 on failure. */
static int view_remember_feedback(view_model *vm, const view_row *row, const char *query)
{
    store_feedback f;
    int found = 0;
    ms_error err;
    ms_error_clear(&err);
    if (store_feedback_of(vm->st, row->h->mem.rid, query, &f, &found, &err)) {
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
        return -1;
    }
    view_undo *u = view_undo_push(vm);
    u->kind = UNDO_FEEDBACK;
    u->rid = row->h->mem.rid;
    snprintf(u->id, sizeof u->id, "%s", row->h->mem.id);
    u->query = strdup(query);
    u->before = f;
    u->had = found;
    return 0;
}

int view_feedback_toggle(view_model *vm, int label)
{
    const view_row *row = view_selected(vm);
    if (!row || !vm->cur || row->kind == ROW_GONE) {
        view_message(vm, ROLE_message, "select a result to mark it");
        return CURATE_HR;
    }
    int next = row->judged == label ? 0 : label;
    char id[STORE_ID_MAX + 1];
    snprintf(id, sizeof id, "%s", row->h->mem.id);
    if (view_remember_feedback(vm, row, vm->cur->query))
        return CURATE_HR;
    ms_error err;
    ms_error_clear(&err);
    if (engine_feedback(vm->eng, vm->cur, id, next, &err)) {
        view_undo_entry_free(&vm->undo[--vm->n_undo]);
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
        return CURATE_HR;
    }
    if (next)
        view_message(vm, ROLE_message,
                     "marked %s %s to this query; the engine learns from it (the feedback "
                     "adjustment in the trace); again unmarks, u undoes",
                     id, view_label_text(next));
    else
        view_message(vm, ROLE_message, "unmarked %s for this query; u undoes", id);
    return CURATE_HR | VIEW_RECALL;
}

/* ---- one transaction ---------------------------------------------------------- */

typedef ms_status (*view_write_fn)(view_model *vm, void *ctx, ms_error *err);

/* Run fn inside store_begin/store_end; a failure rolls back all of it. */
static ms_status view_transaction(view_model *vm, view_write_fn fn, void *ctx, ms_error *err)
{
    ms_status st = store_begin(vm->st, err);
    if (!st)
        st = fn(vm, ctx, err);
    if (!st)
        st = store_end(vm->st, err);
    else
        store_rollback(vm->st);
    return st;
}

/* ---- delete -------------------------------------------------------------------- */

int view_delete_ask(view_model *vm)
{
    const view_row *row = view_selected(vm);
    if (!row || row->kind == ROW_GONE) {
        view_message(vm, ROLE_message, "select a result to delete it");
        return CURATE_HR;
    }
    snprintf(vm->edit_id, sizeof vm->edit_id, "%s", row->h->mem.id);
    vm->prompting = PROMPT_CONFIRM;
    ledit_clear(&vm->prompt);
    view_message(vm, ROLE_message,
                 "delete %s? y deletes it (u brings it back), any other key "
                 "keeps it",
                 vm->edit_id);
    return CURATE_HR;
}

static ms_status view_delete_write(view_model *vm, void *ctx, ms_error *err)
{
    view_undo *u = ctx;
    return store_delete_saving(vm->st, vm->edit_id, &u->removed, err);
}

int view_delete_answer(view_model *vm, int yes)
{
    vm->prompting = PROMPT_NONE;
    if (!yes) {
        view_message(vm, ROLE_message, "kept %s", vm->edit_id);
        return CURATE_HR;
    }
    ms_error err;
    ms_error_clear(&err);
    view_undo *u = view_undo_push(vm);
    u->kind = UNDO_DELETE;
    snprintf(u->id, sizeof u->id, "%s", vm->edit_id);
    store_memory m;
    ms_status st = store_get(vm->st, vm->edit_id, 0, &m, &err);
    if (!st) {
        u->rid = m.rid;
        store_memory_clear(&m);
        st = view_transaction(vm, view_delete_write, u, &err);
    }
    if (st) {
        view_undo_entry_free(&vm->undo[--vm->n_undo]);
        view_message(vm, ROLE_error, "memscope: %s; nothing deleted", err.msg);
        return CURATE_HR;
    }
    ms_error_clear(&err);
    view_model_reload(vm, &err);
    view_message(vm, ROLE_message, "deleted %s; u brings it back", u->id);
    return CURATE_HR | VIEW_RECALL;
}

/* ---- edit ------------------------------------------------------------------------ */

/* The memory an edit is for (the open one, else the selected row) into
 * vm->edit_id; 0 with a message when there is none. */
static int edit_target(view_model *vm)
{
    const view_row *row = vm->det.open ? NULL : view_selected(vm);
    const char *id = vm->det.open                   ? vm->det.m.id
                     : row && row->kind != ROW_GONE ? row->h->mem.id
                                                    : NULL;
    if (!id) {
        view_message(vm, ROLE_message, "select a result to edit it");
        return 0;
    }
    snprintf(vm->edit_id, sizeof vm->edit_id, "%s", id);
    return 1;
}

int view_edit_begin(view_model *vm)
{
    if (!edit_target(vm))
        return CURATE_HR;
    return CURATE_HR | VIEW_FULL | VIEW_EDITOR;
}

/* The shortest of %.15g and %.17g that reads back as v (0.95, not
 * 0.94999999999999996), into out[32]. */
static void view_number(double v, char *out)
{
    snprintf(out, 32, "%.15g", v);
    if (strtod(out, NULL) != v)
        snprintf(out, 32, "%.17g", v);
}

int view_edit_write(view_model *vm, FILE *f)
{
    store_memory m;
    ms_error err;
    ms_error_clear(&err);
    if (store_get(vm->st, vm->edit_id, 0, &m, &err)) {
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
        return -1;
    }
    fprintf(f,
            "# memscope: edit memory %s. Change the values after the colons; the content is\n"
            "# every line after 'content:'. Lines starting with # are ignored. An empty\n"
            "# speaker or event_time clears it; trust is alpha and beta. Save and quit to\n"
            "# write the change (u in the browser undoes it); leave it as it is to cancel.\n",
            m.id);
    fprintf(f, "speaker: %s\ncreated_at: %s\nevent_time: %s\n", m.speaker ? m.speaker : "",
            m.created_at ? m.created_at : "", m.event_time ? m.event_time : "");
    char conf[32], alpha[32], beta[32];
    view_number(m.memory_confidence, conf);
    view_number(m.trust_alpha, alpha);
    view_number(m.trust_beta, beta);
    fprintf(f, "memory_confidence: %s\ntrust: %s %s\ncontent:\n%s\n", conf, alpha, beta,
            m.content ? m.content : "");
    store_memory_clear(&m);
    return 0;
}

/* The parsed file: strings into buf (owned by the caller's struct). */
typedef struct view_edit_parse {
    store_edit_fields f;
    char *speaker, *created_at, *event_time, *content;
} view_edit_parse;

static void view_edit_parse_free(view_edit_parse *p)
{
    free(p->speaker);
    free(p->created_at);
    free(p->event_time);
    free(p->content);
}

static char *view_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* One "field: value" line; 0, or -1 with the message (PATH:LINE:COL). */
static int view_edit_field(view_model *vm, view_edit_parse *p, char *line, const char *path, int ln)
{
    char *colon = strchr(line, ':');
    if (!colon) {
        view_message(vm, ROLE_error, "memscope: edit: expected 'field: value' (%s:%d:1)", path, ln);
        return -1;
    }
    *colon = '\0';
    char *key = view_trim(line), *val = view_trim(colon + 1), *end = NULL;
    int col = (int)(val - line) + 1;
    if (strcmp(key, "speaker") == 0)
        p->speaker = strdup(val);
    else if (strcmp(key, "created_at") == 0)
        p->created_at = strdup(val);
    else if (strcmp(key, "event_time") == 0)
        p->event_time = strdup(val);
    else if (strcmp(key, "memory_confidence") == 0) {
        p->f.memory_confidence = strtod(val, &end);
        if (end == val || *view_trim(end) || p->f.memory_confidence < 0) {
            view_message(vm, ROLE_error,
                         "memscope: edit: memory_confidence must be a number from 0 to 1 "
                         "(%s:%d:%d)",
                         path, ln, col);
            return -1;
        }
    } else if (strcmp(key, "trust") == 0) {
        p->f.trust_alpha = strtod(val, &end);
        char *b = end;
        p->f.trust_beta = strtod(b, &end);
        if (b == val || end == b || *view_trim(end) || p->f.trust_alpha <= 0 ||
            p->f.trust_beta <= 0) {
            view_message(vm, ROLE_error,
                         "memscope: edit: trust must be two numbers above 0, alpha and beta "
                         "(%s:%d:%d)",
                         path, ln, col);
            return -1;
        }
    } else {
        view_message(vm, ROLE_error, "memscope: edit: no field '%s' (%s:%d:1)", key, path, ln);
        return -1;
    }
    return 0;
}

/* Parse the edited file into p; 0, or -1 with the message. */
static int view_edit_parse_file(view_model *vm, const char *path, view_edit_parse *p)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        view_message(vm, ROLE_error, "memscope: cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL, *content = NULL;
    size_t cap = 0, clen = 0;
    int ln = 0, in_content = 0, rc = 0;
    FILE *c = open_memstream(&content, &clen);
    while (rc == 0 && c && getline(&line, &cap, f) >= 0) {
        ln++;
        if (in_content)
            fputs(line, c);
        else if (line[0] == '#' || !*view_trim(line))
            continue;
        else if (strcmp(view_trim(line), "content:") == 0)
            in_content = 1;
        else
            rc = view_edit_field(vm, p, line, path, ln);
    }
    free(line);
    fclose(f);
    if (c)
        fclose(c);
    if (rc == 0 && !in_content) {
        view_message(vm, ROLE_error, "memscope: edit: no 'content:' line (%s:%d:1)", path, ln + 1);
        rc = -1;
    }
    while (content && clen > 0 && content[clen - 1] == '\n')
        content[--clen] = '\0';
    p->content = content;
    p->f.content = content;
    p->f.speaker = p->speaker;
    p->f.created_at = p->created_at;
    p->f.event_time = p->event_time;
    return rc;
}

static ms_status view_edit_store(view_model *vm, void *ctx, ms_error *err)
{
    return store_edit(vm->st, vm->edit_id, ctx, err);
}

/* Is the parsed file the memory as it was (nothing to write)? */
static int view_edit_same(const view_edit_parse *p, const store_memory *m)
{
    const char *sp = m->speaker ? m->speaker : "", *ev = m->event_time ? m->event_time : "";
    return (!p->content || strcmp(p->content, m->content) == 0) &&
           strcmp(p->speaker ? p->speaker : sp, sp) == 0 &&
           strcmp(p->created_at ? p->created_at : m->created_at, m->created_at) == 0 &&
           strcmp(p->event_time ? p->event_time : ev, ev) == 0 &&
           (p->f.memory_confidence < 0 || p->f.memory_confidence == m->memory_confidence) &&
           (p->f.trust_alpha < 0 ||
            (p->f.trust_alpha == m->trust_alpha && p->f.trust_beta == m->trust_beta));
}

/* Write p's fields to vm->edit_id in one transaction, remembered for undo;
 * how names the edit in a failure's message ("" for none). VIEW_* flags. */
static int view_edit_commit(view_model *vm, view_edit_parse *p, const char *how)
{
    ms_error err;
    ms_error_clear(&err);
    view_undo *u = view_undo_push(vm);
    u->kind = UNDO_EDIT;
    snprintf(u->id, sizeof u->id, "%s", vm->edit_id);
    ms_status st = store_get_for_put(vm->st, vm->edit_id, &u->mem, &err);
    int same = !st && view_edit_same(p, &u->mem);
    if (st)
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
    else if (same)
        view_message(vm, ROLE_message, "%s unchanged: nothing written", u->id);
    else if ((st = view_transaction(vm, view_edit_store, &p->f, &err)))
        view_message(vm, ROLE_error, "memscope: %s%s; nothing written", err.msg, how);
    if (st || same) {
        view_undo_entry_free(&vm->undo[--vm->n_undo]);
        return CURATE_HR | VIEW_FULL;
    }
    u->rid = u->mem.rid;
    if (vm->det.open && strcmp(vm->det.m.id, u->id) == 0) {
        view_detail_close(vm);
        view_detail_open(vm, u->id);
    }
    view_message(vm, ROLE_message, "edited %s; u undoes it", u->id);
    return CURATE_HR | VIEW_FULL | VIEW_RECALL;
}

int view_edit_apply(view_model *vm, const char *path)
{
    view_edit_parse p = {0};
    store_edit_fields_init(&p.f);
    int f =
        view_edit_parse_file(vm, path, &p) ? CURATE_HR | VIEW_FULL : view_edit_commit(vm, &p, "");
    view_edit_parse_free(&p);
    return f;
}

/* ---- inline edit --------------------------------------------------------------- */

enum {
    FIELD_CONTENT,
    FIELD_SPEAKER,
    FIELD_CREATED,
    FIELD_EVENT,
    FIELD_CONF,
    FIELD_TRUST,
    FIELD_COUNT
};
static const char *const view_field_names[FIELD_COUNT] = {"content",    "speaker",    "created_at",
                                                          "event_time", "confidence", "trust"};

const char *view_set_field_name(const view_model *vm)
{
    return (unsigned)vm->edit_field < FIELD_COUNT ? view_field_names[vm->edit_field] : "?";
}

int view_set_ask(view_model *vm)
{
    if (!edit_target(vm))
        return CURATE_HR;
    vm->prompting = PROMPT_FIELD;
    ledit_clear(&vm->prompt);
    view_message(vm, ROLE_message,
                 "which field of %s? content, speaker, created_at, event_time, confidence or "
                 "trust (a prefix will do); Enter, Esc cancels",
                 vm->edit_id);
    return CURATE_HR;
}

/* The field name (or a unique prefix of it) names; -1 when none, -2 when
 * more than one. */
static int view_field_lookup(const char *name)
{
    size_t n = strlen(name);
    int found = -1;
    for (int i = 0; n > 0 && i < FIELD_COUNT; i++) {
        if (strcmp(name, view_field_names[i]) == 0)
            return i;
        if (strncmp(name, view_field_names[i], n) == 0)
            found = found == -1 ? i : -2;
    }
    return found;
}

/* The value of field i of m as the prompt shows it, into out[cap]; -1 when
 * the line editor cannot hold it (too long, or line breaks). */
static int view_field_value(const store_memory *m, int i, char *out, size_t cap)
{
    char a[32], b[32];
    const char *v = i == FIELD_CONTENT   ? m->content
                    : i == FIELD_SPEAKER ? m->speaker
                    : i == FIELD_CREATED ? m->created_at
                    : i == FIELD_EVENT   ? m->event_time
                                         : NULL;
    if (i == FIELD_CONF) {
        view_number(m->memory_confidence, a);
        snprintf(out, cap, "%s", a);
    } else if (i == FIELD_TRUST) {
        view_number(m->trust_alpha, a);
        view_number(m->trust_beta, b);
        snprintf(out, cap, "%s %s", a, b);
    } else if (snprintf(out, cap, "%s", v ? v : "") >= (int)cap)
        return -1;
    for (const unsigned char *p = (const unsigned char *)out; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return -1;
    return 0;
}

int view_set_field(view_model *vm, const char *name)
{
    vm->prompting = PROMPT_NONE;
    name += strspn(name, " ");
    int i = view_field_lookup(name);
    if (i < 0) {
        view_message(vm, ROLE_error,
                     "memscope: %s field '%s': content, speaker, created_at, event_time, "
                     "confidence or trust (inline edit of %s)",
                     i == -2 ? "more than one" : "no", name, vm->edit_id);
        return CURATE_HR;
    }
    store_memory m;
    ms_error err;
    ms_error_clear(&err);
    if (store_get(vm->st, vm->edit_id, 0, &m, &err)) {
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
        return CURATE_HR;
    }
    char value[ENGINE_QUERY_MAX + 1];
    int fits = view_field_value(&m, i, value, sizeof value);
    store_memory_clear(&m);
    if (fits) {
        view_message(vm, ROLE_message,
                     "the %s of %s is too long or has line breaks for the prompt line: e edits "
                     "it in $EDITOR",
                     view_field_names[i], vm->edit_id);
        return CURATE_HR;
    }
    vm->edit_field = i;
    vm->prompting = PROMPT_VALUE;
    ledit_set(&vm->prompt, value);
    view_message(vm, ROLE_message, "%s of %s: change it, Enter writes it (u undoes), Esc cancels",
                 view_field_names[i], vm->edit_id);
    return CURATE_HR;
}

/* A number of the whole text into *v; -1 when it is not one. */
static int view_parse_number(const char *text, double *v)
{
    char *end = NULL;
    *v = strtod(text, &end);
    return end == text || *view_trim(end) || !isfinite(*v) ? -1 : 0;
}

/* The numbers of confidence (0..1) or trust (two above 0) into p; -1 with
 * the message when text is not that. */
static int view_set_numbers(view_model *vm, int i, char *text, view_edit_parse *p)
{
    char *b = NULL;
    if (i == FIELD_CONF && !view_parse_number(text, &p->f.memory_confidence) &&
        p->f.memory_confidence >= 0 && p->f.memory_confidence <= 1)
        return 0;
    if (i == FIELD_TRUST && (p->f.trust_alpha = strtod(text, &b)) > 0 && b != text &&
        !view_parse_number(b, &p->f.trust_beta) && p->f.trust_beta > 0 &&
        isfinite(p->f.trust_alpha))
        return 0;
    view_message(vm, ROLE_error, "memscope: %s '%s' is not %s (%s), not written",
                 view_field_names[i], text,
                 i == FIELD_CONF ? "from 0 to 1" : "two numbers above 0 (alpha beta)", vm->edit_id);
    return -1;
}

/* Is text a time store_edit takes for field i (an empty event_time clears
 * it)? -1 with the message when not. */
static int view_set_time(view_model *vm, int i, const char *text)
{
    int64_t ts;
    if ((i == FIELD_EVENT && !*text) || store_parse_time(text, &ts) == 0)
        return 0;
    view_message(vm, ROLE_error, "memscope: %s '%s' is not ISO 8601 (%s), not written",
                 view_field_names[i], text, vm->edit_id);
    return -1;
}

int view_set_value(view_model *vm, const char *text)
{
    vm->prompting = PROMPT_NONE;
    int i = vm->edit_field;
    view_edit_parse p = {0};
    store_edit_fields_init(&p.f);
    char *copy = strdup(text);
    if (!copy)
        return CURATE_HR;
    char *v = i == FIELD_CONTENT ? copy : view_trim(copy);
    int rc = 0;
    if (i == FIELD_CONF || i == FIELD_TRUST)
        rc = view_set_numbers(vm, i, v, &p);
    else if (i == FIELD_CONTENT && !*view_trim(copy)) {
        view_message(vm, ROLE_error, "memscope: content cannot be empty (%s), not written",
                     vm->edit_id);
        rc = -1;
    } else if ((i == FIELD_CREATED || i == FIELD_EVENT) && view_set_time(vm, i, v))
        rc = -1;
    else {
        char **field = i == FIELD_CONTENT   ? &p.content
                       : i == FIELD_SPEAKER ? &p.speaker
                       : i == FIELD_CREATED ? &p.created_at
                                            : &p.event_time;
        *field = strdup(v);
        p.f.content = p.content;
        p.f.speaker = p.speaker;
        p.f.created_at = p.created_at;
        p.f.event_time = p.event_time;
    }
    free(copy);
    char how[STORE_ID_MAX + 8];
    snprintf(how, sizeof how, " (%s)", vm->edit_id);
    int f = rc ? CURATE_HR : view_edit_commit(vm, &p, how) & ~VIEW_FULL;
    view_edit_parse_free(&p);
    return f;
}

/* ---- supersedes and contradicts ---------------------------------------------- */

static const char *view_rel_verb(const store_relation *r)
{
    if (r->kind == STORE_REL_SUPERSEDES)
        return r->outgoing ? "supersedes" : "superseded by";
    return r->outgoing ? "contradicts" : "contradicted by";
}

void view_relation_text(const store_relation *r, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s %s%s%s", view_rel_verb(r), r->other_id ? r->other_id : "?",
             r->reason ? ": " : "", r->reason ? r->reason : "");
}

void view_relation_mark(const view_row *row, char *buf, size_t cap)
{
    buf[0] = '\0';
    const char *by = row->h->mem.superseded_by;
    size_t shown = 0, left = 0;
    for (size_t i = 0; i < row->n_rels; i++) {
        const store_relation *r = &row->rels[i];
        if (r->kind == STORE_REL_SUPERSEDES && !r->outgoing && by && r->other_id &&
            strcmp(by, r->other_id) == 0)
            continue; /* the row's [superseded by ...] says it already */
        if (shown == 2) {
            left++;
            continue;
        }
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, "[%s %s] ", view_rel_verb(r), r->other_id ? r->other_id : "?");
        shown++;
    }
    if (left) {
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, "[+%zu] ", left);
    }
}

int view_relate_ask(view_model *vm, int kind)
{
    const view_row *row = view_selected(vm);
    if (!row || row->kind == ROW_GONE) {
        view_message(vm, ROLE_message, "select the newer (or contradicting) memory first");
        return CURATE_HR;
    }
    snprintf(vm->edit_id, sizeof vm->edit_id, "%s", row->h->mem.id);
    vm->prompting = kind == STORE_REL_SUPERSEDES ? PROMPT_SUPERSEDES : PROMPT_CONTRADICTS;
    ledit_clear(&vm->prompt);
    view_message(vm, ROLE_message,
                 "%s %s: type the other memory's id, then a reason; Enter records it (u undoes), "
                 "Esc cancels",
                 vm->edit_id, kind == STORE_REL_SUPERSEDES ? "supersedes" : "contradicts");
    return CURATE_HR;
}

/* The relation of u's kind between its two memories now, either way. */
static ms_status view_relation_between(view_model *vm, view_undo *u, ms_error *err)
{
    store_relation *v = NULL;
    size_t n = 0;
    ms_status st = store_relations_of(vm->st, u->rid, &v, &n, err);
    for (size_t i = 0; !st && i < n && !u->had_rel; i++)
        if (v[i].other == u->other && v[i].kind == u->rel_kind) {
            u->was = v[i];
            memset(&v[i], 0, sizeof v[i]);
            u->had_rel = 1;
        }
    store_relations_free(v, n);
    return st;
}

typedef struct view_relate_ctx {
    view_undo *u;
    const char *reason;
} view_relate_ctx;

static ms_status view_relate_write(view_model *vm, void *ctx, ms_error *err)
{
    const view_relate_ctx *c = ctx;
    if (c->u->rel_kind == STORE_REL_SUPERSEDES)
        return store_set_supersedes(vm->st, c->u->rid, c->u->other, c->reason, err);
    return store_set_contradicts(vm->st, c->u->rid, c->u->other, c->reason, err);
}

/* The two memories of a relation into u; 0, or -1 with the message. */
static int view_relate_ends(view_model *vm, const char *other, view_undo *u)
{
    ms_error err;
    ms_error_clear(&err);
    store_memory a, b;
    ms_status st = store_get(vm->st, vm->edit_id, 0, &a, &err);
    if (!st && (st = store_get(vm->st, other, 0, &b, &err)))
        store_memory_clear(&a);
    if (st) {
        view_message(vm, ROLE_error, "memscope: %s; nothing recorded", err.msg);
        return -1;
    }
    u->rid = a.rid;
    u->other = b.rid;
    snprintf(u->id, sizeof u->id, "%s", a.id);
    store_memory_clear(&a);
    store_memory_clear(&b);
    return 0;
}

int view_relate_answer(view_model *vm, const char *text)
{
    int kind = vm->prompting == PROMPT_SUPERSEDES ? STORE_REL_SUPERSEDES : STORE_REL_CONTRADICTS;
    vm->prompting = PROMPT_NONE;
    char id[STORE_ID_MAX + 1];
    text += strspn(text, " ");
    size_t len = strcspn(text, " ");
    if (len == 0 || len > STORE_ID_MAX) {
        view_message(vm, ROLE_message, "no id given: nothing recorded");
        return CURATE_HR;
    }
    memcpy(id, text, len);
    id[len] = '\0';
    const char *reason = text + len;
    while (*reason == ' ')
        reason++;
    view_undo *u = view_undo_push(vm);
    u->kind = UNDO_RELATION;
    u->rel_kind = kind;
    ms_error err;
    ms_error_clear(&err);
    view_relate_ctx c = {u, *reason ? reason : NULL};
    ms_status st = MS_OK;
    if (view_relate_ends(vm, id, u) || (st = view_relation_between(vm, u, &err)) ||
        (st = view_transaction(vm, view_relate_write, &c, &err))) {
        if (st)
            view_message(vm, ROLE_error, "memscope: %s; nothing recorded", err.msg);
        view_undo_entry_free(&vm->undo[--vm->n_undo]);
        return CURATE_HR;
    }
    view_message(vm, ROLE_message, "recorded: %s %s %s; u undoes it", u->id,
                 kind == STORE_REL_SUPERSEDES ? "supersedes" : "contradicts", id);
    return CURATE_HR | VIEW_RECALL;
}

/* Back to the relation there was: none, or that one with its direction and
 * reason. */
static ms_status view_undo_relation(view_model *vm, void *ctx, ms_error *err)
{
    view_undo *u = ctx;
    ms_status st = store_clear_relation(vm->st, u->rid, u->other, u->rel_kind, err);
    if (st == MS_NOT_FOUND) { /* cleared since: nothing to take back */
        ms_error_clear(err);
        st = MS_OK;
    }
    if (st || !u->had_rel)
        return st;
    int64_t src = u->was.outgoing ? u->rid : u->other, dst = u->was.outgoing ? u->other : u->rid;
    if (u->rel_kind == STORE_REL_SUPERSEDES)
        return store_set_supersedes(vm->st, src, dst, u->was.reason, err);
    return store_set_contradicts(vm->st, src, dst, u->was.reason, err);
}

int view_edited(const view_model *vm, int64_t rid)
{
    for (int i = 0; i < vm->n_undo; i++)
        if (vm->undo[i].kind == UNDO_EDIT && vm->undo[i].rid == rid)
            return 1;
    return 0;
}

/* ---- undo ---------------------------------------------------------------------- */

static ms_status view_undo_feedback(view_model *vm, void *ctx, ms_error *err)
{
    view_undo *u = ctx;
    return engine_feedback_put(vm->eng, u->rid, u->query, u->had ? &u->before : NULL, err);
}

static ms_status view_undo_edit(view_model *vm, void *ctx, ms_error *err)
{
    view_undo *u = ctx;
    return store_put(vm->st, &u->mem, STORE_DUP_REPLACE, NULL, err);
}

/* Put a deleted memory back as it was, at its own rid. */
static ms_status view_undo_delete(view_model *vm, void *ctx, ms_error *err)
{
    view_undo *u = ctx;
    return store_undelete(vm->st, u->removed, err);
}

static ms_status view_undo_one(view_model *vm, view_undo *u, ms_error *err)
{
    if (u->kind == UNDO_FEEDBACK) /* the engine holds its own transaction */
        return view_undo_feedback(vm, u, err);
    view_write_fn fn = u->kind == UNDO_EDIT     ? view_undo_edit
                       : u->kind == UNDO_DELETE ? view_undo_delete
                                                : view_undo_relation;
    return view_transaction(vm, fn, u, err);
}

static void view_undone_message(view_model *vm, const view_undo *u)
{
    if (u->kind == UNDO_FEEDBACK)
        view_message(vm, ROLE_message, "undone: %s is %s for that query again (%d more to undo)",
                     u->id, view_label_text(u->had ? u->before.label : 0), vm->n_undo - 1);
    else if (u->kind == UNDO_RELATION)
        view_message(vm, ROLE_message,
                     "undone: the %s relation of %s is as it was (%d more to undo)",
                     store_rel_kind_name(u->rel_kind), u->id, vm->n_undo - 1);
    else
        view_message(vm, ROLE_message,
                     "undone: %s is back as it was before the %s (%d more to undo)", u->id,
                     u->kind == UNDO_EDIT ? "edit" : "delete", vm->n_undo - 1);
}

int view_undo_last(view_model *vm)
{
    if (vm->n_undo == 0) {
        view_message(vm, ROLE_message, "nothing to undo in this session");
        return CURATE_HR;
    }
    view_undo *u = &vm->undo[vm->n_undo - 1];
    ms_error err;
    ms_error_clear(&err);
    if (view_undo_one(vm, u, &err)) {
        view_message(vm, ROLE_error, "memscope: cannot undo: %s", err.msg);
        return CURATE_HR;
    }
    view_undone_message(vm, u);
    view_undo_entry_free(u);
    vm->n_undo--;
    ms_error_clear(&err);
    view_model_reload(vm, &err);
    return CURATE_HR | VIEW_RECALL;
}
