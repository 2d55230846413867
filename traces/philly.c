/* traces/philly.c: Philly job table -> native trace (mapping in philly.h and
 * traces/README.md). The input is plain CSV without quoting (timestamps, numbers,
 * hashed VC ids), so fields are split at commas. */
#include "philly.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"

#define SHOW_MAX 60
#define SHOW(p, len) (int)((len) > SHOW_MAX ? SHOW_MAX : (len)), (p), ((len) > SHOW_MAX ? "..." : "")
/* As in the native reader: longer durations are refused there. */
#define PHILLY_MAX_S 1000000000LL

__attribute__((format(printf, 5, 6))) static void err_at(struct sim_diag *diag, const char *name, size_t line,
							 const char *col, const char *fmt, ...)
{
	char where[512];
	va_list ap;
	if (col)
		snprintf(where, sizeof where, "%s:%zu: column %s", name, line, col);
	else
		snprintf(where, sizeof where, "%s:%zu", name, line);
	va_start(ap, fmt);
	sim_diag_vadd(diag, where, fmt, ap);
	va_end(ap);
}

/* Reads a whole file into a NUL-terminated malloc'd buffer. */
static int read_all(const char *path, char **buf_out, size_t *len_out, struct sim_diag *diag)
{
	FILE *f = fopen(path, "rb");
	long size;
	char *buf;
	int err = 0;

	if (!f) {
		err = errno == ENOENT ? -SIM_ENOENT : -SIM_EIO;
		sim_diag_add(diag, path, "cannot open: %s", strerror(errno));
		return err;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		sim_diag_add(diag, path, "cannot read: %s", strerror(errno));
		err = -SIM_EIO;
		goto out_close;
	}
	buf = malloc((size_t)size + 1);
	if (!buf) {
		err = -SIM_ENOMEM;
		goto out_close;
	}
	if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
		sim_diag_add(diag, path, "cannot read: short read");
		free(buf);
		err = -SIM_EIO;
		goto out_close;
	}
	buf[size] = '\0';
	*buf_out = buf;
	*len_out = (size_t)size;
out_close:
	fclose(f);
	return err;
}

int64_t trace_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms": days_from_civil. */
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);			/* [0, 399] */
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* [0, 365] */
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;		/* [0, 146096] */
	return era * 146097 + (int64_t)doe - 719468;
}

static int digits(const char *s, int n, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int trace_parse_utc(const char *s, size_t len, int64_t *epoch_s)
{
	static const unsigned mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned y, mo, d, h, mi, se;

	if (len != 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':')
		return -SIM_EPARSE;
	if (digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d) || digits(s + 11, 2, &h) ||
	    digits(s + 14, 2, &mi) || digits(s + 17, 2, &se))
		return -SIM_EPARSE;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 59)
		return -SIM_EPARSE;
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (mo == 2 && d == 29 && !leap)
		return -SIM_EPARSE;
	*epoch_s = trace_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
	return 0;
}

struct span {
	const char *p;
	size_t len;
};

/* Splits [p, end) at commas into at most max spans; returns the field count. */
static int split_commas(const char *p, const char *end, struct span *f, int max)
{
	int n = 0;
	for (;;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *fe = c ? c : end;
		if (n < max) {
			f[n].p = p;
			f[n].len = (size_t)(fe - p);
		}
		n++;
		if (!c)
			return n;
		p = c + 1;
	}
}

static int span_eq(struct span s, const char *lit)
{
	return strlen(lit) == s.len && memcmp(s.p, lit, s.len) == 0;
}

/* Next non-empty line of [*p, end): sets [*ls, *le) without the line break and
 * advances *line. Returns 0 at the end. */
static int next_line(const char **p, const char *end, const char **ls, const char **le, size_t *line)
{
	while (*p < end) {
		const char *nl = memchr(*p, '\n', (size_t)(end - *p));
		const char *e = nl ? nl : end;
		const char *s = *p;
		*p = nl ? nl + 1 : end;
		(*line)++;
		if (e > s && e[-1] == '\r')
			e--;
		if (e == s)
			continue;
		*ls = s;
		*le = e;
		return 1;
	}
	return 0;
}

enum { PC_TIMESTAMP, PC_DURATION, PC_GPUS, PC_GPU_TIME, PC_CLUSTER, PC_COUNT_ };
static const char *const pc_names[PC_COUNT_] = { "timestamp", "duration", "num_gpus", "gpu_time", "cluster" };

#define MAX_FIELDS 32

int trace_philly_read(const char *path, struct sim_trace **out, struct trace_philly_stats *stats,
		      struct sim_diag *diag)
{
	struct trace_philly_stats st;
	struct sim_trace *t = NULL;
	struct span f[MAX_FIELDS];
	int col[PC_COUNT_];
	char *buf;
	size_t len, line = 0, cap_str = 0, n_err = 0;
	const char *p, *end, *ls = "", *le = ls;
	int err, n_hdr;

