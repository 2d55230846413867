/* cli/cmd_trace.c: gpusched trace validate|stats|import|gen (formats: traces/README.md;
 * gen lives in cmd_trace_gen.c). */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/job.h"
#include "../traces/import.h"
#include "../traces/native.h"
#include "cmd.h"

static const char trace_usage[] =
	"usage: gpusched trace validate FILE\n"
	"       gpusched trace stats FILE [OTHER.csv] [--json]\n"
	"       gpusched trace import --format FORMAT IN -o OUT.csv [--skip-bad] [--top-queues K]\n"
	"       gpusched trace gen CONFIG.json -o OUT.csv [--seed S]\n"
	"\n"
	"Checks, describes, converts or generates job traces. The native CSV format and the importers\n"
	"are described in traces/README.md. gpusched trace SUBVERB --help for details. Each\n"
	"sub-verb takes its options before or after its files, --opt=VALUE as well as --opt VALUE\n"
	"(-oFILE and --output for -o); -- ends the options.\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input\n";

static const char validate_usage[] =
	"usage: gpusched trace validate FILE\n"
	"       (-- ends the options)\n"
	"\n"
	"Reads a native CSV trace and reports every error with its location\n"
	"(FILE:LINE: column X: expected ..., found '...'; the first 20 are shown and\n"
	"the rest counted). Prints \"FILE: N jobs OK\" when the trace is valid.\n"
	"\n"
	"exit codes: 0 valid, 1 runtime failure, 2 bad input (errors listed)\n";

static const char stats_usage[] =
	"usage: gpusched trace stats FILE [OTHER.csv] [--json]\n"
	"       (options may come before or after the files; -- ends the options)\n"
	"\n"
	"Describes a native CSV trace: job count, submit span, arrival rate per hour,\n"
	"p50/p90/p99/max of duration (s) and GPU count (first option), GPU-hours\n"
	"(duration x GPUs of the first option), the load by hour of day (share of the jobs\n"
	"and of the GPU-hours submitted in each hour of trace time mod 24 h) and the demand\n"
	"by queue (jobs and GPU-hours). With two traces (a generated one against a real\n"
	"one, say), both side by side.\n"
	"\n"
	"  --json    one JSON object instead of the table (two traces: an array of two)\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input (errors listed)\n";

static const char import_usage[] =
	"usage: gpusched trace import --format FORMAT IN -o OUT.csv [--skip-bad] [--top-queues K]\n"
	"                             [--queue-from user|queue|group]\n"
	"       (options may come before or after IN; -oOUT.csv, --output OUT.csv,\n"
	"       --output=OUT.csv and --format=FORMAT work too; -- ends the options)\n"
	"\n"
	"Converts a public trace to the native CSV format, a line at a time (IN may be\n"
	"gzip-compressed). OUT.csv is written under OUT.csv.tmp and renamed when complete;\n"
	"on any error nothing is left behind. Mappings are in traces/README.md.\n"
	"\n"
	"  --format FORMAT   one of the formats below (required)\n"
	"  -o, --output OUT.csv  output file (required)\n"
	"  --skip-bad        drop bad rows and print their counts by reason (also written\n"
	"                    as '#' lines atop OUT.csv); default: the first bad row is an\n"
	"                    error (FILE:LINE: column C: expected ..., found ...), exit 2\n"
	"  --top-queues K    the K tenants (VCs, users, ...) with most GPU-hours keep their\n"
	"                    queue name, the rest go to queue 'other'\n"
	"  --queue-from KIND swf: queue = user (field 12, default), queue (15) or group (13);\n"
	"                    helios: vc (default) or user\n"
	"\n"
	"formats:\n"
	"%s"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input (errors listed)\n";

/* import_usage with the registry's formats filled in. */
static void print_import_usage(FILE *f)
{
	char list[2048] = "";
	size_t n, used = 0;
	const struct trace_importer *imp = trace_importers(&n);
	for (size_t i = 0; i < n && used < sizeof list; i++) {
		int w = snprintf(list + used, sizeof list - used, "  %-16s  %s\n", imp[i].name,
				 imp[i].summary);
		used += w > 0 ? (size_t)w : 0;
	}
	fprintf(f, import_usage, list);
}

