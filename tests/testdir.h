/* testdir.h - paths in a test program's private temporary directory.
 *
 * The including file defines `static char tmpdir[] = "/tmp/NAME-XXXXXX";`
 * before including this, and calls mkdtemp(tmpdir) at start. */
#ifndef MS_TESTDIR_H
#define MS_TESTDIR_H

#include <dirent.h>
#include <stdio.h>
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

#endif
