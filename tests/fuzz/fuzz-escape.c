/* fuzz-escape.c - terminal safety of the non-interactive output: whatever
 * the bytes, text_escape and cli_safe (tui/present/text.c, tui/cli/cli.c) give valid
 * UTF-8 with no character that text_is_hidden names (ESC, C0, DEL, C1,
 * bidi, zero-width...) and, with marks, no ESC but our own SGR; cli_safe
 * keeps within its column budget; the JSON filter of cli_print_json leaves
 * only newlines and tabs as raw controls and, on JSON as cJSON prints it
 * (valid UTF-8), gives the same value back (printed back to the same text:
 * duplicate keys and all; corpus/escape/duplicate-keys). Includes tui/cli/cli.c to reach its static
 * json_char. */
#include "fuzz.h"

#include <cjson/cJSON.h>

#include "tui/cli/cli.c"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* Every character of s is valid UTF-8 and shown as itself; allow lists the
 * raw controls that may stay. */
static void check_visible(const char *s, const char *allow, const char *what)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned cp;
        int len = utf8_decode(s + i, n - i, &cp);
        FUZZ_CHECK(len > 0, what);
        FUZZ_CHECK(!text_is_hidden(cp) || (cp < 0x80 && cp && strchr(allow, (int)cp)), what);
        i += (size_t)len;
    }
}

/* s without our own reverse-video marks. */
static char *unmark(const char *s)
{
    static const char *const marks[] = {"\033[7;35m", "\033[7m", "\033[0m"};
    char *o = strdup(s), *w = o;
    for (const char *p = s; *p;) {
        size_t k, skip = 0;
        for (k = 0; k < 3 && !skip; k++)
            if (strncmp(p, marks[k], strlen(marks[k])) == 0)
                skip = strlen(marks[k]);
        if (skip) {
            p += skip;
            continue;
        }
        *w++ = *p++;
    }
    *w = '\0';
    return o;
}

/* The filter over text into a fresh string. */
static char *json_filter(const char *text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    FUZZ_CHECK(mem != NULL, "open_memstream");
    size_t n = strlen(text);
    for (size_t i = 0; i < n;)
        i += json_char(mem, text + i, n - i);
    fclose(mem);
    return buf;
}

/* Any text: only newlines and tabs stay raw. JSON as memscope prints it
 * (cJSON_Print): the filtered text is the same value. */
static void check_json(const char *text)
{
    char *buf = json_filter(text);
    check_visible(buf, "\n\t", "the JSON filter leaves no control but newline and tab");
    free(buf);
    cJSON *a = cJSON_Parse(text);
    char *printed = a ? cJSON_Print(a) : NULL;
    cJSON *p = printed ? cJSON_Parse(printed) : NULL; /* (1e999 prints as null) */
    if (p && store_utf8_invalid_at(printed, strlen(printed)) < 0) {
        buf = json_filter(printed);
        cJSON *b = cJSON_Parse(buf);
        FUZZ_CHECK(b != NULL, "filtered JSON still parses");
        /* The same value: the same text printed back. (cJSON_Compare looks
         * each key of one object up in the other, so an object that holds
         * a key twice, {"a":1,"a":2}, never equals even itself: the lookup
         * finds the first.) */
        char *pp = cJSON_PrintUnformatted(p), *pb = cJSON_PrintUnformatted(b);
        FUZZ_CHECK(pp && pb && strcmp(pp, pb) == 0, "and to the same value");
        free(pp);
        free(pb);
        cJSON_Delete(b);
        free(buf);
    }
    cJSON_Delete(p);
    free(printed);
    cJSON_Delete(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *esc = text_escape((const char *)data, size, 0);
    FUZZ_CHECK(esc != NULL, "text_escape");
    check_visible(esc, "", "text_escape leaves no hidden character");
    free(esc);

    char *text = fuzz_string(data, size);
    int cols = (int)(size % 90) - 10, w = -1;
    char *safe = cli_safe(text, cols, 0, &w);
    FUZZ_CHECK(safe != NULL, "cli_safe");
    check_visible(safe, "", "cli_safe leaves no hidden character");
    FUZZ_CHECK(cols < 0 || w <= (cols > 0 ? cols : 1), "cli_safe keeps to its columns");
    free(safe);
    char *marked = cli_safe(text, -1, 1, NULL);
    char *plain = marked ? unmark(marked) : NULL;
    FUZZ_CHECK(plain != NULL, "cli_safe with marks");
    check_visible(plain, "", "with marks, no hidden character but the marks");
    char *unmarked = cli_safe(text, -1, 0, NULL);
    FUZZ_CHECK(strcmp(plain, unmarked) == 0, "the marks are all that marking adds");
    free(marked);
    free(plain);
    free(unmarked);

    check_json(text);
    free(text);
    return 0;
}
