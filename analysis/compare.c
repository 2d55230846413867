/* analysis/compare.c: gpusched compare: two results files matched by variant, the change
 * of every summary metric with Welch's interval, and the --fail-if rules. */
#include "compare.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "../sim/metrics.h"
#include "report.h"

/* ---- rules ---- */

static const char rule_form[] = "expected METRIC OP VALUE with OP one of > >= < <= and VALUE a number "
				"with an optional sign and %, e.g. 'p95_wait_s>+5%'";

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A decimal number: [+-]digits[.digits][e[+-]digits] (no inf, nan or hex, which strtod
 * would take). Returns the end of the number, or NULL. */
static const char *scan_decimal(const char *p)
{
	const char *q = p;
	if (*q == '+' || *q == '-')
		q++;
	size_t digits = 0;
	while (isdigit((unsigned char)*q))
		q++, digits++;
	if (*q == '.')
		for (q++; isdigit((unsigned char)*q); q++)
			digits++;
	if (digits == 0)
		return NULL;
	if (*q == 'e' || *q == 'E') {
		const char *e = q + 1;
		if (*e == '+' || *e == '-')
			e++;
		if (!isdigit((unsigned char)*e))
			return NULL;
		while (isdigit((unsigned char)*e))
			e++;
		q = e;
	}
	return q;
}

static int rule_error(struct sim_diag *diag, const char *text, const char *why)
{
	sim_diag_add(diag, "--fail-if", "malformed rule '%s': %s (%s)", text, why, rule_form);
	return -SIM_EINVAL;
}

int compare_rule_parse(const char *text, struct compare_rule *out, struct sim_diag *diag)
{
	struct compare_rule r;
	memset(&r, 0, sizeof r);
	snprintf(r.text, sizeof r.text, "%s", text);
	const char *p = skip_blanks(text), *name = p;
	while (islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_')
		p++;
	size_t len = (size_t)(p - name);
	if (len == 0)
		return rule_error(diag, text, "no metric name ([a-z0-9_]+) at the start");
	if (len >= sizeof r.metric)
		return rule_error(diag, text, "metric name too long");
	memcpy(r.metric, name, len);
	p = skip_blanks(p);
	if (*p != '>' && *p != '<')
		return rule_error(diag, text, "expected '>' or '<' after the metric name");
	int gt = *p++ == '>';
	int eq = *p == '=';
	p += eq;
	r.op = gt ? (eq ? COMPARE_GE : COMPARE_GT) : (eq ? COMPARE_LE : COMPARE_LT);
	p = skip_blanks(p);
	const char *end = scan_decimal(p);
	if (!end)
		return rule_error(diag, text, "expected a number after the operator");
	r.threshold = strtod(p, NULL);
	if (!isfinite(r.threshold))
		return rule_error(diag, text, "the number is out of range");
	p = skip_blanks(end);
	if (*p == '%') {
		r.relative = 1;
		p = skip_blanks(p + 1);
	}
	if (*p)
		return rule_error(diag, text, "unexpected text after the number");
	*out = r;
	return 0;
}

static const char *op_text(enum compare_op op)
{
	switch (op) {
	case COMPARE_GT:
		return ">";
	case COMPARE_GE:
		return ">=";
	case COMPARE_LT:
		return "<";
	default:
		return "<=";
	}
}

static int op_holds(enum compare_op op, double x, double t)
{
	switch (op) {
	case COMPARE_GT:
		return x > t;
	case COMPARE_GE:
		return x >= t;
	case COMPARE_LT:
		return x < t;
	default:
		return x <= t;
	}
}

/* ---- statistics ---- */

void compare_welch(const struct compare_stat *base, const struct compare_stat *nw, struct compare_diff *out)
{
	memset(out, 0, sizeof *out);
	out->lo = out->hi = out->df = NAN;
	out->change = nw->mean - base->mean;
	if (isnan(out->change)) {
		out->pct = NAN;
		return;
	}
	if (base->mean != 0)
		out->pct = 100.0 * out->change / fabs(base->mean);
	else
		out->pct = out->change > 0 ? INFINITY : out->change < 0 ? -INFINITY : 0.0;
	if (base->n < 2 || nw->n < 2)
		return;
	double n1 = (double)base->n, n2 = (double)nw->n;
	double v1 = base->sd * base->sd / n1, v2 = nw->sd * nw->sd / n2;
	double se2 = v1 + v2;
	out->has_ci = 1;
	if (se2 == 0) {
		/* no spread on either side (a deterministic run): the change is exact */
		out->lo = out->hi = out->change;
		out->df = n1 + n2 - 2;
		return;
	}
	out->df = se2 * se2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1));
	double hw = gsl_cdf_tdist_Pinv(0.975, out->df) * sqrt(se2);
	out->lo = out->change - hw;
	out->hi = out->change + hw;
}

