/* ch_spreading.c - spreading activation over the stored edges.
 *
 * Seeds are the top SPREAD_SEEDS memories of a first fusion of the other
 * channels; a seed at rank r starts with activation 1/sqrt(r). Each
 * iteration, every active memory passes SPREAD_DECAY * w * a to each
 * neighbour along an edge of weight w (session adjacency 1.0 for the next
 * turn, 0.5 two turns away; shared entities; temporal proximity).
 * Activation received from several memories adds up; seeds keep their own.
 * raw = the final activation. */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>

#define SPREAD_SEEDS 10
#define SPREAD_DECAY 0.5
#define SPREAD_ITERATIONS 1

static const char *health(const snapshot *sn, embedder *emb)
{
    (void)emb;
    if (sn->n == 0)
        return "store_empty";
    return sn->e_off && sn->e_off[sn->n] > 0 ? NULL : "no_edges";
}

static ms_status produce(const channel_ctx *c, ranked_list *out, const char **note,
                         ms_error *err)
{
    const snapshot *sn = c->sn;
    const ranked_list *seeds = c->seed_fusion;
    if (!seeds || seeds->n == 0) {
        *note = "no seeds: the other channels found nothing";
        return MS_OK;
    }
    double *act = calloc(sn->n + 1, sizeof *act);
    double *next = calloc(sn->n + 1, sizeof *next);
    uint32_t *touched = malloc((sn->n + 1) * sizeof *touched);
    uint8_t *mark = calloc(sn->n + 1, 1);
    ms_status st = MS_OK;
    if (!act || !next || !touched || !mark) {
        st = ms_fail(err, MS_NOMEM, "out of memory");
        goto done;
    }
    size_t nt = 0;
    for (size_t r = 0; r < seeds->n && r < SPREAD_SEEDS; r++) {
        uint32_t i = seeds->v[r].idx;
        act[i] = 1.0 / sqrt((double)r + 1.0);
        mark[i] = 1;
        touched[nt++] = i;
    }
    for (int it = 0; it < SPREAD_ITERATIONS; it++) {
        size_t frontier = nt;
        for (size_t t = 0; t < frontier; t++) {
            uint32_t u = touched[t];
            for (uint32_t e = sn->e_off[u]; e < sn->e_off[u + 1]; e++) {
                uint32_t v = sn->e_dst[e];
                next[v] += SPREAD_DECAY * sn->e_w[e] * act[u];
                if (!mark[v]) {
                    mark[v] = 1;
                    touched[nt++] = v;
                }
            }
        }
        for (size_t t = 0; t < nt; t++) {
            act[touched[t]] += next[touched[t]];
            next[touched[t]] = 0;
        }
    }
    for (size_t t = 0; t < nt && !st; t++)
        if (ranked_push(out, touched[t], act[touched[t]]))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    if (!st)
        ranked_finish(out, sn, c->top_n);
done:
    free(act);
    free(next);
    free(touched);
    free(mark);
    return st;
}

const channel_ops ch_spreading_ops = {"spreading", health, produce};
