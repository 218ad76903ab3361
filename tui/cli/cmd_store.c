/* cmd_store.c - the commands that read and write memories: import, export,
 * add, list, show, delete, demo. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tui/cli/browser_face.h"
#include "tui/cli/cli.h"
#include "engine/embed.h"
#include "store/base/mono.h"
#include "store/import.h"

/* ---- import ------------------------------------------------------------ */

struct progress {
    double start; /* mono_ms() */
    int shown;
    int committing; /* the count is final: say so instead of the pace */
};

static void show_progress(void *ctx, const import_stats *st)
{
    struct progress *p = ctx;
    double dt = (mono_ms() - p->start) / 1e3;
    cli_printf(stderr, "\rimporting: %llu memories, %.1f MB", (unsigned long long)st->records,
               (double)st->bytes / 1e6);
    if (p->committing)
        cli_printf(stderr, ": committing ...   ");
    else
        cli_printf(stderr, ", %.0f/s   ", dt > 0 ? (double)st->records / dt : 0.0);
    p->shown = 1;
}

/* The embedder the store's vectors come from when attach_embedder could not
 * attach the default one ("" otherwise): print_embedder_note tells the user
 * after a successful write, so that a failing command still prints one line. */
static char embedder_note[256];

static void print_embedder_note(void)
{
    if (embedder_note[0])
        cli_printf(stderr,
                   "memscope: note: the store's vectors come from %s; new memories "
                   "get none until `memscope reembed`\n",
                   embedder_note);
}

/* Attach an embedder so memories imported without vectors get one: spec, or
 * the built-in one. When the store's vectors come from another embedder,
 * an explicit spec is an error (the vectors could not be compared); with no
 * spec the new memories get no vector and a note (print_embedder_note) says
 * how to fix that. Returns NULL when no embedder is attached; *failed on an
 * error. */
static embedder *attach_embedder(store *s, const char *spec, int *failed, ms_error *err)
{
    *failed = 0;
    embedder *e = embed_open(spec, err);
    if (!e) {
        *failed = 1;
        return NULL;
    }
    const char *id;
    int dim;
    store_embedder(s, &id, &dim, err);
    if (id && strcmp(id, embed_id(e)) != 0) {
        if (spec) {
            ms_fail(err, MS_EMBEDDER,
                    "the store's vectors come from %s, not %s: run `memscope reembed "
                    "--embedder %s` first",
                    id, embed_id(e), spec);
            *failed = 1;
        } else {
            snprintf(embedder_note, sizeof embedder_note, "%s", id);
        }
        embed_close(e);
        return NULL;
    }
    store_vectorizer vz;
    embed_vectorizer(e, &vz);
    store_set_vectorizer(s, &vz);
    return e;
}

/* Ctrl-C during an import: set by on_interrupt, checked before the commit. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* Catch SIGINT for the import (on = 1), without SA_RESTART, so that an
 * open(2) waiting for a FIFO's writer returns; restore it (on = 0). */
static void catch_interrupt(int on)
{
    static struct sigaction old;
    if (on) {
        struct sigaction sa = {0};
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old);
    } else {
        sigaction(SIGINT, &old, NULL);
    }
}

/* A FIFO as a source waits in open(2) until a process writes it: say so,
 * and that Ctrl-C stops it. */
static void note_fifos(int argc, char **argv, int from)
{
    struct stat sb;
    for (int i = from; i < argc; i++)
        if (strcmp(argv[i], "-") != 0 && stat(argv[i], &sb) == 0 && S_ISFIFO(sb.st_mode))
            cli_error(EXIT_OK,
                      "note: %s is a FIFO: waiting for a process to write it "
                      "(Ctrl-C stops, importing nothing)",
                      argv[i]);
}

static const char import_usage[] =
    "usage: memscope import [--db PATH] [--profile NAME] [--format FORMAT]\n"
    "                       [--on-duplicate error|skip|replace] [--embedder-id ID]\n"
    "                       [--embedder hash|cmd:PROGRAM] FILE...\n"
    "\n"
    "Import memories into the store, all files in one transaction: a malformed line\n"
    "anywhere aborts the import with FILE:LINE:COL and leaves the store unchanged.\n"
    "\n"
    "  --format F        auto (default: detect), jsonl, json (an array), locomo,\n"
    "                    slm (a SuperLocalMemory memory.db or its data root),\n"
    "                    mcp-memory (the MCP memory server's memory.jsonl), mem0\n"
    "                    (OpenMemory's memories.json or memories.jsonl.gz),\n"
    "                    slm-bundle (a directory from `slm evidence export`)\n"
    "  --slm-profile P   slm: import only SLM profile P (default: every profile,\n"
    "                    each into the memscope profile of its name; --profile\n"
    "                    renames the one imported)\n"
    "  --on-duplicate P  what an id that already exists in the profile does:\n"
    "                    error (default), skip (keep the old), replace (overwrite)\n"
    "  --embedder-id ID  the embedder that made \"embedding\" arrays in the input\n"
    "  --embedder SPEC   compute missing vectors with SPEC (default: built-in hash)\n"
    "  --profile NAME    profile for memories without a \"profile\" field\n"
    "FILE '-' reads JSONL from standard input.\n";

enum { OPT_FORMAT = OPT_FIRST_OWN, OPT_DUP, OPT_EMBEDDER_ID, OPT_EMBEDDER, OPT_SLM_PROFILE };

/* One line per SLM profile imported (import_opts.slm_report), and a note
 * when the SLM store lacks tables or columns. */
