/* tests/test_cli.c: the gpusched command end to end: a run and its results, bad
 * input (exit 2, a located message, no output file), determinism, --help. */
#include <CUnit/CUnit.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outtmp.h"
#include "testutil.h"

static int init_cli(void) { return 0; }
static int clean_cli(void) { return 0; }

static const char good_trace[] =
	"id,submit_s,duration_s,queue,priority,request\n"
	"# a comment\n"
	"j1,0,100,a,0,v100:gpu=8\n"
	"j2,10,50,a,1,v100:gpu=4\n"
	"j3,10,20,b,0,*:gpu=2\n"
	"j4,30,5,b,2,v100:gpu=16\n";

/* A config naming trace file `trace` (relative to the config's folder). */
static const char *write_config(const char *name, const char *trace, const char *policies)
{
	char buf[2048];
	snprintf(buf, sizeof buf,
		 "{\"name\": \"cli\", \"trace\": {\"path\": \"%s\", \"format\": \"native\"},\n"
		 " \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": 16, \"node\": {\"gpu\": 8},\n"
		 "                \"speed\": 1.0, \"price_per_node_hour\": 24.0}]},\n"
		 " \"policies\": %s,\n"
		 " \"seeds\": [1], \"output\": \"never.h5\"}\n",
		 trace, policies ? policies : "{\"order\": \"fifo\"}");
	return tu_write_file(name, buf);
}

static void test_cli_run_report_plot(void)
{
	tu_write_file("good.csv", good_trace);
	const char *cfg = write_config("good.json", "good.csv", NULL);
	char out[512], args[2048], *txt = NULL;
	snprintf(out, sizeof out, "%s/good.h5", tu_tmpdir());
	snprintf(args, sizeof args, "run %s -o %s", cfg, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "run fifo-s1: 4 jobs"));
	free(txt);
	CU_ASSERT(tu_exists(out));
	snprintf(args, sizeof args, "report %s --jobs", out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	/* j4 (16 GPUs, 2 whole nodes) starts at its submit: 16 nodes hold everything. */
	CU_ASSERT(txt && strstr(txt, "j4"));
	CU_ASSERT(txt && strstr(txt, "completed"));
	free(txt);
	char log[512];
	snprintf(log, sizeof log, "%s/good.log", tu_tmpdir());
	snprintf(args, sizeof args, "run %s -q -o %s --log %s", cfg, out, log);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, NULL), 0);
	char *lg = tu_read_file(log, NULL);
	const char *head = "# run fifo-s1\n[0.000] job=j1 event=submit gpus=8 queue=a\n";
	CU_ASSERT(lg && strncmp(lg, head, strlen(head)) == 0);
	CU_ASSERT(lg && strstr(lg, "[30.000] job=j4 event=start flavor=v100 nodes="));
	free(lg);
	snprintf(args, sizeof args, "report %s --json", out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	CU_ASSERT(txt && strstr(txt, "\"completed\""));
	free(txt);
}

/* Same config and seed twice: identical job tables. */
static void test_cli_deterministic(void)
{
	tu_write_file("det.csv", good_trace);
	const char *cfg = write_config("det.json", "det.csv", "{\"order\": \"easy_backfill\"}");
	char *a = NULL, *b = NULL, args[2048];
	const char *dir = tu_tmpdir();
	snprintf(args, sizeof args, "run %s -q -o %s/d1.h5 && %s report %s/d1.h5 --jobs", cfg, dir,
		 GPUSCHED_BIN, dir);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &a), 0);
	snprintf(args, sizeof args, "run %s -q -o %s/d2.h5 && %s report %s/d2.h5 --jobs", cfg, dir,
		 GPUSCHED_BIN, dir);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &b), 0);
	CU_ASSERT(a && b && strlen(a) > 100 && strcmp(a, b) == 0);
	free(a);
	free(b);
}

struct bad_case {
	const char *name;
	const char *trace;     /* trace text, or NULL to point at a missing file */
	const char *policies;  /* NULL: fifo */
	const char *config;    /* raw config text instead of the template, or NULL */
	const char *expect;    /* substring of the message: the location and what was expected */
};

