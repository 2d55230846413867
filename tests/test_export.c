/* tests/test_export.c: schema 1.5 describes its runs (read back with the project's
 * reader), and gpusched export of every table of a 3-variant, 2-seed sweep: row
 * counts, columns, swept values; bad arguments exit 2 and write nothing; files of
 * earlier schemas (1.4; 1.6, whose jobs table is compound) still read. */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

#include "../analysis/export.h"
#include "../analysis/h5read.h"
#include "testutil.h"

/* tests/data/configs/sweep3x2.json: nodes [1, 2, 4] x order ["easy_backfill"], seeds 1, 2. */
#define SWEEP_CONFIG TEST_DATA_DIR "/configs/sweep3x2.json"
#define OLD_FILE TEST_DATA_DIR "/results/schema14_sweep.h5"
/* The same sweep as SWEEP_CONFIG written by the 1.6 writer (jobs a compound table). */
#define FILE_16 TEST_DATA_DIR "/results/schema16_sweep.h5"
#define N_RUNS 6
#define N_JOBS 20 /* the sample trace */
#define NODES_PARAM "cluster.flavors[0].nodes"

static char sweep_h5[512], merged_h5[512];

/* The sweep, once in this process and once on 2 worker processes (merged parts). */
static int init_export(void)
{
	snprintf(sweep_h5, sizeof sweep_h5, "%s/sweep3x2.h5", tu_tmpdir());
	snprintf(merged_h5, sizeof merged_h5, "%s/sweep3x2_j2.h5", tu_tmpdir());
	char args[1200], *txt = NULL;
	snprintf(args, sizeof args, "run %s -q -j 2 -o %s", SWEEP_CONFIG, merged_h5);
	int rc = tu_run_gpusched(args, &txt);
	if (rc)
		fprintf(stderr, "%s", txt ? txt : "");
	free(txt);
	return rc || tu_run_config(SWEEP_CONFIG, sweep_h5, NULL) ? -1 : 0;
}

static int clean_export(void) { return 0; }

/* The variant of run i (variants outer, seeds inner) and its node count. */
static const char *const variant_of[N_RUNS] = { "1_easy_backfill", "1_easy_backfill", "2_easy_backfill",
						"2_easy_backfill", "4_easy_backfill", "4_easy_backfill" };
static const double nodes_of[N_RUNS] = { 1, 1, 2, 2, 4, 4 };

static double expected_nodes(const char *variant)
{
	return variant[0] - '0';
}