static void print_slm_report(void *ctx, const import_slm_report *r)
{
    int *noted = ctx;
    cli_printf(stdout,
               "SuperLocalMemory profile \"%s\" -> \"%s\": %llu added, %llu replaced, %llu "
               "unchanged, %llu removed; never imported: %llu archived, %llu quarantined, %llu in "
               "retention zones archive/forgotten; %llu superseded",
               r->slm_profile, r->profile, (unsigned long long)r->added,
               (unsigned long long)r->replaced, (unsigned long long)r->unchanged,
               (unsigned long long)r->removed, (unsigned long long)r->archived,
               (unsigned long long)r->quarantined, (unsigned long long)r->out_of_recall,
               (unsigned long long)r->superseded);
    if (r->kept)
        cli_printf(stdout, "; %llu kept as they were (their ids came from elsewhere)",
                   (unsigned long long)r->kept);
    if (r->model)
        cli_printf(stdout, "; %llu vectors from %s, %d-d", (unsigned long long)r->vectors, r->model,
                   r->model_dim);
    if (r->vectors_skipped)
        cli_printf(stdout, " (%llu left out: %s)", (unsigned long long)r->vectors_skipped,
                   r->skipped_why ? "the store's vectors come from another model"
                                  : "another model");
    if (r->vectors_unlabelled)
        cli_printf(stdout, "; %llu vectors left out: no embedding_metadata names their model",
                   (unsigned long long)r->vectors_unlabelled);
    cli_printf(stdout, "; %llu edges (%llu of types memscope has not)",
               (unsigned long long)r->edges, (unsigned long long)r->edges_skipped);
    if (r->contradicts)
        cli_printf(stdout, "; %llu contradiction%s", (unsigned long long)r->contradicts,
                   r->contradicts == 1 ? "" : "s");
    cli_printf(stdout, "\n");
    if (!*noted && r->missing && *r->missing)
        cli_printf(stderr,
                   "memscope: note: this SuperLocalMemory store (schema %lld; memscope reads up to "
                   "%d) has no %s: used what is there\n",
                   (long long)r->version, IMPORT_SLM_SCHEMA, r->missing);
    *noted = 1;
}

/* Memories of profile name in p[n], 0 when absent. */
static int64_t profile_memories(const store_profile_info *p, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(p[i].name, name) == 0)
            return p[i].memories;
    return 0;
}

/* One line per profile the import added memories to: an import that fills
 * five profiles says so (the browser opens one). Nothing when it added only
 * to the current profile, which the total line already is about. */
static void print_profile_report(const store_profile_info *before, size_t nb,
                                 const store_profile_info *after, size_t na, const char *current)
{
    size_t changed = 0, here = 0;
    for (size_t i = 0; i < na; i++)
        if (after[i].memories != profile_memories(before, nb, after[i].name)) {
            changed++;
            here += strcmp(after[i].name, current) == 0;
        }
    if (changed == here)
        return;
    for (size_t i = 0; i < na; i++) {
        int64_t added = after[i].memories - profile_memories(before, nb, after[i].name);
        if (added == 0)
            continue;
        cli_put_own(stdout, "  profile ");
        cli_put_safe(stdout, after[i].name);
        cli_printf(stdout, ": %lld new, %lld in all\n", (long long)added,
                   (long long)after[i].memories);
    }
}

/* Does any of the files name an SLM store (so no embedder is attached)? */
static int any_slm(const import_opts *io, int argc, char **argv, int from)
{
    for (int i = from; i < argc; i++)
        if (io->format == IMPORT_SLM || (io->format == IMPORT_AUTO && import_is_slm(argv[i])))
            return 1;
    return 0;
}

static int run_import(cli_common *c, int argc, char **argv);
const cli_command cmd_import = {"import", "import memories from JSONL, JSON or LoCoMo files",
                                import_usage, run_import};

static int run_import(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        {"format", required_argument, NULL, OPT_FORMAT},
        {"on-duplicate", required_argument, NULL, OPT_DUP},
        {"embedder-id", required_argument, NULL, OPT_EMBEDDER_ID},
        {"embedder", required_argument, NULL, OPT_EMBEDDER},
        {"slm-profile", required_argument, NULL, OPT_SLM_PROFILE},
        {0, 0, 0, 0},
    };
    const char *spec = NULL;
    int noted = 0;
    import_opts io = {.format = IMPORT_AUTO,
                      .dup = STORE_DUP_ERROR,
                      .slm_report = print_slm_report,
                      .slm_report_ctx = &noted};
    int opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_import))
            continue;
        if (opt == OPT_FORMAT) {
            int f = import_format_parse(optarg);
            if (f < 0)
                return cli_usage(&cmd_import, "unknown format '%s'", optarg);
            io.format = (import_format)f;
        } else if (opt == OPT_DUP) {
            if (strcmp(optarg, "error") == 0)
                io.dup = STORE_DUP_ERROR;
            else if (strcmp(optarg, "skip") == 0)
                io.dup = STORE_DUP_SKIP;
            else if (strcmp(optarg, "replace") == 0)
                io.dup = STORE_DUP_REPLACE;
            else
                return cli_usage(&cmd_import, "--on-duplicate takes error, skip or replace");
        } else if (opt == OPT_EMBEDDER_ID) {
            io.embedder_id = optarg;
        } else if (opt == OPT_EMBEDDER) {
            spec = optarg;
        } else if (opt == OPT_SLM_PROFILE) {
            io.slm_profile = optarg;
        } else {
            return cli_bad_option(&cmd_import, argv);
        }
    }
    if (optind >= argc)
        return cli_usage(&cmd_import, "name at least one FILE");
    int slm = any_slm(&io, argc, argv, optind);
    if (slm && spec)
        return cli_usage(&cmd_import, "--embedder does not apply to a SuperLocalMemory store: its "
                                      "vectors come with it (`memscope reembed` replaces them)");
    if (slm && c->profile_given)
        io.slm_target = c->profile;
    catch_interrupt(1); /* from here, Ctrl-C leaves no store behind */
    note_fifos(argc, argv, optind);
    int created;
    store *s = cli_open(c, 1, &created);
    if (!s) {
        catch_interrupt(0);
        return EXIT_RUNTIME;
    }
    ms_error err;
    ms_error_clear(&err);
    int failed = 0;
    embedder *e = slm ? NULL : attach_embedder(s, spec, &failed, &err);
    if (failed) {
        catch_interrupt(0);
        store_close(s);
        if (created)
            cli_unlink_store(cli_db_path(c));
        return cli_fail(&err);
    }
    struct progress p = {0};
    p.start = mono_ms();
    if (cli_tty(2)) {
        io.progress = show_progress;
        io.progress_ctx = &p;
    }
    import_stats st = {0};
    store_profile_info *before = NULL, *after = NULL;
    size_t nb = 0, na = 0;
    char current[STORE_PROFILE_MAX + 1];
    snprintf(current, sizeof current, "%s", store_profile(s));
    ms_status code = store_begin(s, &err); /* the counts before and after are this import's */
    if (!code)
        code = store_profiles(s, &before, &nb, &err);
    for (int i = optind; !code && !interrupted && i < argc; i++)
        code = import_file(s, argv[i], &io, &st, &err);
    if (interrupted) /* whatever the import's own error: say why it stopped */
        code = ms_fail(&err, MS_IO, "interrupted (Ctrl-C): nothing was imported (store %s)",
                       cli_db_path(c));
    if (!code && store_profiles(s, &after, &na, NULL))
        na = 0;             /* only the per-profile lines will be missing */
    if (!code && p.shown) { /* the index's last words, the commit and its checkpoint:
                               seconds at a million memories, the count no longer moving */
        p.committing = 1;
        show_progress(&p, &st);
        p.committing = 0;
    }
    if (!code)
        code = store_end(s, &err);
    else
        store_rollback(s);
    catch_interrupt(0);
    if (p.shown) { /* the line as it ended: the count and the pace, commit included */
        cli_put_own(stderr, "\r\033[K");
        if (!code)
            show_progress(&p, &st);
        fputc('\n', stderr);
    }
    store_close(s);
    embed_close(e);
    if (code) {
        store_profiles_free(before, nb);
        store_profiles_free(after, na);
        if (created)
            cli_unlink_store(cli_db_path(c));
        return cli_fail(&err);
    }
    print_embedder_note();
    double dt = (mono_ms() - p.start) / 1e3;
    cli_printf(stdout,
               "imported %llu memories (%llu new, %llu replaced, %llu skipped) in %.2f s into %s\n",
               (unsigned long long)st.records, (unsigned long long)st.inserted,
               (unsigned long long)st.replaced, (unsigned long long)st.skipped, dt, cli_db_path(c));
    if (st.hidden)
        cli_printf(stdout, "not imported: %llu the source marks deleted, archived or quarantined\n",
                   (unsigned long long)st.hidden);
    if (st.edges)
        cli_printf(stdout, "links: %llu edges the source recorded between memories\n",
                   (unsigned long long)st.edges);
    if (st.contradicts)
        cli_printf(stdout, "contradictions: %llu the source recorded between memories\n",
                   (unsigned long long)st.contradicts);
    if (st.contradicts_missing)
        cli_printf(stdout,
                   "contradictions: %llu left out: the memory they name is in neither the file "
                   "nor the profile\n",
                   (unsigned long long)st.contradicts_missing);
    if (st.superseded_found)
        cli_printf(
            stdout,
            "supersession: %llu supersedes relations found between memories (docs/ENGINE.md)\n",
            (unsigned long long)st.superseded_found);
    print_profile_report(before, nb, after, na, current);
    store_profiles_free(before, nb);
    store_profiles_free(after, na);
    return cli_committed("the import");
}

