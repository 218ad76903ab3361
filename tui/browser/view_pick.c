/* view_pick.c - the two pickers: the entity view (every entity of the
 * profile with the memories it is linked to; Enter lists them) and the
 * profile picker (every profile with its count; Enter switches). Each ends
 * in its ops. */
#include "tui/browser/view_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void view_pick_free(view_pick *p)
{
    if (p->ents)
        store_entities_free(p->ents, p->n);
    if (p->profs)
        store_profiles_free(p->profs, p->n);
    memset(p, 0, sizeof *p);
}

/* ---- shared ------------------------------------------------------------------ */

static int pick_move(view_pick *p, int delta)
{
    if (p->n == 0)
        return VIEW_HANDLED;
    int sel = p->sel + delta;
    p->sel = sel < 0 ? 0 : sel >= (int)p->n ? (int)p->n - 1 : sel;
    return VIEW_HANDLED | VIEW_REDRAW;
}

static int pick_page(const view_model *vm)
{
    return vm->g.res_h > 2 ? vm->g.res_h - 1 : 1;
}

/* The title on row y, the lines of list below it with the selected one in
 * view. */
static void pick_put(view_model *vm, view_screen *s, int y, int bottom, view_pick *p,
                     const char *title, vlist *list)
{
    vrow *t = &s->lines[y];
    vrow_stored(t, ROLE_pane_title_focused, title, strlen(title));
    t->fill = ROLE_pane_title_focused;
    int h = bottom - y - 1;
    p->top = view_scroll(p->top, p->sel, h, list->n);
    view_put_list(vm, s, list, p->top, y + 1, h);
    vm->g.res_y = y + 1;
    vm->g.res_h = h;
}

/* ---- entities -------------------------------------------------------------------- */

/* Most linked first, then by name. */
static int entity_order(const void *a, const void *b)
{
    const store_entity *x = a, *y = b;
    if (x->docs != y->docs)
        return x->docs > y->docs ? -1 : 1;
    return strcmp(x->name, y->name);
}

int view_entities_open(view_model *vm)
{
    view_pick *p = &vm->ents;
    view_pick_free(p);
    ms_error err;
    ms_error_clear(&err);
    if (store_entities_all(vm->st, &p->ents, &p->n, &err)) {
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    if (p->n > 1)
        qsort(p->ents, p->n, sizeof *p->ents, entity_order);
    p->open = 1;
    return VIEW_HANDLED | VIEW_REDRAW;
}

static void entities_title(const view_model *vm, char *buf, size_t cap)
{
    snprintf(buf, cap,
             " Entities of profile %.200s (%zu): Enter lists the memories that mention "
             "one, Esc back ",
             store_profile(vm->st), vm->ents.n);
}

static void entities_draw(view_model *vm, view_screen *s, int y, int bottom)
{
    static const char *const kinds[] = {"?", "speaker", "name", "quoted", "given"};
    view_pick *p = &vm->ents;
    vlist list = {.width = s->cols};
    vrow *l;
    for (size_t i = 0; i < p->n && (l = vlist_add(&list)); i++) {
        const store_entity *e = &p->ents[i];
        int k = e->kind >= 1 && e->kind <= 4 ? e->kind : 0;
        vrow_addf(l, ROLE_normal, " %7lld  %-8s ", (long long)e->docs, kinds[k]);
        vrow_stored(l, ROLE_normal, e->name, strlen(e->name));
        if ((int)i == p->sel)
            vrow_recolor(l, ROLE_result_selected);
    }
    if (p->n == 0 && (l = vlist_add(&list)))
        vrow_add(l, ROLE_legend, " The profile has no entities.");
    char title[512];
    entities_title(vm, title, sizeof title);
    pick_put(vm, s, y, bottom, p, title, &list);
    vlist_free(&list);
}

static int entities_key(view_model *vm, action_id a)
{
    view_pick *p = &vm->ents;
    if (a != A_OPEN)
        return 0;
    if (p->n == 0)
        return VIEW_HANDLED;
    const store_entity *e = &p->ents[p->sel];
    vm->list.o.eid = e->eid;
    snprintf(vm->list.entity, sizeof vm->list.entity, "%s", e->name);
    vm->list.sel = vm->list.top = 0;
    view_list_reset(vm);
    vm->focus = FOCUS_RESULTS;
    return VIEW_HANDLED | VIEW_REDRAW;
}

static int entities_move(view_model *vm, int delta, int scroll)
{
    (void)scroll;
    return pick_move(&vm->ents, delta);
}

static int entities_close(view_model *vm)
{
    view_pick_free(&vm->ents);
    return VIEW_HANDLED | VIEW_REDRAW;
}

const view_ops view_entities_ops = {
    .name = "entities",
    .draw = entities_draw,
    .key = entities_key,
    .move = entities_move,
    .page = pick_page,
    .title = entities_title,
    .close = entities_close,
};

/* ---- profiles ---------------------------------------------------------------------- */

int view_profiles_open(view_model *vm)
{
    view_pick *p = &vm->profiles;
    view_pick_free(p);
    ms_error err;
    ms_error_clear(&err);
    if (store_profiles(vm->st, &p->profs, &p->n, &err)) {
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->profs[i].name, store_profile(vm->st)) == 0)
            p->sel = (int)i;
    p->open = 1;
    return VIEW_HANDLED | VIEW_REDRAW;
}