static const struct bad_case bad_cases[] = {
	{ "nonnum_submit", "id,submit_s,duration_s\nj1,abc,10\n", NULL, NULL, ".csv:2: column submit_s" },
	{ "neg_duration", "id,submit_s,duration_s\nj1,0,10\nj2,0,-5\n", NULL, NULL, ".csv:3: column duration_s" },
	{ "nan_duration", "id,submit_s,duration_s\nj1,0,nan\n", NULL, NULL, ".csv:2: column duration_s" },
	{ "inf_submit", "id,submit_s,duration_s\nj1,inf,1\n", NULL, NULL, ".csv:2: column submit_s" },
	{ "dup_id", "id,submit_s,duration_s\nj1,0,1\nj1,1,1\n", NULL, NULL, ".csv:3: column id" },
	{ "unknown_column", "id,submit_s,duration_s,colour\nj1,0,1,red\n", NULL, NULL,
	  "unknown_column.csv:1: column colour" },
	{ "missing_column", "id,submit_s\nj1,0\n", NULL, NULL, "missing_column.csv:1: column duration_s" },
	{ "fine_gpu", "id,submit_s,duration_s,request\nj1,0,1,v100:gpu=0.0001\n", NULL, NULL,
	  ".csv:2: column request" },
	{ "float_priority", "id,submit_s,duration_s,priority\nj1,0,1,1.5\n", NULL, NULL,
	  ".csv:2: column priority" },
	{ "too_big", "id,submit_s,duration_s,request\nj1,0,1,v100:gpu=8\nj2,0,1,v100:gpu=200\n", NULL, NULL,
	  ".csv:3: column request" },
	{ "unknown_flavor", "id,submit_s,duration_s,request\nj1,0,1,h100:gpu=1\n", NULL, NULL,
	  ".csv:2: column request" },
	{ "missing_trace", NULL, NULL, NULL, "missing.csv: cannot open trace" },
	{ "unknown_policy", "id,submit_s,duration_s\nj1,0,1\n", "{\"order\": \"lottery\"}", NULL,
	  "$.policies.order" },
	{ "bad_policy_param", "id,submit_s,duration_s\nj1,0,1\n",
	  "{\"order\": {\"name\": \"priority\", \"agin_per_hour\": 1}}", NULL,
	  "bad_policy_param.json: $.policies.order.agin_per_hour" },
	{ "json_syntax", "id,submit_s,duration_s\nj1,0,1\n", NULL,
	  "{\"name\": \"x\",\n \"trace\": {\"path\": \"json_syntax.csv\"}\n \"seeds\": [1]}\n", "json_syntax.json:3:" },
	{ "unknown_key", "id,submit_s,duration_s\nj1,0,1\n", NULL,
	  "{\"name\": \"x\", \"trace\": {\"path\": \"unknown_key.csv\"}, \"colour\": 1,\n"
	  " \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": 1, \"node\": {\"gpu\": 8}}]},\n"
	  " \"policies\": {\"order\": \"fifo\"}}\n", "$.colour" },
	{ "negative_nodes", "id,submit_s,duration_s\nj1,0,1\n", NULL,
	  "{\"name\": \"x\", \"trace\": {\"path\": \"negative_nodes.csv\"},\n"
	  " \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": -2, \"node\": {\"gpu\": 8}}]},\n"
	  " \"policies\": {\"order\": \"fifo\"}}\n", "$.cluster.flavors[0].nodes" },
};

