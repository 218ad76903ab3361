/* fuzz-formats.c - the readers of other memory systems' files (the MCP
 * memory server's graph, mem0's export) on hostile bytes.
 *
 * Each input is written to a scratch file and imported into one store in a
 * transaction that is always rolled back; the input's length picks the
 * format (mcp-memory, mem0, or auto), so each sees every input without
 * using up its bytes. Checks: no crash, leak or UB; an error always carries
 * a message; the stats add up; a successful import can be exported. */
#include "fuzz.h"

#include "store/import.h"

static store *fz_store;
static const char *fz_input;
static FILE *fz_null;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_store = fuzz_store();
    fz_input = fuzz_scratch("formats");
    fz_null = fopen("/dev/null", "w");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const import_format formats[] = {IMPORT_MCP, IMPORT_MEM0, IMPORT_AUTO};
    fuzz_write(fz_input, data, size);
    import_opts io = {.format = formats[size % 3], .dup = STORE_DUP_SKIP};
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
    }
    store_rollback(fz_store);
    FUZZ_CHECK(strcmp(store_profile(fz_store), STORE_DEFAULT_PROFILE) == 0,
               "import returns to the home profile");
    return 0;
}