	*out = NULL;
	memset(&st, 0, sizeof st);
	if ((err = read_all(path, &buf, &len, diag)) < 0)
		return err;
	p = buf;
	end = buf + len;
	if (!next_line(&p, end, &ls, &le, &line)) {
		sim_diag_add(diag, path,
			     "expected a header row (timestamp,duration,num_gpus,gpu_time,cluster), "
			     "found an empty file");
		err = -SIM_EPARSE;
		goto out_free_buf;
	}
	n_hdr = split_commas(ls, le, f, MAX_FIELDS);
	char missing[128] = "";
	int n_missing = 0, last_missing = 0;
	for (int c = 0; c < PC_COUNT_; c++) {
		col[c] = -1;
		for (int i = 0; i < n_hdr && i < MAX_FIELDS; i++)
			if (span_eq(f[i], pc_names[c]))
				col[c] = i;
		if (col[c] < 0) {
			if (n_missing++)
				strcat(missing, ", ");
			strcat(missing, pc_names[c]);
			last_missing = c;
		}
	}
	if (n_missing) {
		/* One message: a file of another format would otherwise get five. */
		err_at(diag, path, line, n_missing == 1 ? pc_names[last_missing] : NULL,
		       "expected a Philly header with timestamp, duration, num_gpus, gpu_time, cluster "
		       "(missing: %s), found '%.*s%s'",
		       missing, SHOW(ls, (size_t)(le - ls)));
		n_err++;
	}
	if (n_hdr > MAX_FIELDS) {
		err_at(diag, path, line, NULL, "expected at most %d columns, found %d", MAX_FIELDS, n_hdr);
		n_err++;
	}
	if (n_err) {
		err = -SIM_EPARSE;
		goto out_free_buf;
	}

	t = sim_trace_create();
	if (!t) {
		err = -SIM_ENOMEM;
		goto out_free_buf;
	}
	size_t cap = 1024;
	for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
		cap++;
	t->path = strdup(path);
	t->jobs = calloc(cap, sizeof *t->jobs);
	t->opts = calloc(cap, sizeof *t->opts);
	cap_str = cap * 16;
	t->strings = malloc(cap_str);
	if (!t->path || !t->jobs || !t->opts || !t->strings) {
		err = -SIM_ENOMEM;
		goto out_free_trace;
	}

