/* calreport.c - finding, checking and summarising a saved calibration
 * report (see calreport.h). */
#include "tui/present/calreport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/digest.h"
#include "engine/identity.h"

void calreport_path(const char *db, char *out, size_t len)
{
    snprintf(out, len, "%s.calibration.json", db);
}

void calreport_text_digest(const char *text, char hex[65])
{
    digest c;
    digest_init(&c);
    digest_update(&c, text, strlen(text));
    digest_hex(&c, hex);
}

static char *report_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            char *g = cap < (64u << 20) ? realloc(buf, cap *= 2) : NULL;
            if (!g) {
                free(buf);
                buf = NULL;
            }
            buf = g;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static const char *report_str(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsString(x) ? x->valuestring : NULL;
}

static void add_why(calreport_status *st, const char *what)
{
    size_t n = strlen(st->why);
    snprintf(st->why + n, sizeof st->why - n, "%s%s", n ? "; " : "", what);
    st->stale = 1;
}

/* Compare the report's identity with the store and configuration now. */
static int check_identity(calreport_status *st, store *s, const char *config_text, ms_error *err)
{
    const cJSON *r = st->report;
    const char *version = report_str(r, "identity", "memscope_version");
    const char *cfg = report_str(r, "identity", "engine_configuration_sha256");
    const char *profile = report_str(r, "this_store", "profile");
    const char *content = report_str(r, "this_store", "content_sha256");
    char now[DIGEST_HEX], cfg_now[DIGEST_HEX];
    if (identity_store_digest(s, now, NULL, err))
        return -1;
    calreport_text_digest(config_text, cfg_now);
    if (!version || strcmp(version, MEMSCOPE_VERSION) != 0)
        add_why(st, "made by another memscope version");
    if (!cfg || strcmp(cfg, cfg_now) != 0)
        add_why(st, "the engine configuration changed");
    if (!profile || strcmp(profile, store_profile(s)) != 0)
        add_why(st, "made for another profile");
    else if (!content || strcmp(content, now) != 0)
        add_why(st, "the store's content changed");
    return 0;
}

int calreport_check(store *s, const char *db, const char *config_text, calreport_status *out,
                    ms_error *err)
{
    memset(out, 0, sizeof *out);
    calreport_path(db, out->path, sizeof out->path);
    char *text = report_slurp(out->path);
    if (!text) {
        out->exists = errno != ENOENT;
        if (out->exists)
            snprintf(out->why, sizeof out->why, "cannot read it: %s", strerror(errno));
        return 0;
    }
    out->exists = 1;
    out->report = cJSON_Parse(text);
    free(text);
    const char *schema = report_str(out->report, "schema", NULL);
    if (!schema || strcmp(schema, CALREPORT_SCHEMA) != 0) {
        cJSON_Delete(out->report);
        out->report = NULL;
        snprintf(out->why, sizeof out->why, "not a %s report", CALREPORT_SCHEMA);
        return 0;
    }
    out->valid = 1;
    return check_identity(out, s, config_text, err);
}

void calreport_status_free(calreport_status *st)
{
    cJSON_Delete(st->report);
    st->report = NULL;
}

static double report_num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b)
        x = cJSON_GetObjectItemCaseSensitive(x, b);
    return cJSON_IsNumber(x) ? x->valuedouble : -1;
}

void calreport_summary(const cJSON *report, char *out, size_t len)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(report, "metrics");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(m, "floor_operating_point");
    snprintf(out, len,
             "%.0f held-out examples: Brier %.3f, ECE %.3f, MCE %.3f, AURC %.3f; the floor keeps "
             "%.1f %% at risk %.3f",
             report_num(m, "example_count", NULL), report_num(m, "brier_score", NULL),
             report_num(m, "expected_calibration_error", NULL),
             report_num(m, "maximum_calibration_error", NULL), report_num(m, "aurc", NULL),
             100 * report_num(op, "coverage", NULL), report_num(op, "selective_risk", NULL));
}

cJSON *calreport_status_json(const calreport_status *st)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "report", st->path);
    cJSON_AddBoolToObject(o, "exists", st->exists && st->valid);
    if (st->valid) {
        cJSON_AddBoolToObject(o, "stale", st->stale);
        const char *id = report_str(st->report, "calibration_id", NULL);
        cJSON_AddStringToObject(o, "calibration_id", id ? id : "");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(st->report, "metrics");
        cJSON *found = cJSON_AddObjectToObject(o, "found");
        static const char *const keys[] = {"example_count", "brier_score",
                                           "expected_calibration_error",
                                           "maximum_calibration_error", "aurc"};
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            cJSON_AddNumberToObject(found, keys[k], report_num(m, keys[k], NULL));
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(m, "floor_operating_point");
        if (op)
            cJSON_AddItemToObject(found, "floor_operating_point", cJSON_Duplicate(op, 1));
    }
    if (st->why[0])
        cJSON_AddStringToObject(o, "why", st->why);
    cJSON_AddStringToObject(o, "runtime_calibration_status", "uncalibrated");
    return o;
}
