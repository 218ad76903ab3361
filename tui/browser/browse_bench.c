/* browse_bench.c - the browser's key-press path without a terminal, for
 * `memscope bench` (browser_face.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "store/base/mono.h"
#include "tui/browser/view.h"
#include "tui/cli/browser_face.h"

/* One query's key press: its last character typed and everything it starts. */
static int bench_key(view_model *vm, view_screen *scr, const char *q, int cols, int rows)
{
    size_t n = strlen(q);
    char head[512];
    snprintf(head, sizeof head, "%.*s", (int)(n ? n - 1 : 0), q);
    view_set_query(vm, head);
    if (n)
        ledit_insert(&vm->query, (wchar_t)(unsigned char)q[n - 1]);
    int rc = view_layout(vm, cols, rows, scr);
    if (!rc)
        view_model_update(vm);
    if (!rc)
        rc = view_layout(vm, cols, rows, scr);
    return rc;
}

ms_status browse_bench_keys(engine *e, store *s, const char *path, char *const *queries, int n,
                            int cols, int rows, double *ms, void (*progress)(void *, int),
                            void *ctx, ms_error *err)
{
    view_model vm;
    view_screen scr;
    if (view_model_init(&vm, e, s, path, err))
        return err->code ? err->code : MS_NOMEM;
    view_screen_init(&scr);
    int rc = 0;
    for (int i = 0; !rc && i < n; i++) {
        double t0 = mono_ms();
        rc = bench_key(&vm, &scr, queries[i], cols, rows);
        ms[i] = mono_ms() - t0;
        if (progress)
            progress(ctx, i + 1);
    }
    view_screen_free(&scr);
    view_model_free(&vm);
    return rc ? ms_fail(err, MS_NOMEM, "out of memory laying out the browser") : MS_OK;
}