static void test_cli_bad_input_exit2_located_no_output(void)
{
	const char *dir = tu_tmpdir();
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *bc = &bad_cases[i];
		char name[128], tname[128], out[512], args[2048], *txt = NULL;
		snprintf(tname, sizeof tname, "%s.csv", bc->name);
		if (bc->trace)
			tu_write_file(tname, bc->trace);
		snprintf(name, sizeof name, "%s.json", bc->name);
		const char *cfg = bc->config ? tu_write_file(name, bc->config)
					     : write_config(name, bc->trace ? tname : "missing.csv", bc->policies);
		snprintf(out, sizeof out, "%s/%s.h5", dir, bc->name);
		snprintf(args, sizeof args, "run %s -o %s", cfg, out);
		int code = tu_run_gpusched(args, &txt);
		int located = txt && strstr(txt, bc->expect) != NULL;
		if (code != 2 || !located)
			fprintf(stderr, "\n  case %s: exit %d, output:\n%s", bc->name, code, txt ? txt : "");
		CU_ASSERT_EQUAL(code, 2);
		CU_ASSERT(located);
		CU_ASSERT(!tu_exists(out) && count_out_tmps(out, NULL) == 0);
		free(txt);
	}
	/* A missing config file, and trace validate on a bad trace. */
	char *txt = NULL;
	CU_ASSERT_EQUAL(tu_run_gpusched("run /nonexistent/x.json", &txt), 2);
	CU_ASSERT(txt && strstr(txt, "/nonexistent/x.json"));
	free(txt);
	const char *bad = tu_write_file("validate_bad.csv", "id,submit_s,duration_s\nj1,0,0\n");
	char args[1024];
	snprintf(args, sizeof args, "trace validate %s", bad);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "validate_bad.csv:2: column duration_s"));
	free(txt);
}

/* A run never overwrites its own trace or config, and -o must name a file. */
static void test_cli_output_never_overwrites_input(void)
{
	const char *trace = tu_write_file("keep.csv", good_trace);
	const char *cfg = write_config("keep.json", "keep.csv", NULL);
	char args[2048], *txt = NULL;
	const char *targets[] = { trace, cfg, tu_tmpdir() };
	const char *expect[] = { "output would overwrite input trace", "output would overwrite input config",
				 "expected a regular file or a new name, got a folder" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(args, sizeof args, "run %s -o %s", cfg, targets[i]);
		CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
		CU_ASSERT(txt && strstr(txt, expect[i]));
		free(txt);
	}
	char *after = tu_read_file(trace, NULL);
	CU_ASSERT(after && strcmp(after, good_trace) == 0);
	free(after);
}

/* Runs `gpusched ARGS`, expects exit 2 and `want` in the output. */
static void expect_refused(const char *args, const char *want)
{
	char *txt = NULL;
	int rc = tu_run_gpusched(args, &txt);
	CU_ASSERT_EQUAL(rc, 2);
	CU_ASSERT(txt && strstr(txt, want));
	if (rc != 2 || !txt || !strstr(txt, want))
		fprintf(stderr, "gpusched %s: exit %d, expected '%s':\n%s", args, rc, want, txt ? txt : "");
	free(txt);
}

static int is_fifo(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* Every verb's outputs (-o, --log, --plot) refuse an input of the same command,
 * side files of a config included, and anything not a regular file (a device
 * node, here a named pipe, would be replaced by a regular file). */
/* trace gen reads a second input under the empirical law, the trace its durations
 * are drawn from: -o naming it is refused (exit 2) and the trace is left as it was
 * (it was read, then replaced by the output). */
static void test_cli_trace_gen_keeps_empirical_source(void)
{
	static const char before[] = "id,submit_s,duration_s,request\nj1,0,60,*:gpu=1\nj2,5,120,*:gpu=2\n";
	const char *trace = tu_write_file("emp_src.csv", before);
	const char *cfg = tu_write_file("emp_gen.json",
					"{\"jobs\": 5, \"seed\": 1, \"arrivals\": {\"process\": \"poisson\", "
					"\"rate_per_h\": 10}, \"durations\": {\"law\": \"empirical\", "
					"\"trace\": \"emp_src.csv\"}}");
	char args[8192], *out = NULL;
	snprintf(args, sizeof args, "trace gen %s -o %s", cfg, trace);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 2);
	CU_ASSERT(out && strstr(out, "empirical durations trace"));
	free(out);
	char *now = tu_read_file(trace, NULL);
	CU_ASSERT(now && strcmp(now, before) == 0);
	free(now);
	/* another output is fine */
	snprintf(args, sizeof args, "trace gen %s -o %s", cfg, tu_tmp_path("emp_out.csv"));
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out), 0);
	free(out);
}

