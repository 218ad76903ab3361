/* fuzz-theme.c - the theme and config file parsers (tui/present/theme.c,
 * tui/browser/config.c; neither knows curses). The input is parsed as a theme file
 * (theme_load_file) and as a config file (config_load) from a scratch file,
 * and line by line with theme_parse_line. Checks: a failure leaves the
 * built-in theme and a "PATH:LINE: reason" message; a success leaves every
 * colour in -1..255 and only known attribute bits. */
#include "fuzz.h"

#include "tui/browser/config.h"
#include "tui/present/theme.h"

static const char *fz_path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_path = fuzz_scratch("theme");
    return 0;
}

static void check_theme(const theme *t)
{
    const unsigned known = THEME_BOLD | THEME_DIM | THEME_REVERSE | THEME_UNDERLINE |
                           THEME_STANDOUT | THEME_ITALIC | THEME_BLINK;
    for (int r = 0; r < ROLE_COUNT; r++) {
        FUZZ_CHECK(t->role[r].fg >= -1 && t->role[r].fg <= 255, "fg within -1..255");
        FUZZ_CHECK(t->role[r].bg >= -1 && t->role[r].bg <= 255, "bg within -1..255");
        FUZZ_CHECK((t->role[r].attrs & ~known) == 0, "only known attributes");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(fz_path, data, size);
    theme t, builtin;
    theme_builtin(&builtin);
    char why[1024];
    why[0] = '\0';
    if (theme_load_file(&t, fz_path, why, sizeof why) == 0) {
        check_theme(&t);
    } else {
        FUZZ_CHECK(memcmp(&t, &builtin, sizeof t) == 0, "a failed load leaves the default");
        FUZZ_CHECK(strncmp(why, fz_path, strlen(fz_path)) == 0, "the reason names the file");
    }
    static config c; /* large: keep it off the stack */
    if (config_load(&c, fz_path, why, sizeof why) == 0) {
        theme_builtin(&t);
        FUZZ_CHECK(config_apply_colors(&c, &t, why, sizeof why) == 0,
                   "colours a config accepted apply");
        check_theme(&t);
        FUZZ_CHECK(c.limit >= 1 && c.limit <= 100, "limit in range");
    }
    /* Line by line from memory, as the config's colour overrides are (not
     * with strtok: theme_parse_line uses it). */
    char *text = fuzz_string(data, size);
    theme_builtin(&t);
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (theme_parse_line(&t, line, why, sizeof why) == 0)
            check_theme(&t);
    }
    free(text);
    return 0;
}
