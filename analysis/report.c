/* analysis/report.c: the summary table, the JSON summary and the per-job CSV. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* ---- table ---- */

struct tcol {
	const char *head;  /* header, unit in brackets */
	const char *field; /* /summary field, NULL for the run name */
	double scale;      /* value x scale is printed */
	int decimals;
};

static const struct tcol table_cols[] = {
	{ "run", NULL, 1, 0 },
	{ "jobs", "jobs", 1, 0 },
	{ "completed", "completed", 1, 0 },
	{ "wait_mean[s]", "mean_wait_s", 1, 1 },
	{ "wait_p50[s]", "p50_wait_s", 1, 1 },
	{ "wait_p95[s]", "p95_wait_s", 1, 1 },
	{ "wait_p99[s]", "p99_wait_s", 1, 1 },
	{ "jct_mean[s]", "mean_jct_s", 1, 1 },
	{ "jct_p95[s]", "p95_jct_s", 1, 1 },
	{ "util[%]", "utilization", 100, 1 },
	{ "bsld_mean[1]", "mean_bsld", 1, 2 },
};
#define N_TABLE_COLS (sizeof table_cols / sizeof table_cols[0])

static int check_run(const struct h5read_file *f, const struct h5read_summary *s, const char *run,
		     struct sim_diag *diag)
{
	if (run && h5read_summary_row(s, run) < 0) {
		sim_diag_add(diag, h5read_path(f), "no run named '%s'", run);
		return -SIM_ENOENT;
	}
	return 0;
}

int report_table(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag)
{
	struct h5read_summary s;
	int r = h5read_summary(f, &s, diag);
	if (r)
		return r;
	if ((r = check_run(f, &s, run, diag)))
		goto out_free;
	/* cells[row][col], row 0 the header; widths from the longest cell. */
	size_t rows = s.n_rows + 1;
	char(*cells)[N_TABLE_COLS][48] = calloc(rows, sizeof *cells);
	if (!cells) {
		r = -SIM_ENOMEM;
		goto out_free;
	}
	size_t width[N_TABLE_COLS] = { 0 };
	size_t nr = 0;
	for (size_t c = 0; c < N_TABLE_COLS; c++)
		snprintf(cells[0][c], sizeof cells[0][c], "%s", table_cols[c].head);
	for (size_t i = 0; i < s.n_rows; i++) {
		if (run && strcmp(s.run[i], run) != 0)
			continue;
		nr++;
		for (size_t c = 0; c < N_TABLE_COLS; c++) {
			char *cell = cells[nr][c];
			if (!table_cols[c].field) {
				snprintf(cell, sizeof cells[0][c], "%s", s.run[i]);
				continue;
			}
			double v = h5read_summary_get(&s, i, table_cols[c].field);
			if (isnan(v))
				snprintf(cell, sizeof cells[0][c], "-");
			else
				snprintf(cell, sizeof cells[0][c], "%.*f", table_cols[c].decimals,
					 v * table_cols[c].scale);
		}
	}
	for (size_t i = 0; i <= nr; i++)
		for (size_t c = 0; c < N_TABLE_COLS; c++)
			if (strlen(cells[i][c]) > width[c])
				width[c] = strlen(cells[i][c]);
	const char *sv = h5read_root_attr(f, "schema_version");
	const char *sw = h5read_root_attr(f, "software_version");
	fprintf(out, "%s: %zu run%s (schema %s, written by gpusched %s)\n", h5read_path(f), nr,
		nr == 1 ? "" : "s", sv ? sv : "?", sw ? sw : "?");
	for (size_t i = 0; i <= nr; i++) {
		for (size_t c = 0; c < N_TABLE_COLS; c++) {
			/* the run name left-aligned, numbers right-aligned */
			if (c == 0)
				fprintf(out, "%-*s", (int)width[c], cells[i][c]);
			else
				fprintf(out, "  %*s", (int)width[c], cells[i][c]);
		}
		fputc('\n', out);
	}
	if (nr == 0)
		fprintf(out, "(no runs)\n");
	free(cells);
out_free:
	h5read_summary_free(&s);
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, h5read_path(f), "out of memory");
	return r;
}