/* Every run's variant and swept values, by the reader: /summary and run attributes. */
static void check_swept_values(const char *path)
{
	struct sim_diag d;
	sim_diag_init(&d, 8);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	CU_ASSERT_STRING_EQUAL(h5read_root_attr(f, "schema_version"), "2.1");
	struct h5read_summary s;
	CU_ASSERT_EQUAL_FATAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT_EQUAL_FATAL(s.n_rows, N_RUNS);
	CU_ASSERT_EQUAL_FATAL(s.n_params, 2);
	CU_ASSERT_STRING_EQUAL(s.param[0], NODES_PARAM);
	CU_ASSERT_STRING_EQUAL(s.param[1], "policies.order");
	CU_ASSERT(s.param_numeric[0] && !s.param_numeric[1]);
	/* Swept values and names are keys, not metrics. */
	CU_ASSERT_EQUAL(h5read_summary_field(&s, NODES_PARAM), -1);
	CU_ASSERT_EQUAL(h5read_summary_field(&s, "variant"), -1);
	for (size_t i = 0; i < N_RUNS; i++) {
		CU_ASSERT_STRING_EQUAL(s.variant[i], variant_of[i]);
		CU_ASSERT_EQUAL(s.seed[i], (uint64_t)(i % 2 + 1));
		CU_ASSERT_EQUAL(s.param_num[i * 2], nodes_of[i]);
		CU_ASSERT_STRING_EQUAL(s.param_str[i * 2 + 1], "easy_backfill");
		CU_ASSERT(isnan(s.param_num[i * 2 + 1]));
		CU_ASSERT_EQUAL(h5read_summary_get(&s, i, "jobs"), N_JOBS);
		/* The same values as attributes of the run group. */
		double nodes = NAN;
		char *str = NULL;
		CU_ASSERT_EQUAL(h5read_run_attr_num(f, s.run[i], NODES_PARAM, &nodes, &d), 0);
		CU_ASSERT_EQUAL(nodes, nodes_of[i]);
		CU_ASSERT_EQUAL(h5read_run_attr_str(f, s.run[i], "variant", &str, &d), 0);
		CU_ASSERT(str && strcmp(str, variant_of[i]) == 0);
		free(str);
		static const char *const pol[][2] = { { "policy_order", "easy_backfill" }, { "policy_quota", "none" },
						      { "policy_preemption", "none" }, { "policy_fallback", "strict" },
						      { "placement", "best_fit" }, { "policies.order", "easy_backfill" } };
		for (size_t k = 0; k < sizeof pol / sizeof pol[0]; k++) {
			CU_ASSERT_EQUAL(h5read_run_attr_str(f, s.run[i], pol[k][0], &str, &d), 0);
			CU_ASSERT(str && strcmp(str, pol[k][1]) == 0);
			free(str);
		}
	}
	/* /sweep lists the parameters and the variants. */
	char **v = NULL;
	size_t n = 0;
	CU_ASSERT_EQUAL(h5read_strings_attr(f, "/sweep", "variants", &v, &n, &d), 0);
	CU_ASSERT(n == 3 && v && strcmp(v[0], "1_easy_backfill") == 0 && strcmp(v[2], "4_easy_backfill") == 0);
	h5read_strings_free(v);
	CU_ASSERT_EQUAL(h5read_strings_attr(f, "/sweep", "params", &v, &n, &d), 0);
	CU_ASSERT(n == 2 && v && strcmp(v[0], NODES_PARAM) == 0);
	h5read_strings_free(v);
	h5read_summary_free(&s);
	h5read_close(f);
	sim_diag_fini(&d);
}

static void test_export_reader_sees_swept_values(void)
{
	check_swept_values(sweep_h5);
	check_swept_values(merged_h5);
}

/* t_s is the dimension scale of the series, in the merged file too (relinked after
 * the copy of each run). */
static void test_export_timeseries_scales(void)
{
	const char *paths[] = { sweep_h5, merged_h5 };
	for (size_t p = 0; p < 2; p++) {
		hid_t f = H5Fopen(paths[p], H5F_ACC_RDONLY, H5P_DEFAULT);
		CU_ASSERT_FATAL(f >= 0);
		hid_t d = H5Dopen2(f, "/runs/4_easy_backfill-s2/timeseries/queue_usage", H5P_DEFAULT);
		hid_t t = H5Dopen2(f, "/runs/4_easy_backfill-s2/timeseries/t_s", H5P_DEFAULT);
		hid_t q = H5Dopen2(f, "/runs/4_easy_backfill-s2/timeseries/queue", H5P_DEFAULT);
		CU_ASSERT_FATAL(d >= 0 && t >= 0 && q >= 0);
		CU_ASSERT(H5DSis_scale(t) > 0);
		CU_ASSERT(H5DSis_attached(d, t, 0) > 0);
		CU_ASSERT(H5DSis_attached(d, q, 1) > 0);
		char name[16] = "";
		CU_ASSERT(H5DSget_scale_name(t, name, sizeof name) > 0 && strcmp(name, "t_s") == 0);
		H5Dclose(q);
		H5Dclose(t);
		H5Dclose(d);
		H5Fclose(f);
	}
}

/* ---- export ---- */

/* Lines of a text (each ends in '\n'). */
static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* Fields of a line up to its end (no quoted separators in these files). */
static size_t count_fields(const char *line, char sep)
{
	size_t n = 1;
	for (; *line && *line != '\n'; line++)
		n += *line == sep;
	return n;
}

/* 1 when every line has as many fields as the first. */
static int rectangular(const char *s, char sep)
{
	size_t w = count_fields(s, sep);
	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (*l && count_fields(l, sep) != w)
			return 0;
	return 1;
}

