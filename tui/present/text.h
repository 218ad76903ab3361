/* text.h - making stored text safe and measurable for a terminal.
 *
 * Memory text is hostile: it can hold ESC, CSI and OSC sequences, C0 and C1
 * controls, DEL, invalid UTF-8, zero-width and bidi-override characters.
 * None of them may reach the terminal as a control. text_escape turns each
 * into a visible escape (\x1b, \x9b, <U+202E>, \xff) and reports where the
 * escapes are, so the browser can colour them. */
#ifndef MS_TEXT_H
#define MS_TEXT_H

#include <stddef.h>

/* Is code point cp shown as an escape rather than itself? (controls, DEL,
 * C1, bidi controls, zero-width and other invisible format characters,
 * surrogates, noncharacters, line/paragraph separators) */
int text_is_hidden(unsigned cp);

/* A visible, terminal-safe copy of s[0..n): escapes as described above,
 * tabs and newlines kept when keep_ws, else shown as \t and \n. Caller frees.
 * Never NULL unless out of memory. */
char *text_escape(const char *s, size_t n, int keep_ws);

/* Display width in terminal columns of safe text (output of text_escape),
 * measured with wcwidth; unknown widths count 1. */
int text_width(const char *safe);

#endif