/* One side of a metric: the variant's runs with a value; mean and ci95 are the ones
 * report prints (report_variants), sd from the values. x holds the variant's runs. */
static void side_stat(const struct h5read_summary *s, const struct report_variants *rv, size_t k,
		      size_t field, double *x, struct compare_stat *out)
{
	size_t m = 0;
	for (size_t j = 0; j < rv->runs[k]; j++) {
		double v = s->v[rv->row[rv->first[k] + j] * s->n_fields + field];
		if (!isnan(v))
			x[m++] = v;
	}
	out->n = m;
	out->mean = rv->mean[k * s->n_fields + field];
	out->ci95 = rv->ci95[k * s->n_fields + field];
	out->sd = m == 0 ? NAN : m == 1 ? 0.0 : gsl_stats_sd_m(x, 1, m, out->mean);
}

/* ---- matching ---- */

struct compare_priv {
	struct h5read_summary s[2];
	struct report_variants rv[2];
	size_t *new_field; /* n_metrics: each metric's field index in NEW */
	size_t *base_field;
	size_t *pair; /* n_variants x 2: variant index in BASE, in NEW */
};

struct name_ix {
	const char *name;
	size_t ix;
};

static int name_ix_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_ix *)a)->name, ((const struct name_ix *)b)->name);
}

/* Variant names of one file missing from the other's sorted index, NULL-terminated
 * (names borrowed). NULL when out of memory. */
static char **unmatched(const struct report_variants *rv, const struct name_ix *other, size_t n_other)
{
	char **out = calloc(rv->n + 1, sizeof *out);
	if (!out)
		return NULL;
	for (size_t k = 0, m = 0; k < rv->n; k++) {
		struct name_ix key = {rv->name[k], 0};
		if (!bsearch(&key, other, n_other, sizeof *other, name_ix_cmp))
			out[m++] = rv->name[k];
	}
	return out;
}

/* Up to 5 names of a variant list, comma-separated, into buf. */
static void list_names(char *buf, size_t size, char *const *names, size_t n)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t k = 0; k < n && k < 5 && used < size; k++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "", names[k]);
	if (n > 5 && used < size)
		snprintf(buf + used, size - used, ", ... (%zu in all)", n);
}

/* Pairs BASE's variants with NEW's by name, in BASE's order (by position for two
 * single-variant files that share no name). 0, -SIM_EINVAL (none in common) or -SIM_ENOMEM. */
static int match_variants(struct compare_result *r, struct compare_priv *p, struct sim_diag *diag)
{
	const struct report_variants *b = &p->rv[0], *n = &p->rv[1];
	int rc = -SIM_ENOMEM;
	struct name_ix *bix = malloc((b->n + 1) * sizeof *bix), *nix = malloc((n->n + 1) * sizeof *nix);
	p->pair = malloc((b->n + 1) * 2 * sizeof *p->pair);
	if (!bix || !nix || !p->pair)
		goto out_free;
	for (size_t k = 0; k < b->n; k++)
		bix[k] = (struct name_ix){b->name[k], k};
	for (size_t k = 0; k < n->n; k++)
		nix[k] = (struct name_ix){n->name[k], k};
	qsort(bix, b->n, sizeof *bix, name_ix_cmp);
	qsort(nix, n->n, sizeof *nix, name_ix_cmp);
	for (size_t k = 0; k < b->n; k++) {
		struct name_ix key = {b->name[k], 0};
		const struct name_ix *hit = bsearch(&key, nix, n->n, sizeof *nix, name_ix_cmp);
		if (!hit)
			continue;
		p->pair[2 * r->n_variants] = k;
		p->pair[2 * r->n_variants + 1] = hit->ix;
		r->n_variants++;
	}
	if (r->n_variants == 0 && b->n == 1 && n->n == 1) {
		p->pair[0] = p->pair[1] = 0;
		r->n_variants = 1;
		r->by_position = 1;
	}
	if (r->n_variants == 0) {
		char bl[512], nl[512];
		list_names(bl, sizeof bl, b->name, b->n);
		list_names(nl, sizeof nl, n->name, n->n);
		sim_diag_add(diag, r->new_path,
			     "no variant in common with %s (base variants: %s; new variants: %s)",
			     r->base_path, b->n ? bl : "none", n->n ? nl : "none");
		rc = -SIM_EINVAL;
		goto out_free;
	}
	if (r->by_position) {
		r->only_base = calloc(1, sizeof *r->only_base);
		r->only_new = calloc(1, sizeof *r->only_new);
	} else {
		r->only_base = unmatched(b, nix, n->n);
		r->only_new = unmatched(n, bix, b->n);
	}
	if (r->only_base && r->only_new)
		rc = 0;
out_free:
	free(bix);
	free(nix);
	return rc;
}