int view_profile_use(view_model *vm, const char *name)
{
    ms_error err;
    ms_error_clear(&err);
    char keep[STORE_PROFILE_MAX + 1];
    snprintf(keep, sizeof keep, "%s", store_profile(vm->st));
    if (store_use_profile(vm->st, name, &err) || view_model_reload(vm, &err)) {
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
        store_use_profile(vm->st, keep, NULL);
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    while (vm->det.open)
        view_detail_close(vm);
    view_pick_free(&vm->ents);
    vm->pinned[0] = '\0';
    vm->list.o.eid = 0;
    vm->list.entity[0] = '\0';
    vm->list.sel = vm->list.top = 0;
    view_list_reset(vm);
    view_message(vm, ROLE_message, "profile %s: %lld memories", name, (long long)vm->memories);
    return VIEW_HANDLED | VIEW_REDRAW | VIEW_RECALL;
}

static void profiles_title(const view_model *vm, char *buf, size_t cap)
{
    snprintf(buf, cap, " Profiles of this store (%zu): Enter switches, Esc back ", vm->profiles.n);
}

static void profiles_draw(view_model *vm, view_screen *s, int y, int bottom)
{
    view_pick *p = &vm->profiles;
    vlist list = {.width = s->cols};
    vrow *l;
    for (size_t i = 0; i < p->n && (l = vlist_add(&list)); i++) {
        int here = strcmp(p->profs[i].name, store_profile(vm->st)) == 0;
        vrow_addf(l, ROLE_normal, " %s %9lld  ", here ? "*" : " ", (long long)p->profs[i].memories);
        vrow_stored(l, ROLE_normal, p->profs[i].name, strlen(p->profs[i].name));
        if ((int)i == p->sel)
            vrow_recolor(l, ROLE_result_selected);
    }
    char title[256];
    profiles_title(vm, title, sizeof title);
    pick_put(vm, s, y, bottom, p, title, &list);
    vlist_free(&list);
}

static int profiles_key(view_model *vm, action_id a)
{
    view_pick *p = &vm->profiles;
    if (a != A_OPEN)
        return 0;
    if (p->n == 0)
        return VIEW_HANDLED;
    char name[STORE_PROFILE_MAX + 1];
    snprintf(name, sizeof name, "%s", p->profs[p->sel].name);
    view_pick_free(p);
    return view_profile_use(vm, name);
}

static int profiles_move(view_model *vm, int delta, int scroll)
{
    (void)scroll;
    return pick_move(&vm->profiles, delta);
}

static int profiles_close(view_model *vm)
{
    view_pick_free(&vm->profiles);
    return VIEW_HANDLED | VIEW_REDRAW;
}

const view_ops view_profiles_ops = {
    .name = "profiles",
    .draw = profiles_draw,
    .key = profiles_key,
    .move = profiles_move,
    .page = pick_page,
    .title = profiles_title,
    .close = profiles_close,
};