/* The expected header: the key columns, then the table's fields in file order
 * (for /summary less those key fields), as the reader lists them. */
static void expected_header(const char *table, char *buf, size_t n)
{
	struct sim_diag d;
	sim_diag_init(&d, 4);
	struct h5read_file *f = NULL;
	snprintf(buf, n, "run,variant,seed," NODES_PARAM ",policies.order");
	if (strcmp(table, "timeseries") == 0) {
		snprintf(buf + strlen(buf), n - strlen(buf),
			 ",t_s,gpus_busy,jobs_queued,jobs_running,gpus_busy_by_flavor[v100],queue_usage[research],"
			 "queue_usage[prod]");
		return;
	}
	char path[256];
	if (strcmp(table, "summary") == 0)
		snprintf(path, sizeof path, "/summary");
	else
		snprintf(path, sizeof path, "/runs/1_easy_backfill-s1/%s", table);
	struct h5read_rows t;
	if (h5read_open(sweep_h5, &f, &d) == 0 && h5read_each_row(f, path, &t, NULL, NULL, &d) == 0) {
		for (size_t k = 0; k < t.n_fields; k++) {
			const char *fl = t.field[k];
			int key = strcmp(table, "summary") == 0 &&
				  (!strcmp(fl, "run") || !strcmp(fl, "variant") || !strcmp(fl, "seed") ||
				   !strcmp(fl, NODES_PARAM) || !strcmp(fl, "policies.order"));
			if (!key)
				snprintf(buf + strlen(buf), n - strlen(buf), ",%s", fl);
		}
		h5read_rows_free(&t);
	}
	h5read_close(f);
	sim_diag_fini(&d);
}

/* Samples of every run's series (the timeseries table has one row each). */
static size_t total_samples(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 4);
	struct h5read_file *f = NULL;
	size_t n = 0;
	if (h5read_open(sweep_h5, &f, &d) == 0)
		for (size_t i = 0; i < h5read_n_runs(f); i++) {
			struct h5read_timeseries ts;
			if (h5read_timeseries(f, h5read_run_name(f, i), &ts, &d) == 0)
				n += ts.n;
			h5read_timeseries_free(&ts);
		}
	h5read_close(f);
	sim_diag_fini(&d);
	return n;
}

/* Every data line's swept node count agrees with its variant (column 2 and 4). */
static int swept_columns_agree(const char *csv)
{
	const char *l = strchr(csv, '\n');
	int ok = 1;
	for (l = l ? l + 1 : NULL; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char run[64], variant[64], nodes[16];
		unsigned long long seed;
		if (sscanf(l, "%63[^,],%63[^,],%llu,%15[^,],", run, variant, &seed, nodes) != 4)
			return 0;
		ok = ok && atof(nodes) == expected_nodes(variant) && strncmp(run, variant, strlen(variant)) == 0 &&
		     strstr(l, ",easy_backfill,") != NULL;
	}
	return ok;
}

static char *export_to(const char *args_tail, const char *out, int *rc)
{
	char args[1500], *txt = NULL;
	snprintf(args, sizeof args, "export %s %s -o %s", sweep_h5, args_tail, out);
	*rc = tu_run_gpusched(args, &txt);
	if (*rc)
		fprintf(stderr, "%s", txt ? txt : "");
	free(txt);
	return tu_read_file(out, NULL);
}

static void test_export_every_table(void)
{
	struct {
		const char *table;
		size_t rows;
	} want[] = {
		{ "jobs", N_RUNS * N_JOBS }, { "summary", N_RUNS }, { "queues", N_RUNS * 2 }, { "options", N_RUNS },
		{ "decisions", 0 }, { "timeseries", total_samples() }, { "real_jobs", 0 }, { "real_segments", 0 },
		{ "real_calibration", 0 },
	};
	CU_ASSERT(want[5].rows > N_RUNS);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		char tail[64], out[512], hdr[8192];
		int rc;
		snprintf(tail, sizeof tail, "--table %s", want[i].table);
		snprintf(out, sizeof out, "%s/export_%s.csv", tu_tmpdir(), want[i].table);
		char *csv = export_to(tail, out, &rc);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
		CU_ASSERT_EQUAL(count_lines(csv), want[i].rows + 1);
		if (strncmp(want[i].table, "real_", 5) != 0) {
			expected_header(want[i].table, hdr, sizeof hdr);
			CU_ASSERT(strncmp(csv, hdr, strlen(hdr)) == 0 && csv[strlen(hdr)] == '\n');
			if (strncmp(csv, hdr, strlen(hdr)) != 0)
				fprintf(stderr, "\n%s: expected header %s\n", want[i].table, hdr);
		}
		CU_ASSERT(rectangular(csv, ','));
		CU_ASSERT(swept_columns_agree(csv));
		free(csv);
	}
}