/* ---- export ------------------------------------------------------------ */

enum { OPT_FORCE = OPT_FIRST_OWN }; /* export and demo */

/* export_jsonl to out, through cli_print_json when out is a terminal. */
static ms_status export_to(store *s, FILE *out, int all_profiles, ms_error *err)
{
    if (!cli_tty(fileno(out)))
        return export_jsonl(s, out, all_profiles, err);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return ms_fail(err, MS_NOMEM, "out of memory");
    ms_status st = export_jsonl(s, mem, all_profiles, err);
    if (fclose(mem) != 0 && !st)
        st = ms_fail(err, MS_NOMEM, "out of memory");
    if (!st)
        cli_print_json(out, buf);
    free(buf);
    return st;
}

static const char export_usage[] =
    "usage: memscope export [--db PATH] [--profile NAME] [-o FILE] [--force]\n"
    "\n"
    "Write memories as JSONL: every profile, or only the one named with --profile.\n"
    "Each line carries its profile and given entities, so export, import and export\n"
    "again gives the same file. -o writes FILE atomically (default standard output);\n"
    "a FIFO or a device is written into. -o never writes over the store it reads, and\n"
    "replaces an existing file only when it is a previous export (or empty), unless\n"
    "--force is given.\n";

static int run_export(cli_common *c, int argc, char **argv);
const cli_command cmd_export = {"export", "write memories as JSONL", export_usage, run_export};

/* path made absolute with its directory's symbolic links resolved (the
 * file itself need not exist) into out; -1 when its directory does not
 * resolve. */
static int canonical_path(const char *path, char out[PATH_MAX])
{
    char full[PATH_MAX];
    if (realpath(path, full)) {
        snprintf(out, PATH_MAX, "%s", full);
        return 0;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : path;
    if (slash)
        *slash = '\0';
    if (!realpath(slash ? (dir[0] ? dir : "/") : ".", full))
        return -1;
    int n = snprintf(out, PATH_MAX, "%s/%s", strcmp(full, "/") == 0 ? "" : full, base);
    return n < PATH_MAX ? 0 : -1;
}

/* Is outpath the store db, or its -wal or -shm file, under any name? */
static int is_the_store(const char *outpath, const char *db)
{
    char out[PATH_MAX], store_path[PATH_MAX], side[PATH_MAX + 8];
    if (canonical_path(outpath, out) || canonical_path(db, store_path))
        return 0;
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(side, sizeof side, "%s%s", store_path, suffixes[i]);
        struct stat a, b;
        if (strcmp(out, side) == 0 || (stat(outpath, &a) == 0 && stat(side, &b) == 0 &&
                                       a.st_dev == b.st_dev && a.st_ino == b.st_ino))
            return 1;
    }
    return 0;
}

/* Does the regular file at path look like a previous export: empty, or a
 * first line that is a memory object (JSON with a string "content")? */
static int is_previous_export(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, f);
    int empty = n < 0 && !ferror(f);
    fclose(f);
    cJSON *o = n > 0 ? cJSON_ParseWithLength(line, (size_t)n) : NULL;
    int yes = empty || cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "content"));
    cJSON_Delete(o);
    free(line);
    return yes;
}

/* Open a FIFO or a character device to write into: a FIFO that no process
 * reads is an error, not a wait. */
