/* labels.h - labelled question sets, read from the files eval and
 * calibrate take: query JSONL and plain-text lists of unanswerable
 * questions.
 *
 * Query JSONL, one object a line: {"qid", "question", "category",
 * "evidence": [ids], "answerable"}. Only "question" is required. A line
 * is
 *   - answerable: "evidence" holds at least one id and the category, when
 *     given, is 1-4;
 *   - unanswerable (on topic): "answerable": false and no evidence;
 *   - skipped otherwise (no evidence and no marker; LoCoMo's category 5,
 *     whose adversarial questions are neither), and counted.
 * A plain-text file (--unanswerable FILE) holds one unanswerable question a
 * line; blank lines and lines starting with '#' are skipped, and a question
 * longer than ENGINE_QUERY_MAX is an error naming FILE:LINE.
 *
 * Errors name FILE:LINE:COL. Nothing of a file that fails is kept. */
#ifndef MS_LABELS_H
#define MS_LABELS_H

#include <stddef.h>

#include "store/base/status.h"

typedef struct label_question {
    char *qid;       /* "FILE:LINE" when the line has none */
    char *question;  /* the text */
    int category;    /* 0 when not given */
    char **evidence; /* ids of the memories that answer it, n_evidence */
    size_t n_evidence;
    int answerable; /* 1 answerable, 0 on-topic unanswerable */
    int file;       /* index into label_set.files */
    long line;      /* 1-based line in that file */
} label_question;

/* A growing set of questions; owns every string and the array. */
typedef struct label_set {
    label_question *q;
    size_t n, cap;
    size_t skipped; /* lines neither answerable nor marked unanswerable */
    char **files;   /* the paths read, in order (owned) */
    size_t n_files;
} label_set;

void labels_init(label_set *s);
void labels_free(label_set *s);

/* Append the labelled lines of a query JSONL file. MS_OK, or MS_PARSE
 * ("FILE:LINE:COL: reason"), MS_IO or MS_NOMEM with err set and s as it
 * was before the call. */
ms_status labels_read_jsonl(label_set *s, const char *path, ms_error *err);

/* Append each question of a plain-text file as unanswerable. MS_OK, or a
 * status with err set and s as it was. */
ms_status labels_read_unanswerable(label_set *s, const char *path, ms_error *err);

/* The question with whitespace runs made one space, trimmed and lower-cased
 * (ASCII), for telling whether two splits ask the same thing. Caller
 * frees; NULL when out of memory. */
char *labels_normalize(const char *question);

#endif
