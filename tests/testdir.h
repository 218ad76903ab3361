/* testdir.h - paths in a test program's private temporary directory, and
 * reading and writing whole files.
 *
 * The including file defines `static char tmpdir[] = "/tmp/NAME-XXXXXX";`
 * before including this, and calls mkdtemp(tmpdir) at start. */
#ifndef MS_TESTDIR_H
#define MS_TESTDIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* tmpdir/name in a ring of static buffers: valid for the next 63 calls. */
__attribute__((unused)) static const char *tpath(const char *name)
{
    static char paths[64][512];
    static int k;
    k = (k + 1) % 64;
    snprintf(paths[k], sizeof paths[k], "%s/%s", tmpdir, name);
    return paths[k];
}

/* Remove every file of tmpdir, then tmpdir. */
__attribute__((unused)) static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlink(tpath(e->d_name));
    if (d)
        closedir(d);
    rmdir(tmpdir);
}

/* The whole file, NUL-terminated (its length in *len), or NULL when it
 * cannot be read. Caller frees. */
__attribute__((unused)) static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *data = malloc(cap + 1);
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *g = realloc(data, (cap *= 2) + 1);
            if (!g)
                free(data);
            data = g;
        }
    }
    fclose(f);
    if (data)
        data[n] = '\0';
    *len = n;
    return data;
}

/* Write data[0..len) as the whole file at path: 0, or -1. */
__attribute__((unused)) static int write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

#endif