static FILE *open_direct(const char *path)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENXIO)
            cli_error(EXIT_RUNTIME, "cannot write %s: no process is reading the FIFO", path);
        else
            cli_error(EXIT_RUNTIME, "cannot write %s: %s", path, strerror(errno));
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        cli_error(EXIT_RUNTIME, "cannot write %s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

/* Where export -o writes: checks outpath (see export_usage) and opens a
 * temporary file beside it (*tmp set, renamed over it at the end), or the
 * FIFO or device itself (*tmp = ""). A symbolic link is followed: its
 * target is replaced, the link stays. Prints the refusal and returns NULL. */
static FILE *open_export(const char *outpath, const char *db, int force, char tmp[PATH_MAX],
                         char target[PATH_MAX])
{
    tmp[0] = '\0';
    snprintf(target, PATH_MAX, "%s", outpath);
    struct stat sb;
    int refused = 1;
    if (is_the_store(outpath, db))
        cli_error(EXIT_RUNTIME, "cannot write %s: it is the store being exported (%s)", outpath,
                  db);
    else if (lstat(outpath, &sb) == 0 && S_ISLNK(sb.st_mode) && !realpath(outpath, target))
        cli_error(EXIT_RUNTIME, "cannot write %s: it is a symbolic link to nothing", outpath);
    else if (stat(target, &sb) != 0 || S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode))
        refused = 0;
    else if (!S_ISREG(sb.st_mode))
        cli_error(EXIT_RUNTIME, "cannot write %s: it is %s, not a regular file", outpath,
                  S_ISDIR(sb.st_mode) ? "a directory" : "a special file");
    else if (!force && !is_previous_export(target))
        cli_error(EXIT_RUNTIME, "%s exists and is not a memscope export; use --force to replace it",
                  outpath);
    else
        refused = 0;
    if (refused)
        return NULL;
    if (stat(target, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode)))
        return open_direct(target);
    int fd = -1;
    if (snprintf(tmp, PATH_MAX, "%.*s.tmp-XXXXXX", PATH_MAX - 16, target) < PATH_MAX)
        fd = mkstemp(tmp);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        cli_error(EXIT_RUNTIME, "cannot write %s: %s", outpath, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
    }
    return out;
}

/* Close an export -o wrote and move it into place (or remove it, when code
 * is an error). Returns code, or the error of the close or the rename. */
static ms_status finish_export(FILE *out, const char *outpath, const char *tmp, const char *target,
                               ms_status code, ms_error *err)
{
    if (fclose(out) != 0 && !code)
        code = ms_fail(err, MS_IO, "cannot write %s: %s", outpath, strerror(errno));
    if (tmp[0] && !code && rename(tmp, target) != 0)
        code = ms_fail(err, MS_IO, "cannot write %s: %s", outpath, strerror(errno));
    if (tmp[0] && code)
        unlink(tmp);
    return code;
}

static int run_export(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"output", required_argument, NULL, 'o'},
                                         {"force", no_argument, NULL, OPT_FORCE},
                                         {0, 0, 0, 0}};
    const char *outpath = NULL;
    int force = 0, opt;
    while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_export))
            continue;
        if (opt == 'o')
            outpath = optarg;
        else if (opt == OPT_FORCE)
            force = 1;
        else
            return cli_bad_option(&cmd_export, argv);
    }
    if (optind < argc)
        return cli_usage(&cmd_export, "unexpected argument '%s'", argv[optind]);
    store *s = cli_open(c, 0, NULL);
    if (!s)
        return EXIT_RUNTIME;
    char tmp[PATH_MAX], target[PATH_MAX];
    FILE *out = outpath ? open_export(outpath, cli_db_path(c), force, tmp, target) : stdout;
    if (!out) {
        store_close(s);
        return EXIT_RUNTIME;
    }
    ms_error err;
    ms_error_clear(&err);
    ms_status code = store_read_begin(s, &err);
    if (!code)
        code = export_to(s, out, !c->profile_given, &err);
    if (code == MS_IO && strncmp(err.msg, "write error: ", 13) == 0) { /* say where */
        char why[sizeof err.msg];
        snprintf(why, sizeof why, "%s", err.msg + 13);
        ms_fail(&err, MS_IO, "cannot write %s: %s", outpath ? outpath : "standard output", why);
    }
    store_end(s, NULL);
    store_close(s);
    if (outpath)
        code = finish_export(out, outpath, tmp, target, code, &err);
    return code ? cli_fail(&err) : EXIT_OK;
}

/* ---- add --------------------------------------------------------------- */

static const char add_usage[] =
    "usage: memscope add [--db PATH] [--profile NAME] [--id ID] [--at TIME]\n"
    "                    [--event-time TIME] [--speaker S] [--session S] [--source S]\n"
    "                    [--confidence X] [--importance X] [--trust A,B] [--entity NAME]...\n"
    "                    [--pin] TEXT...\n"
    "\n"
    "Store one memory and print its id. TIME is ISO 8601 (2023-05-08T13:56:00Z);\n"
    "--at defaults to now. --trust gives the Beta evidence alpha,beta (default 1,1).\n";

enum {
    OPT_ID = OPT_FIRST_OWN,
    OPT_AT,
    OPT_EVENT,
    OPT_SPEAKER,
    OPT_SESSION,
    OPT_SOURCE,
    OPT_CONF,
    OPT_IMPORTANCE,
    OPT_TRUST,
    OPT_ENTITY,
    OPT_PIN
};

static int run_add(cli_common *c, int argc, char **argv);
const cli_command cmd_add = {"add", "store one memory", add_usage, run_add};

static int add_entity(store_memory *m, const char *name)
{
    char **g = realloc(m->entities, (m->n_entities + 1) * sizeof *g);
    if (!g)
        return -1;
    m->entities = g;
    m->entities[m->n_entities] = strdup(name);
    return m->entities[m->n_entities++] ? 0 : -1;
}

/* A TIME option's value: 0 when it is one the store keeps, else a usage
 * error that names the option (not the field it fills). */
static int check_time_option(const char *option, const char *value)
{
    int64_t ts;
    int bad = store_parse_time(value, &ts);
    if (bad == -2)
        return cli_usage(&cmd_add, "%s '%s' is outside the years 0000 to 9999 (in UTC)", option,
                         value);
    if (bad)
        return cli_usage(&cmd_add, "%s takes an ISO 8601 time like 2023-05-08T13:56:00Z, not '%s'",
                         option, value);
    return 0;
}