/* The metrics: BASE's /summary fields that NEW also has, in BASE's order. */
static int pick_metrics(struct compare_result *r, struct compare_priv *p)
{
	const struct h5read_summary *b = &p->s[0], *n = &p->s[1];
	r->metric = calloc(b->n_fields + 1, sizeof *r->metric);
	r->unit = calloc(b->n_fields + 1, sizeof *r->unit);
	p->base_field = malloc((b->n_fields + 1) * sizeof *p->base_field);
	p->new_field = malloc((b->n_fields + 1) * sizeof *p->new_field);
	if (!r->metric || !r->unit || !p->base_field || !p->new_field)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < b->n_fields; i++) {
		int j = h5read_summary_field(n, b->field[i]);
		if (j < 0)
			continue;
		r->metric[r->n_metrics] = b->field[i];
		r->unit[r->n_metrics] = b->unit[i];
		p->base_field[r->n_metrics] = i;
		p->new_field[r->n_metrics] = (size_t)j;
		r->n_metrics++;
	}
	return 0;
}

static int metric_index(const struct compare_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_metrics; i++)
		if (strcmp(r->metric[i], name) == 0)
			return (int)i;
	return -1;
}

/* Every rule names a metric both files hold; one message a rule that does not. */
static int check_rule_metrics(const struct compare_result *r, const struct compare_priv *p,
			      struct sim_diag *diag)
{
	int rc = 0;
	for (size_t k = 0; k < r->n_rules; k++) {
		const char *m = r->rules[k].metric;
		if (metric_index(r, m) >= 0)
			continue;
		rc = -SIM_EINVAL;
		int in_base = h5read_summary_field(&p->s[0], m) >= 0,
		    in_new = h5read_summary_field(&p->s[1], m) >= 0;
		int known = 0;
		for (int f = 0; f < SIM_SUM_COUNT_; f++)
			known |= strcmp(sim_summary_name((enum sim_summary_field)f), m) == 0;
		if (known || in_base || in_new)
			sim_diag_add(diag, "--fail-if",
				     "rule '%s': metric '%s' is not in %s's /summary (an older schema?)",
				     r->rules[k].text, m, in_base ? r->new_path : r->base_path);
		else
			sim_diag_add(
			    diag, "--fail-if",
			    "rule '%s': unknown metric '%s' (the /summary metrics: jobs, completed, "
			    "mean_wait_s, p95_wait_s, mean_jct_s, utilization, ...; analysis/SCHEMA.md)",
			    r->rules[k].text, m);
	}
	return rc;
}

/* 100 (sim - real) / |real| for a simulation against a real run; NaN otherwise. */
static double sim_error(enum compare_real_side side, const struct compare_stat *base,
			const struct compare_stat *nw)
{
	if (side == COMPARE_SAME_MODE)
		return NAN;
	double real = side == COMPARE_REAL_BASE ? base->mean : nw->mean;
	double err = (side == COMPARE_REAL_BASE ? nw->mean : base->mean) - real;
	if (isnan(err))
		return NAN;
	if (real != 0)
		return 100.0 * err / fabs(real);
	return err > 0 ? INFINITY : err < 0 ? -INFINITY : 0.0;
}

/* Which file is the real run, when one is a simulation and the other a real run. */
static void find_modes(struct compare_result *r, const struct h5read_file *base, const struct h5read_file *nw)
{
	int rb = strcmp(h5read_mode(base), "real") == 0, rn = strcmp(h5read_mode(nw), "real") == 0;
	int sb = strcmp(h5read_mode(base), "simulation") == 0,
	    sn = strcmp(h5read_mode(nw), "simulation") == 0;
	r->real_side = rb && sn ? COMPARE_REAL_BASE : sb && rn ? COMPARE_REAL_NEW : COMPARE_SAME_MODE;
	r->real_time_scale = NAN;
	r->real_backend = "";
	if (r->real_side == COMPARE_SAME_MODE)
		return;
	const struct h5read_file *real = r->real_side == COMPARE_REAL_BASE ? base : nw;
	const char *b = h5read_root_attr(real, "backend");
	r->real_backend = b ? b : "";
	/* an unreadable time scale is only not shown: the comparison does not need it */
	struct sim_diag quiet;
	sim_diag_init(&quiet, 1);
	h5read_root_attr_num(real, "time_scale", &r->real_time_scale, &quiet);
	sim_diag_fini(&quiet);
}