	while (next_line(&p, end, &ls, &le, &line)) {
		int n = split_commas(ls, le, f, MAX_FIELDS);
		size_t row = ++st.rows_in;
		if (n != n_hdr) {
			err_at(diag, path, line, NULL, "expected %d fields as in the header, found %d", n_hdr,
			       n);
			n_err++;
			continue;
		}
		struct span ts = f[col[PC_TIMESTAMP]], du = f[col[PC_DURATION]], gp = f[col[PC_GPUS]];
		struct span gt = f[col[PC_GPU_TIME]], cl = f[col[PC_CLUSTER]];
		int64_t epoch = 0;
		sim_time_t dur_ns = 0, gt_ns = 0;
		sim_qty_t gpus = 0;
		int bad = 0, negative = du.len > 1 && du.p[0] == '-';

		if (trace_parse_utc(ts.p, ts.len, &epoch) < 0) {
			err_at(diag, path, line, "timestamp",
			       "expected a UTC time YYYY-MM-DD HH:MM:SS, found '%.*s%s'", SHOW(ts.p, ts.len));
			bad = 1;
		}
		if (sim_time_parse_s(du.p + negative, du.len - (size_t)negative, &dur_ns) < 0 ||
		    dur_ns > PHILLY_MAX_S * SIM_NS_PER_S) {
			err_at(diag, path, line, "duration",
			       "expected seconds (decimal, at most 9 fractional digits, "
			       "at most 1e9), found '%.*s%s'",
			       SHOW(du.p, du.len));
			bad = 1;
		}
		if (sim_qty_parse(gp.p, gp.len, &gpus) < 0 || gpus > 1000000 * SIM_MILLI) {
			err_at(diag, path, line, "num_gpus",
			       "expected a GPU count >= 0 (at most 3 fractional "
			       "digits), found '%.*s%s'",
			       SHOW(gp.p, gp.len));
			bad = 1;
		}
		int gt_neg = gt.len > 1 && gt.p[0] == '-'; /* rows dropped for duration <= 0 may have it */
		if (sim_time_parse_s(gt.p + gt_neg, gt.len - (size_t)gt_neg, &gt_ns) < 0) {
			err_at(diag, path, line, "gpu_time",
			       "expected GPU-seconds (decimal, at most 9 fractional "
			       "digits), found '%.*s%s'",
			       SHOW(gt.p, gt.len));
			bad = 1;
		}
		int cl_ok = cl.len > 0 && cl.len < SIM_NAME_MAX;
		for (size_t i = 0; i < cl.len; i++)
			cl_ok &= (unsigned char)cl.p[i] >= 0x20 && cl.p[i] != 0x7f;
		if (!cl_ok) {
			err_at(diag, path, line, "cluster",
			       "expected a VC name of 1 to %d printable bytes, found "
			       "'%.*s%s'",
			       SIM_NAME_MAX - 1, SHOW(cl.p, cl.len));
			bad = 1;
		}
		if (bad) {
			n_err++;
			continue;
		}
		if (negative || dur_ns == 0) {
			st.dropped_duration++;
			continue;
		}
		if (gpus == 0) {
			st.dropped_gpus++;
			continue;
		}
		double want_s = sim_time_to_s(dur_ns) * (double)gpus / SIM_MILLI;
		double got_s = (gt_neg ? -1.0 : 1.0) * sim_time_to_s(gt_ns);
		if (fabs(want_s - got_s) > 1e-6 * (want_s > 1.0 ? want_s : 1.0))
			st.gpu_time_mismatch++;
		st.gpu_time_s += got_s;

		char name[SIM_NAME_MAX];
		memcpy(name, cl.p, cl.len);
		name[cl.len] = '\0';
		int q = sim_trace_intern_queue(t, name);
		if (q < 0) {
			err = q;
			goto out_free_trace;
		}
		if (t->strings_len + 32 > cap_str) {
			char *ns = realloc(t->strings, cap_str * 2);
			if (!ns) {
				err = -SIM_ENOMEM;
				goto out_free_trace;
			}
			t->strings = ns;
			cap_str *= 2;
		}

		struct sim_job *j = &t->jobs[t->n_jobs];
		struct sim_job_option *o = &t->opts[t->n_opts];
		j->id_off = (uint32_t)t->strings_len;
		t->strings_len += (size_t)sprintf(t->strings + t->strings_len, "philly-%zu", row) + 1;
		j->line = (uint32_t)row; /* sort key: (timestamp, row) */
		j->queue = q;
		j->user = -1;
		j->submit_ns = epoch; /* Unix seconds until every row is read */
		j->duration_ns = dur_ns;
		j->estimate_ns = dur_ns;
		j->max_pending_ns = SIM_TIME_NONE;
		j->deadline_ns = SIM_TIME_NONE;
		j->checkpoint_ns = SIM_TIME_NONE;
		j->opt_first = (uint32_t)t->n_opts;
		j->n_opts = 1;
		j->preemptible = 1;
		o->flavor_id = SIM_FLAVOR_ANY;
		o->duration_ns = dur_ns;
		o->req[SIM_RES_GPU] = gpus;
		if (t->n_jobs == 0 || epoch < st.first_epoch_s)
			st.first_epoch_s = epoch;
		if (t->n_jobs == 0 || epoch > st.last_epoch_s)
			st.last_epoch_s = epoch;
		t->n_jobs++;
		t->n_opts++;
	}
	if (n_err) {
		err = -SIM_EPARSE;
		goto out_free_trace;
	}
	for (size_t i = 0; i < t->n_jobs; i++)
		t->jobs[i].submit_ns = (t->jobs[i].submit_ns - st.first_epoch_s) * SIM_NS_PER_S;
	sim_trace_sort(t);
	sim_trace_reset(t);
	st.rows_out = t->n_jobs;
	if (stats)
		*stats = st;
	*out = t;
	free(buf);
	return 0;

out_free_trace:
	sim_trace_destroy(t);
out_free_buf:
	free(buf);
	return err;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int trace_philly_convert(const char *in_path, const char *out_path, struct trace_philly_stats *stats,
			 struct sim_diag *diag)
{
	struct trace_philly_stats st;
	struct sim_trace *t;
	char tmp[4096], first[96];
	FILE *f;
	int err;

