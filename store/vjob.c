/* vjob.c - computing a batch of vectors on a second thread while store_put
 * goes on with the next memories.
 *
 * The built-in embedder and the blobs of its vectors (store_vec_encode)
 * are a sixth of an import's work and touch no
 * database: when the vectorizer allows it
 * (store_vectorizer.background), a full batch is handed to a thread, and
 * its vectors are written when the next batch is handed over, or when the
 * transaction ends. One batch is in flight at a time; the SQLite connection
 * is only ever used by the caller's thread. */
#include "store_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct vjob {
    pthread_t th;
    store_vectorizer vz;
    pending_vec *items; /* owned: rids and texts */
    size_t n;
    int dim;
    float *out;           /* [n * dim] */
    unsigned char *blobs; /* [n * dim * 4]: blob i at i * dim * 4 */
    size_t *len;          /* [n] bytes of each blob */
    ms_status st;
    ms_error err;
};

static void vjob_free(vjob *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n; i++)
        free(j->items[i].text);
    free(j->items);
    free(j->out);
    free(j->blobs);
    free(j->len);
    free(j);
}

static void *vjob_run(void *p)
{
    vjob *j = p;
    const char **texts = malloc(j->n * sizeof *texts);
    if (!texts) {
        j->st = ms_fail(&j->err, MS_NOMEM, "out of memory computing vectors");
        return NULL;
    }
    for (size_t i = 0; i < j->n; i++)
        texts[i] = j->items[i].text;
    ms_error_clear(&j->err);
    j->st = j->vz.embed(j->vz.ctx, texts, j->n, j->out, &j->err);
    free(texts);
    for (size_t i = 0; !j->st && i < j->n; i++) {
        size_t at = i * (size_t)j->dim;
        j->len[i] = store_vec_encode(j->out + at, j->dim, j->blobs + at * sizeof *j->out);
    }
    return NULL;
}

/* Write the job's vectors and free it. */
static ms_status vjob_write(store *s, vjob *j, ms_error *err)
{
    ms_status st = j->st;
    if (st && err)
        *err = j->err;
    for (size_t i = 0; !st && i < j->n; i++) {
        size_t at = i * (size_t)j->dim;
        st = store_vector_write(s, j->items[i].rid, j->blobs + at * sizeof *j->out, j->len[i],
                                j->dim, j->items[i].fresh, err);
    }
    vjob_free(j);
    return st;
}

ms_status store_vjob_finish(store *s, ms_error *err)
{
    vjob *j = s->vjob;
    if (!j)
        return MS_OK;
    pthread_join(j->th, NULL);
    s->vjob = NULL;
    return vjob_write(s, j, err);
}

void store_vjob_discard(store *s)
{
    vjob *j = s->vjob;
    if (!j)
        return;
    pthread_join(j->th, NULL);
    s->vjob = NULL;
    vjob_free(j);
}

ms_status store_vjob_start(store *s, ms_error *err)
{
    ms_status st = store_vjob_finish(s, err);
    if (st || s->n_pending == 0)
        return st;
    vjob *j = calloc(1, sizeof *j);
    size_t n = s->n_pending, dim = (size_t)s->vz.dim;
    if (j) {
        j->out = malloc(n * dim * sizeof *j->out);
        j->blobs = malloc(n * dim * sizeof *j->out);
        j->len = malloc(n * sizeof *j->len);
    }
    if (!j || !j->out || !j->blobs || !j->len) {
        vjob_free(j);
        return store_flush_vectors(s, err); /* no memory for a job: here and now */
    }
    j->vz = s->vz;
    j->dim = s->vz.dim;
    j->items = s->pending; /* the batch moves to the job */
    j->n = n;
    s->pending = NULL;
    s->n_pending = s->cap_pending = 0;
    if (pthread_create(&j->th, NULL, vjob_run, j) == 0) {
        s->vjob = j;
        return MS_OK;
    }
    vjob_run(j); /* no thread: here and now */
    return vjob_write(s, j, err);
}