/* Every field of the jobs table: final_state by its name, the label beside it. */
static void test_export_jobs_values(void)
{
	char out[512];
	int rc;
	snprintf(out, sizeof out, "%s/export_one.csv", tu_tmpdir());
	char *csv = export_to("--table jobs --runs '2_easy_backfill-s1'", out, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	CU_ASSERT_EQUAL(count_lines(csv), N_JOBS + 1);
	/* job01: 1 GPU at 60 s for 14400 s, first in trace order. */
	CU_ASSERT(strstr(csv, "\n2_easy_backfill-s1,2_easy_backfill,1,2,easy_backfill,job01,research,,v100,0,1,1,60,") !=
		  NULL);
	CU_ASSERT(strstr(csv, ",COMPLETED,COMPLETED,0,on_demand\n") != NULL); /* 2.1: cost_type */
	free(csv);
}

/* Entries of folder dir other than . and .. (-1 when it cannot be read). */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* -o - writes the table to stdout, byte for byte what -o FILE writes, and nothing on
 * stderr; run in an empty folder, which stays empty (no file named "-"). */
static void test_export_dash_is_stdout(void)
{
	char cwd[512];
	snprintf(cwd, sizeof cwd, "%s/dash_cwd", tu_tmpdir());
	CU_ASSERT_FATAL(mkdir(cwd, 0700) == 0 || dir_entries(cwd) == 0);
	static const char *const tables[] = { "jobs", "timeseries", "summary" };
	for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++) {
		char tail[64], file[512], piped[512], err[512], cmd[2500];
		int rc;
		snprintf(tail, sizeof tail, "--table %s", tables[k]);
		snprintf(file, sizeof file, "%s/dash_file_%s.csv", tu_tmpdir(), tables[k]);
		char *want = export_to(tail, file, &rc);
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(want);
		CU_ASSERT(count_lines(want) > 1);
		snprintf(piped, sizeof piped, "%s/dash_stdout_%s.csv", tu_tmpdir(), tables[k]);
		snprintf(err, sizeof err, "%s/dash_stderr_%s.txt", tu_tmpdir(), tables[k]);
		snprintf(cmd, sizeof cmd, "cd '%s' && '%s' export '%s' %s -o - >'%s' 2>'%s'", cwd, GPUSCHED_BIN,
			 sweep_h5, tail, piped, err);
		int st = system(cmd);
		CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
		size_t n_want = strlen(want), n_got = 0;
		char *got = tu_read_file(piped, &n_got);
		CU_ASSERT_PTR_NOT_NULL_FATAL(got);
		CU_ASSERT(n_got == n_want && memcmp(got, want, n_want) == 0);
		if (n_got != n_want || memcmp(got, want, n_want) != 0)
			fprintf(stderr, "\n%s: -o - gave %zu bytes, -o FILE %zu\n", tables[k], n_got, n_want);
		char *msg = tu_read_file(err, NULL);
		CU_ASSERT(msg && *msg == 0); /* nothing but the table, and that on stdout */
		free(msg);
		free(got);
		free(want);
		char dash[600];
		snprintf(dash, sizeof dash, "%s/-", cwd);
		CU_ASSERT(!tu_exists(dash));
		CU_ASSERT_EQUAL(dir_entries(cwd), 0);
	}
}

