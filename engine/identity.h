/* identity.h - the digest of what a store holds, for telling whether a
 * measurement made on it (a calibration report) still describes it.
 *
 * SHA-256 over every memory of the current profile in insertion order (id,
 * content, times, speaker, session, source, confidence, trust, importance,
 * pin, row id), its entities and memory-entity links, the recorded embedder
 * and the feedback judgements. Access counts are left out: reading does not
 * change content. Row ids are in it, so a store exported and imported again
 * is another store. */
#ifndef MS_IDENTITY_H
#define MS_IDENTITY_H

#include <stdint.h>

#include "engine/digest.h"
#include "store/store.h"

/* The content digest of s's current profile into hex; *memories (may be
 * NULL) gets how many memories it covers. Runs in one read snapshot. */
ms_status identity_store_digest(store *s, char hex[DIGEST_HEX], int64_t *memories, ms_error *err);

#endif