static int fill_rows(struct compare_result *r, struct compare_priv *p)
{
	size_t max_runs = 1;
	for (int side = 0; side < 2; side++)
		for (size_t k = 0; k < p->rv[side].n; k++)
			if (p->rv[side].runs[k] > max_runs)
				max_runs = p->rv[side].runs[k];
	double *x = malloc(max_runs * sizeof *x);
	r->v = calloc(r->n_variants + 1, sizeof *r->v);
	if (!x || !r->v) {
		free(x);
		return -SIM_ENOMEM;
	}
	for (size_t k = 0; k < r->n_variants; k++) {
		struct compare_variant *v = &r->v[k];
		size_t bk = p->pair[2 * k], nk = p->pair[2 * k + 1];
		v->base_name = p->rv[0].name[bk];
		v->new_name = p->rv[1].name[nk];
		v->base_runs = p->rv[0].runs[bk];
		v->new_runs = p->rv[1].runs[nk];
		if (!(v->m = calloc(r->n_metrics + 1, sizeof *v->m))) {
			free(x);
			return -SIM_ENOMEM;
		}
		for (size_t i = 0; i < r->n_metrics; i++) {
			struct compare_metric_row *row = &v->m[i];
			side_stat(&p->s[0], &p->rv[0], bk, p->base_field[i], x, &row->base);
			side_stat(&p->s[1], &p->rv[1], nk, p->new_field[i], x, &row->nw);
			compare_welch(&row->base, &row->nw, &row->d);
			row->sim_error_pct = sim_error(r->real_side, &row->base, &row->nw);
		}
	}
	free(x);
	return 0;
}

/* One rule on one variant: see compare_files. */
static void judge(const struct compare_result *r, struct compare_check *c)
{
	const struct compare_rule *rule = &r->rules[c->rule];
	const struct compare_metric_row *row = &r->v[c->variant].m[c->metric];
	int has_b = row->base.n > 0, has_n = row->nw.n > 0;
	c->value = rule->relative ? row->d.pct : row->d.change;
	c->significant = row->d.has_ci ? (row->d.lo > 0 || row->d.hi < 0) : -1;
	c->note = NULL;
	if (!has_b || !has_n) {
		c->breach = 0;
		c->verdict = !has_b && !has_n ? COMPARE_NA : COMPARE_FAIL;
		c->note = !has_b && !has_n ? "no value in either file"
			  : has_b	   ? "no value in the new file"
					   : "no value in the base file";
		return;
	}
	c->breach = op_holds(rule->op, c->value, rule->threshold);
	c->verdict = c->breach ? COMPARE_FAIL : COMPARE_PASS;
	if (!r->significant)
		return;
	if (c->significant < 0)
		c->note = "one run on a side: no interval, judged on the point estimate";
	else if (c->breach && !c->significant)
		c->verdict = COMPARE_PASS;
}

static int judge_rules(struct compare_result *r)
{
	r->n_checks = r->n_rules * r->n_variants;
	r->checks = calloc(r->n_checks + 1, sizeof *r->checks);
	if (!r->checks)
		return -SIM_ENOMEM;
	for (size_t k = 0; k < r->n_rules; k++) {
		for (size_t v = 0; v < r->n_variants; v++) {
			struct compare_check *c = &r->checks[k * r->n_variants + v];
			c->rule = k;
			c->variant = v;
			c->metric = (size_t)metric_index(r, r->rules[k].metric);
			judge(r, c);
			r->n_failed += c->verdict == COMPARE_FAIL;
		}
	}
	return 0;
}

void compare_result_free(struct compare_result *r)
{
	if (!r)
		return;
	struct compare_priv *p = r->priv_;
	if (r->v)
		for (size_t k = 0; k < r->n_variants; k++)
			free(r->v[k].m);
	free(r->v);
	free(r->metric);
	free(r->unit);
	free(r->only_base);
	free(r->only_new);
	free(r->checks);
	if (p) {
		for (int side = 0; side < 2; side++) {
			h5read_summary_free(&p->s[side]);
			report_variants_free(&p->rv[side]);
		}
		free(p->base_field);
		free(p->new_field);
		free(p->pair);
		free(p);
	}
	free(r);
}

int compare_files(const struct h5read_file *base, const struct h5read_file *nw,
		  const struct compare_rule *rules, size_t n_rules, int significant,
		  struct compare_result **out, struct sim_diag *diag)
{
	*out = NULL;
	struct compare_result *r = calloc(1, sizeof *r);
	struct compare_priv *p = calloc(1, sizeof *p);
	if (!r || !p) {
		free(r);
		free(p);
		sim_diag_add(diag, h5read_path(base), "out of memory");
		return -SIM_ENOMEM;
	}
	r->priv_ = p;
	r->base_path = h5read_path(base);
	r->new_path = h5read_path(nw);
	r->rules = rules;
	r->n_rules = n_rules;
	r->significant = significant;
	find_modes(r, base, nw);
	int rc = h5read_summary(base, &p->s[0], diag);
	if (!rc)
		rc = h5read_summary(nw, &p->s[1], diag);
	if (rc)
		goto out_fail;
	r->base_n_runs = p->s[0].n_rows;
	r->new_n_runs = p->s[1].n_rows;
	if ((rc = report_variants(&p->s[0], &p->rv[0])) || (rc = report_variants(&p->s[1], &p->rv[1])) ||
	    (rc = pick_metrics(r, p)))
		goto out_nomem;
	r->base_variants = p->rv[0].n;
	r->new_variants = p->rv[1].n;
	if ((rc = check_rule_metrics(r, p, diag)) || (rc = match_variants(r, p, diag)))
		goto out_check;
	if ((rc = fill_rows(r, p)) || (rc = judge_rules(r)))
		goto out_nomem;
	*out = r;
	return 0;
out_check:
	if (rc != -SIM_ENOMEM)
		goto out_fail;
out_nomem:
	sim_diag_add(diag, r->base_path, "out of memory");
out_fail:
	compare_result_free(r);
	return rc;
}

