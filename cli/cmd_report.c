/* cli/cmd_report.c: gpusched report RESULTS.h5 [--json | --jobs | --queues | --options | --decisions]
 * [--run NAME] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/h5read.h"
#include "../analysis/report.h"
#include "../analysis/report_html.h"
#include "cmd.h"

static const char report_usage[] =
	"usage: gpusched report RESULTS.h5 [--json [--by-variant | --queues | --options] | --jobs |\n"
	"                       --queues | --options | --decisions] [--run NAME]\n"
	"       gpusched report RESULTS.h5 --html OUT.html\n"
	"\n"
	"Prints what a results file (written by gpusched run) holds; names, units and\n"
	"formulas of every value are in analysis/SCHEMA.md.\n"
	"\n"
	"  (default)     a table, one row a run: jobs, completed, wait mean/p50/p95/p99 and\n"
	"                JCT mean/p95 in seconds, utilization in %, mean bounded slowdown.\n"
	"                Seeds are replications: when a variant (a run name without its\n"
	"                \"-s<seed>\") has 2 or more runs, a second table \"replications\"\n"
	"                follows, one row a variant: runs, and \"mean \u00b1 half-width\" of the 95%\n"
	"                confidence interval (Student t over the seeds) of mean wait, p95\n"
	"                wait, mean JCT, utilization and mean bounded slowdown. A real-mode\n"
	"                file (gpusched real) then has a block \"real mode\" a run: backend,\n"
	"                device, time scale, wall time, run time error (mean |measured -\n"
	"                predicted| / predicted over completed segments, %), decision latency\n"
	"                p50/p99 (ms), GPU utilization over the wall time, failed segments\n"
	"  --json        a JSON array, one object a run: run, policy, seed and every\n"
	"                /summary metric by name (jobs, completed, mean_wait_s, p95_wait_s,\n"
	"                mean_jct_s, utilization, cost, fallback_rate, pending_timeout_rate,\n"
	"                mean_cost_per_job, ...); a metric without data is null. In a\n"
	"                real-mode file each object also has \"real\": {backend, device,\n"
	"                time_scale, wall_s, busy_gpu_wall_s, gpu_utilization,\n"
	"                failed_segments, runtime_error, decision_latency_p50_s,\n"
	"                decision_latency_p99_s, jobs, segments, completed_segments,\n"
	"                starts, calibration [{flavor, iter_ns}]}\n"
	"  --by-variant  (implies --json) a JSON array, one object a variant, not a run:\n"
	"                {\"variant\": \"fifo\", \"runs\": 3, \"seeds\": [1, 2, 3],\n"
	"                 \"mean_wait_s\": {\"mean\": 110.0, \"ci95\": 24.8}, ...} for every\n"
	"                metric (ci95: the 95% half-width; 0 for one run; NaN runs left out)\n"
	"  --jobs        per-job CSV with a header row:\n"
	"                run,id,queue,user,flavor,option,gpus,submit_s,start_s,end_s,wait_s,\n"
	"                jct_s,runtime_s,preemptions,status (times in s; missing values empty)\n"
	"  --queues      per-queue table, one block a run, one row a queue: nominal quota\n"
	"                (GPU), jobs, completed, wait mean/p95 (s), busy, borrowed and lent\n"
	"                GPU-hours, hours below nominal with jobs waiting, preemptions\n"
	"                suffered and caused, lost GPU-hours, restore hours, share of the\n"
	"                nominal quota used (%); \"-\" where there is no value (no quota)\n"
	"                With --json: a JSON array, one object a queue row (run, queue and\n"
	"                every field of /runs/<run>/queues by name)\n"
	"  --options     per-option table (fallback: the option each job ran on), one block\n"
	"                a run, one row an option index (0 = the first preference): jobs\n"
	"                started on it, share of started jobs (%), wait mean/p50/p95 (s),\n"
	"                mean runtime there (s), runtime ratio to option 0, mean cost per\n"
	"                job (currency). With --json: a JSON array, one object an option\n"
	"                row (run and every field of /runs/<run>/options by name)\n"
	"  --decisions   preemptions as CSV with a header row: run,time_s,preemptor,victim,\n"
	"                preemptor_queue,victim_queue,reason,requeued,lost_gpu_s (preemptor\n"
	"                empty for a quota shrink; lost work in GPU-seconds)\n"
	"  --run NAME    only the run NAME (also --run=NAME)\n"
	"Options may come before or after RESULTS.h5; -- ends them.\n"
	;
/* Second half of the usage: one literal would pass the 4095 characters C99 promises. */
static const char report_usage_html[] =
	"  --html OUT    one self-contained HTML page for a capacity review: software and\n"
	"                version, seeds, the summary and replications tables, every plot of\n"
	"                gpusched plot inlined as SVG (a note instead when gnuplot is\n"
	"                missing), one per-queue table a run, the config. OUT is written\n"
	"                to a temporary and renamed; it cannot be combined with the others\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input (missing file, not a results file,\n"
	"unsupported schema_version, unknown run)\n";