static void test_cli_outputs_never_clobber_inputs_or_devices(void)
{
	const char *trace = tu_write_file("clob.csv", good_trace);
	const char *cap_text = "time_s,flavor,nodes\n0,v100,16\n";
	const char *cap = tu_write_file("clob_cap.csv", cap_text);
	char cfg_text[2048];
	snprintf(cfg_text, sizeof cfg_text,
		 "{\"name\": \"cli\", \"trace\": {\"path\": \"clob.csv\", \"format\": \"native\"},\n"
		 " \"cluster\": {\"flavors\": [{\"name\": \"v100\", \"nodes\": 16, \"node\": {\"gpu\": 8}}],\n"
		 "             \"capacity_events\": \"clob_cap.csv\"},\n"
		 " \"policies\": {\"order\": \"fifo\"}, \"seeds\": [1], \"output\": \"never.h5\"}\n");
	const char *cfg = tu_write_file("clob.json", cfg_text);
	char fifo[600], out[600], args[4096];
	snprintf(fifo, sizeof fifo, "%s/clob.fifo", tu_tmpdir());
	snprintf(out, sizeof out, "%s/clob.h5", tu_tmpdir());
	unlink(fifo);
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);

	snprintf(args, sizeof args, "run %s -q -o %s", cfg, cap);
	expect_refused(args, "output would overwrite input $.cluster.capacity_events");
	snprintf(args, sizeof args, "run %s -q -o %s --log %s", cfg, out, trace);
	expect_refused(args, "output would overwrite input trace");
	snprintf(args, sizeof args, "run %s -q -o %s --log %s", cfg, out, cfg);
	expect_refused(args, "output would overwrite input config");
	snprintf(args, sizeof args, "run %s -q -o %s --log %s", cfg, out, out);
	expect_refused(args, "would overwrite the -o output");
	snprintf(args, sizeof args, "run %s -q -o %s", cfg, fifo);
	expect_refused(args, "got a named pipe");
	snprintf(args, sizeof args, "run %s -q -o %s --log %s", cfg, out, fifo);
	expect_refused(args, "got a named pipe");
	snprintf(args, sizeof args,
		 "plan %s --target 'mean_wait_s<=288' --vary 'cluster.flavors[0].nodes' --range 1:16 -o %s", cfg, cap);
	expect_refused(args, "output would overwrite input $.cluster.capacity_events");
	snprintf(args, sizeof args,
		 "plan %s --target 'mean_wait_s<=288' --vary 'cluster.flavors[0].nodes' --range 1:16 --plot %s", cfg,
		 trace);
	expect_refused(args, "output would overwrite input trace");
	snprintf(args, sizeof args, "trace gen %s -o %s", cfg, cfg);
	expect_refused(args, "output would overwrite input config");
	snprintf(args, sizeof args, "trace import --format philly %s -o %s", trace, trace);
	expect_refused(args, "output would overwrite input");
	snprintf(args, sizeof args, "trace import --format philly %s -o %s", trace, fifo);
	expect_refused(args, "got a named pipe");
	snprintf(args, sizeof args, "cluster import --format philly-vc %s -o %s", cap, cap);
	expect_refused(args, "output would overwrite input");
	snprintf(args, sizeof args, "plot %s -o %s", trace, trace);
	expect_refused(args, "expected a folder");

	char *after = tu_read_file(trace, NULL), *cap_after = tu_read_file(cap, NULL);
	CU_ASSERT(after && strcmp(after, good_trace) == 0);
	CU_ASSERT(cap_after && strcmp(cap_after, cap_text) == 0);
	free(after);
	free(cap_after);
	CU_ASSERT(is_fifo(fifo));
	CU_ASSERT(!tu_exists(out));
	unlink(fifo);
}

