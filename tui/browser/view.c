/* view.c - the browser's model: recall, what-if baseline, rows, pin,
 * detail view, store-change polling. No terminal here. */
#include "tui/browser/view.h"
#include "store/base/mono.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void view_message(view_model *vm, int role, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vm->msg, sizeof vm->msg, fmt, ap);
    va_end(ap);
    vm->msg_role = role;
    vm->msg_gen++;
}

/* A signature of the store file and its WAL (size and change time): moves
 * when another process commits, even while this connection's data_version
 * cannot (a statement left active pins the read snapshot). */
static long long view_file_sig(const char *path)
{
    char wal[sizeof((view_model *)0)->db_path + 8];
    struct stat sb;
    long long sig = 0;
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (stat(path, &sb) == 0)
        sig += (long long)sb.st_size * 31 + (long long)sb.st_mtim.tv_sec * 1000003 +
               sb.st_mtim.tv_nsec;
    if (stat(wal, &sb) == 0)
        sig = sig * 17 + (long long)sb.st_size * 31 + (long long)sb.st_mtim.tv_sec * 1000003 +
              sb.st_mtim.tv_nsec;
    return sig;
}

/* Store size and counts, channel health: the status bar before a query. */
int view_model_reload(view_model *vm, ms_error *err)
{
    struct stat sb;
    vm->db_bytes = stat(vm->db_path, &sb) == 0 ? (long long)sb.st_size : 0;
    engine_health h;
    if (engine_health_brief(vm->eng, &h, err))
        return -1;
    vm->memories = h.counts.memories;
    memcpy(vm->health, h.ch, sizeof vm->health);
    return 0;
}

int view_model_init(view_model *vm, engine *eng, store *st, const char *db_path, ms_error *err)
{
    memset(vm, 0, sizeof *vm);
    vm->eng = eng;
    vm->st = st;
    snprintf(vm->db_path, sizeof vm->db_path, "%s", db_path ? db_path : store_path(st));
    vm->limit = vm->base_limit = 10;
    vm->show_ranking = 1;
    vm->tour = -1;
    vm->wi.rrf_k = -1;
    vm->focus = FOCUS_QUERY;
    vm->msg_role = ROLE_message;
    vm->data_version = store_data_version(st);
    vm->file_sig = view_file_sig(vm->db_path);
    vm->list.total = vm->find_matches = -1;
    int bad = view_model_reload(vm, err);
    int from = store_is_readonly(st) ? 0 : store_upgrade_pending(st);
    if (!bad && from)
        /* as the CLI says it on a terminal (tui/cli/cli.c): the first write
         * waits for the upgrade, 16.6 s at a million memories */
        view_message(vm, ROLE_message,
                     "this store has schema %d: the first change made here upgrades it to "
                     "%d, once%s",
                     from, STORE_SCHEMA_VERSION,
                     /* the 9 -> 10 step reads every link and session */
                     from < 10 ? " (seconds at a million memories)" : "");
    return bad;
}

static void view_free_results(view_model *vm)
{
    for (size_t i = 0; vm->rows && i < vm->n_rows; i++)
        store_relations_free(vm->rows[i].rels, vm->rows[i].n_rels);
    recall_free(vm->cur);
    recall_free(vm->base);
    free(vm->rows);
    vm->cur = vm->base = NULL;
    vm->rows = NULL;
    vm->n_rows = 0;
}

static void view_detail_clear(view_detail *d)
{
    store_memory_clear(&d->m);
    store_entities_free(d->ents, d->n_ents);
    for (size_t i = 0; d->other && i < d->n_edges; i++)
        store_memory_clear(&d->other[i]);
    free(d->other);
    free(d->edges);
    store_relations_free(d->rels, d->n_rels);
    d->rels = NULL;
    d->n_rels = 0;
    d->ents = NULL;
    d->edges = NULL;
    d->other = NULL;
    d->n_ents = d->n_edges = 0;
    d->sel = d->top = d->follow = 0;
    d->open = 0;
}

void view_model_free(view_model *vm)
{
    view_free_results(vm);
    view_detail_clear(&vm->det);
    view_calib_free(vm);
    view_list_reset(vm);
    view_pick_free(&vm->ents);
    view_pick_free(&vm->profiles);
    view_undo_free(vm);
}

int view_whatif_active(const view_model *vm)
{
    const view_whatif *w = &vm->wi;
    return w->weights_set || w->disabled || w->rrf_k >= 0 || w->no_floor;
}

void view_set_query(view_model *vm, const char *query)
{
    ledit_set(&vm->query, query);
}

const view_row *view_selected(const view_model *vm)
{
    if (vm->sel < 0 || (size_t)vm->sel >= vm->n_rows)
        return NULL;
    return &vm->rows[vm->sel];
}