/* gzip for a .gz name, TSV, a run pattern. */
static void test_export_gzip_tsv_runs(void)
{
	char out[512], buf[65536];
	int rc;
	snprintf(out, sizeof out, "%s/export_runs.tsv.gz", tu_tmpdir());
	free(export_to("--table summary --format tsv --runs '4_*'", out, &rc));
	CU_ASSERT_EQUAL(rc, 0);
	gzFile z = gzopen(out, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	int n = gzread(z, buf, sizeof buf - 1);
	gzclose(z);
	CU_ASSERT_FATAL(n > 0);
	buf[n] = 0;
	CU_ASSERT_EQUAL(count_lines(buf), 3);
	CU_ASSERT(strncmp(buf, "run\tvariant\tseed\t" NODES_PARAM "\tpolicies.order\t", 40) == 0);
	CU_ASSERT(strstr(buf, "\n4_easy_backfill-s1\t4_easy_backfill\t1\t4\teasy_backfill\t") != NULL);
	CU_ASSERT(strstr(buf, "\n4_easy_backfill-s2\t4_easy_backfill\t2\t4\t") != NULL);
	CU_ASSERT(rectangular(buf, '\t'));
}

/* Bad arguments: exit 2, a message, and no output file. */
static void test_export_bad_arguments_exit2(void)
{
	char out[512];
	snprintf(out, sizeof out, "%s/export_never.csv", tu_tmpdir());
	/* export FILE PRE -o OUT POST */
	struct {
		const char *file, *pre, *post, *msg;
	} cases[] = {
		{ NULL, NULL, NULL, "expected a results file" },
		{ "", "", "", "expected --table" },
		{ "", "--table nope", "", "unknown --table" },
		{ "", "--table jobs --format xls", "", "unknown --format" },
		{ "", "--table jobs --runs 'zz*'", "", "no run matches --runs 'zz*'" },
		{ "", "--table jobs --bogus", "", "unknown option '--bogus'" },
		{ "", "extra.h5 --table jobs", "", "expected one results file" },
		{ "", "--table jobs --table summary", "", "option given twice" },
		{ "", "", "--table", "option '--table' needs a value" },
		{ "/no/such/file.h5", "--table jobs", "", "cannot open results file" },
		{ TEST_DATA_DIR "/configs/sweep3x2.json", "--table jobs", "", "not an HDF5 file" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char args[1500], *txt = NULL;
		if (!cases[i].file)
			snprintf(args, sizeof args, "export");
		else
			snprintf(args, sizeof args, "export %s %s -o %s %s", cases[i].file[0] ? cases[i].file : sweep_h5,
				 cases[i].pre, out, cases[i].post);
		CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
		CU_ASSERT(txt && strstr(txt, cases[i].msg));
		if (!txt || !strstr(txt, cases[i].msg))
			fprintf(stderr, "\n%s: expected '%s' in:\n%s", args, cases[i].msg, txt ? txt : "");
		free(txt);
		CU_ASSERT(!tu_exists(out));
	}
	/* --help: the usage on stdout, exit 0 */
	char *help = NULL;
	CU_ASSERT_EQUAL(tu_run_gpusched("export --help", &help), 0);
	CU_ASSERT(help && strstr(help, "usage: gpusched export RESULTS.h5 --table TABLE"));
	free(help);
	/* The output may not be the results file itself. */
	char args[1500], *txt = NULL;
	snprintf(args, sizeof args, "export %s --table jobs -o %s", sweep_h5, sweep_h5);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	free(txt);
	check_swept_values(sweep_h5);
}

/* A file of the previous schema (tests/data/results, written by the 1.4 writer):
 * report, plot, compare and export read it; its variants come from the run names. */
static void test_export_reads_schema_1_4(void)
{
	char args[1500], *txt = NULL, out[512];
	snprintf(args, sizeof args, "report %s", OLD_FILE);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "schema 1.4") && strstr(txt, "4_easy_backfill-s1"));
	free(txt);
	snprintf(args, sizeof args, "report %s --jobs", OLD_FILE);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	free(txt);
	snprintf(args, sizeof args, "compare %s %s", OLD_FILE, sweep_h5);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "variant 2_easy_backfill"));
	free(txt);
	snprintf(args, sizeof args, "plot %s -o %s/old_plots", OLD_FILE, tu_tmpdir());
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	free(txt);
	snprintf(out, sizeof out, "%s/old_summary.csv", tu_tmpdir());
	snprintf(args, sizeof args, "export %s --table summary -o %s", OLD_FILE, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	free(txt);
	char *csv = tu_read_file(out, NULL);
	CU_ASSERT(csv && strncmp(csv, "run,variant,seed,policy,jobs,", 29) == 0);
	CU_ASSERT(csv && strstr(csv, "\n4_easy_backfill-s1,4_easy_backfill,1,easy_backfill,20,"));
	free(csv);
}

