/* fuzz.h - what the libFuzzer targets share: scratch files and a store.
 *
 * Built only by `make fuzz` / `make fuzz-smoke` (clang -fsanitize=fuzzer);
 * never by `make` or `make test`. Each target keeps one store for the whole
 * run and rolls back after every input, so inputs cannot affect each other.
 * Scratch files live in $FUZZ_TMPDIR, else /dev/shm, else /tmp, and are
 * removed at exit. */
#ifndef MS_FUZZ_H
#define MS_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop the run: an invariant does not hold (libFuzzer saves the input). */
#define FUZZ_CHECK(cond, what)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", what, __FILE__, __LINE__);      \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static char fuzz_paths[4][256];
static int fuzz_n_paths;

static inline void fuzz_cleanup(void)
{
    for (int i = 0; i < fuzz_n_paths; i++) {
        char side[300];
        unlink(fuzz_paths[i]);
        snprintf(side, sizeof side, "%s-wal", fuzz_paths[i]);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", fuzz_paths[i]);
        unlink(side);
    }
}

/* A fresh, unused scratch path (the file does not exist). Static storage. */
static inline const char *fuzz_scratch(const char *tag)
{
    const char *dir = getenv("FUZZ_TMPDIR");
    if (!dir || !*dir)
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    char *p = fuzz_paths[fuzz_n_paths];
    snprintf(p, sizeof fuzz_paths[0], "%s/memscope-fuzz-%s-%ld-XXXXXX", dir, tag, (long)getpid());
    int fd = mkstemp(p);
    if (fd < 0) {
        perror(p);
        abort();
    }
    close(fd);
    unlink(p);
    if (fuzz_n_paths++ == 0)
        atexit(fuzz_cleanup);
    return p;
}

/* Write data to path (replacing it). */
static inline void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/* A new store at a scratch path; aborts on failure. */
static inline store *fuzz_store(void)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (store_open(fuzz_scratch("store"), 0, &s, &err)) {
        fprintf(stderr, "cannot open a scratch store: %s\n", err.msg);
        abort();
    }
    return s;
}

/* data as a NUL-terminated string (NUL bytes inside end it early). Caller
 * frees. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