/* ---- output ---- */

/* A number as people read it: up to 6 significant digits, no exponent below 1e9. */
static void fmt_num(char *buf, size_t size, double v, int sign)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else if (isinf(v))
		snprintf(buf, size, "%sinf", v > 0 ? (sign ? "+" : "") : "-");
	else if (v == 0)
		snprintf(buf, size, sign ? "+0" : "0");
	else if (fabs(v) >= 1e9 || fabs(v) < 1e-4)
		snprintf(buf, size, sign ? "%+.4e" : "%.4e", v);
	else {
		/* %g would switch to an exponent at 1e6; keep 6 significant digits in fixed form */
		int dec = 5 - (int)floor(log10(fabs(v)));
		if (dec < 0)
			dec = 0;
		snprintf(buf, size, sign ? "%+.*f" : "%.*f", dec, v);
		/* drop trailing zeros of the fraction */
		char *dot = strchr(buf, '.');
		if (dot) {
			char *e = buf + strlen(buf) - 1;
			while (e > dot && *e == '0')
				*e-- = 0;
			if (e == dot)
				*e = 0;
		}
	}
}

/* One side's cell: "mean", or "mean ± hw" for 2+ runs with a value. */
static void fmt_side(char *buf, size_t size, const struct compare_stat *s)
{
	char m[40], h[40];
	fmt_num(m, sizeof m, s->mean, 0);
	if (s->n < 2) {
		snprintf(buf, size, "%s", m);
		return;
	}
	fmt_num(h, sizeof h, s->ci95, 0);
	snprintf(buf, size, "%s \u00b1 %s", m, h);
}

static void fmt_pct(char *buf, size_t size, double pct)
{
	if (isfinite(pct))
		snprintf(buf, size, "%+.1f%%", pct);
	else
		fmt_num(buf, size, pct, 1);
}

static void fmt_ci(char *buf, size_t size, const struct compare_diff *d)
{
	char lo[40], hi[40];
	if (!d->has_ci) {
		snprintf(buf, size, "-");
		return;
	}
	fmt_num(lo, sizeof lo, d->lo, 1);
	fmt_num(hi, sizeof hi, d->hi, 1);
	snprintf(buf, size, "[%s, %s]", lo, hi);
}

/* Display width of UTF-8 text: bytes that do not continue a character. */
static size_t utf8_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* Columns of a variant's block; sim_error[%] only for a simulation against a real run. */
enum { COL_METRIC, COL_UNIT, COL_BASE, COL_NEW, COL_CHANGE, COL_PCT, COL_SIMERR, COL_CI, N_COLS };
#define CELL 96
static const char *const col_head[N_COLS] = {"metric", "unit",	    "base",	    "new",
					     "change", "change[%]", "sim_error[%]", "change 95% CI"};

/* A variant's block: its metric rows as cells, then aligned (metric and unit to the
 * left, numbers to the right). */