/* Cuts the last k comma-separated fields of every line of text, in place: the
 * columns a later minor version added at the end of a table. */
static void drop_last_fields(char *text, int k)
{
	char *w = text;
	for (char *line = text; *line;) {
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		size_t keep = n;
		for (int i = 0; i < k && keep > 0; i++) {
			while (keep > 0 && line[keep - 1] != ',')
				keep--;
			if (keep > 0)
				keep--; /* the comma */
		}
		memmove(w, line, keep);
		w += keep;
		if (end)
			*w++ = '\n';
		line = end ? end + 1 : line + n;
	}
	*w = 0;
}

/* Schema 1.6 (the jobs table compound) against 2.0 (a group of columns) for the same
 * sweep: report --jobs and export --table jobs print the same bytes (less the
 * columns 2.1 added at the end: the jobs' cost_type and cost_type_label, the queues'
 * cost .. cost_flex), compare finds no change in any variant, plot draws. */
static void test_export_schema_16_same_as_20(void)
{
	char args[2048], *a = NULL, *b = NULL;
	static const char *const cmd[] = { "report", "export", "export", "export" };
	static const char *const opt[] = { "--jobs", "--table jobs", "--table decisions", "--table queues" };
	static const int added[] = { 0, 2, 0, 6 };
	for (size_t k = 0; k < sizeof cmd / sizeof cmd[0]; k++) {
		snprintf(args, sizeof args, "%s %s %s", cmd[k], FILE_16, opt[k]);
		CU_ASSERT_EQUAL(tu_run_gpusched(args, &a), 0);
		snprintf(args, sizeof args, "%s %s %s", cmd[k], sweep_h5, opt[k]);
		CU_ASSERT_EQUAL(tu_run_gpusched(args, &b), 0);
		if (b && added[k])
			drop_last_fields(b, added[k]);
		CU_ASSERT(a && b && strlen(a) > 100 && strcmp(a, b) == 0);
		free(a);
		free(b);
	}
	snprintf(args, sizeof args, "export %s --table jobs", FILE_16);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &a), 0);
	CU_ASSERT(a && count_lines(a) == N_RUNS * N_JOBS + 1);
	free(a);
	snprintf(args, sizeof args, "compare %s %s --fail-if 'mean_wait_s>+0' --fail-if 'mean_wait_s<-0' "
		 "--fail-if 'completed>+0' --fail-if 'completed<-0'", FILE_16, sweep_h5);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &a), 0);
	free(a);
	snprintf(args, sizeof args, "plot %s -o %s/plots16", FILE_16, tu_tmpdir());
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &a), 0);
	free(a);
}

static CU_TestInfo export_tests[] = {
	{ "test_export_reader_sees_swept_values", test_export_reader_sees_swept_values },
	{ "test_export_timeseries_scales", test_export_timeseries_scales },
	{ "test_export_every_table", test_export_every_table },
	{ "test_export_jobs_values", test_export_jobs_values },
	{ "test_export_dash_is_stdout", test_export_dash_is_stdout },
	{ "test_export_gzip_tsv_runs", test_export_gzip_tsv_runs },
	{ "test_export_bad_arguments_exit2", test_export_bad_arguments_exit2 },
	{ "test_export_reads_schema_1_4", test_export_reads_schema_1_4 },
	{ "test_export_schema_16_same_as_20", test_export_schema_16_same_as_20 },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo export_suite = { "export", init_export, clean_export, NULL, NULL, export_tests };