static void test_cli_help_on_every_verb(void)
{
	const char *verbs[] = { "--help", "run --help", "report --help", "plot --help", "trace --help",
				"trace validate --help", "trace stats --help", "trace import --help" };
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
		char *txt = NULL;
		CU_ASSERT_EQUAL(tu_run_gpusched(verbs[i], &txt), 0);
		CU_ASSERT(txt && strstr(txt, "usage"));
		free(txt);
	}
	char *txt = NULL;
	CU_ASSERT_EQUAL(tu_run_gpusched("frobnicate", &txt), 2);
	free(txt);
}

/* cluster import: a node list becomes a config's cluster object, which a config
 * then runs on; bad format exits 2. */
static void test_cli_cluster_import(void)
{
	const char *vc = tu_write_file("vc.csv", "vc,node num\nteamA,3\nteamB,5\n");
	char out[512], args[1200], *txt = NULL;
	snprintf(out, sizeof out, "%s/cluster.json", tu_tmpdir());
	snprintf(args, sizeof args, "cluster import --format philly-vc %s -o %s", vc, out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	free(txt);
	char *cl = tu_read_file(out, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cl);
	CU_ASSERT(strstr(cl, "\"nodes\":\t8") != NULL); /* 3 + 5 */
	/* the object runs as a config's cluster */
	const char *tr = tu_write_file("ci_trace.csv", "id,submit_s,duration_s,request\nj1,0,10,*:gpu=8\n");
	char cfg[2048];
	snprintf(cfg, sizeof cfg, "{\"name\": \"ci\", \"trace\": {\"path\": \"%s\"}, \"cluster\": %s, "
		 "\"output\": \"%s/ci.h5\"}", tr, cl, tu_tmpdir());
	free(cl);
	const char *cp = tu_write_file("ci.json", cfg);
	snprintf(args, sizeof args, "run %s -q", cp);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 0);
	free(txt);
	snprintf(args, sizeof args, "cluster import --format slurm %s", vc);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "expected openb, pai, helios or philly-vc, found 'slurm'"));
	free(txt);
	snprintf(args, sizeof args, "cluster import --format helios %s", vc);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "expected --id NAME"));
	free(txt);
}

/* ---- temporaries: never a file of the user ---- */

static const char gen_config[] =
	"{\"jobs\": 3000, \"seed\": 1,\n"
	" \"arrivals\": {\"process\": \"poisson\", \"rate_per_h\": 30},\n"
	" \"durations\": {\"law\": \"lognormal\", \"median_s\": 1000, \"sigma\": 1},\n"
	" \"gpus\": {\"values\": [1, 8], \"weights\": [3, 1]},\n"
	" \"queues\": {\"names\": [\"a\", \"b\"], \"weights\": [1, 1]}}\n";

/* A Philly job log of n rows (for trace import). */
static const char *write_philly_log(const char *name, int n)
{
	size_t cap = 64 + (size_t)n * 64;
	char *buf = malloc(cap);
	size_t len = (size_t)snprintf(buf, cap, "timestamp,duration,num_gpus,gpu_time,cluster\n");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "2017-10-01 %02d:%02d:%02d,%d.0,2,%d.0,vc%c\n", i / 3600 % 24,
					i / 60 % 60, i % 60, 100 + i, 200 + 2 * i, 'A' + i % 3);
	const char *path = tu_write_file(name, buf);
	free(buf);
	return path;
}

/* Writes "user's NAME" to out + suffix (a file of the user named like the
 * temporary older versions used); path gets its name. */
static void plant_user_file(const char *out, const char *suffix, char *path, size_t n)
{
	snprintf(path, n, "%s%s", out, suffix);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "user's %s\n", path);
	fclose(f);
}

/* The user's file at path still holds what plant_user_file put there. */
static int user_file_intact(const char *path)
{
	static const char prefix[] = "user's ";
	char *txt = tu_read_file(path, NULL);
	size_t n = strlen(path);
	int ok = txt && strncmp(txt, prefix, sizeof prefix - 1) == 0 &&
		 strncmp(txt + sizeof prefix - 1, path, n) == 0 && strcmp(txt + sizeof prefix - 1 + n, "\n") == 0;
	free(txt);
	return ok;
}

