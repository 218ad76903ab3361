/* view_layout.h - what the layout files share (view_layout.c, view_panes.c,
 * view_panel.c); the public layout API is in view.h. */
#ifndef MS_VIEW_LAYOUT_H
#define MS_VIEW_LAYOUT_H

#include "tui/browser/view.h"

/* A growable list of lines of one width, each with a tag (a result row or
 * an edge for the mouse map, -1 for none). Owns its lines. */
typedef struct vlist {
    vrow *v;
    int *tag;
    int n, cap;
    int width; /* columns of every line */
} vlist;

/* A new empty line at the end (NULL when out of memory). */
vrow *vlist_add(vlist *l);
void vlist_free(vlist *l);

/* Copy src into screen row y. */
void view_put(view_screen *s, int y, const vrow *src);
/* Copy lines [top, top + h) of list to rows y.., and their tags into the
 * mouse map. */
void view_put_list(view_model *vm, view_screen *s, const vlist *list, int top, int y, int h);
/* First line to show so that line want stays in a window of h of n lines. */
int view_scroll(int top, int want, int h, int n);
/* Wrap text (ours or stored) into new lines of list, indented one column. */
void view_wrap_into(vlist *list, int role, const char *text);

/* The panes between the top lines (from row y) and the status bar (row
 * bottom, exclusive). */
void view_panes(view_model *vm, view_screen *s, int y, int bottom);
void view_detail_pane(view_model *vm, view_screen *s, int y, int bottom);
void view_help_pane(view_model *vm, view_screen *s, int y, int bottom);

/* The views defined beside their model (view_list.c, view_pick.c). */
extern const view_ops view_list_ops, view_entity_list_ops, view_entities_ops, view_profiles_ops;

#endif
