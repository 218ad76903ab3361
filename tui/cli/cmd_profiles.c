/* cmd_profiles.c - memscope profiles: the store's profiles with their
 * memory counts (text or JSON). */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "tui/cli/cli.h"

static const char profiles_usage[] =
    "usage: memscope profiles [--db PATH] [--json]\n"
    "\n"
    "List the store's profiles, each with the memories it holds, by name:\n"
    "MEMORIES  PROFILE, the current one (--profile, else \"default\") marked *\n"
    "and listed with 0 when it holds none. --json prints one array of\n"
    "{\"profile\", \"memories\", \"current\"} objects.\n";

enum { OPT_JSON = OPT_FIRST_OWN };

static int run_profiles(cli_common *c, int argc, char **argv);
const cli_command cmd_profiles = {"profiles", "list the profiles and their memory counts",
                                  profiles_usage, run_profiles};

static int profiles_json(const store_profile_info *p, size_t n, const char *current)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(a, o);
        cJSON_AddStringToObject(o, "profile", p[i].name);
        cJSON_AddNumberToObject(o, "memories", (double)p[i].memories);
        cJSON_AddBoolToObject(o, "current", strcmp(p[i].name, current) == 0);
    }
    char *text = a ? cJSON_PrintUnformatted(a) : NULL;
    cJSON_Delete(a);
    if (!text)
        return cli_error(EXIT_RUNTIME, "out of memory");
    cli_print_json(stdout, text);
    fputc('\n', stdout);
    free(text);
    return EXIT_OK;
}

static void profiles_text(const store_profile_info *p, size_t n, const char *current)
{
    cli_put_own(stdout, "  MEMORIES  PROFILE\n");
    for (size_t i = 0; i < n; i++) {
        cli_printf(stdout, "%s %9lld  ", strcmp(p[i].name, current) == 0 ? "*" : " ",
                   (long long)p[i].memories);
        cli_put_safe(stdout, p[i].name);
        fputc('\n', stdout);
    }
}

static int run_profiles(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS, {"json", no_argument, NULL, OPT_JSON}, {0, 0, 0, 0}};
    int json = 0, opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_profiles))
            continue;
        if (opt == OPT_JSON)
            json = 1;
        else
            return cli_bad_option(&cmd_profiles, argv);
    }
    if (optind < argc)
        return cli_usage(&cmd_profiles, "unexpected argument '%s'", argv[optind]);
    store *s = cli_open(c, 0, NULL);
    if (!s)
        return EXIT_RUNTIME;
    ms_error err;
    ms_error_clear(&err);
    store_profile_info *p = NULL;
    size_t n = 0;
    ms_status code = store_profiles(s, &p, &n, &err);
    int status = code ? cli_fail(&err) : EXIT_OK;
    if (!code && json)
        status = profiles_json(p, n, store_profile(s));
    else if (!code)
        profiles_text(p, n, store_profile(s));
    store_profiles_free(p, n);
    store_close(s);
    return status;
}
