/* view_curate.c - the browser's writes: feedback as a toggle per memory
 * and query, editing a memory's fields, deleting it, and the session's
 * undo list. Each write is one store transaction and shows on the row (or,
 * deleted, leaves it); none happens on a read-only store (view_act refuses
 * first). */
#include "tui/browser/view.h"

#include <ctype.h>
#include <errno.h>
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
    store_feedback_free(u->fb, u->n_fb);
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
    (void)ctx;
    return store_delete(vm->st, vm->edit_id, err);
}

/* The judgements of rid (they go with a deleted memory). */
static ms_status view_feedback_of_rid(view_model *vm, int64_t rid, view_undo *u, ms_error *err)
{
    store_feedback *all = NULL;
    size_t n = 0, k = 0;
    ms_status st = store_feedback_all(vm->st, &all, &n, err);
    if (st)
        return st;
    for (size_t i = 0; i < n; i++) {
        if (all[i].rid != rid) {
            free(all[i].query);
            free(all[i].query_type);
            continue;
        }
        all[k++] = all[i];
    }
    u->fb = all;
    u->n_fb = k;
    return MS_OK;
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
    ms_status st = store_get_for_put(vm->st, vm->edit_id, &u->mem, &err);
    if (!st)
        st = view_feedback_of_rid(vm, u->mem.rid, u, &err);
    if (!st)
        st = view_transaction(vm, view_delete_write, NULL, &err);
    if (st) {
        view_undo_entry_free(&vm->undo[--vm->n_undo]);
        view_message(vm, ROLE_error, "memscope: %s; nothing deleted", err.msg);
        return CURATE_HR;
    }
    u->rid = u->mem.rid;
    ms_error_clear(&err);
    view_model_reload(vm, &err);
    view_message(vm, ROLE_message, "deleted %s; u brings it back", u->id);
    return CURATE_HR | VIEW_RECALL;
}

/* ---- edit ------------------------------------------------------------------------ */

int view_edit_begin(view_model *vm)
{
    const view_row *row = vm->det.open ? NULL : view_selected(vm);
    const char *id = vm->det.open                   ? vm->det.m.id
                     : row && row->kind != ROW_GONE ? row->h->mem.id
                                                    : NULL;
    if (!id) {
        view_message(vm, ROLE_message, "select a result to edit it");
        return CURATE_HR;
    }
    snprintf(vm->edit_id, sizeof vm->edit_id, "%s", id);
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
    errno = 0;
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
    return strcmp(p->content ? p->content : "", m->content) == 0 &&
           strcmp(p->speaker ? p->speaker : sp, sp) == 0 &&
           strcmp(p->created_at ? p->created_at : m->created_at, m->created_at) == 0 &&
           strcmp(p->event_time ? p->event_time : ev, ev) == 0 &&
           (p->f.memory_confidence < 0 || p->f.memory_confidence == m->memory_confidence) &&
           (p->f.trust_alpha < 0 ||
            (p->f.trust_alpha == m->trust_alpha && p->f.trust_beta == m->trust_beta));
}

int view_edit_apply(view_model *vm, const char *path)
{
    view_edit_parse p = {0};
    store_edit_fields_init(&p.f);
    ms_error err;
    ms_error_clear(&err);
    view_undo *u = view_undo_push(vm);
    u->kind = UNDO_EDIT;
    snprintf(u->id, sizeof u->id, "%s", vm->edit_id);
    int rc = view_edit_parse_file(vm, path, &p);
    ms_status st = rc ? MS_PARSE : store_get_for_put(vm->st, vm->edit_id, &u->mem, &err);
    if (!rc && !st && view_edit_same(&p, &u->mem)) {
        view_message(vm, ROLE_message, "%s unchanged: nothing written", u->id);
        rc = 1;
    } else if (!rc && !st && (st = view_transaction(vm, view_edit_store, &p.f, &err)))
        view_message(vm, ROLE_error, "memscope: %s; nothing written", err.msg);
    else if (!rc && st)
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
    view_edit_parse_free(&p);
    if (rc || st) {
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
    (void)vm;
    return engine_feedback_put(vm->eng, u->rid, u->query, u->had ? &u->before : NULL, err);
}

static ms_status view_undo_edit(view_model *vm, void *ctx, ms_error *err)
{
    view_undo *u = ctx;
    return store_put(vm->st, &u->mem, STORE_DUP_REPLACE, NULL, err);
}

/* Put a deleted memory back, with its judgements; it gets a new rid, which
 * the older entries of the undo list learn. */
static ms_status view_undo_delete(view_model *vm, void *ctx, ms_error *err)
{
    view_undo *u = ctx;
    int64_t old = u->mem.rid;
    u->mem.rid = 0;
    ms_status st = store_put(vm->st, &u->mem, STORE_DUP_ERROR, NULL, err);
    for (size_t i = 0; !st && i < u->n_fb; i++)
        st = store_add_feedback(vm->st, u->mem.rid, u->fb[i].query, u->fb[i].query_type,
                                u->fb[i].label, u->fb[i].channels, err);
    for (int i = 0; !st && i < vm->n_undo; i++)
        if (vm->undo[i].rid == old)
            vm->undo[i].rid = u->mem.rid;
    return st;
}

static ms_status view_undo_one(view_model *vm, view_undo *u, ms_error *err)
{
    if (u->kind == UNDO_FEEDBACK) /* the engine holds its own transaction */
        return view_undo_feedback(vm, u, err);
    return view_transaction(vm, u->kind == UNDO_EDIT ? view_undo_edit : view_undo_delete, u, err);
}

static void view_undone_message(view_model *vm, const view_undo *u)
{
    if (u->kind == UNDO_FEEDBACK)
        view_message(vm, ROLE_message, "undone: %s is %s for that query again (%d more to undo)",
                     u->id, view_label_text(u->had ? u->before.label : 0), vm->n_undo - 1);
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