/* Parse add's options into m; returns 0 or a usage status. */
static int parse_add(cli_common *c, int argc, char **argv, store_memory *m)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        {"id", required_argument, NULL, OPT_ID},
        {"at", required_argument, NULL, OPT_AT},
        {"event-time", required_argument, NULL, OPT_EVENT},
        {"speaker", required_argument, NULL, OPT_SPEAKER},
        {"session", required_argument, NULL, OPT_SESSION},
        {"source", required_argument, NULL, OPT_SOURCE},
        {"confidence", required_argument, NULL, OPT_CONF},
        {"importance", required_argument, NULL, OPT_IMPORTANCE},
        {"trust", required_argument, NULL, OPT_TRUST},
        {"entity", required_argument, NULL, OPT_ENTITY},
        {"pin", no_argument, NULL, OPT_PIN},
        {0, 0, 0, 0},
    };
    int opt;
    double a, b;
    char *comma;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_add))
            continue;
        switch (opt) {
        case OPT_ID:
            free(m->id);
            m->id = strdup(optarg);
            break;
        case OPT_AT:
        case OPT_EVENT:
            if (check_time_option(opt == OPT_AT ? "--at" : "--event-time", optarg))
                return EXIT_USAGE;
            free(opt == OPT_AT ? m->created_at : m->event_time);
            *(opt == OPT_AT ? &m->created_at : &m->event_time) = strdup(optarg);
            break;
        case OPT_SPEAKER:
            free(m->speaker);
            m->speaker = strdup(optarg);
            break;
        case OPT_SESSION:
            free(m->session);
            m->session = strdup(optarg);
            break;
        case OPT_SOURCE:
            free(m->source);
            m->source = strdup(optarg);
            break;
        case OPT_PIN:
            m->pinned = 1;
            break;
        case OPT_ENTITY:
            if (add_entity(m, optarg))
                return cli_error(EXIT_RUNTIME, "out of memory");
            break;
        case OPT_CONF:
            if (cli_parse_double(optarg, 0, 1, &m->memory_confidence))
                return cli_usage(&cmd_add, "--confidence takes a number from 0 to 1");
            break;
        case OPT_IMPORTANCE:
            if (cli_parse_double(optarg, 0, 1, &m->importance))
                return cli_usage(&cmd_add, "--importance takes a number from 0 to 1");
            break;
        case OPT_TRUST:
            comma = strchr(optarg, ',');
            if (!comma)
                return cli_usage(&cmd_add, "--trust takes ALPHA,BETA");
            *comma = '\0';
            if (cli_parse_double(optarg, 1e-9, 1e9, &a) ||
                cli_parse_double(comma + 1, 1e-9, 1e9, &b))
                return cli_usage(&cmd_add, "--trust takes two numbers above 0: ALPHA,BETA");
            m->trust_alpha = a;
            m->trust_beta = b;
            break;
        default:
            return cli_bad_option(&cmd_add, argv);
        }
    }
    if (optind >= argc)
        return cli_usage(&cmd_add, "give the memory's TEXT");
    m->content = cli_join(argc, argv, optind);
    return m->content ? 0 : cli_error(EXIT_RUNTIME, "out of memory");
}

static int run_add(cli_common *c, int argc, char **argv)
{
    store_memory m;
    store_memory_init(&m);
    int status = parse_add(c, argc, argv, &m);
    int created = 0;
    store *s = status ? NULL : cli_open(c, 1, &created);
    if (!status && !s)
        status = EXIT_RUNTIME;
    ms_error err;
    ms_error_clear(&err);
    int failed = 0;
    embedder *e = s ? attach_embedder(s, NULL, &failed, &err) : NULL;
    if (s) {
        int64_t before = 0;
        uint64_t found = 0;
        ms_status code = store_begin(s, &err);
        if (!code)
            code = store_max_rid(s, &before, &err);
        if (!code) /* the put says whether it might state a fact */
            store_note_new_facts(s, before);
        if (!code)
            code = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        if (!code)
            code = store_detect_supersession(s, before, &found, &err);
        if (!code)
            code = store_end(s, &err);
        else
            store_rollback(s);
        if (code) {
            status = cli_fail(&err);
        } else {
            print_embedder_note();
            cli_print_safe(stdout, m.id);
            putchar('\n');
            char what[STORE_ID_MAX + 16];
            snprintf(what, sizeof what, "memory %s", m.id);
            status = cli_committed(what);
        }
        store_close(s);
        if (code && created)
            cli_unlink_store(cli_db_path(c));
    }
    embed_close(e);
    store_memory_clear(&m);
    return status;
}

/* ---- list -------------------------------------------------------------- */

static const char list_usage[] =
    "usage: memscope list [--db PATH] [--profile NAME] [--limit N] [--json]\n"
    "                     [--where KEY=VALUE]...\n"
    "\n"
    "Print the profile's memories, one a line, oldest first:\n"
    "ID  CREATED_AT  SPEAKER  CONTENT (tab-separated; tabs and newlines in text shown\n"
    "as \\t and \\n). --json prints memory JSONL instead. --where keeps the memories\n"
    "whose metadata KEY is VALUE (a string as it is, other values as JSON: true, 3);\n"
    "given more than once, all must hold.\n";

enum { OPT_LIMIT = OPT_FIRST_OWN, OPT_JSON, OPT_WHERE };

#define LIST_WHERE_MAX 16

static int run_list(cli_common *c, int argc, char **argv);
const cli_command cmd_list = {"list", "print memories, one per line", list_usage, run_list};

struct list_ctx {
    long limit, shown;
    int json;
    store *s; /* for the relations a JSON line carries; NULL when there are none */
    const char *where[LIST_WHERE_MAX]; /* "KEY=VALUE", from argv */
    int n_where;
    ms_status st; /* of a JSONL line written */
    ms_error *err;
};

/* A metadata value as text: a string as it is, anything else as JSON.
 * Caller frees. */
static char *meta_value_text(const cJSON *v)
{
    if (cJSON_IsString(v))
        return strdup(v->valuestring);
    return cJSON_PrintUnformatted(v);
}

/* Does metadata (JSON object text or NULL) hold KEY=VALUE? */
static int meta_matches(const char *metadata, const char *cond)
{
    const char *eq = strchr(cond, '=');
    cJSON *meta = metadata ? cJSON_Parse(metadata) : NULL;
    const cJSON *v;
    int yes = 0;
    cJSON_ArrayForEach(v, meta)
    {
        if (strlen(v->string) != (size_t)(eq - cond) || memcmp(v->string, cond, eq - cond) != 0)
            continue;
        char *val = meta_value_text(v);
        yes = val && strcmp(val, eq + 1) == 0;
        free(val);
        break;
    }
    cJSON_Delete(meta);
    return yes;
}

static int list_wanted(const struct list_ctx *x, const store_memory *m)
{
    for (int i = 0; i < x->n_where; i++)
        if (!meta_matches(m->metadata, x->where[i]))
            return 0;
    return 1;
}

/* A one-line, terminal-safe version of a field (escapes marked on a
 * terminal). */
static void put_field(const char *s)
{
    cli_put_safe(stdout, s ? s : "-");
}

static int list_one(void *p, const store_memory *m)
{
    struct list_ctx *x = p;
    if (x->limit >= 0 && x->shown >= x->limit)
        return 1;
    if (!list_wanted(x, m))
        return 0;
    x->shown++;
    if (x->json) {
        x->st = export_memory(x->s, stdout, m, x->err);
        return x->st != MS_OK;
    }
    put_field(m->id);
    putchar('\t');
    put_field(m->created_at);
    putchar('\t');
    put_field(m->speaker);
    putchar('\t');
    put_field(m->content);
    putchar('\n');
    return 0;
}

