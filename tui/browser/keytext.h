/* keytext.h - the parts of the action table's texts (action.h) that follow
 * the engine: #N is its channel count, #CHANNELS the channels' names
 * in order. No terminal here: the help, the hint line and tests expand the
 * same text, and a build with a sixth channel shows it. */
#ifndef MS_KEYTEXT_H
#define MS_KEYTEXT_H

#include <stddef.h>

/* text with #N and #CHANNELS filled in, into out of cap bytes (cap > 0;
 * cut to fit, always terminated). */
void keytext_expand(const char *text, char *out, size_t cap);

#endif
