/* main.c - memscope's entry: global options, then one subcommand, or the
 * full-screen browser when none is named. */
#include <getopt.h>
#include <locale.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tui/cli/browser_face.h"
#include "tui/cli/cli.h"
#include "tui/present/view_fmt.h"

static const cli_command *const commands[] = {
    &cmd_import,   &cmd_export, &cmd_add,    &cmd_list,      &cmd_show,     &cmd_delete,
    &cmd_demo,     &cmd_recall, &cmd_health, &cmd_eval,      &cmd_reembed,  &cmd_bench,
    &cmd_feedback, &cmd_shell,  &cmd_browse, &cmd_calibrate, &cmd_profiles,
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

static void usage(FILE *out)
{
    cli_put_own(out, "usage: memscope [--db PATH] [--profile NAME] [--read-only] [--theme NAME]\n"
                     "       memscope COMMAND [options] [args]\n"
                     "\n"
                     "With no command, memscope opens the full-screen browser on the store.\n"
                     "\n"
                     "Commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        cli_printf(out, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
    cli_put_own(out,
                "\n"
                "Every command takes --db PATH (default $MEMSCOPE_DB, else\n"
                "$XDG_DATA_HOME/memscope/memory.db), --profile NAME (default $MEMSCOPE_PROFILE,\n"
                "else \"default\") and --help. Exit status: 0 success, 1 error, 2 usage error.\n"
                "See memscope(1).\n");
}

/* The heap in 2 MB pages. A process's first touch of each 4 KB page of
 * fresh memory is a page fault, 12-14 us each on this virtual machine
 * (docs/SCALING.md); a `memscope recall` at 100,000 memories took about
 * 440, a quarter of them the heap's (malloc, SQLite's page cache, the
 * engine's arrays). So the heap grows HEAP_PAD at a time, is kept when
 * freed up to twice that, and the 2 MB-aligned part of its first stretch
 * is marked for transparent huge pages: where the kernel gives them
 * (`madvise` or `always` in /sys/kernel/mm/transparent_hugepage/enabled),
 * a fault maps 2 MB. docs/PERFORMANCE.md, item 78. Large blocks still come
 * from mmap, as glibc decides. */
#define HEAP_PAD (16u << 20)
#define HUGE_PAGE (2u << 20)

static void heap_in_huge_pages(void)
{
    mallopt(M_TOP_PAD, (int)HEAP_PAD);
    mallopt(M_TRIM_THRESHOLD, (int)(2 * HEAP_PAD));
    void *volatile first = malloc(1); /* grows the heap by HEAP_PAD */
    free(first);
    uintptr_t end = (uintptr_t)sbrk(0);
    uintptr_t a = (end - HEAP_PAD + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t b = end & ~(uintptr_t)(HUGE_PAGE - 1);
#ifdef MADV_HUGEPAGE
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#endif
}

int main(int argc, char **argv)
{
    heap_in_huge_pages();
    /* The user's character set only (UTF-8 or not: ncursesw, libedit, the
     * tables' bars). Numbers stay C's: "2.5" is a weight in every locale,
     * and a comma-decimal LC_NUMERIC (de_DE) made strtod reject it; the
     * other categories are not used, and each was a file read at every
     * start (there is no locale archive on Debian's C.UTF-8). */
    setlocale(LC_CTYPE, "");
    vfmt_use_locale(); /* the bars of every table: ASCII unless UTF-8 */
    opterr = 0;        /* commands report bad options themselves, on one line */
    /* Past a file-size limit (ulimit -f) a write must fail with EFBIG, which
     * SQLite reports and rolls back, instead of SIGXFSZ killing the process
     * in the middle of a transaction without a word. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        cli_printf(stdout, "memscope %s\n", MEMSCOPE_VERSION);
        return EXIT_OK;
    }
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                      strcmp(argv[1], "help") == 0)) {
        usage(stdout);
        return EXIT_OK;
    }
    /* The first word that is not an option (or an option's value) names the
     * command; options before it belong to it too. */
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (strcmp(argv[i], "--") == 0)
            break;
        int takes_value = !strchr(argv[i], '=') &&
                          (strcmp(argv[i], "--db") == 0 || strcmp(argv[i], "--profile") == 0 ||
                           strcmp(argv[i], "--theme") == 0);
        i += takes_value ? 2 : 1;
    }
    const cli_command *cmd = NULL;
    if (i >= argc || argv[i][0] == '-')
        return browse_main(argc, argv); /* no command: the browser */
    if (i < argc && argv[i][0] != '-') {
        cmd = NULL;
        for (size_t k = 0; k < N_COMMANDS; k++)
            if (strcmp(argv[i], commands[k]->name) == 0)
                cmd = commands[k];
        if (!cmd) /* one line, as every usage error */
            return cli_error(EXIT_USAGE, "unknown command '%s' (see 'memscope --help')", argv[i]);
        /* Move the command word to the front: argv[0] for getopt. */
        char *word = argv[i];
        memmove(argv + 2, argv + 1, (size_t)(i - 1) * sizeof *argv);
        argv[1] = word;
        argc--;
        argv++;
    }
    cli_common c = {0};
    return cli_finish(cmd->run(&c, argc, argv));
}