/* trace gen, trace import, cluster import and run (results and --log) write their
 * outputs under new, unique temporaries: a file of the user named OUT.tmp is
 * neither overwritten nor renamed nor removed, and no temporary is left. */
static void test_cli_user_tmp_files_survive(void)
{
	const char *gcfg = tu_write_file("utmp_gen.json", gen_config);
	const char *plog = write_philly_log("utmp_philly.csv", 50);
	const char *vc = tu_write_file("utmp_vc.csv", "vc,node num\nteamA,3\n");
	tu_write_file("utmp.csv", good_trace);
	const char *rcfg = write_config("utmp.json", "utmp.csv", NULL);
	char gen_out[600], imp_out[600], cl_out[600], h5[600], log[600], args[4096];
	snprintf(gen_out, sizeof gen_out, "%s/utmp_gen.csv", tu_tmpdir());
	snprintf(imp_out, sizeof imp_out, "%s/utmp_imp.csv", tu_tmpdir());
	snprintf(cl_out, sizeof cl_out, "%s/utmp_cluster.json", tu_tmpdir());
	snprintf(h5, sizeof h5, "%s/utmp.h5", tu_tmpdir());
	snprintf(log, sizeof log, "%s/utmp.log", tu_tmpdir());
	const char *outs[] = { gen_out, imp_out, cl_out, h5, log };
	char planted[5][700];
	for (int k = 0; k < 5; k++)
		plant_user_file(outs[k], ".tmp", planted[k], sizeof planted[k]);

	snprintf(args, sizeof args, "trace gen %s -o %s", gcfg, gen_out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, NULL), 0);
	snprintf(args, sizeof args, "trace import --format philly %s -o %s", plog, imp_out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, NULL), 0);
	snprintf(args, sizeof args, "cluster import --format philly-vc %s -o %s", vc, cl_out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, NULL), 0);
	snprintf(args, sizeof args, "run %s -q -o %s --log %s", rcfg, h5, log);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, NULL), 0);
	for (int k = 0; k < 5; k++) {
		const char *keep[] = { planted[k], NULL };
		CU_ASSERT(tu_exists(outs[k]));
		CU_ASSERT(user_file_intact(planted[k]));
		CU_ASSERT_EQUAL(count_out_tmps(outs[k], keep), 0);
		if (!user_file_intact(planted[k]))
			fprintf(stderr, "\n%s: the user's file was overwritten or removed\n", planted[k]);
	}
}

/* Runs `gpusched ARGS...` (argv, NULL-terminated) with every file it writes limited
 * to limit_bytes: writes past it fail with EFBIG (SIGXFSZ ignored), as on a full
 * disk they fail with ENOSPC. stderr goes to err_path. Returns the wait status. */
static int run_file_limited(char *const argv[], long limit_bytes, const char *err_path)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl = { (rlim_t)limit_bytes, (rlim_t)limit_bytes };
		signal(SIGXFSZ, SIG_IGN);
		if (!freopen(err_path, "w", stderr) || !freopen("/dev/null", "w", stdout) ||
		    setrlimit(RLIMIT_FSIZE, &rl))
			_exit(126);
		execv(GPUSCHED_BIN, argv);
		_exit(127);
	}
	int status = -1;
	waitpid(pid, &status, 0);
	return status;
}

/* Checks a command that ran out of room: exit 1, the cause and the output named,
 * no output and no temporary left. */
static void expect_out_of_space(int status, const char *out, const char *err_path)
{
	char *txt = tu_read_file(err_path, NULL);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	CU_ASSERT(txt && strstr(txt, "file too large") && strstr(txt, out));
	if (!txt || !strstr(txt, "file too large") || !strstr(txt, out) || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 1)
		fprintf(stderr, "\n%s: status %d: %s", out, status, txt ? txt : "(no message)\n");
	free(txt);
	CU_ASSERT(!tu_exists(out));
	CU_ASSERT_EQUAL(count_out_tmps(out, NULL), 0);
}

