/* view_curate.c - the browser's writes: feedback as a toggle per memory
 * and query, and the session's undo list. Each write is one store
 * transaction (through the engine, which learns it at once) and shows on
 * the row; none happens on a read-only store (view_act refuses first). */
#include "tui/browser/view.h"

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

/* ---- undo ---------------------------------------------------------------------- */

static int view_undo_feedback(view_model *vm, view_undo *u, ms_error *err)
{
    return engine_feedback_put(vm->eng, u->rid, u->query, u->had ? &u->before : NULL, err) ? -1
                                                                                         : 0;
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
    if (view_undo_feedback(vm, u, &err)) {
        view_message(vm, ROLE_error, "memscope: cannot undo: %s", err.msg);
        return CURATE_HR;
    }
    view_message(vm, ROLE_message, "undone: %s is %s for that query again (%d more to undo)", u->id,
                 view_label_text(u->had ? u->before.label : 0), vm->n_undo - 1);
    view_undo_entry_free(u);
    vm->n_undo--;
    return CURATE_HR | VIEW_RECALL;
}