/* MS_NOT_FOUND when the current profile holds no memories, naming the
 * profiles that do: an empty profile is never a silent empty list. */
static ms_status list_nonempty(store *s, const char *path, ms_error *err)
{
    int any = 0;
    ms_status code = store_profile_has_memories(s, &any, err);
    if (code || any)
        return code;
    store_profile_info *p = NULL;
    size_t np = 0;
    char others[512] = "";
    size_t used = 0;
    if (store_profiles(s, &p, &np, NULL) == MS_OK)
        for (size_t i = 0; i < np && used < sizeof others - 80; i++)
            if (p[i].memories > 0)
                used += (size_t)snprintf(others + used, sizeof others - used, "%s%.60s (%lld)",
                                         used ? ", " : "", p[i].name, (long long)p[i].memories);
    store_profiles_free(p, np);
    return ms_fail(err, MS_NOT_FOUND, "profile \"%s\" holds no memories (store %s); %s%s",
                   store_profile(s), path, others[0] ? "profiles with memories: " : "",
                   others[0] ? others : "no profile holds any yet");
}

static int run_list(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"limit", required_argument, NULL, OPT_LIMIT},
                                         {"json", no_argument, NULL, OPT_JSON},
                                         {"where", required_argument, NULL, OPT_WHERE},
                                         {0, 0, 0, 0}};
    ms_error err;
    ms_error_clear(&err);
    struct list_ctx x = {.limit = -1, .err = &err};
    int opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_list))
            continue;
        if (opt == OPT_LIMIT) {
            if (cli_parse_int(optarg, 0, LONG_MAX, &x.limit))
                return cli_usage(&cmd_list, "--limit takes a whole number >= 0");
        } else if (opt == OPT_JSON) {
            x.json = 1;
        } else if (opt == OPT_WHERE) {
            if (!strchr(optarg, '=') || optarg[0] == '=')
                return cli_usage(&cmd_list, "--where takes KEY=VALUE (got '%s')", optarg);
            if (x.n_where == LIST_WHERE_MAX)
                return cli_usage(&cmd_list, "at most %d --where conditions", LIST_WHERE_MAX);
            x.where[x.n_where++] = optarg;
        } else {
            return cli_bad_option(&cmd_list, argv);
        }
    }
    if (optind < argc)
        return cli_usage(&cmd_list, "unexpected argument '%s'", argv[optind]);
    store *s = cli_open(c, 0, NULL);
    if (!s)
        return EXIT_RUNTIME;
    ms_status code = store_read_begin(s, &err);
    if (!code)
        code = list_nonempty(s, cli_db_path(c), &err);
    if (!code && x.json && !x.n_where && x.limit < 0) /* every memory, as export writes them */
        code = export_to(s, stdout, 0, &err);
    else if (!code) {
        int any = 0;
        code = x.json ? store_has_contradictions(s, &any, &err) : MS_OK;
        x.s = any ? s : NULL;
        if (!code)
            code =
                store_scan(s, 0, x.json ? STORE_SCAN_GIVEN : STORE_SCAN_NONE, list_one, &x, &err);
    }
    if (!code)
        code = x.st;
    store_end(s, NULL);
    store_close(s);
    return code ? cli_fail(&err) : EXIT_OK;
}

/* ---- show -------------------------------------------------------------- */

static const char show_usage[] =
    "usage: memscope show [--db PATH] [--profile NAME] [--json] ID\n"
    "\n"
    "Print every stored field of one memory, its entities and its edges.\n";

static int run_show(cli_common *c, int argc, char **argv);
const cli_command cmd_show = {"show", "print one memory with entities and edges", show_usage,
                              run_show};

static void show_line(const char *label, const char *value)
{
    cli_printf(stdout, "%-18s ", label);
    put_field(value ? value : "-");
    putchar('\n');
}

/* Status (superseded or not), vector model and metadata, for show. */
static void show_v6_fields(const store_memory *m)
{
    char buf[STORE_ID_MAX + 64];
    store_supersession_text(m->superseded_by, m->superseded_at, buf, sizeof buf);
    show_line("status", buf[0] ? buf : "current");
    if (m->superseded_reason)
        show_line("superseded_reason", m->superseded_reason);
    if (m->vector_model)
        snprintf(buf, sizeof buf, "%.200s, %d-d", m->vector_model, m->vector_dim);
    show_line("vector", m->vector_model ? buf : NULL);
    cJSON *meta = m->metadata ? cJSON_Parse(m->metadata) : NULL;
    const cJSON *v;
    int first = 1;
    cJSON_ArrayForEach(v, meta)
    {
        char *val = meta_value_text(v);
        cli_printf(stdout, "%-18s %s = %s\n", first ? "metadata" : "", v->string ? v->string : "-",
                   val ? val : "-");
        free(val);
        first = 0;
    }
    cJSON_Delete(meta);
}

/* The words for a relation seen from one end: "supersedes", "superseded by",
 * "contradicts", "contradicted by". */
static const char *relation_words(const store_relation *r)
{
    if (r->kind == STORE_REL_SUPERSEDES)
        return r->outgoing ? "supersedes" : "superseded by";
    return r->outgoing ? "contradicts" : "contradicted by";
}

/* A memory's relations for show: one line each, "supersedes m0204: why". */
static void show_relations(store *s, int64_t rid)
{
    store_relation *v = NULL;
    size_t n = 0;
    if (store_relations_of(s, rid, &v, &n, NULL))
        return;
    for (size_t i = 0; i < n; i++) {
        cli_printf(stdout, "%-18s %s ", i ? "" : "relations", relation_words(&v[i]));
        put_field(v[i].other_id);
        if (v[i].reason) {
            cli_printf(stdout, ": ");
            put_field(v[i].reason);
        }
        putchar('\n');
    }
    store_relations_free(v, n);
}