/* ---- JSON ---- */

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

int report_json(const struct h5read_file *f, const char *run, char **out, struct sim_diag *diag)
{
	*out = NULL;
	struct h5read_summary s;
	int r = h5read_summary(f, &s, diag);
	if (r)
		return r;
	if ((r = check_run(f, &s, run, diag)))
		goto out_free;
	r = -SIM_ENOMEM;
	cJSON *arr = cJSON_CreateArray();
	if (!arr)
		goto out_free;
	for (size_t i = 0; i < s.n_rows; i++) {
		if (run && strcmp(s.run[i], run) != 0)
			continue;
		cJSON *o = cJSON_CreateObject();
		if (!o)
			goto out_json;
		cJSON_AddItemToArray(arr, o);
		/* seed as a number: exact up to 2^53, which covers every seed a config can
		 * state as a JSON number. */
		if (!cJSON_AddStringToObject(o, "run", s.run[i]) ||
		    !cJSON_AddStringToObject(o, "policy", s.policy[i]) ||
		    !cJSON_AddNumberToObject(o, "seed", (double)s.seed[i]))
			goto out_json;
		for (size_t k = 0; k < s.n_fields; k++) {
			cJSON *v = num_or_null(s.v[i * s.n_fields + k]);
			if (!v)
				goto out_json;
			cJSON_AddItemToObject(o, s.field[k], v);
		}
	}
	*out = cJSON_Print(arr);
	if (*out)
		r = 0;
out_json:
	cJSON_Delete(arr);
out_free:
	h5read_summary_free(&s);
	if (r == -SIM_ENOMEM)
		sim_diag_add(diag, h5read_path(f), "out of memory");
	return r;
}

/* ---- CSV ---- */

/* RFC 4180: quote a field holding a comma, quote or line break; double the quotes. */
static void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* Shortest of %.15g / %.17g that reads back as the same double; NaN is empty. */
static void csv_num(FILE *out, double v)
{
	if (isnan(v))
		return;
	char buf[40];
	snprintf(buf, sizeof buf, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	fputs(buf, out);
}

int report_jobs_csv(const struct h5read_file *f, const char *run, FILE *out, struct sim_diag *diag)
{
	if (run && h5read_run_find(f, run) < 0) {
		sim_diag_add(diag, h5read_path(f), "no run named '%s'", run);
		return -SIM_ENOENT;
	}
	fputs("run,id,queue,user,flavor,option,gpus,submit_s,start_s,end_s,wait_s,jct_s,runtime_s,"
	      "preemptions,status\n",
	      out);
	for (size_t r = 0; r < h5read_n_runs(f); r++) {
		const char *name = h5read_run_name(f, r);
		if (run && strcmp(name, run) != 0)
			continue;
		struct h5read_jobs j;
		int rc = h5read_jobs(f, name, &j, diag);
		if (rc)
			return rc;
		for (size_t i = 0; i < j.n; i++) {
			csv_str(out, name);
			fputc(',', out);
			csv_str(out, j.id[i]);
			fputc(',', out);
			csv_str(out, j.queue[i]);
			fputc(',', out);
			csv_str(out, j.user[i]);
			fputc(',', out);
			csv_str(out, j.flavor[i]);
			fputc(',', out);
			if (j.option[i] >= 0)
				fprintf(out, "%d", (int)j.option[i]);
			const double *nums[] = { j.gpus, j.submit_s, j.start_s, j.end_s, j.wait_s, j.jct_s,
						 j.runtime_s };
			for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
				fputc(',', out);
				csv_num(out, nums[k][i]);
			}
			fprintf(out, ",%u,", (unsigned)j.preemptions[i]);
			csv_str(out, j.state[i]);
			fputc('\n', out);
		}
		h5read_jobs_free(&j);
	}
	return 0;
}
