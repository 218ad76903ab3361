/* cmd_embed.c - `memscope reembed`: recompute every vector with an embedder. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/cli/cli.h"
#include "engine/embed.h"

static const char reembed_usage[] =
    "usage: memscope reembed [--db PATH] [--embedder hash|cmd:PROGRAM]\n"
    "\n"
    "Recompute the vector of every memory, in every profile, with the embedder\n"
    "(default: the built-in hashed n-gram embedder) and record it as the store's\n"
    "embedder. One transaction: on any error the old vectors stay. Progress on a\n"
    "terminal.\n";

enum { OPT_EMBEDDER = OPT_FIRST_OWN };

static int run_reembed(cli_common *c, int argc, char **argv);
const cli_command cmd_reembed = {"reembed", "recompute every vector with an embedder",
                                 reembed_usage, run_reembed};

#define REEMBED_BATCH 256

typedef struct reembed_ctx {
    store *s;
    embedder *e;
    int64_t rid[REEMBED_BATCH];
    char *text[REEMBED_BATCH];
    size_t n;
    char profile[STORE_PROFILE_MAX + 1]; /* of the memories in the batch */
    float *out;
    long done, total;
    int progress;
    ms_error *err;
    ms_status st;
} reembed_ctx;

static void flush_batch(reembed_ctx *x)
{
    if (x->n == 0 || x->st)
        return;
    x->st = embed_texts(x->e, (const char *const *)x->text, x->n, x->out, x->err);
    int dim = embed_dim(x->e);
    /* a vector is written into its memory's profile */
    if (!x->st)
        x->st = store_use_profile(x->s, x->profile, x->err);
    for (size_t i = 0; !x->st && i < x->n; i++)
        x->st = store_put_vector(x->s, x->rid[i], x->out + i * (size_t)dim, dim, x->err);
    for (size_t i = 0; i < x->n; i++)
        free(x->text[i]);
    x->done += (long)x->n;
    x->n = 0;
    if (x->progress)
        cli_printf(stderr, "\rreembed: %ld/%ld memories", x->done, x->total);
}

static int collect(void *p, const store_memory *m)
{
    reembed_ctx *x = p;
    if (x->n && strcmp(x->profile, m->profile) != 0)
        flush_batch(x);
    if (x->st)
        return 1;
    snprintf(x->profile, sizeof x->profile, "%s", m->profile);
    x->rid[x->n] = m->rid;
    x->text[x->n] = strdup(m->content);
    if (!x->text[x->n]) {
        x->st = ms_fail(x->err, MS_NOMEM, "out of memory");
        return 1;
    }
    if (++x->n == REEMBED_BATCH)
        flush_batch(x);
    return x->st != MS_OK;
}

static int run_reembed(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS, {"embedder", required_argument, NULL, OPT_EMBEDDER}, {0, 0, 0, 0}};
    const char *spec = NULL;
    int opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_reembed))
            continue;
        if (opt == OPT_EMBEDDER)
            spec = optarg;
        else
            return cli_bad_option(&cmd_reembed, argv);
    }
    if (optind < argc)
        return cli_usage(&cmd_reembed, "unexpected argument '%s'", argv[optind]);
    if (c->readonly)
        return cli_error(EXIT_RUNTIME, "cannot reembed: --read-only was given (store %s)",
                         cli_db_path(c));
    store *s = cli_open(c, 0, NULL);
    if (!s)
        return EXIT_RUNTIME;
    ms_error err;
    ms_error_clear(&err);
    reembed_ctx x = {.s = s, .err = &err, .progress = cli_tty(2)};
    x.e = embed_open(spec, &err);
    ms_status st = x.e ? MS_OK : err.code;
    if (!st)
        st = store_total(s, &x.total, &err) ? err.code : MS_OK;
    if (!st && !(x.out = malloc(REEMBED_BATCH * (size_t)embed_dim(x.e) * sizeof *x.out)))
        st = ms_fail(&err, MS_NOMEM, "out of memory");
    if (!st)
        st = store_begin(s, &err);
    if (!st)
        st = store_set_embedder(s, embed_id(x.e), embed_dim(x.e), &err);
    if (!st)
        st = store_scan(s, 1, STORE_SCAN_NONE, collect, &x, &err);
    if (!st)
        flush_batch(&x);
    if (!st)
        st = x.st;
    if (!st)
        st = store_end(s, &err);
    else
        store_rollback(s);
    for (size_t i = 0; i < x.n; i++)
        free(x.text[i]);
    if (x.progress && x.done)
        fputc('\n', stderr);
    if (!st)
        cli_printf(stdout, "reembedded %ld memories with %s\n", x.done, embed_id(x.e));
    free(x.out);
    embed_close(x.e);
    store_close(s);
    return st ? cli_fail(&err) : cli_committed("the reembedding");
}