static void show_text(store_memory *m, store_edge *edges, size_t ne, store *s)
{
    char num[64];
    show_line("id", m->id);
    show_line("profile", m->profile);
    show_line("content", m->content);
    show_line("created_at", m->created_at);
    show_line("event_time", m->event_time);
    show_line("speaker", m->speaker);
    show_line("session", m->session);
    show_line("source", m->source);
    snprintf(num, sizeof num, "%.3f", m->memory_confidence);
    show_line("memory_confidence", num);
    snprintf(num, sizeof num, "%.3f  (alpha %g, beta %g)", store_trust_score(m), m->trust_alpha,
             m->trust_beta);
    show_line("trust", num);
    snprintf(num, sizeof num, "%.3f", m->importance);
    show_line("importance", num);
    show_line("pinned", m->pinned ? "yes" : "no");
    snprintf(num, sizeof num, "%lld", (long long)m->access_count);
    show_line("access_count", num);
    show_line("last_accessed", m->last_accessed);
    for (size_t i = 0; i < m->n_entities; i++)
        show_line(i ? "" : "entities", m->entities[i]);
    show_v6_fields(m);
    for (size_t i = 0; i < ne; i++) {
        int64_t other = edges[i].src == m->rid ? edges[i].dst : edges[i].src;
        store_memory o;
        ms_error err;
        if (store_get(s, NULL, other, &o, &err))
            continue;
        snprintf(num, sizeof num, "%s %.2f ->", store_edge_type_name(edges[i].type),
                 edges[i].weight);
        cli_printf(stdout, "%-18s %s ", i ? "" : "edges", num);
        put_field(o.id);
        putchar('\n');
        store_memory_clear(&o);
    }
    show_relations(s, m->rid);
}

static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* The same for show --json: [{"relation", "with", "reason"}]. */
static void relations_json(cJSON *o, store *s, int64_t rid)
{
    cJSON *a = cJSON_AddArrayToObject(o, "relations");
    store_relation *v = NULL;
    size_t n = 0;
    if (!a || store_relations_of(s, rid, &v, &n, NULL))
        return;
    for (size_t i = 0; i < n; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "relation", relation_words(&v[i]));
        cJSON_AddStringToObject(r, "with", v[i].other_id);
        add_str_or_null(r, "reason", v[i].reason);
        cJSON_AddItemToArray(a, r);
    }
    store_relations_free(v, n);
}

/* Metadata, supersession and the vector's model, for show --json. */
static void memory_json_v6(cJSON *o, const store_memory *m)
{
    cJSON *meta = m->metadata ? cJSON_Parse(m->metadata) : NULL;
    cJSON_AddItemToObject(o, "metadata", meta ? meta : cJSON_CreateObject());
    cJSON_AddBoolToObject(o, "superseded", store_is_superseded(m));
    add_str_or_null(o, "superseded_by", m->superseded_by);
    add_str_or_null(o, "superseded_at", m->superseded_at);
    add_str_or_null(o, "superseded_reason", m->superseded_reason);
    if (m->vector_model) {
        cJSON *v = cJSON_AddObjectToObject(o, "vector");
        cJSON_AddStringToObject(v, "model", m->vector_model);
        cJSON_AddNumberToObject(v, "dim", m->vector_dim);
    } else {
        cJSON_AddNullToObject(o, "vector");
    }
}

static cJSON *memory_json(store_memory *m, store_edge *edges, size_t ne, store *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", m->id);
    cJSON_AddStringToObject(o, "profile", m->profile);
    cJSON_AddStringToObject(o, "content", m->content);
    cJSON_AddStringToObject(o, "created_at", m->created_at);
    if (m->event_time)
        cJSON_AddStringToObject(o, "event_time", m->event_time);
    else
        cJSON_AddNullToObject(o, "event_time");
    if (m->speaker)
        cJSON_AddStringToObject(o, "speaker", m->speaker);
    if (m->session)
        cJSON_AddStringToObject(o, "session", m->session);
    if (m->source)
        cJSON_AddStringToObject(o, "source", m->source);
    cJSON_AddNumberToObject(o, "memory_confidence", m->memory_confidence);
    cJSON_AddNumberToObject(o, "trust_score", store_trust_score(m));
    cJSON *t = cJSON_AddObjectToObject(o, "trust");
    cJSON_AddNumberToObject(t, "alpha", m->trust_alpha);
    cJSON_AddNumberToObject(t, "beta", m->trust_beta);
    cJSON_AddNumberToObject(o, "importance", m->importance);
    cJSON_AddBoolToObject(o, "pinned", m->pinned);
    cJSON_AddNumberToObject(o, "access_count", (double)m->access_count);
    cJSON *ents = cJSON_AddArrayToObject(o, "entities");
    for (size_t i = 0; i < m->n_entities; i++)
        cJSON_AddItemToArray(ents, cJSON_CreateString(m->entities[i]));
    memory_json_v6(o, m);
    cJSON *ea = cJSON_AddArrayToObject(o, "edges");
    for (size_t i = 0; i < ne; i++) {
        int64_t other = edges[i].src == m->rid ? edges[i].dst : edges[i].src;
        store_memory x;
        ms_error err;
        if (store_get(s, NULL, other, &x, &err))
            continue;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "to", x.id);
        cJSON_AddStringToObject(e, "type", store_edge_type_name(edges[i].type));
        cJSON_AddNumberToObject(e, "weight", edges[i].weight);
        cJSON_AddItemToArray(ea, e);
        store_memory_clear(&x);
    }
    relations_json(o, s, m->rid);
    return o;
}

static int run_show(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS, {"json", no_argument, NULL, OPT_JSON}, {0, 0, 0, 0}};
    int json = 0, opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_show))
            continue;
        if (opt == OPT_JSON)
            json = 1;
        else
            return cli_bad_option(&cmd_show, argv);
    }
    if (optind != argc - 1)
        return cli_usage(&cmd_show, "give exactly one memory ID");
    store *s = cli_open(c, 0, NULL);
    if (!s)
        return EXIT_RUNTIME;
    ms_error err;
    ms_error_clear(&err);
    store_memory m;
    store_memory_init(&m);
    store_edge *edges = NULL;
    size_t ne = 0;
    ms_status code = store_read_begin(s, &err);
    if (!code)
        code = store_get(s, argv[optind], 0, &m, &err);
    if (!code)
        code = store_edges_of(s, m.rid, &edges, &ne, &err);
    if (!code && json) {
        cJSON *o = memory_json(&m, edges, ne, s);
        char *text = cJSON_Print(o);
        if (text) {
            cli_print_json(stdout, text);
            putchar('\n');
        }
        free(text);
        cJSON_Delete(o);
    } else if (!code) {
        show_text(&m, edges, ne, s);
    }
    free(edges);
    store_memory_clear(&m);
    store_end(s, NULL);
    store_close(s);
    return code ? cli_fail(&err) : EXIT_OK;
}

/* ---- delete ------------------------------------------------------------ */

