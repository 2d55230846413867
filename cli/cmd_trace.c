/* cli/cmd_trace.c: gpusched trace validate|stats|import|gen (formats: traces/README.md;
 * gen lives in cmd_trace_gen.c). */
#include <cjson/cJSON.h>
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
	"       gpusched trace stats FILE [--json]\n"
	"       gpusched trace import --format FORMAT IN -o OUT.csv [--skip-bad] [--top-queues K]\n"
	"       gpusched trace gen CONFIG.json -o OUT.csv [--seed S]\n"
	"\n"
	"Checks, describes, converts or generates job traces. The native CSV format and the importers\n"
	"are described in traces/README.md. gpusched trace SUBVERB --help for details.\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input\n";

static const char validate_usage[] =
	"usage: gpusched trace validate FILE\n"
	"\n"
	"Reads a native CSV trace and reports every error with its location\n"
	"(FILE:LINE: column X: expected ..., found '...'; the first 20 are shown and\n"
	"the rest counted). Prints \"FILE: N jobs OK\" when the trace is valid.\n"
	"\n"
	"exit codes: 0 valid, 1 runtime failure, 2 bad input (errors listed)\n";

static const char stats_usage[] =
	"usage: gpusched trace stats FILE [--json]\n"
	"\n"
	"Describes a native CSV trace: job count, submit span, arrival rate per hour,\n"
	"p50/p90/p99/max of duration (s) and GPU count (first option), GPU-hours\n"
	"(duration x GPUs of the first option) and jobs per queue.\n"
	"\n"
	"  --json    one JSON object instead of the table\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input (errors listed)\n";

static const char import_usage[] =
	"usage: gpusched trace import --format FORMAT IN -o OUT.csv [--skip-bad] [--top-queues K]\n"
	"                             [--queue-from user|queue|group]\n"
	"\n"
	"Converts a public trace to the native CSV format, a line at a time (IN may be\n"
	"gzip-compressed). OUT.csv is written under OUT.csv.tmp and renamed when complete;\n"
	"on any error nothing is left behind. Mappings are in traces/README.md.\n"
	"\n"
	"  --format FORMAT   one of the formats below (required)\n"
	"  -o OUT.csv        output file (required)\n"
	"  --skip-bad        drop bad rows and print their counts by reason (also written\n"
	"                    as '#' lines atop OUT.csv); default: the first bad row is an\n"
	"                    error (FILE:LINE: column C: expected ..., found ...), exit 2\n"
	"  --top-queues K    the K tenants (VCs, users, ...) with most GPU-hours keep their\n"
	"                    queue name, the rest go to queue 'other'\n"
	"  --queue-from KIND swf only: queue = user (field 12, default), queue (15) or group (13)\n"
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

static int bad_arg(const char *verb, const char *arg, const char *usage)
{
	fprintf(stderr, "gpusched trace %s: unexpected argument '%s'\n%s", verb, arg, usage);
	return GPUSCHED_EXIT_BADINPUT;
}

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
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(validate_usage, stdout);
			return GPUSCHED_EXIT_OK;
		}
		if (argv[i][0] == '-' || path)
			return bad_arg("validate", argv[i], validate_usage);
		path = argv[i];
	}
	if (!path) {
		fputs(validate_usage, stderr);
		return GPUSCHED_EXIT_BADINPUT;
	}
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

