/* cli.h - what every subcommand shares: options, the store path, errors.
 *
 * Exit status: 0 success, 1 a runtime error, 2 a usage error. Errors go to
 * stderr as one line "memscope: what went wrong (where)", made safe for a
 * terminal. */
#ifndef MS_CLI_H
#define MS_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "store/base/status.h"
#include "store/store.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Options every command takes. */
typedef struct cli_common {
    const char *db;      /* --db, else $MEMSCOPE_DB, else the XDG default */
    const char *profile; /* --profile, else $MEMSCOPE_PROFILE, else "default" */
    int profile_given;   /* --profile was on the command line */
    int readonly;        /* --read-only */
    const char *theme;   /* --theme (browser) */
} cli_common;

/* Long option ids of the common options, above any single character. */
enum {
    OPT_DB = 1000,
    OPT_PROFILE,
    OPT_READONLY,
    OPT_THEME,
    OPT_HELP,
    OPT_FIRST_OWN = 1100, /* commands number their own options from here */
};

/* The common options as getopt_long entries, to splice into a command's
 * table with CLI_COMMON_OPTIONS. */
#define CLI_COMMON_OPTIONS                                                                         \
    {"db", required_argument, NULL, OPT_DB}, {"profile", required_argument, NULL, OPT_PROFILE},    \
        {"read-only", no_argument, NULL, OPT_READONLY}, {"help", no_argument, NULL, OPT_HELP},     \
    {                                                                                              \
        "theme", required_argument, NULL, OPT_THEME                                                \
    }

/* A subcommand: its name, a one-line summary, usage text, and its entry. */
typedef struct cli_command {
    const char *name;
    const char *summary;
    const char *usage; /* full --help text */
    int (*run)(cli_common *c, int argc, char **argv);
} cli_command;

/* Handle a common option (from getopt_long) for command cmd. Returns 1 when
 * handled, 0 when opt is not common; --help prints usage and exits 0. */
int cli_common_option(cli_common *c, int opt, const cli_command *cmd);

/* Print "memscope: <message>" (escaped for a terminal) and return status. */
int cli_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Report err (if set) and return EXIT_RUNTIME, or EXIT_USAGE for MS_USAGE. */
int cli_fail(const ms_error *err);

/* Flush standard output; a write that failed (a full disk, `ulimit -f`)
 * turns a success into a runtime error with a message. Returns the status a
 * command should exit with. */
int cli_finish(int status);

/* After a write has committed and its report was printed: flush standard
 * output. When that fails, the write still happened: say so on stderr
 * ("memscope: note: WHAT was saved, but ...") and return EXIT_OK, so a
 * script that retries on failure does not write it twice; cli_finish then
 * keeps EXIT_OK. */
int cli_committed(const char *what);

/* Usage error for cmd: "memscope CMD: message" and a hint; returns 2. */
int cli_usage(const cli_command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Usage error for the option getopt_long just refused (with opterr = 0, so
 * getopt prints nothing of its own); returns 2. */
int cli_bad_option(const cli_command *cmd, char **argv);

/* name in memscope's data directory, following the XDG base directory
 * spec: $XDG_DATA_HOME/memscope/NAME when XDG_DATA_HOME is absolute, else
 * $HOME/.local/share/memscope/NAME when HOME is an absolute path to an
 * existing directory. 0, or -1 with out = "" when there is no such place. */
int cli_data_path(const char *name, char *out, size_t len);

/* Resolve the database path (see cli_common.db): "" when no --db, no
 * MEMSCOPE_DB and no data directory (cli_open then refuses). Static storage. */
const char *cli_db_path(const cli_common *c);

/* Open the store for this command; *created says whether the file is new.
 * Writing commands pass writable = 1 and get a clear refusal under
 * --read-only. Prints the error itself and returns NULL on failure. */
store *cli_open(cli_common *c, int writable, int *created);

/* Remove a store file that this command created and then failed to fill
 * (or a bench store), with its -wal, -shm and snapshot files. */
void cli_unlink_store(const char *path);

/* Is stdout (fd 1) / stderr (fd 2) a terminal? */
int cli_tty(int fd);

/* ---- the output layer --------------------------------------------------
 * Every command, the shell and the browser's messages outside curses print
 * through these functions, and only these (tests/hostile.t checks that no
 * other file of tui/ calls printf, fputs or puts). Text that came from a
 * store, a file, an argument or the environment reaches a terminal only as
 * a %s argument of cli_printf, which escapes it. */

/* printf to out, where the format is the program's own text (a literal,
 * written as it is) and every %s argument is untrusted: on a terminal each
 * is made one line and terminal-safe (cli_safe: every control, escape, C1,
 * bidi and zero-width character shown as a marked escape) before the
 * width and precision are applied; raw otherwise, so pipes get the bytes
 * unchanged. The other conversions (d i u x c f g e p, with the length
 * modifiers hh h l ll z j t L, and * widths) format as printf does; %c is
 * escaped like %s. */
void cli_printf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The program's own multi-line text (usage, help, a report it built from
 * escaped parts), written as it is. Never pass it stored or typed text. */