static const char delete_usage[] =
    "usage: memscope delete [--db PATH] [--profile NAME] ID...\n"
    "\n"
    "Delete memories with their entity links, edges and vectors. All or nothing:\n"
    "an unknown ID deletes none.\n";

static int run_delete(cli_common *c, int argc, char **argv);
const cli_command cmd_delete = {"delete", "delete memories by id", delete_usage, run_delete};

static int run_delete(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS, {0, 0, 0, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1)
        if (!cli_common_option(c, opt, &cmd_delete))
            return cli_bad_option(&cmd_delete, argv);
    if (optind >= argc)
        return cli_usage(&cmd_delete, "give at least one memory ID");
    if (c->readonly)
        return cli_error(EXIT_RUNTIME, "cannot delete: --read-only was given (store %s)",
                         cli_db_path(c));
    store *s = cli_open(c, 0, NULL);
    if (!s)
        return EXIT_RUNTIME;
    ms_error err;
    ms_error_clear(&err);
    ms_status code = store_begin(s, &err);
    for (int i = optind; !code && i < argc; i++)
        code = store_delete(s, argv[i], &err);
    if (!code)
        code = store_end(s, &err);
    else
        store_rollback(s);
    store_close(s);
    if (code)
        return cli_fail(&err);
    cli_printf(stdout, "deleted %d %s\n", argc - optind,
               argc - optind == 1 ? "memory" : "memories");
    return cli_committed("the deletion");
}

/* ---- demo -------------------------------------------------------------- */

extern const unsigned char demo_jsonl[];
extern const unsigned long demo_jsonl_len;

static const char demo_usage[] =
    "usage: memscope demo [--db PATH] [--force] [--tour]\n"
    "\n"
    "Write the bundled demo store: 329 memories of Leah Brennan and her assistant,\n"
    "with dated events, recurring people, multi-session threads, contradicting\n"
    "facts from sources of different trust and some low-confidence guesses.\n"
    "The default PATH is $XDG_DATA_HOME/memscope/demo.db (never your own store).\n"
    "An existing memscope store at PATH is replaced only with --force; any other\n"
    "file is never replaced. --tour then opens the browser on it and steps through\n"
    "a guided tour.\n";

enum { OPT_TOUR = OPT_FIRST_OWN + 1 };

static int run_demo(cli_common *c, int argc, char **argv);
const cli_command cmd_demo = {"demo", "write the bundled demo store", demo_usage, run_demo};

static const char *demo_path(const cli_common *c)
{
    static char path[PATH_MAX];
    if (c->db && *c->db)
        return c->db;
    cli_data_path("demo.db", path, sizeof path);
    return path;
}

/* Import the bundled JSONL through a temporary file (the importer's input is
 * a file, and this keeps one code path for every import). */
static ms_status write_demo(store *s, ms_error *err)
{
    char tmp[] = "/tmp/memscope-demo-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return ms_fail(err, MS_IO, "cannot create a temporary file: %s", strerror(errno));
    ssize_t w = write(fd, demo_jsonl, demo_jsonl_len);
    close(fd);
    ms_status code = w == (ssize_t)demo_jsonl_len
                         ? MS_OK
                         : ms_fail(err, MS_IO, "cannot write %s: %s", tmp, strerror(errno));
    import_opts io = {.format = IMPORT_JSONL, .dup = STORE_DUP_ERROR};
    import_stats st = {0};
    if (!code)
        code = store_begin(s, err);
    if (!code)
        code = import_file(s, tmp, &io, &st, err);
    if (!code)
        code = store_end(s, err);
    else
        store_rollback(s);
    unlink(tmp);
    return code;
}

/* The one command that opens the demo store at path, quoted for a POSIX
 * shell, into buf: memscope opens another store by default, so the user
 * is told exactly what to type. */
static void demo_open_command(const char *path, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "memscope --db '");
    for (const char *p = path; *p && n + 6 < cap; p++) {
        if (*p == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *p;
        }
    }
    snprintf(buf + n, cap - n, "'");
}

static int run_demo(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"force", no_argument, NULL, OPT_FORCE},
                                         {"tour", no_argument, NULL, OPT_TOUR},
                                         {0, 0, 0, 0}};
    int force = 0, tour = 0, opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_demo))
            continue;
        if (opt == OPT_FORCE)
            force = 1;
        else if (opt == OPT_TOUR)
            tour = 1;
        else
            return cli_bad_option(&cmd_demo, argv);
    }
    if (optind < argc)
        return cli_usage(&cmd_demo, "unexpected argument '%s'", argv[optind]);
    c->db = demo_path(c);
    if (!*c->db)
        return cli_error(EXIT_RUNTIME,
                         "no place for the demo store: HOME is not an existing directory and "
                         "XDG_DATA_HOME is not an absolute path; give --db PATH");
    if (c->readonly)
        return cli_error(EXIT_RUNTIME,
                         "cannot write the demo store: --read-only was given "
                         "(store %s)",
                         c->db);
    struct stat sb;
    if (stat(c->db, &sb) == 0) {
        if (!force && !tour) {
            char open[2 * PATH_MAX];
            demo_open_command(c->db, open, sizeof open);
            return cli_error(EXIT_RUNTIME,
                             "%s exists; open it with: %s (or use --force to "
                             "replace it)",
                             c->db, open);
        }
        if (force && !store_file_is_store(c->db))
            return cli_error(EXIT_RUNTIME,
                             "%s is %s, not a memscope store: demo --force replaces only a "
                             "memscope store",
                             c->db, S_ISDIR(sb.st_mode) ? "a directory" : "another file");
        if (force)
            cli_unlink_store(c->db);
    }
    if (stat(c->db, &sb) != 0) {
        int created;
        store *s = cli_open(c, 1, &created);
        if (!s)
            return EXIT_RUNTIME;
        ms_error err;
        ms_error_clear(&err);
        int failed;
        embedder *e = attach_embedder(s, NULL, &failed, &err);
        ms_status code = failed ? err.code : write_demo(s, &err);
        store_close(s);
        embed_close(e);
        if (code) {
            cli_unlink_store(c->db);
            return cli_fail(&err);
        }
        cli_printf(stdout, "wrote the demo store to %s\n", c->db);
        if (!tour) {
            char open[2 * PATH_MAX];
            demo_open_command(c->db, open, sizeof open);
            cli_printf(stdout, "open it with: %s\n", open);
        }
        cli_committed("the demo store");
    }
    if (tour)
        return browse_run(c, 1);
    return EXIT_OK;
}