static int trace_stats(int argc, char **argv)
{
	const char *path = NULL;
	int json = 0;
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			fputs(stats_usage, stdout);
			return GPUSCHED_EXIT_OK;
		}
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (argv[i][0] == '-' || path)
			return bad_arg("stats", argv[i], stats_usage);
		else
			path = argv[i];
	}
	if (!path) {
		fputs(stats_usage, stderr);
		return GPUSCHED_EXIT_BADINPUT;
	}
	struct sim_trace *t = NULL;
	int rc = load(path, &t);
	if (rc)
		return rc;

	size_t n = t->n_jobs, n_prefs = 0;
	double *dur = malloc((n ? n : 1) * sizeof *dur);
	double *gpu = malloc((n ? n : 1) * sizeof *gpu);
	size_t *per_queue = calloc(t->n_queues ? t->n_queues : 1, sizeof *per_queue);
	rc = GPUSCHED_EXIT_RUNTIME;
	if (!dur || !gpu || !per_queue) {
		fprintf(stderr, "gpusched trace stats: %s\n", sim_strerror(-SIM_ENOMEM));
		goto out_free;
	}
	double gpu_s = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sim_job *j = &t->jobs[i];
		dur[i] = sim_time_to_s(j->duration_ns);
		gpu[i] = (double)sim_job_opt(t, j, 0)->req[SIM_RES_GPU] / SIM_MILLI;
		gpu_s += dur[i] * gpu[i];
		per_queue[j->queue]++;
		n_prefs += j->has_prefs;
	}
	/* Jobs are sorted by submit time. */
	double first_s = n ? sim_time_to_s(t->jobs[0].submit_ns) : NAN;
	double last_s = n ? sim_time_to_s(t->jobs[n - 1].submit_ns) : NAN;
	double span_s = n ? last_s - first_s : NAN;
	double rate_h = n && span_s > 0 ? (double)n / (span_s / 3600.0) : NAN;
	struct quant qd = quantiles(dur, n), qg = quantiles(gpu, n);

	if (json) {
		cJSON *o = cJSON_CreateObject(), *qs;
		if (!o)
			goto out_free;
		cJSON_AddStringToObject(o, "path", path);
		cJSON_AddNumberToObject(o, "jobs", (double)n);
		cJSON_AddNumberToObject(o, "jobs_with_prefs", (double)n_prefs);
		cJSON_AddNumberToObject(o, "first_submit_s", first_s);
		cJSON_AddNumberToObject(o, "last_submit_s", last_s);
		cJSON_AddNumberToObject(o, "span_s", span_s);
		cJSON_AddNumberToObject(o, "arrival_rate_per_h", rate_h);
		cJSON_AddItemToObject(o, "duration_s", quant_json(qd));
		cJSON_AddItemToObject(o, "gpus", quant_json(qg));
		cJSON_AddNumberToObject(o, "gpu_hours", gpu_s / 3600.0);
		qs = cJSON_AddObjectToObject(o, "queues");
		for (size_t q = 0; qs && q < t->n_queues; q++)
			cJSON_AddNumberToObject(qs, t->queues[q], (double)per_queue[q]);
		char *s = cJSON_Print(o);
		cJSON_Delete(o);
		if (!s)
			goto out_free;
		printf("%s\n", s);
		free(s);
	} else if (!n) {
		printf("trace            %s\n", path);
		printf("jobs             0\n");
	} else {
		printf("trace            %s\n", path);
		printf("jobs             %zu (%zu with a preference list)\n", n, n_prefs);
		printf("submit span      %.0f s (%.2f h), first %.0f s, last %.0f s\n", span_s,
		       span_s / 3600.0, first_s, last_s);
		printf("arrival rate     %.2f jobs/h\n", rate_h);
		printf("                 %12s %12s %12s %12s\n", "p50", "p90", "p99", "max");
		printf("duration_s       %12.1f %12.1f %12.1f %12.1f\n", qd.p50, qd.p90, qd.p99, qd.max);
		printf("gpus             %12.3g %12.3g %12.3g %12.3g\n", qg.p50, qg.p90, qg.p99, qg.max);
		printf("gpu_hours        %.1f\n", gpu_s / 3600.0);
		printf("queues           %zu\n", t->n_queues);
		for (size_t q = 0; q < t->n_queues; q++)
			printf("  %-24s %zu\n", t->queues[q], per_queue[q]);
	}
	rc = GPUSCHED_EXIT_OK;
out_free:
	free(per_queue);
	free(gpu);
	free(dur);
	sim_trace_destroy(t);
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
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			print_import_usage(stdout);
			return GPUSCHED_EXIT_OK;
		}
		if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
			format = argv[++i];
		} else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			out = argv[++i];
		} else if (strcmp(argv[i], "--skip-bad") == 0) {
			opts.skip_bad = 1;
		} else if (strcmp(argv[i], "--top-queues") == 0 && i + 1 < argc) {
			if (parse_top_queues(argv[++i], &opts.top_queues) < 0) {
				fprintf(stderr,
					"gpusched trace import: --top-queues: expected a whole number "
					"in 1..1000000, found '%s'\n",
					argv[i]);
				return GPUSCHED_EXIT_BADINPUT;
			}
		} else if (strcmp(argv[i], "--queue-from") == 0 && i + 1 < argc) {
			if (parse_queue_from(argv[++i], &opts.queue_from) < 0) {
				fprintf(stderr,
					"gpusched trace import: --queue-from: expected user, queue or group, "
					"found '%s'\n",
					argv[i]);
				return GPUSCHED_EXIT_BADINPUT;
			}
		} else if (argv[i][0] == '-' || in) {
			fprintf(stderr, "gpusched trace import: unexpected argument '%s'\n", argv[i]);
			print_import_usage(stderr);
			return GPUSCHED_EXIT_BADINPUT;
		} else {
			in = argv[i];
		}
	}
	if (!format || !in || !out) {
		fprintf(stderr, "gpusched trace import: expected --format, IN and -o OUT\n");
		print_import_usage(stderr);
		return GPUSCHED_EXIT_BADINPUT;
	}
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
	if (argc < 2) {
		fputs(trace_usage, stderr);
		return GPUSCHED_EXIT_BADINPUT;
	}
	if (is_help(argv[1])) {
		fputs(trace_usage, stdout);
		return GPUSCHED_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
		if (strcmp(argv[1], subs[i].name) == 0)
			return subs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "gpusched trace: unknown sub-verb '%s'\n%s", argv[1], trace_usage);
	return GPUSCHED_EXIT_BADINPUT;
}
