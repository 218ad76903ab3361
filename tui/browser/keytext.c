/* keytext.c - #N and #CHANNELS of the action table, from the engine. */
#include "tui/browser/keytext.h"

#include <stdio.h>
#include <string.h>

#include "engine/engine.h"

/* Append text to out (*n bytes used of cap), cut to fit. */
static void keytext_put(char *out, size_t cap, size_t *n, const char *text)
{
    int w = snprintf(out + *n, cap - *n, "%s", text);
    *n = w < 0 || (size_t)w >= cap - *n ? cap - 1 : *n + (size_t)w;
}

void keytext_expand(const char *text, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    while (*text && n + 1 < cap) {
        if (strncmp(text, "#CHANNELS", 9) == 0) {
            for (int c = 0; c < CH_COUNT; c++) {
                keytext_put(out, cap, &n, c ? " " : "");
                keytext_put(out, cap, &n, engine_channel_name(c));
            }
            text += 9;
        } else if (strncmp(text, "#N", 2) == 0) {
            char num[16];
            snprintf(num, sizeof num, "%d", CH_COUNT);
            keytext_put(out, cap, &n, num);
            text += 2;
        } else {
            out[n++] = *text++;
            out[n] = '\0';
        }
    }
}
