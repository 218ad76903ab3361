/* embed_int.h - what embedder kinds share: the embedder itself. */
#ifndef MS_EMBED_INT_H
#define MS_EMBED_INT_H

#include "embed.h"

struct embedder {
    const embedder_ops *ops;
    char id[160]; /* recorded in the store */
    int dim;
    size_t batch; /* texts per call the kind prefers */
    void *impl;   /* the kind's own state */
};

/* embed_cmd.c: start PROGRAM (run by /bin/sh -c) and ask who it is. */
embedder *embed_cmd_open(const char *command, ms_error *err);

#endif
