/* fuzz-locomo.c - whole-file imports: LoCoMo conversation files and JSON
 * arrays, through import_file with the format forced to locomo (odd-sized
 * inputs) or detected (even-sized ones, as `memscope import` does by
 * default). Always rolled back. */
#include "fuzz.h"

#include "store/import.h"

static store *fz_store;
static const char *fz_input;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_store = fuzz_store();
    fz_input = fuzz_scratch("locomo");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(fz_input, data, size);
    import_opts io = {.format = size % 2 ? IMPORT_LOCOMO : IMPORT_AUTO, .dup = STORE_DUP_SKIP};
    import_stats st = {0};
    ms_error err;
    ms_error_clear(&err);
    FUZZ_CHECK(store_begin(fz_store, &err) == MS_OK, "store_begin");
    if (import_file(fz_store, fz_input, &io, &st, &err))
        FUZZ_CHECK(err.msg[0] != '\0', "an import error has a message");
    else
        FUZZ_CHECK(st.records == st.inserted + st.replaced + st.skipped, "stats add up");
    store_rollback(fz_store);
    /* The LoCoMo time parser on its own, with the input as one string. */
    char *text = fuzz_string(data, size < 256 ? size : 256);
    int64_t ts;
    if (import_locomo_time(text, &ts) == 0) {
        char iso[32];
        store_format_time(ts, iso, sizeof iso);
        FUZZ_CHECK(strlen(iso) >= 20, "a parsed LoCoMo time formats");
    }
    free(text);
    return 0;
}