void cli_put_own(FILE *out, const char *text);

/* text cut to cols display columns (with "…"), padded to them when pad,
 * always made terminal-safe (cli_safe; marked on a terminal): a column of
 * a table, the same on a terminal and in a pipe. */
void cli_put_cut(FILE *out, const char *text, int cols, int pad);

/* Multi-line stored text (a memory's content), made terminal-safe with its
 * newlines and tabs kept (text_escape keep_ws), on a terminal or not. */
void cli_put_text(FILE *out, const char *text);

/* Print text made safe for a terminal when out is one; raw otherwise. */
void cli_print_safe(FILE *out, const char *text);

/* Should escapes written to fd be marked (a terminal, TERM not dumb)? */
int cli_mark(int fd);

/* text (NULL = "") made one line and terminal-safe: each character
 * text_escape escapes shows as its escape (\x1b, \n, <U+202E>, \xff), cut
 * to cols display columns with "…" when longer (cols < 0: never cut). With
 * mark, each escape is wrapped in reverse video (magenta unless NO_COLOR
 * is set), so it stands apart from the same characters typed as text.
 * *width (may be NULL) gets the columns it takes. Caller frees; NULL when
 * out of memory. */
char *cli_safe(const char *text, int cols, int mark, int *width);

/* Write text to out through cli_safe, marked when out is a terminal. */
void cli_put_safe(FILE *out, const char *text);

/* One row of the present layer (view_fmt.h: safe text with a role per
 * byte) and a newline: the text as it is, its escapes marked (reverse
 * video, as cli_safe marks them) when out is a terminal. */
struct vrow;
void cli_put_row(FILE *out, const struct vrow *l);

/* The columns a table printed to out may take: the terminal's width when
 * out is one (at least 40), else 120. */
int cli_width(FILE *out);

/* Print JSON text; when out is a terminal, every character text_escape
 * would escape (ESC is already \u001b; DEL, C1, bidi, zero-width...) becomes
 * a \u escape and invalid UTF-8 becomes \ufffd: the same JSON, made
 * safe to look at. Raw otherwise, so pipes get the bytes unchanged. */
void cli_print_json(FILE *out, const char *json);

/* argv[from..argc) joined with single spaces (a query, a memory's text).
 * Caller frees; NULL when out of memory. */
char *cli_join(int argc, char **argv, int from);

/* Parse a number option strictly: the whole string, within [lo, hi]. */
int cli_parse_double(const char *s, double lo, double hi, double *out);
int cli_parse_int(const char *s, long lo, long hi, long *out);

/* Every subcommand, in cmd_*.c. */
extern const cli_command cmd_import, cmd_export, cmd_add, cmd_list, cmd_show, cmd_delete, cmd_demo,
    cmd_health, cmd_recall, cmd_eval, cmd_bench, cmd_shell, cmd_reembed, cmd_feedback, cmd_browse,
    cmd_calibrate, cmd_profiles;

#endif