/* ---- recall ---------------------------------------------------------------- */

static void view_opts(const view_model *vm, int whatif, recall_opts *o)
{
    recall_opts_init(o);
    o->query = vm->ran;
    o->limit = vm->limit;
    o->explain_id = vm->pinned[0] ? vm->pinned : NULL;
    if (!whatif)
        return;
    memcpy(o->weights, vm->wi.weights, sizeof o->weights);
    o->weights_set = vm->wi.weights_set;
    o->disabled = vm->wi.disabled;
    o->rrf_k = vm->wi.rrf_k;
    o->no_floor = vm->wi.no_floor;
}

static int view_blank(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

static void view_add_row(view_model *vm, const recall_hit *h, view_row_kind kind)
{
    view_row *row = &vm->rows[vm->n_rows++];
    row->h = h;
    row->kind = kind;
    row->move = 0;
    row->is_new = 0;
    if (kind != ROW_HIT || !vm->base)
        return;
    int was = recall_rank_of(vm->base, h->mem.id);
    row->is_new = was == 0;
    row->move = was ? was - h->rank_position : 0;
}

/* Hits, then (what-if) baseline hits that are gone, then nearest misses. */
static int view_build_rows(view_model *vm)
{
    size_t n = vm->cur->n_hits + vm->cur->n_misses + (vm->base ? vm->base->n_hits : 0);
    vm->rows = calloc(n + 1, sizeof *vm->rows);
    if (!vm->rows)
        return -1;
    for (size_t i = 0; i < vm->cur->n_hits; i++)
        view_add_row(vm, &vm->cur->hits[i], ROW_HIT);
    for (size_t i = 0; vm->base && i < vm->base->n_hits; i++)
        if (!recall_rank_of(vm->cur, vm->base->hits[i].mem.id))
            view_add_row(vm, &vm->base->hits[i], ROW_GONE);
    for (size_t i = 0; i < vm->cur->n_misses; i++)
        view_add_row(vm, &vm->cur->misses[i], ROW_MISS);
    view_mark_rows(vm);
    return 0;
}

/* Keep the selection on memory id when it is still listed. */
static void view_reselect(view_model *vm, const char *id)
{
    vm->sel = 0;
    for (size_t i = 0; id[0] && i < vm->n_rows; i++)
        if (strcmp(vm->rows[i].h->mem.id, id) == 0) {
            vm->sel = (int)i;
            return;
        }
    vm->low_top = 0;
}

static int view_run(view_model *vm)
{
    recall_opts o;
    ms_error err;
    ms_error_clear(&err);
    int whatif = view_whatif_active(vm);
    view_opts(vm, 0, &o);
    ms_status st = engine_recall(vm->eng, &o, whatif ? &vm->base : &vm->cur, &err);
    if (!st && whatif) {
        view_opts(vm, 1, &o);
        st = engine_recall(vm->eng, &o, &vm->cur, &err);
    }
    if (st) {
        view_free_results(vm);
        view_message(vm, ROLE_error, "memscope: %s", err.msg[0] ? err.msg : ms_status_text(st));
        return -1;
    }
    return view_build_rows(vm);
}

int view_model_update(view_model *vm)
{
    double t0 = mono_ms();
    char keep[STORE_ID_MAX + 1] = "";
    const view_row *row = view_selected(vm);
    if (row)
        snprintf(keep, sizeof keep, "%s", row->h->mem.id);
    view_free_results(vm);
    ledit_get(&vm->query, vm->ran, sizeof vm->ran);
    vm->data_version = store_data_version(vm->st);
    vm->file_sig = view_file_sig(vm->db_path);
    vm->store_changed = 0;
    int rc = 0;
    if (!view_blank(vm->ran) && (rc = view_run(vm)) == 0)
        view_reselect(vm, keep);
    if (view_blank(vm->ran))
        view_list_reset(vm); /* the listing reads the store again */
    if (rc == 0 && vm->msg_role == ROLE_error)
        vm->msg[0] = '\0';
    vm->last_ms = mono_ms() - t0;
    return rc;
}

int view_poll_store(view_model *vm)
{
    int64_t v = store_data_version(vm->st);
    if ((v == vm->data_version && view_file_sig(vm->db_path) == vm->file_sig) || vm->store_changed)
        return 0;
    vm->store_changed = 1;
    view_message(vm, ROLE_message,
                 "The store changed (another process wrote to it): press R "
                 "to run the query again.");
    return 1;
}

/* ---- pin ------------------------------------------------------------------- */

int view_pin(view_model *vm, const char *id)
{
    if (!id || !*id || strcmp(id, vm->pinned) == 0) {
        vm->pinned[0] = '\0';
        view_message(vm, ROLE_message, "unpinned");
        return VIEW_HANDLED | VIEW_REDRAW | VIEW_RECALL;
    }
    store_memory m;
    ms_error err;
    ms_error_clear(&err);
    if (store_get(vm->st, id, 0, &m, &err)) {
        view_message(vm, ROLE_error, "memscope: %s; nothing pinned",
                     err.msg[0] ? err.msg : "no such memory");
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    store_memory_clear(&m);
    snprintf(vm->pinned, sizeof vm->pinned, "%s", id);
    vm->low_top = 0;
    view_message(vm, ROLE_message,
                 "pinned: the lower pane says where it ranks in each "
                 "channel and where it was cut (p again unpins)");
    return VIEW_HANDLED | VIEW_REDRAW | VIEW_RECALL;
}

/* ---- detail ------------------------------------------------------------------ */

static int view_edge_order(const void *a, const void *b)
{
    const store_edge *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    if (x->type != y->type)
        return x->type - y->type;
    return (x->src + x->dst > y->src + y->dst) - (x->src + x->dst < y->src + y->dst);
}

/* Load the memory at the other end of every edge (its id and text). */
static void view_detail_others(view_model *vm)
{
    view_detail *d = &vm->det;
    d->other = calloc(d->n_edges + 1, sizeof *d->other);
    for (size_t i = 0; d->other && i < d->n_edges; i++) {
        int64_t rid = d->edges[i].src == d->m.rid ? d->edges[i].dst : d->edges[i].src;
        store_memory_init(&d->other[i]);
        ms_error err;
        if (store_get(vm->st, NULL, rid, &d->other[i], &err))
            store_memory_init(&d->other[i]);
    }
}

/* Put the memory's relations (supersedes, contradicts, either way) before
 * its edges, as edges from it to the other memory: Enter walks them too. */
static ms_status view_detail_relations(view_model *vm, ms_error *err)
{
    view_detail *d = &vm->det;
    ms_status st = store_relations_of(vm->st, d->m.rid, &d->rels, &d->n_rels, err);
    if (st || d->n_rels == 0)
        return st;
    store_edge *e = realloc(d->edges, (d->n_edges + d->n_rels) * sizeof *e);
    if (!e)
        return ms_fail(err, MS_NOMEM, "out of memory reading relations");
    memmove(e + d->n_rels, e, d->n_edges * sizeof *e);
    for (size_t i = 0; i < d->n_rels; i++)
        e[i] = (store_edge){.src = d->m.rid, .dst = d->rels[i].other, .type = 0, .weight = 1};
    d->edges = e;
    d->n_edges += d->n_rels;
    return MS_OK;
}

static ms_status view_detail_load(view_model *vm, const char *id, ms_error *err)
{
    view_detail *d = &vm->det;
    ms_status st = store_get(vm->st, id, 0, &d->m, err);
    if (!st)
        st = store_entities_of(vm->st, d->m.rid, &d->ents, &d->n_ents, err);
    if (!st)
        st = store_edges_of(vm->st, d->m.rid, &d->edges, &d->n_edges, err);
    if (st)
        return st;
    if (d->n_edges > 1)
        qsort(d->edges, d->n_edges, sizeof *d->edges, view_edge_order);
    if ((st = view_detail_relations(vm, err)))
        return st;
    view_detail_others(vm);
    d->open = 1;
    return MS_OK;
}

int view_detail_open(view_model *vm, const char *id)
{
    view_detail *d = &vm->det;
    char prev[STORE_ID_MAX + 1] = "";
    if (d->open)
        snprintf(prev, sizeof prev, "%s", d->m.id);
    int depth = d->depth;
    view_detail_clear(d);
    ms_error err;
    ms_error_clear(&err);
    if (view_detail_load(vm, id, &err)) {
        view_detail_clear(d);
        view_message(vm, ROLE_error, "memscope: %s", err.msg[0] ? err.msg : "cannot open");
        if (prev[0] && view_detail_load(vm, prev, &err) == MS_OK)
            d->depth = depth;
        return -1;
    }
    if (prev[0]) {
        if (depth == VIEW_DETAIL_DEPTH) {
            memmove(d->stack[0], d->stack[1], sizeof d->stack[0] * (VIEW_DETAIL_DEPTH - 1));
            depth--;
        }
        snprintf(d->stack[depth++], sizeof d->stack[0], "%s", prev);
    }
    d->depth = depth;
    return 0;
}

void view_detail_close(view_model *vm)
{
    view_detail *d = &vm->det;
    int depth = d->depth;
    char prev[STORE_ID_MAX + 1];
    view_detail_clear(d);
    if (depth == 0)
        return;
    snprintf(prev, sizeof prev, "%s", d->stack[depth - 1]);
    ms_error err;
    if (view_detail_load(vm, prev, &err))
        view_detail_clear(d);
    d->depth = depth - 1;
}
