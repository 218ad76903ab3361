/* embed_cmd.c - an external embedder: a program the user runs, spoken to in
 * JSON lines over its stdin and stdout (docs/EMBEDDERS.md).
 *
 *   -> {"op":"info"}                       <- {"id":"NAME","dim":N[,"model":"M"]}
 *   -> {"op":"embed","texts":["a","b"]}    <- {"vectors":[[...],[...]]}
 *
 * One request line, one reply line. Every reply must come within the
 * timeout (MEMSCOPE_EMBED_TIMEOUT_MS, default 10000). The program's stderr
 * goes to /dev/null unless MEMSCOPE_EMBED_STDERR=1. Vectors must have N
 * finite numbers each; memscope normalises them to unit length. The store
 * records the embedder as "cmd:NAME:N", or, when the program states the
 * model its vectors come from ("model"), as that model's name: its vectors
 * are then comparable with any other of that model and dimension, such as
 * those a SuperLocalMemory store holds (docs/EMBEDDERS.md). */
#include "embed_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonproc.h"

#define CMD_BATCH 64

/* Copy one reply vector into out (dim floats), normalised. */
static ms_status take_vector(jsonproc *c, const cJSON *v, int dim, float *out, size_t which,
                             ms_error *err)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != dim)
        return ms_fail(err, MS_EXTERNAL, "embedder '%s': vector %zu has %d numbers, not %d",
                       jsonproc_command(c), which, cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0,
                       dim);
    double norm = 0;
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, v)
    {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > 1e30)
            return ms_fail(err, MS_EXTERNAL,
                           "embedder '%s': vector %zu holds a value that is "
                           "not a finite number",
                           jsonproc_command(c), which);
        out[i] = (float)x->valuedouble;
        norm += (double)out[i] * out[i];
        i++;
    }
    float inv = norm > 0 ? (float)(1.0 / sqrt(norm)) : 0;
    for (i = 0; i < dim; i++)
        out[i] *= inv;
    return MS_OK;
}

static ms_status embed_batch(embedder *e, const char *const *texts, size_t n, float *out,
                             ms_error *err)
{
    jsonproc *c = e->impl;
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "op", "embed");
    cJSON *arr = cJSON_AddArrayToObject(req, "texts");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(texts[i]));
    cJSON *reply = NULL;
    ms_status st = jsonproc_request(c, req, &reply, err);
    cJSON_Delete(req);
    if (st)
        return st;
    const cJSON *vs = cJSON_GetObjectItemCaseSensitive(reply, "vectors");
    if (!cJSON_IsArray(vs) || (size_t)cJSON_GetArraySize(vs) != n)
        st = ms_fail(err, MS_EXTERNAL,
                     "embedder '%s' must answer {\"vectors\": [...]} with %zu "
                     "vectors",
                     jsonproc_command(c), n);
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, vs)
    {
        if (st || i >= n)
            break;
        st = take_vector(c, v, e->dim, out + i * (size_t)e->dim, i, err);
        i++;
    }
    cJSON_Delete(reply);
    return st;
}

static ms_status cmd_embed(embedder *e, const char *const *texts, size_t n, float *out,
                           ms_error *err)
{
    for (size_t i = 0; i < n; i += CMD_BATCH) {
        size_t m = n - i < CMD_BATCH ? n - i : CMD_BATCH;
        ms_status st = embed_batch(e, texts + i, m, out + i * (size_t)e->dim, err);
        if (st)
            return st;
    }
    return MS_OK;
}

static void cmd_close(embedder *e)
{
    jsonproc_stop(e->impl);
    e->impl = NULL;
}

static const embedder_ops cmd_ops = {"cmd", cmd_embed, cmd_close};

/* Ask the program who it is. */
static ms_status handshake(embedder *e, jsonproc *c, ms_error *err)
{
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "op", "info");
    cJSON *reply = NULL;
    ms_status st = jsonproc_request(c, req, &reply, err);
    cJSON_Delete(req);
    if (st)
        return st;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(reply, "id");
    const cJSON *dim = cJSON_GetObjectItemCaseSensitive(reply, "dim");
    if (!cJSON_IsString(id) || !*id->valuestring || strlen(id->valuestring) > 100 ||
        !cJSON_IsNumber(dim) || dim->valuedouble < 1 || dim->valuedouble > STORE_DIM_MAX ||
        dim->valuedouble != floor(dim->valuedouble)) {
        cJSON_Delete(reply);
        return ms_fail(err, MS_EXTERNAL,
                       "embedder '%s' must answer {\"op\":\"info\"} with {\"id\": text, "
                       "\"dim\": 1..%d}",
                       jsonproc_command(c), STORE_DIM_MAX);
    }
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(reply, "model");
    if (model && !cJSON_IsNull(model) &&
        (!cJSON_IsString(model) || !*model->valuestring ||
         strlen(model->valuestring) >= sizeof e->id)) {
        cJSON_Delete(reply);
        return ms_fail(err, MS_EXTERNAL,
                       "embedder '%s': \"model\" in its info reply must be a name of 1 to %zu "
                       "bytes",
                       jsonproc_command(c), sizeof e->id - 1);
    }
    e->dim = dim->valueint;
    if (cJSON_IsString(model))
        snprintf(e->id, sizeof e->id, "%s", model->valuestring);
    else
        snprintf(e->id, sizeof e->id, "cmd:%s:%d", id->valuestring, e->dim);
    cJSON_Delete(reply);
    return MS_OK;
}

embedder *embed_cmd_open(const char *command, ms_error *err)
{
    if (!command || !*command) {
        ms_fail(err, MS_USAGE, "cmd: needs a program, as in cmd:./my-embedder");
        return NULL;
    }
    embedder *e = calloc(1, sizeof *e);
    if (!e) {
        ms_fail(err, MS_NOMEM, "out of memory");
        return NULL;
    }
    e->ops = &cmd_ops;
    e->batch = CMD_BATCH;
    e->impl = jsonproc_start(command, "embedder",
                             jsonproc_timeout("MEMSCOPE_EMBED_TIMEOUT_MS", 10000), err);
    if (!e->impl || handshake(e, e->impl, err)) {
        embed_close(e);
        return NULL;
    }
    return e;
}
