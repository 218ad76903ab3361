/* put.h - one memory written into a test's store, replacing one of the
 * same id (store_put, STORE_DUP_REPLACE), inside the caller's transaction:
 * the helper of the tests that build stores of text.
 *
 *   test_put_at(s, id, text, session, created): session may be NULL,
 *     created is ISO 8601;
 *   put(s, id, text, session): created 2025-05-01T10:00:00Z.
 *
 * A failed put is not reported here: the callers check what the store
 * holds. Include after store/store.h. */
#ifndef MS_TEST_PUT_H
#define MS_TEST_PUT_H

#include <stdlib.h>
#include <string.h>

__attribute__((unused)) static void test_put_at(store *s, const char *id, const char *text,
                                                const char *session, const char *created)
{
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup(text);
    m.session = session ? strdup(session) : NULL;
    m.created_at = strdup(created);
    ms_error err;
    store_put(s, &m, STORE_DUP_REPLACE, NULL, &err);
    store_memory_clear(&m);
}

__attribute__((unused)) static void put(store *s, const char *id, const char *text,
                                        const char *session)
{
    test_put_at(s, id, text, session, "2025-05-01T10:00:00Z");
}

#endif