/* trace gen and trace import on a full disk (a file-size limit of 16 KiB, far under
 * their outputs): the cause is named ("file too large"; ENOSPC would read "no space
 * left on device"), not "input/output error", and nothing is left. */
static void test_cli_full_disk_names_cause(void)
{
	const char *gcfg = tu_write_file("full_gen.json", gen_config);
	const char *plog = write_philly_log("full_philly.csv", 3000);
	char gen_out[600], imp_out[600], err[600];
	snprintf(gen_out, sizeof gen_out, "%s/full_gen.csv", tu_tmpdir());
	snprintf(imp_out, sizeof imp_out, "%s/full_imp.csv", tu_tmpdir());
	snprintf(err, sizeof err, "%s/full_cli.err", tu_tmpdir());
	char *gen_argv[] = { (char *)GPUSCHED_BIN, (char *)"trace", (char *)"gen", (char *)gcfg, (char *)"-o",
			     gen_out, NULL };
	expect_out_of_space(run_file_limited(gen_argv, 16384, err), gen_out, err);
	char *imp_argv[] = { (char *)GPUSCHED_BIN, (char *)"trace", (char *)"import", (char *)"--format",
			     (char *)"philly", (char *)plog, (char *)"-o", imp_out, NULL };
	expect_out_of_space(run_file_limited(imp_argv, 16384, err), imp_out, err);
}

/* One pass reports every kind of bad row against the cluster: a row naming a
 * flavor the cluster lacks no longer hides a row too big for any node. */
static void test_cli_bind_reports_every_bad_row(void)
{
	tu_write_file("bind_bad.csv", "id,submit_s,duration_s,queue,priority,request\n"
				      "j1,0,10,a,0,a100:gpu=1\n"
				      "j2,0,10,a,0,v100:gpu=512\n"
				      "j3,0,10,a,0,v100:gpu=8\n");
	const char *cfg = write_config("bind_bad.json", "bind_bad.csv", NULL);
	char args[2048], *txt = NULL;
	snprintf(args, sizeof args, "run %s -q -o %s/bind_bad.h5", cfg, tu_tmpdir());
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &txt), 2);
	CU_ASSERT(txt && strstr(txt, "bind_bad.csv:2: column request: expected a flavor of the cluster, found 'a100'"));
	CU_ASSERT(txt && strstr(txt, "bind_bad.csv:3: column request: expected a request its flavor can hold, "
				     "found v100:gpu=512 which can never run"));
	CU_ASSERT(txt && !strstr(txt, "bind_bad.csv:4"));
	if (!txt || !strstr(txt, "bind_bad.csv:3"))
		fprintf(stderr, "\n%s", txt ? txt : "(no output)\n");
	free(txt);
}

static CU_TestInfo cli_tests[] = {
	{ "test_cli_run_report_plot", test_cli_run_report_plot },
	{ "test_cli_cluster_import", test_cli_cluster_import },
	{ "test_cli_deterministic", test_cli_deterministic },
	{ "test_cli_bad_input_exit2_located_no_output", test_cli_bad_input_exit2_located_no_output },
	{ "test_cli_output_never_overwrites_input", test_cli_output_never_overwrites_input },
	{ "test_cli_outputs_never_clobber_inputs_or_devices", test_cli_outputs_never_clobber_inputs_or_devices },
	{ "trace gen: -o never replaces the empirical source", test_cli_trace_gen_keeps_empirical_source },
	{ "test_cli_help_on_every_verb", test_cli_help_on_every_verb },
	{ "test_cli_user_tmp_files_survive", test_cli_user_tmp_files_survive },
	{ "test_cli_full_disk_names_cause", test_cli_full_disk_names_cause },
	{ "test_cli_bind_reports_every_bad_row", test_cli_bind_reports_every_bad_row },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo cli_suite = { "cli", init_cli, clean_cli, NULL, NULL, cli_tests };