static int print_variant(const struct compare_result *r, const struct compare_variant *v, FILE *out)
{
	size_t rows = r->n_metrics + 1;
	char(*cells)[N_COLS][CELL] = calloc(rows, sizeof *cells);
	if (!cells)
		return -SIM_ENOMEM;
	for (size_t c = 0; c < N_COLS; c++)
		snprintf(cells[0][c], CELL, "%s", col_head[c]);
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct compare_metric_row *m = &v->m[i];
		char(*cell)[CELL] = cells[i + 1];
		snprintf(cell[COL_METRIC], CELL, "%s", r->metric[i]);
		snprintf(cell[COL_UNIT], CELL, "%s", r->unit[i][0] ? r->unit[i] : "-");
		fmt_side(cell[COL_BASE], CELL, &m->base);
		fmt_side(cell[COL_NEW], CELL, &m->nw);
		fmt_num(cell[COL_CHANGE], CELL, m->d.change, 1);
		fmt_pct(cell[COL_PCT], CELL, m->d.pct);
		fmt_pct(cell[COL_SIMERR], CELL, m->sim_error_pct);
		fmt_ci(cell[COL_CI], CELL, &m->d);
	}
	size_t w[N_COLS] = {0};
	for (size_t i = 0; i < rows; i++)
		for (size_t c = 0; c < N_COLS; c++)
			if (utf8_width(cells[i][c]) > w[c])
				w[c] = utf8_width(cells[i][c]);
	if (r->by_position)
		fprintf(
		    out,
		    "\nvariant %s (base, %zu run%s) vs %s (new, %zu run%s): the only variant of each file\n",
		    v->base_name, v->base_runs, v->base_runs == 1 ? "" : "s", v->new_name, v->new_runs,
		    v->new_runs == 1 ? "" : "s");
	else
		fprintf(out, "\nvariant %s: base %zu run%s, new %zu run%s\n", v->base_name, v->base_runs,
			v->base_runs == 1 ? "" : "s", v->new_runs, v->new_runs == 1 ? "" : "s");
	if (v->base_runs < 2 || v->new_runs < 2)
		fprintf(out, "(one run on a side: no confidence interval for the change)\n");
	for (size_t i = 0; i < rows; i++) {
		for (size_t c = 0; c < N_COLS; c++) {
			int pad = (int)(w[c] - utf8_width(cells[i][c]));
			if (c == COL_SIMERR && r->real_side == COMPARE_SAME_MODE)
				continue;
			if (c < 2)
				fprintf(out, "%s%s%*s", c ? "  " : "", cells[i][c], c == N_COLS - 1 ? 0 : pad,
					"");
			else
				fprintf(out, "  %*s%s", pad, "", cells[i][c]);
		}
		fputc('\n', out);
	}
	free(cells);
	return 0;
}

/* "p95_wait_s > +5%" as the rule reads, normalized. */
static void fmt_rule(char *buf, size_t size, const struct compare_rule *rule)
{
	char t[40];
	fmt_num(t, sizeof t, rule->threshold, 1);
	snprintf(buf, size, "%s%s%s%s", rule->metric, op_text(rule->op), t, rule->relative ? "%" : "");
}

/* The change a check looked at, with the two means: "+42.1% (1234 -> 1753 s)". */
static void fmt_check(char *buf, size_t size, const struct compare_result *r, const struct compare_check *c)
{
	const struct compare_rule *rule = &r->rules[c->rule];
	const struct compare_metric_row *m = &r->v[c->variant].m[c->metric];
	char val[48], b[40], n[40];
	if (rule->relative)
		fmt_pct(val, sizeof val, c->value);
	else
		fmt_num(val, sizeof val, c->value, 1);
	fmt_num(b, sizeof b, m->base.mean, 0);
	fmt_num(n, sizeof n, m->nw.mean, 0);
	/* a count or a fraction ("1") reads better without its unit */
	const char *unit = strcmp(r->unit[c->metric], "1") == 0 ? "" : r->unit[c->metric];
	size_t used = (size_t)snprintf(buf, size, "%s (%s -> %s%s%s)", val, b, n, unit[0] ? " " : "", unit);
	if (used < size && c->significant >= 0)
		used += (size_t)snprintf(buf + used, size - used, ", change 95%% CI %s0",
					 c->significant ? "excludes " : "includes ");
	if (used < size && c->note)
		snprintf(buf + used, size - used, "; %s", c->note);
}

/* "FAIL" stands out in the table; JSON has "fail". */
static const char *verdict_text(enum compare_verdict v, int loud)
{
	return v == COMPARE_FAIL ? (loud ? "FAIL" : "fail") : v == COMPARE_PASS ? "pass" : "n/a";
}

/* A matched variant's name: "fifo", or "easy_backfill vs fifo" when matched by position. */
static void fmt_variant(char *buf, size_t size, const struct compare_variant *v)
{
	if (strcmp(v->base_name, v->new_name) == 0)
		snprintf(buf, size, "%s", v->base_name);
	else
		snprintf(buf, size, "%s vs %s", v->base_name, v->new_name);
}

void compare_print_failures(const struct compare_result *r, const char *prefix, FILE *out)
{
	char rule[160], what[320], var[2 * 160];
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct compare_check *c = &r->checks[i];
		if (c->verdict != COMPARE_FAIL)
			continue;
		fmt_rule(rule, sizeof rule, &r->rules[c->rule]);
		fmt_check(what, sizeof what, r, c);
		fmt_variant(var, sizeof var, &r->v[c->variant]);
		fprintf(out, "%srule '%s' failed on variant %s: %s\n", prefix, rule, var, what);
	}
}