static int is_help(const char *a) { return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0; }

static const struct option help_only[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Loads FILE, printing the errors; returns 0 or the exit code. */
static int load(const char *path, struct sim_trace **t)
{
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	int rc = trace_native_read(path, t, &diag);
	if (rc) {
		sim_diag_print(&diag, stderr);
		if (!diag.count)
			fprintf(stderr, "%s: %s\n", path, sim_strerror(rc));
	}
	sim_diag_fini(&diag);
	return rc ? cmd_exit_code(rc) : 0;
}

static int trace_validate(int argc, char **argv)
{
	const char *path = NULL;
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", help_only, NULL)) != -1) {
		if (c != 'h')
			return cmd_getopt_error("trace validate", validate_usage, c, argv);
		fputs(validate_usage, stdout);
		return GPUSCHED_EXIT_OK;
	}
	for (int i = optind; i < argc; i++) {
		if (path)
			return cmd_usage_error("trace validate", validate_usage, "unexpected argument '%s'", argv[i]);
		path = argv[i];
	}
	if (!path)
		return cmd_usage_error("trace validate", validate_usage, "no trace file given");
	struct sim_trace *t = NULL;
	int rc = load(path, &t);
	if (rc)
		return rc;
	printf("%s: %zu jobs OK\n", path, t->n_jobs);
	sim_trace_destroy(t);
	return GPUSCHED_EXIT_OK;
}

struct quant {
	double p50, p90, p99, max;
};

/* Quantiles of v[0..n) (sorted in place by gsl_sort); NaN when n == 0. */
static struct quant quantiles(double *v, size_t n)
{
	struct quant q = { NAN, NAN, NAN, NAN };
	if (!n)
		return q;
	gsl_sort(v, 1, n);
	q.p50 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.50);
	q.p90 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.90);
	q.p99 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.99);
	q.max = v[n - 1];
	return q;
}

static cJSON *quant_json(struct quant q)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	/* NaN (empty trace) becomes null: cJSON prints non-finite numbers as null. */
	cJSON_AddNumberToObject(o, "p50", q.p50);
	cJSON_AddNumberToObject(o, "p90", q.p90);
	cJSON_AddNumberToObject(o, "p99", q.p99);
	cJSON_AddNumberToObject(o, "max", q.max);
	return o;
}

/* What `trace stats` reports of one trace. Hours of day are trace time mod 24 h
 * (a trace's time 0 is its first submit unless the format keeps wall-clock time). */
struct tstats {
	const char *path;
	struct sim_trace *t;
	size_t n, n_prefs;
	double first_s, last_s, span_s, rate_h, gpu_h;
	struct quant dur, gpu;
	double jobs_by_hour[24], gpu_h_by_hour[24];
	size_t *q_jobs;  /* per queue */
	double *q_gpu_h; /* per queue: GPU-hours submitted (duration x GPUs, first option) */
};

static void tstats_free(struct tstats *s)
{
	free(s->q_jobs);
	free(s->q_gpu_h);
	sim_trace_destroy(s->t);
}

