/* rtable.c - the columns, header and rows of the one recall table. */
#include "tui/present/rtable.h"

#include <stdio.h>
#include <string.h>

#include "store/base/utf8.h"
#include "tui/present/text.h"
#include "tui/present/theme.h"

/* Fixed widths: rank, relevance ("0.910 █████"), trust ("0.90 ▆"),
 * Mem.Conf, ranking, date, move. */
enum {
    CW_RANK = 3,
    CW_REL = 11,
    CW_TRUST = 6,
    CW_CONF = 8,
    CW_RANKING = 8,
    CW_DATE = 10,
    CW_MOVE = 5,
    CW_SPEAKER = 10,
    CW_CONTENT_MIN = 20
};

const char rtab_legend[] = "Relevance is query-relative; Trust and Mem.Conf belong to the "
                           "memory; nothing here is an answer probability.";

void rtab_layout(int cols, int move, int ranking, int id_width, rtab_cols *c)
{
    memset(c, 0, sizeof *c);
    c->rank = CW_RANK;
    c->move = move ? CW_MOVE : 0;
    c->id = id_width < 2 ? 2 : id_width > RTAB_ID_MAX ? RTAB_ID_MAX : id_width;
    c->rel = CW_REL;
    c->trust = CW_TRUST;
    c->conf = CW_CONF;
    c->ranking = ranking ? CW_RANKING : 0;
    int fixed = c->rank + 1 + (c->move ? c->move + 1 : 0) + c->id + 1 + c->rel + 1 + c->trust + 1 +
                c->conf + 1 + (c->ranking ? c->ranking + 1 : 0);
    int rest = cols - fixed;
    c->date = CW_DATE;
    c->speaker = CW_SPEAKER;
    rest -= CW_DATE + 1 + CW_SPEAKER + 1;
    if (rest < CW_CONTENT_MIN) {
        c->speaker = 0;
        rest += CW_SPEAKER + 1;
    }
    if (rest < CW_CONTENT_MIN) {
        c->date = 0;
        rest += CW_DATE + 1;
    }
    c->content = rest > 0 ? rest : 0;
}

int rtab_id_width(int w, const recall_hit *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int iw = vfmt_stored_width(h[i].mem.id, strlen(h[i].mem.id));
        w = iw > w ? iw : w;
    }
    return w < 2 ? 2 : w > RTAB_ID_MAX ? RTAB_ID_MAX : w;
}

void rtab_header(vrow *l, const rtab_cols *c, int role)
{
    vrow_addf(l, role, "%*s ", c->rank, "#");
    if (c->move)
        vrow_addf(l, role, "%-*s ", c->move, "Move");
    vrow_addf(l, role, "%-*s %-*s %-*s %-*s ", c->id, "ID", c->rel, "Relevance", c->trust, "Trust",
              c->conf, "Mem.Conf");
    if (c->ranking)
        vrow_addf(l, role, "%-*s ", c->ranking, "Ranking");
    if (c->date)
        vrow_addf(l, role, "%-*s ", c->date, "Date");
    if (c->speaker)
        vrow_addf(l, role, "%-*s ", c->speaker, "Speaker");
    vrow_add(l, role, "Content");
    l->fill = role;
}

/* The byte length of the unit of stored text at raw (an invalid byte: 1). */
static size_t rtab_unit(const char *raw, size_t n)
{
    unsigned cp;
    int len = utf8_decode(raw, n, &cp);
    return len > 0 ? (size_t)len : 1;
}

/* An id in a cell of cols columns: whole when it fits, else its head, "…"
 * and its tail, cut between units of the stored text. */
static void rtab_id_cell(vrow *l, int role, const char *id, int cols)
{
    size_t n = strlen(id);
    int total = vfmt_stored_width(id, n);
    if (total <= cols || cols < 5) {
        vrow_stored_cell(l, role, id, cols);
        return;
    }
    int head = (cols - 1) / 2, tail = cols - 1 - head, w = 0;
    size_t hb = 0, tb = n;
    for (size_t i = 0; i < n;) {
        size_t len = rtab_unit(id + i, n - i);
        int uw = vfmt_stored_width(id + i, len);
        if (w + uw <= head)
            hb = i + len;
        if (total - w <= tail && tb == n)
            tb = i;
        w += uw;
        i += len;
    }
    int start = l->w;
    vrow_stored(l, role, id, hb);
    vrow_add(l, role, "\xe2\x80\xa6");
    vrow_stored(l, role, id + tb, n - tb);
    vrow_pad(l, role, start + cols);
}

/* "0.90 ▆" in a cell of cols. */
static void rtab_score_cell(vrow *l, double v, int bar_role, int cols)
{
    char num[16], lev[8];
    snprintf(num, sizeof num, "%.2f ", v);
    vfmt_level(v, lev, sizeof lev);
    int start = l->w;
    vrow_add(l, ROLE_normal, num);
    vrow_add(l, bar_role, lev);
    vrow_pad(l, ROLE_normal, start + cols + 1);
}

