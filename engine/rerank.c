/* rerank.c - an external reranker: a program that scores candidate texts
 * against the query, in the JSON-lines protocol of the external embedders
 * (docs/EMBEDDERS.md):
 *
 *   -> {"op":"rerank","query":"...","texts":["a","b"]}
 *   <- {"scores":[0.93, 0.12]}
 *
 * The engine applies it to the pool of best candidates and traces it as the
 * adjustment "rerank" with factor 0.5 + (score - min) / (max - min) over the
 * pool (1 when all scores are equal), so it can reorder ranking_score within
 * a factor of three but never touches relevance_score. When the program is
 * missing, slow or answers badly, the ranking stays as fused and the
 * response says why. */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonproc.h"

struct reranker {
    jsonproc *proc;
};

reranker *rerank_open(const char *spec, ms_error *err)
{
    if (!spec || strncmp(spec, "cmd:", 4) != 0 || !spec[4]) {
        ms_fail(err, MS_USAGE, "a reranker is cmd:PROGRAM");
        return NULL;
    }
    reranker *r = calloc(1, sizeof *r);
    if (!r) {
        ms_fail(err, MS_NOMEM, "out of memory");
        return NULL;
    }
    r->proc = jsonproc_start(spec + 4, "reranker",
                             jsonproc_timeout("MEMSCOPE_RERANK_TIMEOUT_MS", 10000), err);
    if (!r->proc) {
        free(r);
        return NULL;
    }
    return r;
}

void rerank_close(reranker *r)
{
    if (!r)
        return;
    jsonproc_stop(r->proc);
    free(r);
}

ms_status rerank_score(reranker *r, const char *question, const char *const *texts, size_t n,
                       double *scores, ms_error *err)
{
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "op", "rerank");
    cJSON_AddStringToObject(req, "query", question);
    cJSON *arr = cJSON_AddArrayToObject(req, "texts");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(texts[i]));
    cJSON *reply = NULL;
    ms_status st = jsonproc_request(r->proc, req, &reply, err);
    cJSON_Delete(req);
    if (st)
        return st;
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(reply, "scores");
    if (!cJSON_IsArray(sc) || (size_t)cJSON_GetArraySize(sc) != n)
        st = ms_fail(err, MS_EXTERNAL,
                     "reranker '%s' must answer {\"scores\": [...]} with %zu "
                     "numbers",
                     jsonproc_command(r->proc), n);
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, sc)
    {
        if (st || i >= n)
            break;
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
            st = ms_fail(err, MS_EXTERNAL, "reranker '%s': score %zu is not a finite number",
                         jsonproc_command(r->proc), i);
        else
            scores[i++] = v->valuedouble;
    }
    cJSON_Delete(reply);
    return st;
}
