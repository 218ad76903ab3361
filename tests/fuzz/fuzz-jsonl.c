/* fuzz-jsonl.c - the memory JSONL importer (import_file) on hostile bytes.
 *
 * Each input is written to a scratch file and imported into one store with
 * the built-in embedder attached (as `memscope import` does), inside a
 * transaction that is always rolled back. Checks: no crash, leak or UB; an
 * error always carries a message; a successful import can be exported. */
#include "fuzz.h"

#include "engine/embed.h"
#include "store/import.h"

static store *fz_store;
static embedder *fz_embedder;
static const char *fz_input;
static FILE *fz_null;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    ms_error err;
    fz_store = fuzz_store();
    fz_embedder = embed_open(NULL, &err);
    if (!fz_embedder)
        abort();
    store_vectorizer vz;
    embed_vectorizer(fz_embedder, &vz);
    store_set_vectorizer(fz_store, &vz);
    fz_input = fuzz_scratch("jsonl");
    fz_null = fopen("/dev/null", "w");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(fz_input, data, size);
    import_opts io = {.format = IMPORT_JSONL, .dup = STORE_DUP_ERROR};
    /* The duplicate policy comes from the input's length, so every policy
     * sees every kind of line without using up input bytes. */
    io.dup = (store_dup_policy)(size % 3);
    import_stats st = {0};
    ms_error err;
    ms_error_clear(&err);
    ms_status code = store_begin(fz_store, &err);
    FUZZ_CHECK(!code, "store_begin");
    code = import_file(fz_store, fz_input, &io, &st, &err);
    if (code) {
        FUZZ_CHECK(err.msg[0] != '\0', "an import error has a message");
        FUZZ_CHECK(strlen(err.msg) < sizeof err.msg, "the message is terminated");
    } else {
        FUZZ_CHECK(st.records == st.inserted + st.replaced + st.skipped, "stats add up");
        FUZZ_CHECK(export_jsonl(fz_store, fz_null, 1, &err) == MS_OK, "export after import");
        ms_status flush = store_flush_vectors(fz_store, &err);
        (void)flush; /* an empty text has no features: not an error either way */
    }
    store_rollback(fz_store);
    FUZZ_CHECK(strcmp(store_profile(fz_store), STORE_DEFAULT_PROFILE) == 0,
               "import returns to the home profile");
    return 0;
}