static void rtab_scores(vrow *l, const recall_hit *h, const rtab_cols *c)
{
    char num[32], bar[64];
    snprintf(num, sizeof num, "%.3f ", h->relevance_score);
    vfmt_bar(h->relevance_score, 5, bar, sizeof bar);
    int start = l->w;
    vrow_add(l, ROLE_normal, num);
    vrow_add(l, ROLE_bar_relevance, bar);
    vrow_pad(l, ROLE_normal, start + c->rel + 1);
    rtab_score_cell(l, store_trust_score(&h->mem), ROLE_bar_trust, c->trust);
    rtab_score_cell(l, h->mem.memory_confidence, ROLE_bar_confidence, c->conf);
    if (c->ranking)
        vrow_addf(l, ROLE_normal, "%-*.4f ", c->ranking, h->ranking_score);
}

/* A stored cell of cols columns and its space. */
static void rtab_cell(vrow *l, const char *raw, int cols)
{
    vrow_stored_cell(l, ROLE_normal, raw, cols);
    vrow_pad(l, ROLE_normal, l->w + 1);
}

void rtab_row(vrow *l, const rtab_cols *c, const recall_hit *h, const rtab_mark *m)
{
    vrow_addf(l, ROLE_normal, "%*s ", c->rank, m->rank ? m->rank : "-");
    if (c->move) {
        int start = l->w;
        vrow_add(l, m->move_role, m->move ? m->move : "");
        vrow_pad(l, ROLE_normal, start + c->move + 1);
    }
    rtab_id_cell(l, m->id_role, h->mem.id, c->id);
    vrow_pad(l, ROLE_normal, l->w + 1);
    rtab_scores(l, h, c);
    if (c->date) {
        char day[11];
        snprintf(day, sizeof day, "%.10s", h->mem.created_at ? h->mem.created_at : "-");
        rtab_cell(l, day, c->date);
    }
    if (c->speaker)
        rtab_cell(l, h->mem.speaker ? h->mem.speaker : "-", c->speaker);
    if (m->tags && m->tags[0])
        vrow_add(l, ROLE_move_new, m->tags);
    if (m->relation && m->relation[0]) /* ids are stored text */
        vrow_stored(l, ROLE_move_down, m->relation, strlen(m->relation));
    if (store_is_superseded(&h->mem)) { /* its id is stored text: shown as stored */
        char sup[STORE_ID_MAX + 64];
        store_supersession_text(h->mem.superseded_by, h->mem.superseded_at, sup, sizeof sup);
        vrow_add(l, ROLE_legend, "[");
        vrow_stored(l, ROLE_legend, sup, strlen(sup));
        vrow_add(l, ROLE_legend, "] ");
    }
    vrow_stored(l, ROLE_normal, h->mem.content, strlen(h->mem.content));
}

/* ---- around the table ---------------------------------------------------- */

void rtab_summary(vrow *l, const recall_result *r)
{
    vrow_add(l, ROLE_normal, "query: ");
    vrow_stored(l, ROLE_normal, r->query, strlen(r->query));
    vrow_addf(l, ROLE_normal, "   type: %s   k: %g   candidates: %zu   %.1f ms", r->query_type,
              r->rrf_k, r->candidates, r->timing_ms);
}

void rtab_channels(vrow *l, const recall_result *r)
{
    vrow_add(l, ROLE_normal, "channels:");
    for (int ch = 0; ch < CH_COUNT; ch++) {
        const channel_status *cs = &r->ch[ch];
        int role = theme_channel_role(ch);
        vrow_addf(l, role, "  %s", engine_channel_name(ch));
        if (cs->active)
            vrow_addf(l, cs->candidates ? ROLE_normal : ROLE_channel_empty, " %d (%.1f ms)%s",
                      cs->candidates, cs->ms, cs->candidates ? "" : " EMPTY");
        else
            vrow_addf(l, ROLE_channel_off, " OFF (%s)", cs->reason ? cs->reason : "?");
    }
}

int rtab_abstention(vrow *out, int max, const recall_result *r)
{
    int n = 0;
    if (max < 4)
        return 0;
    vrow_addf(&out[n++], ROLE_abstain_text, "ABSTAINED: %s", r->abstention_reason);
    if (strcmp(r->abstention_reason, "no_candidates") == 0) {
        vrow_add(&out[n], ROLE_normal, "  "); /* names the profile: stored text */
        vrow_stored(&out[n], ROLE_normal, r->no_candidates_why, strlen(r->no_candidates_why));
        return n + 1;
    }
    vrow *l = &out[n++]; /* the query's own words: filtered like stored text */
    vrow_add(l, ROLE_normal, "  ");
    vrow_stored(l, ROLE_normal, r->floor_no_support, strlen(r->floor_no_support));
    if (r->floor_unheld[0]) {
        vrow_add(l, ROLE_normal, "; no candidate holds: ");
        vrow_stored(l, ROLE_normal, r->floor_unheld, strlen(r->floor_unheld));
    }
    vrow_addf(&out[n++], ROLE_normal, "  floor: %s.", r->floor_rule ? r->floor_rule : "?");
    vrow_addf(&out[n++], ROLE_normal,
              "  best predicate coverage %.3f (threshold %.2f); best remainder cosine %.3f "
              "(threshold %.2f)",
              r->floor_best_coverage, r->floor_lexical, r->floor_best_value, r->floor_threshold);
    return n;
}
