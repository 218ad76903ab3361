/* calreport.h - where a calibration report lives, and whether it still
 * describes the store and the configuration in use.
 *
 * `memscope calibrate` saves its report beside every store it measured, as
 * "<store path>.calibration.json" (the store itself is never written: the
 * stores are opened read-only). Each copy has a "this_store" object with
 * that store's profile and content digest. health and the browser read the
 * copy beside their store and compare it with the store's content digest
 * now, the engine configuration now and this memscope's version: any
 * difference makes the report stale, and they say which. Reading never
 * writes. */
#ifndef MS_CALREPORT_H
#define MS_CALREPORT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "engine/engine.h"

#define CALREPORT_SCHEMA "memscope.calibration-report/v1"

/* The report file of the store at db into out (len bytes). */
void calreport_path(const char *db, char *out, size_t len);

typedef struct calreport_status {
    int exists;      /* a report file is beside the store */
    int valid;       /* it is a memscope calibration report */
    int stale;       /* it was made on other content or configuration */
    char why[512];   /* what changed ("store content changed; ..."), or why invalid */
    char path[1100]; /* the file */
    cJSON *report;   /* the parsed report when valid (owned) */
} calreport_status;

/* Look for the report of store s (opened from db) and check it against the
 * store's content now and the configuration text config_text (from
 * engine_config_text). 0; -1 with err when the store cannot be read. A
 * missing or unreadable report is not an error: out says so. Free with
 * calreport_status_free. */
int calreport_check(store *s, const char *db, const char *config_text, calreport_status *out,
                    ms_error *err);
void calreport_status_free(calreport_status *st);

/* One line of what the report found, e.g. "1204 held-out examples: Brier
 * 0.182, ECE 0.041, MCE 0.090, AURC 0.330; floor keeps 97.0 % at risk
 * 0.550", into out. */
void calreport_summary(const cJSON *report, char *out, size_t len);

/* The status as JSON for health: {"report", "exists", "stale", "why",
 * "calibration_id", "found": {...}, "runtime_calibration_status"}.
 * Caller deletes. */
cJSON *calreport_status_json(const calreport_status *st);

/* The SHA-256 of text, as hex into hex[65]. */
void calreport_text_digest(const char *text, char hex[65]);

#endif