int compare_print(const struct compare_result *r, FILE *out)
{
	fprintf(out, "base: %s (%zu variant%s, %zu run%s)\n", r->base_path, r->base_variants,
		r->base_variants == 1 ? "" : "s", r->base_n_runs, r->base_n_runs == 1 ? "" : "s");
	fprintf(out, "new:  %s (%zu variant%s, %zu run%s)\n", r->new_path, r->new_variants,
		r->new_variants == 1 ? "" : "s", r->new_n_runs, r->new_n_runs == 1 ? "" : "s");
	fprintf(out, "means over seeds \u00b1 half-width of the 95%% confidence interval (Student t); change "
		     "= new - base; "
		     "its 95%% CI by Welch's t\n");
	if (r->real_side != COMPARE_SAME_MODE) {
		int rb = r->real_side == COMPARE_REAL_BASE;
		char real[160], scale[48] = "";
		if (isfinite(r->real_time_scale))
			snprintf(scale, sizeof scale, ", time scale %g", r->real_time_scale);
		snprintf(real, sizeof real, "a real run (backend %s%s)",
			 r->real_backend[0] ? r->real_backend : "?", scale);
		fprintf(out, "BASE is %s, NEW %s: change = %s; sim error [%%] = (sim - real) / real\n",
			rb ? real : "a simulation", rb ? "a simulation" : real,
			rb ? "sim - real" : "real - sim");
	}
	for (int side = 0; side < 2; side++) {
		char *const *only = side ? r->only_new : r->only_base;
		size_t n = 0;
		while (only[n])
			n++;
		if (n) {
			char names[512];
			list_names(names, sizeof names, only, n);
			fprintf(out, "only in %s (not compared): %s\n", side ? "new" : "base", names);
		}
	}
	for (size_t k = 0; k < r->n_variants; k++)
		if (print_variant(r, &r->v[k], out))
			return -SIM_ENOMEM;
	if (r->n_rules == 0)
		return 0;
	fprintf(out, "\nrules (%s):\n",
		r->significant
		    ? "a rule fails when its change is beyond the threshold and the change's 95% CI "
		      "excludes 0"
		    : "a rule fails when its change (point estimate) is beyond the threshold");
	char rule[160], what[320], var[2 * 160];
	int wr = 0;
	for (size_t k = 0; k < r->n_rules; k++) {
		fmt_rule(rule, sizeof rule, &r->rules[k]);
		if ((int)strlen(rule) > wr)
			wr = (int)strlen(rule);
	}
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct compare_check *c = &r->checks[i];
		fmt_rule(rule, sizeof rule, &r->rules[c->rule]);
		fmt_check(what, sizeof what, r, c);
		fmt_variant(var, sizeof var, &r->v[c->variant]);
		fprintf(out, "  %-4s  %-*s  %s: %s\n", verdict_text(c->verdict, 1), wr, rule, var, what);
	}
	if (r->n_failed)
		fprintf(out, "result: FAIL, %zu of %zu rule check%s failed\n", r->n_failed, r->n_checks,
			r->n_checks == 1 ? "" : "s");
	else
		fprintf(out, "result: pass, %zu rule check%s\n", r->n_checks, r->n_checks == 1 ? "" : "s");
	return 0;
}

/* ---- JSON ---- */

/* A number, or null for NaN and infinities. NULL when out of memory. */
static cJSON *jnum(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static int add_num(cJSON *o, const char *key, double v)
{
	cJSON *j = jnum(v);
	if (!j)
		return -1;
	cJSON_AddItemToObject(o, key, j);
	return 0;
}

static cJSON *json_side(const char *path, size_t variants, size_t runs)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, "path", path) || add_num(o, "variants", (double)variants) ||
	    add_num(o, "runs", (double)runs)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *json_stat(const struct compare_stat *s)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || add_num(o, "mean", s->mean) || add_num(o, "ci95", s->ci95) ||
	    add_num(o, "n", (double)s->n)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *json_metric(const char *unit, const struct compare_metric_row *m, int sim_vs_real)
{
	cJSON *o = cJSON_CreateObject(), *b = json_stat(&m->base), *n = json_stat(&m->nw), *ci = NULL;
	if (o && b)
		cJSON_AddItemToObject(o, "base", b), b = NULL;
	if (o && n)
		cJSON_AddItemToObject(o, "new", n), n = NULL;
	if (!o || b || n || !cJSON_AddStringToObject(o, "unit", unit) || add_num(o, "change", m->d.change) ||
	    add_num(o, "change_pct", m->d.pct) ||
	    (sim_vs_real && add_num(o, "sim_error_pct", m->sim_error_pct)))
		goto out_fail;
	if (m->d.has_ci) {
		ci = cJSON_CreateObject();
		if (!ci || add_num(ci, "lo", m->d.lo) || add_num(ci, "hi", m->d.hi) ||
		    add_num(ci, "df", m->d.df))
			goto out_fail;
		cJSON_AddItemToObject(o, "change_ci95", ci);
	} else if (!cJSON_AddNullToObject(o, "change_ci95")) {
		goto out_fail;
	}
	return o;
out_fail:
	cJSON_Delete(ci);
	cJSON_Delete(b);
	cJSON_Delete(n);
	cJSON_Delete(o);
	return NULL;
}