/* --html OUT: the output is checked first (not the results file, a folder or a
 * device), then the page is written (analysis/report_html.h). */
static int cmd_report_html(const char *path, const char *out)
{
	int rc = cmd_check_output(out, "results file", path);
	if (rc)
		return rc;
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	struct h5read_file *f = NULL;
	int noted = 0;
	int r = h5read_open(path, &f, &diag);
	if (!r) {
		struct report_html_opts o = { .out = out };
		r = report_html(f, &o, &noted, &diag);
	}
	if (r) {
		fprintf(stderr, "gpusched report: ");
		if (diag.count)
			sim_diag_print(&diag, stderr);
		else
			fprintf(stderr, "%s\n", sim_strerror(r));
	} else if (noted) {
		fprintf(stderr, "gpusched report: note: %s has no plots (gnuplot missing or failed)\n", out);
	}
	h5read_close(f);
	sim_diag_fini(&diag);
	return cmd_exit_code(r);
}

static void print_usage(FILE *f)
{
	fputs(report_usage, f);
	fputs(report_usage_html, f);
}

int cmd_report(int argc, char **argv)
{
	const char *path = NULL, *run = NULL, *html = NULL;
	int json = 0, jobs = 0, by_variant = 0, queues = 0, options = 0, decisions = 0;
	enum { O_JSON = 256, O_BYVAR, O_JOBS, O_QUEUES, O_OPTIONS, O_DECISIONS, O_RUN, O_HTML };
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },	     { "json", no_argument, NULL, O_JSON },
		{ "by-variant", no_argument, NULL, O_BYVAR }, { "jobs", no_argument, NULL, O_JOBS },
		{ "queues", no_argument, NULL, O_QUEUES },   { "options", no_argument, NULL, O_OPTIONS },
		{ "decisions", no_argument, NULL, O_DECISIONS }, { "run", required_argument, NULL, O_RUN },
		{ "html", required_argument, NULL, O_HTML },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_usage(stdout);
			return GPUSCHED_EXIT_OK;
		case O_JSON:
			json = 1;
			break;
		case O_BYVAR:
			json = by_variant = 1;
			break;
		case O_JOBS:
			jobs = 1;
			break;
		case O_QUEUES:
			queues = 1;
			break;
		case O_OPTIONS:
			options = 1;
			break;
		case O_DECISIONS:
			decisions = 1;
			break;
		case O_RUN:
			run = optarg;
			break;
		case O_HTML:
			html = optarg;
			break;
		default:
			return cmd_getopt_error("report", report_usage, c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (path)
			return cmd_usage_error("report", report_usage, "unexpected argument '%s'", argv[i]);
		path = argv[i];
	}
	const char *clash = NULL;
	if (jobs + queues + options + decisions > 1)
		clash = "--jobs, --queues, --options and --decisions cannot be combined";
	else if (json && (jobs || decisions))
		clash = "--json cannot be combined with --jobs or --decisions";
	else if (by_variant && (queues || options))
		clash = "--by-variant cannot be combined with --queues or --options";
	else if (html && (json || jobs || queues || options || decisions || run))
		clash = "--html cannot be combined with another view or --run";
	if (!path || clash) {
		return cmd_usage_error("report", report_usage, "%s", path ? clash : "no results file given");
	}
	if (html)
		return cmd_report_html(path, html);
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	struct h5read_file *f = NULL;
	int rc = h5read_open(path, &f, &diag);
	if (!rc) {
		if (json) {
			char *text = NULL;
			rc = by_variant ? report_json_by_variant(f, run, &text, &diag)
			     : queues   ? report_queues_json(f, run, &text, &diag)
			     : options  ? report_options_json(f, run, &text, &diag)
					: report_json(f, run, &text, &diag);
			if (!rc)
				printf("%s\n", text);
			free(text);
		} else if (jobs) {
			rc = report_jobs_csv(f, run, stdout, &diag);
		} else if (queues) {
			rc = report_queues_table(f, run, stdout, &diag);
		} else if (options) {
			rc = report_options_table(f, run, stdout, &diag);
		} else if (decisions) {
			rc = report_decisions_csv(f, run, stdout, &diag);
		} else {
			rc = report_table(f, run, stdout, &diag);
		}
	}
	if (rc) {
		fprintf(stderr, "gpusched report: ");
		if (diag.count)
			sim_diag_print(&diag, stderr);
		else
			fprintf(stderr, "%s\n", sim_strerror(rc));
	}
	h5read_close(f);
	sim_diag_fini(&diag);
	if (cmd_stdout_failed() && !rc) {
		perror("gpusched report: stdout");
		return GPUSCHED_EXIT_RUNTIME;
	}
	return cmd_exit_code(rc);
}