/* Loads and describes one trace. Returns 0 or an exit code (errors printed). */
static int tstats_make(const char *path, struct tstats *s)
{
	memset(s, 0, sizeof *s);
	s->path = path;
	int rc = load(path, &s->t);
	if (rc)
		return rc;
	const struct sim_trace *t = s->t;
	size_t n = s->n = t->n_jobs, nq = t->n_queues ? t->n_queues : 1;
	double *dur = malloc((n ? n : 1) * sizeof *dur), *gpu = malloc((n ? n : 1) * sizeof *gpu);
	s->q_jobs = calloc(nq, sizeof *s->q_jobs);
	s->q_gpu_h = calloc(nq, sizeof *s->q_gpu_h);
	if (!dur || !gpu || !s->q_jobs || !s->q_gpu_h) {
		free(dur);
		free(gpu);
		fprintf(stderr, "gpusched trace stats: %s\n", sim_strerror(-SIM_ENOMEM));
		return GPUSCHED_EXIT_RUNTIME;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sim_job *j = &t->jobs[i];
		dur[i] = sim_time_to_s(j->duration_ns);
		gpu[i] = (double)sim_job_opt(t, j, 0)->req[SIM_RES_GPU] / SIM_MILLI;
		double gh = dur[i] * gpu[i] / 3600.0;
		int hour = (int)((j->submit_ns / SIM_NS_PER_S) % 86400 / 3600);
		s->gpu_h += gh;
		s->q_jobs[j->queue]++;
		s->q_gpu_h[j->queue] += gh;
		s->jobs_by_hour[hour] += 1;
		s->gpu_h_by_hour[hour] += gh;
		s->n_prefs += j->has_prefs;
	}
	/* Jobs are sorted by submit time. */
	s->first_s = n ? sim_time_to_s(t->jobs[0].submit_ns) : NAN;
	s->last_s = n ? sim_time_to_s(t->jobs[n - 1].submit_ns) : NAN;
	s->span_s = n ? s->last_s - s->first_s : NAN;
	s->rate_h = n && s->span_s > 0 ? (double)n / (s->span_s / 3600.0) : NAN;
	s->dur = quantiles(dur, n);
	s->gpu = quantiles(gpu, n);
	free(dur);
	free(gpu);
	return 0;
}

static cJSON *tstats_json(const struct tstats *s)
{
	cJSON *o = cJSON_CreateObject(), *qs, *hours;
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "path", s->path);
	cJSON_AddNumberToObject(o, "jobs", (double)s->n);
	cJSON_AddNumberToObject(o, "jobs_with_prefs", (double)s->n_prefs);
	cJSON_AddNumberToObject(o, "first_submit_s", s->first_s);
	cJSON_AddNumberToObject(o, "last_submit_s", s->last_s);
	cJSON_AddNumberToObject(o, "span_s", s->span_s);
	cJSON_AddNumberToObject(o, "arrival_rate_per_h", s->rate_h);
	cJSON_AddItemToObject(o, "duration_s", quant_json(s->dur));
	cJSON_AddItemToObject(o, "gpus", quant_json(s->gpu));
	cJSON_AddNumberToObject(o, "gpu_hours", s->gpu_h);
	qs = cJSON_AddObjectToObject(o, "queues");
	for (size_t q = 0; qs && q < s->t->n_queues; q++) {
		cJSON *e = cJSON_AddObjectToObject(qs, s->t->queues[q]);
		if (!e)
			continue;
		cJSON_AddNumberToObject(e, "jobs", (double)s->q_jobs[q]);
		cJSON_AddNumberToObject(e, "gpu_hours", s->q_gpu_h[q]);
	}
	hours = cJSON_AddArrayToObject(o, "by_hour_of_day");
	for (int h = 0; hours && h < 24; h++) {
		cJSON *e = cJSON_CreateObject();
		if (!e)
			continue;
		cJSON_AddNumberToObject(e, "hour", h);
		cJSON_AddNumberToObject(e, "jobs", s->jobs_by_hour[h]);
		cJSON_AddNumberToObject(e, "gpu_hours", s->gpu_h_by_hour[h]);
		cJSON_AddItemToArray(hours, e);
	}
	return o;
}

/* Share of x[h] in the sum of x[0..24), in %. */
static double hour_share(const double *x, int h)
{
	double sum = 0;
	for (int k = 0; k < 24; k++)
		sum += x[k];
	return sum > 0 ? 100.0 * x[h] / sum : NAN;
}