	if (snprintf(tmp, sizeof tmp, "%s.tmp", out_path) >= (int)sizeof tmp) {
		sim_diag_add(diag, out_path, "expected an output path under %zu bytes", sizeof tmp - 4);
		return -SIM_EINVAL;
	}
	if ((err = trace_philly_read(in_path, &t, &st, diag)) < 0)
		return err;
	f = fopen(tmp, "w");
	if (!f) {
		sim_diag_add(diag, tmp, "cannot create: %s", strerror(errno));
		err = -SIM_EIO;
		goto out_free_trace;
	}
	int64_t days = st.first_epoch_s / 86400, sod = st.first_epoch_s % 86400;
	if (sod < 0) {
		sod += 86400;
		days--;
	}
	/* civil_from_days, for the comment only. */
	{
		int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
		unsigned doe = (unsigned)(z - era * 146097);
		unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
		unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
		unsigned d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
		int64_t y = (int64_t)yoe + era * 400 + (m <= 2);
		snprintf(first, sizeof first, "%04lld-%02u-%02u %02u:%02u:%02u", (long long)y, m, d,
			 (unsigned)(sod / 3600), (unsigned)(sod / 60 % 60), (unsigned)(sod % 60));
	}
	fprintf(f,
		"# Microsoft Philly job trace (Jeon et al., \"Analysis of Large-Scale Multi-Tenant GPU "
		"Clusters\n"
		"# for DNN Training Workloads\", USENIX ATC'19). Licence: CC BY 4.0 "
		"(msr-fiddle/philly-traces).\n"
		"# Job table in the format of petuum/adaptdl simulator/traces/philly.csv (Apache-2.0 "
		"repository).\n"
		"# Converted from %s by: gpusched trace import --format philly (traces/README.md).\n"
		"# Mapping: id = philly-<row>, submit_s = timestamp - %s UTC, duration_s = duration,\n"
		"#   request = *:gpu=<num_gpus>, queue = cluster (virtual cluster); sorted by (timestamp, "
		"row).\n"
		"# Rows in: %zu, jobs out: %zu, dropped: %zu (duration <= 0: %zu, num_gpus = 0: %zu).\n",
		base_name(in_path), first, st.rows_in, st.rows_out, st.dropped_duration + st.dropped_gpus,
		st.dropped_duration, st.dropped_gpus);
	err = trace_native_write(t, f);
	if (fclose(f) != 0 && !err)
		err = -SIM_EIO;
	if (err) {
		sim_diag_add(diag, tmp, "cannot write: %s", sim_strerror(err));
		goto out_unlink;
	}
	if (rename(tmp, out_path) != 0) {
		sim_diag_add(diag, out_path, "cannot rename %s: %s", tmp, strerror(errno));
		err = -SIM_EIO;
		goto out_unlink;
	}
	if (stats)
		*stats = st;
	sim_trace_destroy(t);
	return 0;

out_unlink:
	remove(tmp);
out_free_trace:
	sim_trace_destroy(t);
	return err;
}

int trace_philly_read_vc(const char *path, struct trace_philly_vc **out, size_t *n_out, struct sim_diag *diag)
{
	struct span f[3];
	char *buf;
	size_t len, line = 0, n = 0, n_err = 0;
	const char *p, *end, *ls = "", *le = ls;
	struct trace_philly_vc *vcs = NULL;
	int err;

	*out = NULL;
	*n_out = 0;
	if ((err = read_all(path, &buf, &len, diag)) < 0)
		return err;
	p = buf;
	end = buf + len;
	if (!next_line(&p, end, &ls, &le, &line) || split_commas(ls, le, f, 3) != 2 || !span_eq(f[0], "vc") ||
	    !span_eq(f[1], "node num")) {
		err_at(diag, path, line ? line : 1, NULL, "expected the header 'vc,node num', found '%.*s%s'",
		       SHOW(ls, (size_t)(le - ls)));
		err = -SIM_EPARSE;
		goto out_free_buf;
	}
	size_t cap = 1;
	for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
		cap++;
	vcs = calloc(cap, sizeof *vcs);
	if (!vcs) {
		err = -SIM_ENOMEM;
		goto out_free_buf;
	}
	while (next_line(&p, end, &ls, &le, &line)) {
		int nf = split_commas(ls, le, f, 3);
		if (nf != 2) {
			err_at(diag, path, line, NULL, "expected 2 fields (vc,node num), found %d", nf);
			n_err++;
			continue;
		}
		if (f[0].len == 0 || f[0].len >= SIM_NAME_MAX) {
			err_at(diag, path, line, "vc", "expected a VC name of 1 to %d bytes, found '%.*s%s'",
			       SIM_NAME_MAX - 1, SHOW(f[0].p, f[0].len));
			n_err++;
			continue;
		}
		sim_qty_t q;
		if (sim_qty_parse(f[1].p, f[1].len, &q) < 0 || q % SIM_MILLI != 0 ||
		    q / SIM_MILLI > INT32_MAX) {
			err_at(diag, path, line, "node num",
			       "expected a whole number of nodes >= 0, found '%.*s%s'",
			       SHOW(f[1].p, f[1].len));
			n_err++;
			continue;
		}
		memcpy(vcs[n].vc, f[0].p, f[0].len);
		vcs[n].vc[f[0].len] = '\0';
		vcs[n].nodes = (int32_t)(q / SIM_MILLI);
		n++;
	}
	if (n_err) {
		err = -SIM_EPARSE;
		free(vcs);
		goto out_free_buf;
	}
	*out = vcs;
	*n_out = n;
out_free_buf:
	free(buf);
	return err;
}