static cJSON *json_variant(const struct compare_result *r, const struct compare_variant *v)
{
	cJSON *o = cJSON_CreateObject(), *ms;
	if (!o || !cJSON_AddStringToObject(o, "base_variant", v->base_name) ||
	    !cJSON_AddStringToObject(o, "new_variant", v->new_name) ||
	    add_num(o, "base_runs", (double)v->base_runs) || add_num(o, "new_runs", (double)v->new_runs) ||
	    !(ms = cJSON_AddObjectToObject(o, "metrics")))
		goto out_fail;
	for (size_t i = 0; i < r->n_metrics; i++) {
		cJSON *m = json_metric(r->unit[i], &v->m[i], r->real_side != COMPARE_SAME_MODE);
		if (!m)
			goto out_fail;
		cJSON_AddItemToObject(ms, r->metric[i], m);
	}
	return o;
out_fail:
	cJSON_Delete(o);
	return NULL;
}

static cJSON *json_check(const struct compare_result *r, const struct compare_check *c)
{
	const struct compare_rule *rule = &r->rules[c->rule];
	char text[160], var[2 * 160];
	fmt_rule(text, sizeof text, rule);
	fmt_variant(var, sizeof var, &r->v[c->variant]);
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, "rule", text) ||
	    !cJSON_AddStringToObject(o, "metric", rule->metric) ||
	    !cJSON_AddStringToObject(o, "op", op_text(rule->op)) ||
	    add_num(o, "threshold", rule->threshold) ||
	    !cJSON_AddBoolToObject(o, "relative", rule->relative) ||
	    !cJSON_AddStringToObject(o, "variant", var) || add_num(o, "value", c->value) ||
	    !cJSON_AddStringToObject(o, "verdict", verdict_text(c->verdict, 0)))
		goto out_fail;
	if (c->significant < 0 ? !cJSON_AddNullToObject(o, "significant")
			       : !cJSON_AddBoolToObject(o, "significant", c->significant))
		goto out_fail;
	if (c->note ? !cJSON_AddStringToObject(o, "note", c->note) : !cJSON_AddNullToObject(o, "note"))
		goto out_fail;
	return o;
out_fail:
	cJSON_Delete(o);
	return NULL;
}

static int json_names(cJSON *o, const char *key, char *const *names)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);
	if (!a)
		return -1;
	for (size_t k = 0; names[k]; k++) {
		cJSON *s = cJSON_CreateString(names[k]);
		if (!s)
			return -1;
		cJSON_AddItemToArray(a, s);
	}
	return 0;
}

/* "sim_vs_real": which file is the real run, for a simulation against a real run only. */
static int json_sim_vs_real(cJSON *o, const struct compare_result *r)
{
	if (r->real_side == COMPARE_SAME_MODE)
		return 0;
	const char *side = r->real_side == COMPARE_REAL_BASE ? "base" : "new";
	cJSON *s = cJSON_AddObjectToObject(o, "sim_vs_real");
	if (!s || !cJSON_AddStringToObject(s, "real", side) ||
	    !cJSON_AddStringToObject(s, "backend", r->real_backend) ||
	    add_num(s, "time_scale", r->real_time_scale))
		return -1;
	return 0;
}

int compare_json(const struct compare_result *r, char **out)
{
	*out = NULL;
	cJSON *o = cJSON_CreateObject(), *b = json_side(r->base_path, r->base_variants, r->base_n_runs),
	      *n = json_side(r->new_path, r->new_variants, r->new_n_runs), *vs, *cs;
	if (o && b)
		cJSON_AddItemToObject(o, "base", b), b = NULL;
	if (o && n)
		cJSON_AddItemToObject(o, "new", n), n = NULL;
	if (!o || b || n || !cJSON_AddBoolToObject(o, "significant", r->significant) ||
	    !cJSON_AddBoolToObject(o, "matched_by_position", r->by_position) ||
	    json_names(o, "only_in_base", r->only_base) || json_names(o, "only_in_new", r->only_new) ||
	    json_sim_vs_real(o, r) || !(vs = cJSON_AddArrayToObject(o, "variants")))
		goto out_free;
	for (size_t k = 0; k < r->n_variants; k++) {
		cJSON *v = json_variant(r, &r->v[k]);
		if (!v)
			goto out_free;
		cJSON_AddItemToArray(vs, v);
	}
	if (!(cs = cJSON_AddArrayToObject(o, "rules")))
		goto out_free;
	for (size_t i = 0; i < r->n_checks; i++) {
		cJSON *c = json_check(r, &r->checks[i]);
		if (!c)
			goto out_free;
		cJSON_AddItemToArray(cs, c);
	}
	if (add_num(o, "failed", (double)r->n_failed) || !cJSON_AddBoolToObject(o, "pass", r->n_failed == 0))
		goto out_free;
	*out = cJSON_Print(o);
out_free:
	cJSON_Delete(b);
	cJSON_Delete(n);
	cJSON_Delete(o);
	return *out ? 0 : -SIM_ENOMEM;
}