/* One table, a column a trace (one or two). */
static void tstats_print(const struct tstats *s, size_t k)
{
	printf("%-22s", "trace");
	for (size_t i = 0; i < k; i++)
		printf(" %24s", s[i].path);
	printf("\n");
#define ROW(label, fmt, expr)                                   \
	do {                                                    \
		printf("%-22s", label);                         \
		for (size_t i = 0; i < k; i++)                  \
			printf(" %24" fmt, (expr));             \
		printf("\n");                                   \
	} while (0)
	ROW("jobs", "zu", s[i].n);
	ROW("with preference list", "zu", s[i].n_prefs);
	ROW("submit span (h)", ".2f", s[i].span_s / 3600.0);
	ROW("arrival rate (jobs/h)", ".2f", s[i].rate_h);
	ROW("duration p50 (s)", ".1f", s[i].dur.p50);
	ROW("duration p90 (s)", ".1f", s[i].dur.p90);
	ROW("duration p99 (s)", ".1f", s[i].dur.p99);
	ROW("duration max (s)", ".1f", s[i].dur.max);
	ROW("gpus p50", ".3g", s[i].gpu.p50);
	ROW("gpus p90", ".3g", s[i].gpu.p90);
	ROW("gpus p99", ".3g", s[i].gpu.p99);
	ROW("gpus max", ".3g", s[i].gpu.max);
	ROW("gpu-hours", ".1f", s[i].gpu_h);
	ROW("queues", "zu", s[i].t->n_queues);
	printf("\nload by hour of day (trace time mod 24 h): %% of jobs / %% of GPU-hours submitted\n");
	for (int h = 0; h < 24; h++) {
		printf("  %02d:00%14s", h, "");
		for (size_t i = 0; i < k; i++)
			printf(" %11.1f / %10.1f", hour_share(s[i].jobs_by_hour, h), hour_share(s[i].gpu_h_by_hour, h));
		printf("\n");
	}
#undef ROW
	for (size_t i = 0; i < k; i++) {
		printf("\ndemand by queue in %s: jobs, GPU-hours\n", s[i].path);
		for (size_t q = 0; q < s[i].t->n_queues; q++)
			printf("  %-24s %10zu %14.1f\n", s[i].t->queues[q], s[i].q_jobs[q], s[i].q_gpu_h[q]);
	}
}

static int trace_stats(int argc, char **argv)
{
	const char *paths[2] = { NULL, NULL };
	size_t k = 0;
	int json = 0;
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(stats_usage, stdout);
			return GPUSCHED_EXIT_OK;
		case 'j':
			json = 1;
			break;
		default:
			return cmd_getopt_error("trace stats", stats_usage, c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (k == 2)
			return cmd_usage_error("trace stats", stats_usage, "unexpected argument '%s'", argv[i]);
		paths[k++] = argv[i];
	}
	if (!k)
		return cmd_usage_error("trace stats", stats_usage, "no trace file given");
	struct tstats s[2];
	memset(s, 0, sizeof s);
	int rc = 0;
	for (size_t i = 0; i < k && !rc; i++)
		rc = tstats_make(paths[i], &s[i]);
	if (rc)
		goto out;
	rc = GPUSCHED_EXIT_RUNTIME;
	if (json) {
		/* one object for one trace, an array of two for a comparison */
		cJSON *o = k == 1 ? tstats_json(&s[0]) : cJSON_CreateArray();
		for (size_t i = 0; o && k == 2 && i < k; i++)
			cJSON_AddItemToArray(o, tstats_json(&s[i]));
		char *txt = o ? cJSON_Print(o) : NULL;
		cJSON_Delete(o);
		if (!txt)
			goto out;
		printf("%s\n", txt);
		free(txt);
	} else {
		tstats_print(s, k);
	}
	rc = GPUSCHED_EXIT_OK;
out:
	for (size_t i = 0; i < k; i++)
		tstats_free(&s[i]);
	return rc;
}

/* Parses the value of --top-queues: a whole number >= 1. */
static int parse_top_queues(const char *s, size_t *k)
{
	char *end;
	if (!*s || *s < '0' || *s > '9')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || v < 1 || v > 1000000)
		return -1;
	*k = (size_t)v;
	return 0;
}

static int parse_queue_from(const char *s, enum trace_queue_from *q)
{
	static const struct {
		const char *name;
		enum trace_queue_from v;
	} kinds[] = { { "user", TRACE_QUEUE_USER },
		      { "queue", TRACE_QUEUE_QUEUE },
		      { "group", TRACE_QUEUE_GROUP } };
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(s, kinds[i].name) == 0) {
			*q = kinds[i].v;
			return 0;
		}
	return -1;
}

static void print_import_summary(const char *in, const char *out, const struct trace_import_result *res)
{
	char why[1024];
	trace_import_reasons_str(res, 0, why, sizeof why);
	printf("%s: %zu rows in, %zu jobs out, %zu dropped (%s)%s%s\n", in, res->rows_read, res->rows_written,
	       res->rows_dropped, res->n_reasons ? why : "none", res->note[0] ? ", " : "", res->note);
	size_t bad = trace_import_bad_count(res);
	if (bad) {
		trace_import_reasons_str(res, 1, why, sizeof why);
		printf("skipped bad rows: %zu (%s)\n", bad, why);
	}
	printf("GPU-hours in %.3f, out %.3f; tenants %zu, queues out %zu\n", res->gpu_hours_in,
	       res->gpu_hours_out, res->tenants_in, res->queues_out);
	printf("wrote %s\n", out);
}

static int trace_import_cmd(int argc, char **argv)
{
	const char *format = NULL, *in = NULL, *out = NULL;
	struct trace_import_opts opts = { 0 };
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },	      { "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },   { "skip-bad", no_argument, NULL, 's' },
		{ "top-queues", required_argument, NULL, 't' }, { "queue-from", required_argument, NULL, 'Q' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_import_usage(stdout);
			return GPUSCHED_EXIT_OK;
		case 'f':
			format = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 's':
			opts.skip_bad = 1;
			break;
		case 't':
			if (parse_top_queues(optarg, &opts.top_queues) < 0)
				return cmd_usage_error("trace import", import_usage,
						       "--top-queues: expected a whole number in 1..1000000, found '%s'",
						       optarg);
			break;
		case 'Q':
			if (parse_queue_from(optarg, &opts.queue_from) < 0)
				return cmd_usage_error("trace import", import_usage,
						       "--queue-from: expected user, queue or group, found '%s'", optarg);
			break;
		default:
			return cmd_getopt_error("trace import", import_usage, c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (in)
			return cmd_usage_error("trace import", import_usage, "unexpected argument '%s'", argv[i]);
		in = argv[i];
	}
	if (!format || !in || !out)
		return cmd_usage_error("trace import", import_usage, "expected --format, IN and -o OUT");
	if (cmd_check_output(out, "trace", in))
		return GPUSCHED_EXIT_BADINPUT;
	struct sim_diag diag;
	struct trace_import_result res;
	memset(&res, 0, sizeof res);
	sim_diag_init(&diag, 20);
	int rc = trace_import(format, in, out, &opts, &res, &diag);
	if (rc) {
		sim_diag_print(&diag, stderr);
		if (!diag.count)
			fprintf(stderr, "gpusched trace import: %s\n", sim_strerror(rc));
	} else {
		print_import_summary(in, out, &res);
	}
	sim_diag_fini(&diag);
	return cmd_exit_code(rc);
}

int cmd_trace(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} subs[] = {
		{ "validate", trace_validate },
		{ "stats", trace_stats },
		{ "import", trace_import_cmd },
		{ "gen", cmd_trace_gen },
	};
	if (argc < 2)
		return cmd_usage_error("trace", trace_usage, "expected a sub-verb: validate, stats, import or gen");
	if (is_help(argv[1])) {
		fputs(trace_usage, stdout);
		return GPUSCHED_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
		if (strcmp(argv[1], subs[i].name) == 0)
			return subs[i].fn(argc - 1, argv + 1);
	return cmd_usage_error("trace", trace_usage, "unknown sub-verb '%s'", argv[1]);
}
