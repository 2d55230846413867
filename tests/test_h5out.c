/* tests/test_h5out.c: sim/h5out.c and analysis/h5read.c: a written run read back field
 * by field (NaN kept, units present), the preemption and queue tables (1.2), the
 * option table and the jobs' cost and fallback fields (1.3), a 1.1 file without them,
 * the tmp file gone after commit and abort, big (chunked) tables, empty runs, the
 * reader's refusals (missing file, a folder, not HDF5, wrong schema) and the root
 * attribute seeds. */
#include <CUnit/CUnit.h>
#include <hdf5.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/export.h"
#include "analysis/h5read.h"
#include "analysis/report.h"
#include "results_fixture.h"
#include "sim/h5out.h"
#include "sim/metrics.h"
#include "sim/metrics_job.h"
#include "outtmp.h"
#include "testutil.h"

static int init_h5out(void)
{
	return 0;
}

static int clean_h5out(void)
{
	return 0;
}

static char *tmp_path(const char *name)
{
	static char p[4][512];
	static int slot;
	char *s = p[slot++ % 4];
	snprintf(s, 512, "%s/%s", tu_tmpdir(), name);
	remove(s);
	return s;
}

/* 1 while a temporary of path exists (any name h5out gave it). */
static int tmp_exists(const char *path)
{
	return count_out_tmps(path, NULL) > 0;
}

/* Writes the fixture run once per name (seeds 42, 43, ...) into path and commits it,
 * with its quota time series, decisions and queue rows (sim_metrics_queues), and
 * its options table given as n_opts rows (opts NULL: the writer computes it). */
static int write_fixture_opts(const char *path, const char *const *names, size_t n_names, const char *json,
			      struct sim_summary *sum_out, const struct sim_option_row *opts, size_t n_opts)
{
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	struct sim_timeseries ts;
	struct sim_queue_acct acct[2];
	struct sim_decisions ds = fx_decisions();
	struct sim_queue_row rows[2];
	fx_queue_acct(acct);
	int rc = -1;
	if (!t || !c || fx_timeseries(&ts, 11) != 0 || fx_timeseries_queues(&ts) != 0)
		goto out;
	struct sim_summary sum;
	if (sim_metrics_summarize(t, c, FX_END_NS, &sum) != 0 ||
	    sim_metrics_queues(t, acct, &ts, &ds, FX_END_NS, rows) != 0)
		goto out;
	sim_metrics_summarize_queues(t, rows, &sum);
	if (sum_out)
		*sum_out = sum;
	struct sim_engine_counters k = { .events = 14, .decision_passes = 9, .proposals_rejected = 3, .starts = 5 };
	struct h5out_meta meta = { .experiment_json = json, .config_path = "exp/a.json",
				   .software_version = "9.9.9-test" };
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5out *o = h5out_create(path, &meta, &d);
	if (!o)
		goto out_diag;
	rc = 0;
	for (size_t i = 0; i < n_names && rc == 0; i++) {
		struct h5out_run run = { .name = names[i], .policy = "fifo", .seed = 42 + i, .trace = t,
					 .cluster = c, .ts = &ts, .counters = &k, .summary = &sum,
					 .wall_s = 0.5, .decisions = &ds, .queues = rows,
					 .options = opts, .n_options = n_opts };
		rc = h5out_write_run(o, &run, &d);
	}
	if (rc == 0)
		rc = h5out_commit(o, &d);
	h5out_destroy(o);
out_diag:
	if (rc)
		sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
out:
	fx_timeseries_free(&ts);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	return rc;
}

/* write_fixture_opts with the options table computed by the writer. */
static int write_fixture(const char *path, const char *const *names, size_t n_names, const char *json,
			 struct sim_summary *sum_out)
{
	return write_fixture_opts(path, names, n_names, json, sum_out, NULL, 0);
}

static int same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

static void test_h5out_round_trip_jobs(void)
{
	const char *path = tmp_path("rt.h5");
	const char *names[] = { "fifo-seed1" };
	CU_ASSERT_EQUAL_FATAL(write_fixture(path, names, 1, "{\"name\": \"x\"}", NULL), 0);
	CU_ASSERT(tu_exists(path));
	CU_ASSERT(!tmp_exists(path));

	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	struct h5read_jobs j;
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(f, "fifo-seed1", &j, &d), 0);
	CU_ASSERT_EQUAL_FATAL(j.n, FX_N_JOBS);

	struct sim_trace *t = fx_trace();
	CU_ASSERT_FATAL(t != NULL);
	static const char *const flavor[FX_N_JOBS] = { "h100", "h100", "h100", "a100", "", "", "a100" };
	static const double alloc[FX_N_JOBS] = { 8, 4, 16, 4, NAN, NAN, 2 };
	static const char *const state[FX_N_JOBS] = { "completed", "completed", "completed", "completed",
						      "rejected", "unfinished", "unfinished" };
	/* from the decisions: j7's quota shrink (its own "preemptor") is not caused by it */
	static const uint32_t caused[FX_N_JOBS] = { 1, 1, 0, 0, 0, 0, 0 };
	for (size_t i = 0; i < FX_N_JOBS; i++) {
		const struct fx_job *x = &fx_jobs[i];
		const struct sim_job *sj = &t->jobs[i];
		CU_ASSERT_STRING_EQUAL(j.id[i], x->id);
		CU_ASSERT_STRING_EQUAL(j.queue[i], i == 1 ? "research" : "q");
		CU_ASSERT_STRING_EQUAL(j.user[i], i == 0 ? "alice" : "");
		CU_ASSERT_STRING_EQUAL(j.flavor[i], flavor[i]);
		CU_ASSERT_EQUAL(j.option[i], x->chosen);
		CU_ASSERT(same_double(j.gpus[i], x->gpus[x->chosen >= 0 ? x->chosen : 0]));
		CU_ASSERT(same_double(j.alloc_gpus[i], alloc[i]));
		CU_ASSERT(same_double(j.submit_s[i], x->submit));
		CU_ASSERT(same_double(j.start_s[i], x->start >= 0 ? x->start : NAN));
		CU_ASSERT(same_double(j.end_s[i], x->end >= 0 ? x->end : NAN));
		CU_ASSERT(same_double(j.wait_s[i], sim_job_wait_s(sj)));
		CU_ASSERT(same_double(j.jct_s[i], sim_job_jct_s(sj)));
		CU_ASSERT(same_double(j.runtime_s[i], x->chosen >= 0 ? x->runtime : NAN));
		CU_ASSERT(same_double(j.bsld[i], sim_job_bsld(sj)));
		CU_ASSERT_EQUAL(j.priority[i], x->priority);
		CU_ASSERT_EQUAL(j.preemptions[i], x->preemptions);
		CU_ASSERT_STRING_EQUAL(j.state[i], state[i]);
		CU_ASSERT_EQUAL(j.preemptions_caused[i], caused[i]);
		CU_ASSERT(same_double(j.lost_gpu_s[i], sj->lost_gpu_s));
		CU_ASSERT(same_double(j.restore_s[i], sj->restore_s));
		CU_ASSERT(same_double(j.ckpt_overhead_s[i], sj->ckpt_overhead_s));
	}
	CU_ASSERT_DOUBLE_EQUAL(j.lost_gpu_s[1], 3600, 0);
	CU_ASSERT_DOUBLE_EQUAL(j.restore_s[1], 30, 0);
	CU_ASSERT_DOUBLE_EQUAL(j.ckpt_overhead_s[0], 12, 0);
	/* schema 1.3: cost, list length, fallback evaluations, interruptions, pending clock */
	static const double cost[FX_N_JOBS] = { 16, 4, 32, 8.0 * 5 / 3600, 0, 0, 10 };
	static const uint8_t n_opts[FX_N_JOBS] = { 1, 1, 1, 2, 1, 1, 1 };
	static const uint32_t evals[FX_N_JOBS] = { 0, 0, 0, 3, 0, 2, 0 };
	static const double pend[FX_N_JOBS] = { 0, 100, 200, 300, 400, 550, 600 };
	double cost_sum = 0;
	for (size_t i = 0; i < FX_N_JOBS; i++) {
		CU_ASSERT_DOUBLE_EQUAL(j.cost[i], cost[i], 1e-12);
		CU_ASSERT_EQUAL(j.n_options[i], n_opts[i]);
		CU_ASSERT_EQUAL(j.fallback_evals[i], evals[i]);
		CU_ASSERT_EQUAL(j.interruptions[i], i == 6 ? 1u : 0u);
		CU_ASSERT_DOUBLE_EQUAL(j.pending_from_s[i], pend[i], 0);
		cost_sum += j.cost[i];
	}
	struct sim_cluster *c = fx_cluster();
	struct sim_summary sum;
	CU_ASSERT_FATAL(c != NULL && sim_metrics_summarize(t, c, FX_END_NS, &sum) == 0);
	CU_ASSERT(cost_sum == sum.v[SIM_SUM_cost]); /* the summary's cost is the jobs', to the bit */
	sim_cluster_destroy(c);
	/* missing values are NaN, never -1 */
	CU_ASSERT(isnan(j.start_s[4]) && isnan(j.wait_s[4]) && isnan(j.jct_s[4]) && isnan(j.bsld[4]));
	CU_ASSERT(isnan(j.end_s[5]) && isnan(j.runtime_s[5]));
	sim_trace_destroy(t);
	h5read_jobs_free(&j);
	h5read_jobs_free(&j); /* a freed struct is zeroed: freeing again is a no-op */
	h5read_close(f);
	sim_diag_fini(&d);
}

static void test_h5out_round_trip_summary_and_attrs(void)
{
	const char *path = tmp_path("sum.h5");
	const char *names[] = { "zeta", "alpha" }; /* creation order, not alphabetical */
	const char *json = "{\n  \"name\": \"fifo-small\",\n  \"seeds\": [1, 2]\n}\n";
	struct sim_summary sum;
	CU_ASSERT_EQUAL_FATAL(write_fixture(path, names, 2, json, &sum), 0);

	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	CU_ASSERT_STRING_EQUAL(h5read_root_attr(f, "schema_version"), H5OUT_SCHEMA_VERSION);
	CU_ASSERT_STRING_EQUAL(h5read_root_attr(f, "software"), "gpusched");
	CU_ASSERT_STRING_EQUAL(h5read_root_attr(f, "software_version"), "9.9.9-test");
	CU_ASSERT_STRING_EQUAL(h5read_root_attr(f, "experiment_json"), json);
	CU_ASSERT_STRING_EQUAL(h5read_root_attr(f, "config_path"), "exp/a.json");
	const char *created = h5read_root_attr(f, "created_utc");
	CU_ASSERT(created && strlen(created) == 20 && created[10] == 'T' && created[19] == 'Z');
	CU_ASSERT_EQUAL(h5read_n_runs(f), 2);
	CU_ASSERT_STRING_EQUAL(h5read_run_name(f, 0), "zeta");
	CU_ASSERT_STRING_EQUAL(h5read_run_name(f, 1), "alpha");

	double v = 0;
	CU_ASSERT_EQUAL(h5read_run_attr_num(f, "alpha", "seed", &v, &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 43, 0);
	CU_ASSERT_EQUAL(h5read_run_attr_num(f, "zeta", "events", &v, &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 14, 0);
	CU_ASSERT_EQUAL(h5read_run_attr_num(f, "zeta", "proposals_rejected", &v, &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 3, 0);
	CU_ASSERT_EQUAL(h5read_run_attr_num(f, "zeta", "wall_s", &v, &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 0.5, 0);
	CU_ASSERT_EQUAL(h5read_run_attr_num(f, "zeta", "nope", &v, &d), -SIM_ENOENT);

	struct h5read_summary s;
	CU_ASSERT_EQUAL_FATAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT_EQUAL(s.n_rows, 2);
	CU_ASSERT_EQUAL(s.n_fields, SIM_SUM_COUNT_);
	CU_ASSERT_STRING_EQUAL(s.run[0], "zeta");
	CU_ASSERT_STRING_EQUAL(s.run[1], "alpha");
	CU_ASSERT_STRING_EQUAL(s.policy[1], "fifo");
	CU_ASSERT_EQUAL(s.seed[0], 42);
	CU_ASSERT_EQUAL(s.seed[1], 43);
	for (int k = 0; k < SIM_SUM_COUNT_ && (size_t)k < s.n_fields; k++) {
		CU_ASSERT_STRING_EQUAL(s.field[k], sim_summary_name((enum sim_summary_field)k));
		CU_ASSERT_STRING_EQUAL(s.unit[k], sim_summary_unit((enum sim_summary_field)k));
		CU_ASSERT(same_double(s.v[s.n_fields + (size_t)k], sum.v[k]));
	}
	/* busy GPU-seconds: the time each job held its GPUs (held_s) */
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "utilization"), 111620.0 / 200000, 1e-12);
	CU_ASSERT(isnan(h5read_summary_get(&s, 0, "no_such_metric")));
	CU_ASSERT_EQUAL(h5read_summary_row(&s, "alpha"), 1);
	h5read_summary_free(&s);

	/* units: one per compound field, aligned */
	char **units = NULL;
	size_t n = 0;
	CU_ASSERT_EQUAL_FATAL(h5read_strings_attr(f, "/runs/zeta/jobs", "units", &units, &n, &d), 0);
	CU_ASSERT_EQUAL(n, 29);
	CU_ASSERT_STRING_EQUAL(units[0], "");    /* id */
	CU_ASSERT_STRING_EQUAL(units[5], "GPU"); /* gpus */
	CU_ASSERT_STRING_EQUAL(units[7], "s");   /* submit_s */
	CU_ASSERT_STRING_EQUAL(units[13], "1");  /* bsld */
	CU_ASSERT_STRING_EQUAL(units[17], "GPU*s"); /* lost_gpu_s */
	CU_ASSERT_STRING_EQUAL(units[18], "s");     /* restore_s */
	CU_ASSERT_STRING_EQUAL(units[20], "currency"); /* cost */
	CU_ASSERT_STRING_EQUAL(units[21], "1");        /* n_options */
	CU_ASSERT_STRING_EQUAL(units[24], "s");        /* pending_from_s */
	CU_ASSERT_STRING_EQUAL(units[25], "");         /* final_state */
	CU_ASSERT_STRING_EQUAL(units[26], "");         /* final_state_label (1.5) */
	h5read_strings_free(units);
	CU_ASSERT_EQUAL_FATAL(h5read_strings_attr(f, "/summary", "units", &units, &n, &d), 0);
	/* 1.5: run, variant, policy, 4 policy families, placement, seed; no sweep here */
	CU_ASSERT_EQUAL(n, 9 + SIM_SUM_COUNT_);
	CU_ASSERT_STRING_EQUAL(units[9 + SIM_SUM_busy_gpu_s], "GPU*s");
	h5read_strings_free(units);
	CU_ASSERT_EQUAL(h5read_strings_attr(f, "/summary", "nope", &units, &n, &d), -SIM_ENOENT);

	/* time series */
	struct h5read_timeseries ts;
	CU_ASSERT_EQUAL_FATAL(h5read_timeseries(f, "alpha", &ts, &d), 0);
	CU_ASSERT_EQUAL(ts.n, 11);
	CU_ASSERT_EQUAL(ts.n_flavors, 2);
	CU_ASSERT_STRING_EQUAL(ts.flavor_names[0], "h100");
	CU_ASSERT_STRING_EQUAL(ts.flavor_names[1], "a100");
	CU_ASSERT_DOUBLE_EQUAL(ts.t_s[10], 10000, 0);
	CU_ASSERT_DOUBLE_EQUAL(ts.gpus_busy_by_flavor[2 * 3 + 1], 1.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(ts.gpus_busy[3], 4.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(ts.jobs_queued[4], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(ts.jobs_running[3], 3, 0);
	h5read_timeseries_free(&ts);
	CU_ASSERT_EQUAL(h5read_timeseries(f, "nope", &ts, &d), -SIM_ENOENT);
	CU_ASSERT(sim_diag_contains(&d, "no run named 'nope'"));
	h5read_close(f);
	sim_diag_fini(&d);
}

/* final_state is an HDF5 enum named in upper case; units and description on every dataset. */
static void test_h5out_enum_and_dataset_attrs(void)
{
	const char *path = tmp_path("enum.h5");
	const char *names[] = { "r" };
	CU_ASSERT_EQUAL_FATAL(write_fixture(path, names, 1, "{}", NULL), 0);
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	CU_ASSERT_FATAL(file >= 0);
	/* 2.0: the jobs table is a group of columns, final_state an enum dataset */
	hid_t d = H5Dopen2(file, "/runs/r/jobs/final_state", H5P_DEFAULT);
	CU_ASSERT_FATAL(d >= 0);
	hid_t e = H5Dget_type(d);
	CU_ASSERT_EQUAL(H5Tget_class(e), H5T_ENUM);
	char name[64];
	uint8_t v = SIM_JOB_COMPLETED;
	CU_ASSERT(H5Tenum_nameof(e, &v, name, sizeof name) >= 0);
	CU_ASSERT_STRING_EQUAL(name, "COMPLETED");
	v = SIM_JOB_TIMED_OUT_PENDING;
	CU_ASSERT(H5Tenum_nameof(e, &v, name, sizeof name) >= 0);
	CU_ASSERT_STRING_EQUAL(name, "TIMED_OUT_PENDING");
	H5Tclose(e);
	CU_ASSERT(H5Aexists(d, "description") > 0 && H5Aexists(d, "units") > 0);
	H5Dclose(d);
	/* every column in table order (the group tracks creation order), each with its
	 * units and description; the group has the aligned arrays too */
	static const char *const cols[] = { "id", "queue", "user", "flavor", "option", "gpus", "alloc_gpus",
					    "submit_s", "start_s", "end_s", "wait_s", "jct_s", "runtime_s", "bsld",
					    "priority", "preemptions", "preemptions_caused", "lost_gpu_s",
					    "restore_s", "ckpt_overhead_s", "cost", "n_options", "fallback_evals",
					    "interruptions", "pending_from_s", "final_state", "final_state_label",
					    "cost_type", "cost_type_label" };
	hid_t jg = H5Gopen2(file, "/runs/r/jobs", H5P_DEFAULT);
	CU_ASSERT_FATAL(jg >= 0);
	H5G_info_t gi;
	CU_ASSERT(H5Gget_info(jg, &gi) >= 0 && gi.nlinks == sizeof cols / sizeof cols[0]);
	for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
		char nm[64] = "";
		CU_ASSERT(H5Lget_name_by_idx(jg, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, k, nm, sizeof nm,
					     H5P_DEFAULT) > 0);
		CU_ASSERT_STRING_EQUAL(nm, cols[k]);
		hid_t cd = H5Dopen2(jg, cols[k], H5P_DEFAULT);
		CU_ASSERT(cd >= 0 && H5Aexists(cd, "units") > 0 && H5Aexists(cd, "description") > 0);
		H5Dclose(cd);
	}
	CU_ASSERT(H5Aexists(jg, "fields") > 0 && H5Aexists(jg, "units") > 0 &&
		  H5Aexists(jg, "field_descriptions") > 0 && H5Aexists(jg, "description") > 0);
	H5Gclose(jg);
	const char *dsets[] = { "/runs/r/timeseries/t_s", "/runs/r/timeseries/gpus_busy",
				"/runs/r/timeseries/jobs_queued", "/runs/r/timeseries/jobs_running",
				"/runs/r/timeseries/gpus_busy_by_flavor", "/summary" };
	for (size_t i = 0; i < sizeof dsets / sizeof dsets[0]; i++) {
		d = H5Dopen2(file, dsets[i], H5P_DEFAULT);
		CU_ASSERT_FATAL(d >= 0);
		CU_ASSERT(H5Aexists(d, "units") > 0);
		CU_ASSERT(H5Aexists(d, "description") > 0);
		H5Dclose(d);
	}
	hid_t g = H5Gopen2(file, "/runs/r", H5P_DEFAULT);
	const char *run_attrs[] = { "policy", "seed", "wall_s", "events", "decision_passes",
				    "proposals_rejected", "starts" };
	for (size_t i = 0; i < sizeof run_attrs / sizeof run_attrs[0]; i++)
		CU_ASSERT(H5Aexists(g, run_attrs[i]) > 0);
	H5Gclose(g);
	H5Fclose(file);
}

static void test_h5out_abort_removes_tmp(void)
{
	const char *path = tmp_path("abort.h5");
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5out *o = h5out_create(path, NULL, &d);
	CU_ASSERT_FATAL(o != NULL);
	CU_ASSERT(tmp_exists(path));
	CU_ASSERT(!tu_exists(path));
	h5out_abort(o);
	CU_ASSERT(!tmp_exists(path));
	CU_ASSERT(!tu_exists(path));

	/* destroy without commit aborts too */
	o = h5out_create(path, NULL, &d);
	CU_ASSERT_FATAL(o != NULL);
	h5out_destroy(o);
	CU_ASSERT(!tmp_exists(path));
	CU_ASSERT(!tu_exists(path));
	h5out_abort(NULL);
	h5out_destroy(NULL);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

static void test_h5out_bad_path_and_names(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 5);
	char bad[600];
	snprintf(bad, sizeof bad, "%s/no/such/dir/x.h5", tu_tmpdir());
	CU_ASSERT(h5out_create(bad, NULL, &d) == NULL);
	CU_ASSERT(sim_diag_contains(&d, "x.h5: cannot create a temporary file beside it"));

	const char *path = tmp_path("names.h5");
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	struct h5out *o = h5out_create(path, NULL, &d);
	CU_ASSERT_FATAL(o && t && c);
	struct h5out_run run = { .name = "a/b", .policy = "fifo", .trace = t, .cluster = c };
	CU_ASSERT_EQUAL(h5out_write_run(o, &run, &d), -SIM_EINVAL);
	run.name = "ok";
	CU_ASSERT_EQUAL(h5out_write_run(o, &run, &d), 0); /* no ts, counters or summary */
	CU_ASSERT_EQUAL(h5out_write_run(o, &run, &d), -SIM_EINVAL);
	CU_ASSERT(sim_diag_contains(&d, "written twice"));
	CU_ASSERT_EQUAL(h5out_commit(o, &d), 0);
	CU_ASSERT_EQUAL(h5out_commit(o, &d), -SIM_ESTATE);
	h5out_destroy(o);
	CU_ASSERT(tu_exists(path) && !tmp_exists(path));

	/* the run without a summary reads back as NaN, its counts (int64 since 1.5) as 0;
	 * its empty time series as n = 0 */
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	struct h5read_summary s;
	CU_ASSERT_EQUAL_FATAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT_EQUAL(s.n_rows, 1);
	CU_ASSERT_EQUAL(h5read_summary_get(&s, 0, "jobs"), 0);
	CU_ASSERT(isnan(h5read_summary_get(&s, 0, "mean_wait_s")));
	h5read_summary_free(&s);
	struct h5read_timeseries ts;
	CU_ASSERT_EQUAL(h5read_timeseries(f, "ok", &ts, &d), 0);
	CU_ASSERT_EQUAL(ts.n, 0);
	CU_ASSERT_EQUAL(ts.n_flavors, 2);
	h5read_timeseries_free(&ts);
	h5read_close(f);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

static void test_h5out_empty_trace(void)
{
	const char *path = tmp_path("empty.h5");
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct sim_trace *t = sim_trace_create();
	struct sim_cluster *c = fx_cluster();
	struct h5out *o = h5out_create(path, NULL, &d);
	CU_ASSERT_FATAL(o && t && c);
	struct sim_summary sum;
	CU_ASSERT_EQUAL(sim_metrics_summarize(t, c, 0, &sum), 0);
	struct h5out_run run = { .name = "none", .policy = "", .trace = t, .cluster = c, .summary = &sum };
	CU_ASSERT_EQUAL(h5out_write_run(o, &run, &d), 0);
	CU_ASSERT_EQUAL(h5out_commit(o, &d), 0);
	h5out_destroy(o);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	struct h5read_jobs j;
	CU_ASSERT_EQUAL(h5read_jobs(f, "none", &j, &d), 0);
	CU_ASSERT_EQUAL(j.n, 0);
	h5read_jobs_free(&j);
	struct h5read_summary s;
	CU_ASSERT_EQUAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "jobs"), 0, 0);
	CU_ASSERT_STRING_EQUAL(s.policy[0], "");
	h5read_summary_free(&s);
	h5read_close(f);

	/* a file with no run at all */
	o = h5out_create(path, NULL, &d);
	CU_ASSERT_FATAL(o != NULL);
	CU_ASSERT_EQUAL(h5out_commit(o, &d), 0);
	h5out_destroy(o);
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	CU_ASSERT_EQUAL(h5read_n_runs(f), 0);
	CU_ASSERT_EQUAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT_EQUAL(s.n_rows, 0);
	h5read_summary_free(&s);
	h5read_close(f);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

/* 150000 jobs and samples: chunked + compressed tables, block writes and reads,
 * and an experiment_json larger than HDF5's 64 KiB compact attribute limit. */
static void test_h5out_large_tables(void)
{
	enum { N = 150000 };
	struct sim_trace *t = sim_trace_create();
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t && c);
	t->jobs = calloc(N, sizeof *t->jobs);
	t->opts = calloc(N, sizeof *t->opts);
	t->strings = malloc((size_t)N * 16);
	CU_ASSERT_FATAL(t->jobs && t->opts && t->strings);
	CU_ASSERT_EQUAL(sim_trace_intern_queue(t, "default"), 0);
	t->n_jobs = t->n_opts = N;
	for (size_t i = 0; i < N; i++) {
		struct sim_job *j = &t->jobs[i];
		j->id_off = (uint32_t)t->strings_len;
		t->strings_len += (size_t)sprintf(t->strings + t->strings_len, "job%zu", i) + 1;
		j->user = -1;
		j->submit_ns = (sim_time_t)i * SIM_NS_PER_S;
		j->duration_ns = 60 * SIM_NS_PER_S;
		j->opt_first = (uint32_t)i;
		j->n_opts = 1;
		t->opts[i].req[SIM_RES_GPU] = 1000;
	}
	sim_trace_reset(t);
	uint64_t lcg = 1;
	for (size_t i = 0; i < N; i++) {
		struct sim_job *j = &t->jobs[i];
		j->state = SIM_JOB_COMPLETED;
		j->opt_chosen = 0;
		j->start_ns = j->submit_ns + (sim_time_t)(i % 100) * SIM_NS_PER_S;
		/* run times of random nanoseconds (a 64-bit LCG): a column deflate cannot halve */
		lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
		j->runtime_ns = 60 * SIM_NS_PER_S + (sim_time_t)(lcg >> 34);
		j->end_ns = j->start_ns + j->runtime_ns;
	}
	struct sim_timeseries ts;
	CU_ASSERT_FATAL(fx_timeseries(&ts, N) == 0);
	size_t jl = 200000;
	char *json = malloc(jl + 1);
	CU_ASSERT_FATAL(json != NULL);
	memset(json, ' ', jl);
	json[0] = '{';
	json[jl - 1] = '}';
	json[jl] = 0;
	struct sim_summary sum;
	CU_ASSERT_EQUAL(sim_metrics_summarize(t, c, (sim_time_t)(N + 200) * SIM_NS_PER_S, &sum), 0);
	struct h5out_meta meta = { .experiment_json = json };
	struct sim_diag d;
	sim_diag_init(&d, 5);
	const char *path = tmp_path("large.h5");
	struct h5out *o = h5out_create(path, &meta, &d);
	CU_ASSERT_FATAL(o != NULL);
	struct h5out_run run = { .name = "big", .policy = "fifo", .trace = t, .cluster = c, .ts = &ts,
				 .summary = &sum };
	CU_ASSERT_EQUAL(h5out_write_run(o, &run, &d), 0);
	CU_ASSERT_EQUAL(h5out_commit(o, &d), 0);
	h5out_destroy(o);
	sim_diag_print(&d, stderr);

	/* the jobs columns are chunked, in 10 chunks of 15,000 rows (150,000 over at most
	 * 16,384 a chunk); the ones deflate halves are shuffled and deflated (ids,
	 * submit times that count seconds, constant states), the random run times and
	 * what follows from them are stored without a filter */
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	CU_ASSERT_FATAL(file >= 0);
	static const struct {
		const char *col;
		int filters;
	} expect[] = { { "id", 2 }, { "submit_s", 2 }, { "final_state", 1 }, { "final_state_label", 2 },
		       { "runtime_s", 0 }, { "jct_s", 0 }, { "end_s", 0 } };
	for (size_t k = 0; k < sizeof expect / sizeof expect[0]; k++) {
		char p[128];
		snprintf(p, sizeof p, "/runs/big/jobs/%s", expect[k].col);
		hid_t ds = H5Dopen2(file, p, H5P_DEFAULT);
		hid_t pl = H5Dget_create_plist(ds);
		hsize_t chunk = 0;
		CU_ASSERT_EQUAL(H5Pget_layout(pl), H5D_CHUNKED);
		CU_ASSERT(H5Pget_chunk(pl, 1, &chunk) == 1 && chunk == 15000);
		if (H5Pget_nfilters(pl) != expect[k].filters)
			fprintf(stderr, "%s: %d filters, expected %d\n", expect[k].col, H5Pget_nfilters(pl),
				expect[k].filters);
		CU_ASSERT_EQUAL(H5Pget_nfilters(pl), expect[k].filters);
		H5Pclose(pl);
		H5Dclose(ds);
	}
	H5Fclose(file);

	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	CU_ASSERT_EQUAL(strlen(h5read_root_attr(f, "experiment_json")), jl);
	struct h5read_jobs j;
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(f, "big", &j, &d), 0);
	CU_ASSERT_EQUAL_FATAL(j.n, N);
	size_t bad = 0;
	for (size_t i = 0; i < N; i++) {
		char id[32];
		snprintf(id, sizeof id, "job%zu", i);
		const struct sim_job *sj = &t->jobs[i];
		if (strcmp(j.id[i], id) != 0 || j.submit_s[i] != (double)i || j.wait_s[i] != (double)(i % 100) ||
		    j.jct_s[i] != sim_job_jct_s(sj) || j.runtime_s[i] != sim_time_to_s(sj->runtime_ns) ||
		    strcmp(j.state[i], "completed") != 0 ||
		    strcmp(j.flavor[i], "h100") != 0)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	h5read_jobs_free(&j);
	struct h5read_timeseries rts;
	CU_ASSERT_EQUAL_FATAL(h5read_timeseries(f, "big", &rts, &d), 0);
	CU_ASSERT_EQUAL(rts.n, N);
	CU_ASSERT_EQUAL(memcmp(rts.gpus_busy_by_flavor, ts.gpus_busy_by_flavor, 2 * N * sizeof(double)), 0);
	CU_ASSERT_EQUAL(memcmp(rts.t_s, ts.t_s, N * sizeof(double)), 0);
	h5read_timeseries_free(&rts);
	h5read_close(f);
	free(json);
	fx_timeseries_free(&ts);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

/* Reads the root attribute "seeds" (a 1-D uint64 array) with the HDF5 API into
 * out[cap]; returns its length, or -1 when it is missing or not a 1-D uint64 array. */
static long read_root_seeds(const char *path, uint64_t *out, size_t cap)
{
	long n = -1;
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (file < 0)
		return -1;
	hid_t a = H5Aexists(file, "seeds") > 0 ? H5Aopen(file, "seeds", H5P_DEFAULT) : -1;
	hid_t t = a >= 0 ? H5Aget_type(a) : -1, sp = a >= 0 ? H5Aget_space(a) : -1;
	hsize_t dim = 0;
	if (t >= 0 && sp >= 0 && H5Tget_class(t) == H5T_INTEGER && H5Tget_sign(t) == H5T_SGN_NONE &&
	    H5Tget_size(t) == 8 && H5Sget_simple_extent_ndims(sp) == 1 &&
	    H5Sget_simple_extent_dims(sp, &dim, NULL) == 1 && dim <= cap &&
	    (dim == 0 || H5Aread(a, H5T_NATIVE_UINT64, out) >= 0))
		n = (long)dim;
	if (sp >= 0)
		H5Sclose(sp);
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	H5Fclose(file);
	return n;
}

/* The root attribute "seeds" holds every seed of the experiment once, in the order
 * the runs first used them (the runner's order: each variant runs the config's
 * seeds in order), as exact uint64 values; the per-run seed stays. A file with no
 * run has an empty list. */
static void test_h5out_root_seeds(void)
{
	const char *path = tmp_path("seeds.h5");
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	struct sim_timeseries ts;
	CU_ASSERT_FATAL(t && c && fx_timeseries(&ts, 5) == 0);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5out *o = h5out_create(path, NULL, &d);
	CU_ASSERT_FATAL(o != NULL);
	/* seeds 7, 3, UINT64_MAX - 1 (not a double), for two variants */
	const uint64_t seeds[3] = { 7, 3, UINT64_MAX - 1 };
	const char *const variants[2] = { "fifo", "easy" };
	for (int v = 0; v < 2; v++)
		for (int k = 0; k < 3; k++) {
			char name[64];
			snprintf(name, sizeof name, "%s-s%llu", variants[v], (unsigned long long)seeds[k]);
			struct h5out_run run = { .name = name, .policy = variants[v], .seed = seeds[k],
						 .trace = t, .cluster = c, .ts = &ts };
			CU_ASSERT_EQUAL(h5out_write_run(o, &run, &d), 0);
		}
	CU_ASSERT_EQUAL(h5out_commit(o, &d), 0);
	h5out_destroy(o);

	uint64_t got[8] = { 0 };
	CU_ASSERT_EQUAL(read_root_seeds(path, got, 8), 3);
	CU_ASSERT_EQUAL(got[0], 7);
	CU_ASSERT_EQUAL(got[1], 3);
	CU_ASSERT(got[2] == UINT64_MAX - 1);
	/* the per-run seed and /summary's seed are still there */
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	double v = 0;
	CU_ASSERT_EQUAL(h5read_run_attr_num(f, "easy-s3", "seed", &v, &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(v, 3, 0);
	struct h5read_summary s;
	CU_ASSERT_EQUAL_FATAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT(s.n_rows == 6 && s.seed[4] == 3 && s.seed[5] == UINT64_MAX - 1);
	h5read_summary_free(&s);
	h5read_close(f);

	/* no run: an empty list */
	o = h5out_create(path, NULL, &d);
	CU_ASSERT_FATAL(o != NULL);
	CU_ASSERT_EQUAL(h5out_commit(o, &d), 0);
	h5out_destroy(o);
	CU_ASSERT_EQUAL(read_root_seeds(path, got, 8), 0);
	sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
	fx_timeseries_free(&ts);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

static void test_h5out_reader_refuses_bad_files(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 10);
	struct h5read_file *f = (struct h5read_file *)&d; /* must be reset to NULL */
	char missing[600];
	snprintf(missing, sizeof missing, "%s/missing.h5", tu_tmpdir());
	CU_ASSERT_EQUAL(h5read_open(missing, &f, &d), -SIM_ENOENT);
	CU_ASSERT(f == NULL);
	CU_ASSERT(sim_diag_contains(&d, "missing.h5"));

	CU_ASSERT_EQUAL(h5read_open(tu_tmpdir(), &f, &d), -SIM_EPARSE); /* a folder */
	CU_ASSERT(f == NULL);

	const char *txt = tu_write_file("not.h5", "id,submit_s\n");
	CU_ASSERT_EQUAL(h5read_open(txt, &f, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "not an HDF5 file"));

	/* an HDF5 file that gpusched did not write */
	const char *other = tmp_path("other.h5");
	hid_t file = H5Fcreate(other, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	CU_ASSERT_FATAL(file >= 0);
	H5Fclose(file);
	CU_ASSERT_EQUAL(h5read_open(other, &f, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "no schema_version"));

	/* a future major schema */
	const char *future = tmp_path("future.h5");
	file = H5Fcreate(future, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	CU_ASSERT_FATAL(file >= 0);
	hid_t st = H5Tcopy(H5T_C_S1);
	H5Tset_size(st, 4);
	hid_t sp = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(file, "schema_version", st, sp, H5P_DEFAULT, H5P_DEFAULT);
	CU_ASSERT(H5Awrite(a, st, "3.0") >= 0);
	H5Aclose(a);
	H5Sclose(sp);
	H5Tclose(st);
	H5Fclose(file);
	CU_ASSERT_EQUAL(h5read_open(future, &f, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "schema_version '3.0' is not supported (this gpusched reads 1.x to 2.x)"));
	CU_ASSERT(f == NULL);
	h5read_close(NULL);
	sim_diag_fini(&d);
}


/* A results file whose /summary is not a compound table is refused with a message,
 * and nothing uninitialised is freed on the way out (the key-field list was declared
 * after the first early exit; ASan saw a free of a stack value). */
static void test_h5out_summary_not_compound(void)
{
	const char *path = tmp_path("summary_int.h5");
	hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	CU_ASSERT_FATAL(file >= 0);
	hid_t st = H5Tcopy(H5T_C_S1);
	H5Tset_size(st, 4);
	hid_t sp = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(file, "schema_version", st, sp, H5P_DEFAULT, H5P_DEFAULT);
	CU_ASSERT(H5Awrite(a, st, "1.5") >= 0);
	H5Aclose(a);
	H5Sclose(sp);
	H5Tclose(st);
	hid_t g = H5Gcreate2(file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Gclose(g);
	hsize_t dim = 3;
	int vals[3] = { 1, 2, 3 };
	sp = H5Screate_simple(1, &dim, NULL);
	hid_t d = H5Dcreate2(file, "summary", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	CU_ASSERT(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, vals) >= 0);
	H5Dclose(d);
	H5Sclose(sp);
	H5Fclose(file);
	struct sim_diag diag;
	sim_diag_init(&diag, 8);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &diag), 0);
	struct h5read_summary sum;
	memset(&sum, 0, sizeof sum);
	CU_ASSERT_EQUAL(h5read_summary(f, &sum, &diag), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&diag, "not a compound table"));
	h5read_close(f);
	sim_diag_fini(&diag);
}

/* The 1.2 tables of the fixture run read back: decisions (a quota shrink has no
 * preemptor), queues (every field as sim_metrics_queues computed it), and the
 * per-queue time series with their column names. */
static void test_h5out_round_trip_preemption_tables(void)
{
	const char *path = tmp_path("pre.h5");
	const char *names[] = { "r" };
	struct sim_summary sum;
	CU_ASSERT_EQUAL_FATAL(write_fixture(path, names, 1, "{}", &sum), 0);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);

	struct h5read_decisions ds;
	CU_ASSERT_EQUAL_FATAL(h5read_decisions(f, "r", &ds, &d), 0);
	CU_ASSERT(ds.present);
	CU_ASSERT_EQUAL_FATAL(ds.n, FX_N_DECISIONS);
	static const char *const pre[] = { "j1", "", "j2" }, *const vic[] = { "j2", "j7", "j4" };
	static const char *const pq[] = { "q", "", "research" }, *const vq[] = { "research", "q", "q" };
	static const char *const why[] = { "cohort_reclamation", "quota_shrink", "cohort_fair_sharing" };
	for (size_t i = 0; i < FX_N_DECISIONS; i++) {
		CU_ASSERT_DOUBLE_EQUAL(ds.time_s[i], 1000.0 * (double)(i + 1), 0);
		CU_ASSERT_STRING_EQUAL(ds.preemptor[i], pre[i]);
		CU_ASSERT_STRING_EQUAL(ds.victim[i], vic[i]);
		CU_ASSERT_STRING_EQUAL(ds.preemptor_queue[i], pq[i]);
		CU_ASSERT_STRING_EQUAL(ds.victim_queue[i], vq[i]);
		CU_ASSERT_STRING_EQUAL(ds.reason[i], why[i]);
		CU_ASSERT_EQUAL(ds.requeued[i], fx_decision_rows[i].requeued);
		CU_ASSERT_DOUBLE_EQUAL(ds.lost_gpu_s[i], fx_decision_rows[i].lost_gpu_s, 0);
	}
	h5read_decisions_free(&ds);
	h5read_decisions_free(&ds); /* zeroed: a no-op */

	/* queues: the rows the writer was given, field by field */
	struct sim_trace *t = fx_trace();
	struct sim_timeseries ts;
	CU_ASSERT_FATAL(t && fx_timeseries(&ts, 11) == 0 && fx_timeseries_queues(&ts) == 0);
	struct sim_queue_acct acct[2];
	fx_queue_acct(acct);
	struct sim_decisions fd = fx_decisions();
	struct sim_queue_row rows[2];
	CU_ASSERT_EQUAL_FATAL(sim_metrics_queues(t, acct, &ts, &fd, FX_END_NS, rows), 0);
	struct h5read_table q;
	CU_ASSERT_EQUAL_FATAL(h5read_queues(f, "r", &q, &d), 0);
	CU_ASSERT(q.present);
	CU_ASSERT_EQUAL_FATAL(q.n_rows, 2);
	CU_ASSERT_EQUAL(q.n_fields, SIM_QF_COUNT_);
	CU_ASSERT_STRING_EQUAL(q.key[0], "q");
	CU_ASSERT_STRING_EQUAL(q.key[1], "research");
	for (int k = 0; k < SIM_QF_COUNT_ && (size_t)k < q.n_fields; k++) {
		CU_ASSERT_STRING_EQUAL(q.field[k], sim_queue_field_name((enum sim_queue_field)k));
		CU_ASSERT_STRING_EQUAL(q.unit[k], sim_queue_field_unit((enum sim_queue_field)k));
		for (size_t r = 0; r < 2; r++)
			CU_ASSERT(same_double(q.v[r * q.n_fields + (size_t)k], rows[r].v[k]));
	}
	CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&q, 0, "share"), 0.75, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&q, 1, "lent_gpu_h"), 10000.0 / 3600, 1e-12);
	CU_ASSERT(isnan(h5read_table_get(&q, 0, "no_such_field")));
	h5read_table_free(&q);

	/* the summary's new fields */
	struct h5read_summary s;
	CU_ASSERT_EQUAL_FATAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "preemptions"), 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "lost_gpu_s"), 3601.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "jain_fairness"),
			       0.84 * 0.84 / (2 * (0.75 * 0.75 + 0.09 * 0.09)), 1e-12);
	h5read_summary_free(&s);

	/* per-queue series, named */
	struct h5read_timeseries rts;
	CU_ASSERT_EQUAL_FATAL(h5read_timeseries(f, "r", &rts, &d), 0);
	CU_ASSERT_EQUAL(rts.n_queues, 2);
	CU_ASSERT_FATAL(rts.queue_usage && rts.queue_nominal && rts.queue_borrowed && rts.queue_lent &&
			rts.queue_names);
	CU_ASSERT_STRING_EQUAL(rts.queue_names[0], "q");
	CU_ASSERT_STRING_EQUAL(rts.queue_names[1], "research");
	CU_ASSERT_PTR_NULL(rts.queue_names[2]);
	CU_ASSERT_EQUAL(memcmp(rts.queue_usage, ts.q_usage, 2 * ts.n * sizeof(double)), 0);
	CU_ASSERT_EQUAL(memcmp(rts.queue_lent, ts.q_lent, 2 * ts.n * sizeof(double)), 0);
	CU_ASSERT_DOUBLE_EQUAL(rts.queue_nominal[2 * 3 + 1], 8, 0);
	CU_ASSERT_EQUAL(memcmp(rts.queue_borrowed, ts.q_borrowed, 2 * ts.n * sizeof(double)), 0);
	h5read_timeseries_free(&rts);
	h5read_close(f);

	/* units, descriptions and the reason enum, as written */
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	CU_ASSERT_FATAL(file >= 0);
	const char *dsets[] = { "/runs/r/decisions", "/runs/r/queues", "/runs/r/timeseries/queue_usage",
				"/runs/r/timeseries/queue_lent" };
	for (size_t i = 0; i < sizeof dsets / sizeof dsets[0]; i++) {
		hid_t dd = H5Dopen2(file, dsets[i], H5P_DEFAULT);
		CU_ASSERT_FATAL(dd >= 0);
		CU_ASSERT(H5Aexists(dd, "units") > 0 && H5Aexists(dd, "description") > 0);
		CU_ASSERT(i >= 2 || H5Aexists(dd, "field_descriptions") > 0);
		CU_ASSERT(i < 2 || H5Aexists(dd, "queue_names") > 0);
		H5Dclose(dd);
	}
	hid_t dd = H5Dopen2(file, "/runs/r/decisions", H5P_DEFAULT);
	hid_t dt = H5Dget_type(dd);
	hid_t e = H5Tget_member_type(dt, (unsigned)H5Tget_member_index(dt, "reason"));
	CU_ASSERT_EQUAL(H5Tget_class(e), H5T_ENUM);
	char name[64];
	for (uint8_t r = 0; r < SIM_PR_COUNT_; r++) {
		CU_ASSERT(H5Tenum_nameof(e, &r, name, sizeof name) >= 0);
		CU_ASSERT_STRING_EQUAL(name, sim_preempt_reason_name((enum sim_preempt_reason)r));
	}
	H5Tclose(e);
	H5Tclose(dt);
	H5Dclose(dd);
	H5Fclose(file);
	fx_timeseries_free(&ts);
	sim_trace_destroy(t);
	sim_diag_fini(&d);
}

/* The options table's rows of the fixture's trace and cluster, as the writer
 * computes them; their count. */
static size_t fixture_option_rows(struct sim_option_row *rows)
{
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	size_t n = 0;
	CU_ASSERT_FATAL(t && c);
	CU_ASSERT_EQUAL(sim_metrics_options(t, c, rows, &n), 0);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	return n;
}

/* Option rows the caller computed (the runner does so while the summary is computed
 * on another thread) are written as given: rows equal to the writer's own give
 * the same table, and a changed value comes back changed. */
static void test_h5out_options_given(void)
{
	struct sim_option_row rows[SIM_MAX_OPTIONS];
	size_t n = fixture_option_rows(rows);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	const char *names[] = { "r" };
	const char *own = tmp_path("opt_own.h5"), *same = tmp_path("opt_same.h5"), *changed = tmp_path("opt_chg.h5");
	CU_ASSERT_EQUAL_FATAL(write_fixture(own, names, 1, "{}", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(write_fixture_opts(same, names, 1, "{}", NULL, rows, n), 0);
	rows[1].v[SIM_OF_mean_cost] = 123.5;
	CU_ASSERT_EQUAL_FATAL(write_fixture_opts(changed, names, 1, "{}", NULL, rows, n), 0);
	const char *paths[] = { own, same, changed };
	struct h5read_table o[3];
	struct sim_diag d;
	sim_diag_init(&d, 5);
	for (int k = 0; k < 3; k++) {
		struct h5read_file *f = NULL;
		CU_ASSERT_EQUAL_FATAL(h5read_open(paths[k], &f, &d), 0);
		CU_ASSERT_EQUAL_FATAL(h5read_options(f, "r", &o[k], &d), 0);
		CU_ASSERT_EQUAL_FATAL(o[k].n_rows, 2);
		h5read_close(f);
	}
	size_t cells = o[0].n_rows * o[0].n_fields;
	size_t at = 1 * o[0].n_fields + (size_t)h5read_table_field(&o[0], "mean_cost");
	for (size_t i = 0; i < cells; i++) {
		CU_ASSERT(same_double(o[1].v[i], o[0].v[i]));
		if (i != at)
			CU_ASSERT(same_double(o[2].v[i], o[0].v[i]));
	}
	CU_ASSERT_DOUBLE_EQUAL(o[2].v[at], 123.5, 0);
	CU_ASSERT(!same_double(o[0].v[at], 123.5));
	for (int k = 0; k < 3; k++)
		h5read_table_free(&o[k]);
	sim_diag_fini(&d);
}

/* The per-option table (1.3) reads back as sim_metrics_options computed it, with its
 * units and descriptions; the summary's 1.3 fields too. A job never submitted has
 * no pending clock (NaN). */
static void test_h5out_round_trip_options(void)
{
	const char *path = tmp_path("opt.h5");
	const char *names[] = { "r" };
	struct sim_summary sum;
	CU_ASSERT_EQUAL_FATAL(write_fixture(path, names, 1, "{}", &sum), 0);
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t && c);
	struct sim_option_row rows[SIM_MAX_OPTIONS];
	size_t n = fixture_option_rows(rows);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	struct h5read_table o;
	CU_ASSERT_EQUAL_FATAL(h5read_options(f, "r", &o, &d), 0);
	CU_ASSERT(o.present);
	CU_ASSERT_EQUAL_FATAL(o.n_rows, 2);
	CU_ASSERT_EQUAL_FATAL(o.n_fields, 1 + SIM_OF_COUNT_);
	CU_ASSERT_STRING_EQUAL(o.field[0], "option");
	CU_ASSERT_STRING_EQUAL(o.unit[0], "1");
	CU_ASSERT_PTR_NULL(o.field[o.n_fields]);
	for (size_t r = 0; r < 2; r++) {
		CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&o, r, "option"), (double)r, 0);
		for (int k = 0; k < SIM_OF_COUNT_; k++) {
			enum sim_option_field of = (enum sim_option_field)k;
			CU_ASSERT_STRING_EQUAL(o.field[1 + k], sim_option_field_name(of));
			CU_ASSERT_STRING_EQUAL(o.unit[1 + k], sim_option_field_unit(of));
			CU_ASSERT(same_double(o.v[r * o.n_fields + 1 + (size_t)k], rows[r].v[k]));
		}
	}
	CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&o, 0, "p95_wait_s"), 4945, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&o, 1, "runtime_ratio"), 4, 1e-12);
	CU_ASSERT_EQUAL(h5read_table_field(&o, "mean_cost"), 1 + SIM_OF_mean_cost);
	CU_ASSERT(isnan(h5read_table_get(&o, 0, "no_such_field")));
	CU_ASSERT(isnan(h5read_table_get(&o, 2, "jobs"))); /* no such row */
	h5read_table_free(&o);
	h5read_table_free(&o); /* zeroed: a no-op */
	CU_ASSERT_EQUAL(h5read_options(f, "nope", &o, &d), -SIM_ENOENT);

	struct h5read_summary s;
	CU_ASSERT_EQUAL_FATAL(h5read_summary(f, &s, &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "fallback_rate"), 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "pending_timeout_rate"), 0, 0);
	double per_job = sum.v[SIM_SUM_cost] / 5;
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "mean_cost_per_job"), per_job, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "fallback_evals"), 5, 0);
	CU_ASSERT_DOUBLE_EQUAL(h5read_summary_get(&s, 0, "interruptions"), 1, 0);
	h5read_summary_free(&s);
	h5read_close(f);

	/* attributes of the table, as written */
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	CU_ASSERT_FATAL(file >= 0);
	hid_t dd = H5Dopen2(file, "/runs/r/options", H5P_DEFAULT);
	CU_ASSERT_FATAL(dd >= 0);
	CU_ASSERT(H5Aexists(dd, "units") > 0 && H5Aexists(dd, "description") > 0 &&
		  H5Aexists(dd, "field_descriptions") > 0);
	hid_t dt = H5Dget_type(dd);
	hid_t ot = H5Tget_member_type(dt, (unsigned)H5Tget_member_index(dt, "option"));
	CU_ASSERT_EQUAL(H5Tget_class(ot), H5T_INTEGER);
	H5Tclose(ot);
	H5Tclose(dt);
	H5Dclose(dd);
	H5Fclose(file);

	/* a run whose trace holds a never-submitted job: no pending clock, NaN */
	const char *p2 = tmp_path("opt2.h5");
	t->jobs[6].pending_from_ns = 0; /* as reset: submitted at 600 s, clock never started */
	struct h5out *out = h5out_create(p2, NULL, &d);
	CU_ASSERT_FATAL(out != NULL);
	struct h5out_run run = { .name = "x", .policy = "fifo", .trace = t, .cluster = c };
	CU_ASSERT_EQUAL(h5out_write_run(out, &run, &d), 0);
	CU_ASSERT_EQUAL(h5out_commit(out, &d), 0);
	h5out_destroy(out);
	CU_ASSERT_EQUAL_FATAL(h5read_open(p2, &f, &d), 0);
	struct h5read_jobs j;
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(f, "x", &j, &d), 0);
	CU_ASSERT(isnan(j.pending_from_s[6]));
	CU_ASSERT_DOUBLE_EQUAL(j.pending_from_s[0], 0, 0); /* submitted at 0: the clock started at 0 */
	h5read_jobs_free(&j);
	h5read_close(f);
	sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

/* A run written without the engine's extras (no decisions, no queue rows, a series
 * without queue columns): an empty decisions table, queue rows from the jobs alone
 * (engine values NaN), no per-queue series, and the jobs' own preemptions_caused. */
static void test_h5out_without_engine_extras(void)
{
	const char *path = tmp_path("plain.h5");
	struct sim_trace *t = fx_trace();
	struct sim_cluster *c = fx_cluster();
	struct sim_timeseries ts;
	CU_ASSERT_FATAL(t && c && fx_timeseries(&ts, 4) == 0);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5out *o = h5out_create(path, NULL, &d);
	CU_ASSERT_FATAL(o != NULL);
	struct h5out_run run = { .name = "p", .policy = "fifo", .trace = t, .cluster = c, .ts = &ts };
	CU_ASSERT_EQUAL(h5out_write_run(o, &run, &d), 0);
	CU_ASSERT_EQUAL(h5out_commit(o, &d), 0);
	h5out_destroy(o);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	struct h5read_decisions ds;
	CU_ASSERT_EQUAL(h5read_decisions(f, "p", &ds, &d), 0);
	CU_ASSERT(ds.present);
	CU_ASSERT_EQUAL(ds.n, 0);
	h5read_decisions_free(&ds);
	struct h5read_table q;
	CU_ASSERT_EQUAL_FATAL(h5read_queues(f, "p", &q, &d), 0);
	CU_ASSERT_EQUAL_FATAL(q.n_rows, 2);
	CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&q, 0, "jobs"), 6, 0);
	CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&q, 1, "preemptions_suffered"), 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(h5read_table_get(&q, 0, "preemptions_caused"), 1, 0); /* j7's own count */
	CU_ASSERT(isnan(h5read_table_get(&q, 0, "busy_gpu_h")) && isnan(h5read_table_get(&q, 1, "share")));
	h5read_table_free(&q);
	struct h5read_timeseries rts;
	CU_ASSERT_EQUAL_FATAL(h5read_timeseries(f, "p", &rts, &d), 0);
	CU_ASSERT_EQUAL(rts.n, 4);
	CU_ASSERT_EQUAL(rts.n_queues, 0);
	CU_ASSERT_PTR_NULL(rts.queue_usage);
	CU_ASSERT_PTR_NULL(rts.queue_names);
	h5read_timeseries_free(&rts);
	struct h5read_jobs j;
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(f, "p", &j, &d), 0);
	CU_ASSERT_EQUAL(j.preemptions_caused[6], 1);
	h5read_jobs_free(&j);
	CU_ASSERT_EQUAL(h5read_decisions(f, "nope", &ds, &d), -SIM_ENOENT);
	CU_ASSERT_EQUAL(h5read_queues(f, "nope", &q, &d), -SIM_ENOENT);
	h5read_close(f);
	sim_diag_fini(&d);
	fx_timeseries_free(&ts);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

/* Rewrites a results file as schema 1.1 had it: no decisions, queues or per-queue
 * series, a jobs table with only id, preemptions and final_state, schema_version
 * "1.1". Returns 0 or -1. */
static int make_schema_1_1(const char *path, const char *run)
{
	hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	if (file < 0)
		return -1;
	char p[256];
	const char *gone[] = { "decisions",
			       "queues",
			       "options",
			       "jobs",
			       "timeseries/queue_usage",
			       "timeseries/queue_nominal",
			       "timeseries/queue_borrowed",
			       "timeseries/queue_lent" };
	int bad = 0;
	for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
		snprintf(p, sizeof p, "/runs/%s/%s", run, gone[i]);
		bad |= H5Ldelete(file, p, H5P_DEFAULT) < 0;
	}
	/* jobs: { id "a" / "b", preemptions 1 / 0, final_state COMPLETED } */
	struct row {
		char id[4];
		uint32_t pre;
		uint8_t st;
	} rows[2] = { { "a", 1, 0 }, { "b", 0, 0 } };
	hid_t s4 = H5Tcopy(H5T_C_S1), en = H5Tenum_create(H5T_NATIVE_UINT8);
	uint8_t v = 0;
	H5Tset_size(s4, 4);
	H5Tenum_insert(en, "COMPLETED", &v);
	rows[0].st = rows[1].st = 0;
	hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(struct row));
	bad |= H5Tinsert(mt, "id", offsetof(struct row, id), s4) < 0 ||
	       H5Tinsert(mt, "preemptions", offsetof(struct row, pre), H5T_NATIVE_UINT32) < 0 ||
	       H5Tinsert(mt, "final_state", offsetof(struct row, st), en) < 0;
	hsize_t dim = 2;
	hid_t sp = H5Screate_simple(1, &dim, NULL);
	snprintf(p, sizeof p, "/runs/%s/jobs", run);
	hid_t d = H5Dcreate2(file, p, mt, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	bad |= d < 0 || H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0;
	H5Dclose(d);
	H5Sclose(sp);
	H5Tclose(mt);
	H5Tclose(en);
	H5Tclose(s4);
	bad |= H5Adelete(file, "schema_version") < 0;
	hid_t st = H5Tcopy(H5T_C_S1);
	H5Tset_size(st, 4);
	hid_t ss = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(file, "schema_version", st, ss, H5P_DEFAULT, H5P_DEFAULT);
	bad |= a < 0 || H5Awrite(a, st, "1.1") < 0;
	H5Aclose(a);
	H5Sclose(ss);
	H5Tclose(st);
	bad |= H5Fclose(file) < 0;
	return bad ? -1 : 0;
}

/* A schema 1.1 file still reads: the 1.2 tables are reported absent, the new jobs
 * fields read as NaN and 0, the time series has no queue columns; report's
 * per-queue and decision views say so. */
static void test_h5out_reads_schema_1_1(void)
{
	const char *path = tmp_path("old.h5");
	const char *names[] = { "r" };
	CU_ASSERT_EQUAL_FATAL(write_fixture(path, names, 1, "{}", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(make_schema_1_1(path, "r"), 0);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	CU_ASSERT_STRING_EQUAL(h5read_root_attr(f, "schema_version"), "1.1");
	struct h5read_decisions ds;
	CU_ASSERT_EQUAL(h5read_decisions(f, "r", &ds, &d), 0);
	CU_ASSERT(!ds.present && ds.n == 0);
	h5read_decisions_free(&ds);
	struct h5read_table q;
	CU_ASSERT_EQUAL(h5read_queues(f, "r", &q, &d), 0);
	CU_ASSERT(!q.present && q.n_rows == 0);
	h5read_table_free(&q);
	struct h5read_table o;
	CU_ASSERT_EQUAL(h5read_options(f, "r", &o, &d), 0);
	CU_ASSERT(!o.present && o.n_rows == 0 && o.n_fields == 0);
	h5read_table_free(&o);
	struct h5read_timeseries ts;
	CU_ASSERT_EQUAL_FATAL(h5read_timeseries(f, "r", &ts, &d), 0);
	CU_ASSERT_EQUAL(ts.n, 11);
	CU_ASSERT(ts.n_queues == 0 && !ts.queue_usage && !ts.queue_names);
	h5read_timeseries_free(&ts);
	struct h5read_jobs j;
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(f, "r", &j, &d), 0);
	CU_ASSERT_EQUAL_FATAL(j.n, 2);
	CU_ASSERT_STRING_EQUAL(j.id[0], "a");
	CU_ASSERT_EQUAL(j.preemptions[0], 1);
	CU_ASSERT_EQUAL(j.preemptions_caused[0], 0);
	CU_ASSERT(isnan(j.lost_gpu_s[0]) && isnan(j.restore_s[1]) && isnan(j.ckpt_overhead_s[0]));
	CU_ASSERT(isnan(j.cost[0]) && isnan(j.pending_from_s[1]));
	CU_ASSERT(j.n_options[0] == 0 && j.fallback_evals[1] == 0 && j.interruptions[0] == 0);
	CU_ASSERT_STRING_EQUAL(j.queue[0], "");
	CU_ASSERT_STRING_EQUAL(j.state[1], "completed");
	h5read_jobs_free(&j);

	/* the report views */
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	CU_ASSERT_FATAL(mem != NULL);
	CU_ASSERT_EQUAL(report_queues_table(f, NULL, mem, &d), 0);
	CU_ASSERT_EQUAL(report_decisions_csv(f, NULL, mem, &d), 0);
	CU_ASSERT_EQUAL(report_options_table(f, NULL, mem, &d), 0);
	fclose(mem);
	CU_ASSERT_STRING_EQUAL(text, "run r: no per-queue table (a file of schema 1.1)\n"
				     "run,time_s,preemptor,victim,preemptor_queue,victim_queue,reason,"
				     "requeued,lost_gpu_s\n"
				     "run r: no per-option table (a file of schema 1.2 or older)\n");
	free(text);
	char *json = NULL;
	CU_ASSERT_EQUAL(report_options_json(f, NULL, &json, &d), 0);
	CU_ASSERT_STRING_EQUAL(json, "[]");
	free(json);
	h5read_close(f);
	sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
}

/* A trace of n jobs: the fixture's 7 tiled (copy k submits 10,000 s x k later), each
 * job's lost work and checkpoint overhead made distinct, so no column is constant. */
static struct sim_trace *tiled_trace(size_t n)
{
	struct sim_trace *fx = fx_trace();
	struct sim_trace *t = sim_trace_create();
	if (!fx || !t)
		goto fail;
	t->jobs = calloc(n, sizeof *t->jobs);
	t->opts = calloc(2 * n, sizeof *t->opts);
	t->strings = malloc(n * 16);
	if (!t->jobs || !t->opts || !t->strings || sim_trace_intern_queue(t, "q") < 0 ||
	    sim_trace_intern_queue(t, "research") < 0 || sim_trace_intern_user(t, "alice") < 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		struct sim_job *j = &t->jobs[i];
		*j = fx->jobs[i % FX_N_JOBS];
		sim_time_t shift = (sim_time_t)(i / FX_N_JOBS) * 10000 * SIM_NS_PER_S;
		j->idx = (uint32_t)i;
		j->id_off = (uint32_t)t->strings_len;
		t->strings_len += (size_t)sprintf(t->strings + t->strings_len, "j%zu", i) + 1;
		j->opt_first = (uint32_t)t->n_opts;
		for (uint8_t k = 0; k < j->n_opts; k++)
			t->opts[t->n_opts++] = fx->opts[fx->jobs[i % FX_N_JOBS].opt_first + k];
		j->submit_ns += shift;
		j->pending_from_ns += shift;
		if (j->start_ns != SIM_TIME_NONE)
			j->start_ns += shift, j->last_start_ns += shift;
		if (j->end_ns != SIM_TIME_NONE)
			j->end_ns += shift;
		j->lost_gpu_s = (double)i * 0.37;
		j->ckpt_overhead_s = (double)(i % 1000) / 7.0;
		j->preemptions = (uint32_t)(i % 5);
	}
	t->n_jobs = n;
	t->bound = 1;
	sim_trace_destroy(fx);
	return t;
fail:
	sim_trace_destroy(fx);
	sim_trace_destroy(t);
	return NULL;
}

/* One run of trace t into path, committed, with decision log ds (NULL: none). */
static int write_trace_run_ds(const char *path, struct sim_trace *t, struct sim_cluster *c,
			      const struct sim_decisions *ds)
{
	struct sim_summary sum;
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5out_meta meta = { .experiment_json = "{}" };
	int rc = sim_metrics_summarize(t, c, FX_END_NS, &sum);
	struct h5out *o = rc ? NULL : h5out_create(path, &meta, &d);
	if (!o)
		rc = -1;
	struct h5out_run run = { .name = "r", .policy = "fifo", .seed = 1, .trace = t, .cluster = c,
				 .summary = &sum, .decisions = ds };
	if (!rc)
		rc = h5out_write_run(o, &run, &d);
	if (!rc)
		rc = h5out_commit(o, &d);
	h5out_destroy(o);
	sim_diag_print(&d, stderr);
	sim_diag_fini(&d);
	return rc;
}

/* Same without a decision log. */
static int write_trace_run(const char *path, struct sim_trace *t, struct sim_cluster *c)
{
	return write_trace_run_ds(path, t, c, NULL);
}

/* Table `table` as export writes it (CSV), malloc'd. */
static char *export_csv(const char *path, enum export_table table)
{
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	char *text = NULL;
	size_t len = 0, rows = 0;
	FILE *mem = open_memstream(&text, &len);
	struct export_sink sink = { .f = mem };
	struct export_opts eo = { .table = table, .sep = ',' };
	if (!mem || h5read_open(path, &f, &d) != 0 || export_write(f, &eo, &sink, &rows, &d) != 0) {
		sim_diag_print(&d, stderr);
		free(text);
		text = NULL;
	}
	if (mem)
		fclose(mem);
	h5read_close(f);
	sim_diag_fini(&d);
	return text;
}

/* The jobs table as export writes it (CSV), malloc'd. */
static char *export_jobs_csv(const char *path)
{
	return export_csv(path, EXPORT_JOBS);
}

/* The stored bytes of every chunk of every column of /runs/r/jobs, concatenated
 * (what must not depend on the number of deflating threads). */
static unsigned char *jobs_chunk_bytes(const char *path, size_t *len)
{
	unsigned char *all = NULL;
	*len = 0;
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t g = file >= 0 ? H5Gopen2(file, "/runs/r/jobs", H5P_DEFAULT) : -1;
	H5G_info_t gi;
	if (g < 0 || H5Gget_info(g, &gi) < 0)
		goto out;
	for (hsize_t k = 0; k < gi.nlinks; k++) {
		char nm[64];
		H5Lget_name_by_idx(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, k, nm, sizeof nm, H5P_DEFAULT);
		hid_t d = H5Dopen2(g, nm, H5P_DEFAULT), sp = H5Dget_space(d);
		hsize_t nch = 0;
		H5Dget_num_chunks(d, sp, &nch);
		for (hsize_t c = 0; c < nch; c++) {
			hsize_t off;
			unsigned mask;
			haddr_t addr;
			hsize_t size;
			if (H5Dget_chunk_info(d, sp, c, &off, &mask, &addr, &size) < 0)
				continue;
			unsigned char *grown = realloc(all, *len + size + 1);
			if (!grown)
				continue;
			all = grown;
			uint32_t fm = 0;
			if (H5Dread_chunk(d, H5P_DEFAULT, &off, &fm, all + *len) >= 0)
				*len += size;
		}
		H5Sclose(sp);
		H5Dclose(d);
	}
out:
	if (g >= 0)
		H5Gclose(g);
	if (file >= 0)
		H5Fclose(file);
	return all;
}

/* A decision log of 50,000 rows (four chunks of the decisions table, the last one
 * part full) written with our own shuffle and deflate reads back as written through
 * HDF5's own filters (the slow, obvious path): the same export, row for row, every
 * reason and a quota shrink (no preemptor) among them; the stored chunks are
 * shuffled and deflated (filter mask 0). */
static void test_h5out_decisions_own_chunks(void)
{
	enum { N = 40000, ND = 50000 };
	struct sim_trace *t = tiled_trace(N);
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t && c);
	struct sim_decisions ds = { .v = calloc(ND, sizeof(struct sim_decision)), .n = ND, .cap = ND };
	CU_ASSERT_FATAL(ds.v != NULL);
	for (size_t k = 0; k < ND; k++) {
		uint32_t victim = (uint32_t)((k * 7919) % N);
		ds.v[k] = (struct sim_decision){ .t = (sim_time_t)k * SIM_NS_PER_S / 4,
						 .preemptor = k % 11 == 0 ? victim : (uint32_t)((k * 104729) % N),
						 .victim = victim, .reason = (uint8_t)(k % SIM_PR_COUNT_),
						 .requeued = (uint8_t)(k % 3 != 0), .lost_gpu_s = 0.25 * (double)(k % 97) };
	}
	const char *own = tmp_path("dec-own.h5"), *lib = tmp_path("dec-lib.h5");
	h5out_test_row_chunks = 0;
	CU_ASSERT_EQUAL_FATAL(write_trace_run_ds(own, t, c, &ds), 0);
	CU_ASSERT_EQUAL(h5out_test_row_chunks, 4); /* ours: 50,000 rows in chunks of about 1 MiB */
	h5out_set_hdf5_filters(1);
	CU_ASSERT_EQUAL_FATAL(write_trace_run_ds(lib, t, c, &ds), 0);
	h5out_set_hdf5_filters(0);
	CU_ASSERT_EQUAL(h5out_test_row_chunks, 4); /* HDF5's filters: none of ours */
	char *ea = export_csv(own, EXPORT_DECISIONS), *eb = export_csv(lib, EXPORT_DECISIONS);
	CU_ASSERT_FATAL(ea && eb);
	CU_ASSERT(strcmp(ea, eb) == 0);
	size_t lines = 0;
	for (const char *p = ea; *p; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, ND + 1); /* the header and a row a decision */
	hid_t file = H5Fopen(own, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t dd = H5Dopen2(file, "/runs/r/decisions", H5P_DEFAULT), sp = H5Dget_space(dd);
	hsize_t nch = 0, off;
	unsigned mask = 1;
	haddr_t addr;
	hsize_t size;
	CU_ASSERT(H5Dget_num_chunks(dd, sp, &nch) >= 0 && nch >= 4);
	CU_ASSERT(H5Dget_chunk_info(dd, sp, nch - 1, &off, &mask, &addr, &size) >= 0);
	CU_ASSERT_EQUAL(mask, 0);
	H5Sclose(sp);
	H5Dclose(dd);
	H5Fclose(file);
	free(ea);
	free(eb);
	free(ds.v);
	remove(own);
	remove(lib);
	sim_trace_destroy(t);
	sim_cluster_destroy(c);
}

/* 2.0, nothing lost: every field of every job of a 140,000-job run (9 chunks a
 * column, some columns deflated, some raw) reads back through h5read as the job's
 * own values, the same as when HDF5 runs the filters itself (the slow, obvious
 * path), and exports to the same text; the stored chunks do not depend on the
 * number of deflating threads (1 or 4). */
static void test_h5out_columns_round_trip(void)
{
	enum { N = 140000 };
	struct sim_trace *t = tiled_trace(N);
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t && c);
	const char *own = tmp_path("cols-own.h5"), *one = tmp_path("cols-one.h5"), *lib = tmp_path("cols-lib.h5");
	CU_ASSERT_EQUAL_FATAL(write_trace_run(own, t, c), 0);
	h5out_set_zip_threads(1);
	CU_ASSERT_EQUAL_FATAL(write_trace_run(one, t, c), 0);
	h5out_set_zip_threads(4);
	h5out_set_hdf5_filters(1);
	CU_ASSERT_EQUAL_FATAL(write_trace_run(lib, t, c), 0);
	h5out_set_hdf5_filters(0);

	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *fa = NULL, *fb = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(own, &fa, &d), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_open(lib, &fb, &d), 0);
	struct h5read_jobs a, b;
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(fa, "r", &a, &d), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(fb, "r", &b, &d), 0);
	CU_ASSERT_EQUAL_FATAL(a.n, N);
	CU_ASSERT_EQUAL_FATAL(b.n, N);
	size_t bad = 0;
	for (size_t i = 0; i < N; i++) {
		const struct sim_job *j = &t->jobs[i];
		char id[32];
		snprintf(id, sizeof id, "j%zu", i);
		double pend = sim_time_to_s(j->pending_from_ns);
		bad += strcmp(a.id[i], id) != 0 || strcmp(a.queue[i], i % 7 == 1 ? "research" : "q") != 0 ||
		       strcmp(a.user[i], i % 7 == 0 ? "alice" : "") != 0 || a.option[i] != j->opt_chosen ||
		       a.submit_s[i] != sim_time_to_s(j->submit_ns) || !same_double(a.wait_s[i], sim_job_wait_s(j)) ||
		       !same_double(a.jct_s[i], sim_job_jct_s(j)) || !same_double(a.bsld[i], sim_job_bsld(j)) ||
		       a.priority[i] != j->priority || a.preemptions[i] != j->preemptions ||
		       a.preemptions_caused[i] != j->preemptions_caused || a.lost_gpu_s[i] != j->lost_gpu_s ||
		       a.restore_s[i] != j->restore_s || a.ckpt_overhead_s[i] != j->ckpt_overhead_s ||
		       !same_double(a.cost[i], sim_metrics_job_cost(t, c, j)) || a.n_options[i] != j->n_opts ||
		       a.fallback_evals[i] != j->fb_evals || a.interruptions[i] != j->interruptions ||
		       a.pending_from_s[i] != pend || strcmp(a.state[i], sim_job_state_name(j->state)) != 0;
		/* the two writers, field by field, to the bit */
		bad += strcmp(a.id[i], b.id[i]) || strcmp(a.queue[i], b.queue[i]) || strcmp(a.user[i], b.user[i]) ||
		       strcmp(a.flavor[i], b.flavor[i]) || strcmp(a.state[i], b.state[i]) ||
		       a.option[i] != b.option[i] || a.priority[i] != b.priority[i] ||
		       a.preemptions[i] != b.preemptions[i] || a.preemptions_caused[i] != b.preemptions_caused[i] ||
		       a.n_options[i] != b.n_options[i] || a.fallback_evals[i] != b.fallback_evals[i] ||
		       a.interruptions[i] != b.interruptions[i];
		const double *da[] = { a.gpus, a.alloc_gpus, a.submit_s, a.start_s, a.end_s, a.wait_s,
				       a.jct_s, a.runtime_s, a.bsld, a.lost_gpu_s, a.restore_s,
				       a.ckpt_overhead_s, a.cost, a.pending_from_s };
		const double *db[] = { b.gpus, b.alloc_gpus, b.submit_s, b.start_s, b.end_s, b.wait_s,
				       b.jct_s, b.runtime_s, b.bsld, b.lost_gpu_s, b.restore_s,
				       b.ckpt_overhead_s, b.cost, b.pending_from_s };
		for (size_t k = 0; k < sizeof da / sizeof da[0]; k++)
			bad += memcmp(&da[k][i], &db[k][i], sizeof(double)) != 0;
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* hand-checked rows: job 7 * 3 + 1 is the fixture's j2 of copy 3 (submit 100 s +
	 * 30,000 s, started at 3,600 + 30,000 s, 4 GPUs on h100), job 7 * 3 + 4 its
	 * rejected j5 (never started: NaN) */
	CU_ASSERT_DOUBLE_EQUAL(a.submit_s[22], 30100, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.start_s[22], 33600, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.wait_s[22], 3500, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.gpus[22], 4, 0);
	CU_ASSERT_STRING_EQUAL(a.flavor[22], "h100");
	CU_ASSERT_DOUBLE_EQUAL(a.lost_gpu_s[22], 22 * 0.37, 0);
	CU_ASSERT(isnan(a.start_s[25]) && isnan(a.alloc_gpus[25]));
	CU_ASSERT_STRING_EQUAL(a.state[25], "rejected");
	CU_ASSERT_STRING_EQUAL(a.state[N - 1], "unfinished"); /* N - 1 = 7 x 19999 + 6: a j7 */
	h5read_jobs_free(&a);
	h5read_jobs_free(&b);
	h5read_close(fa);
	h5read_close(fb);

	/* export: every field, the same text from both writers */
	char *ea = export_jobs_csv(own), *eb = export_jobs_csv(lib);
	CU_ASSERT_FATAL(ea && eb);
	CU_ASSERT(strcmp(ea, eb) == 0);
	static const char hdr[] = "run,variant,seed,id,queue,user,flavor,option,gpus,alloc_gpus,submit_s,start_s,"
				  "end_s,wait_s,jct_s,runtime_s,bsld,priority,preemptions,preemptions_caused,"
				  "lost_gpu_s,restore_s,ckpt_overhead_s,cost,n_options,fallback_evals,"
				  "interruptions,pending_from_s,final_state,final_state_label,cost_type,"
				  "cost_type_label\n";
	CU_ASSERT(strncmp(ea, hdr, strlen(hdr)) == 0);
	CU_ASSERT(strstr(ea, "\nr,r,1,j22,research,,h100,0,4,4,30100,33600,35400,3500,5300,1800,") != NULL);
	size_t lines = 0;
	for (const char *p = ea; *p; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, N + 1);
	free(ea);
	free(eb);

	/* the stored bytes: the same with 1 and 4 threads */
	size_t la = 0, lb = 0;
	unsigned char *ca = jobs_chunk_bytes(own, &la), *cb = jobs_chunk_bytes(one, &lb);
	CU_ASSERT(la > 0 && la == lb && ca && cb && memcmp(ca, cb, la) == 0);
	free(ca);
	free(cb);
	sim_diag_fini(&d);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
}

/* Stored bytes of chunk k (rows rows a chunk) of /runs/r/jobs/<col>, malloc'd. */
static unsigned char *column_chunk(const char *path, const char *col, hsize_t k, hsize_t rows, size_t *len)
{
	unsigned char *buf = NULL;
	char p[128];
	snprintf(p, sizeof p, "/runs/r/jobs/%s", col);
	hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = file >= 0 ? H5Dopen2(file, p, H5P_DEFAULT) : -1;
	hsize_t off = k * rows, size = 0;
	uint32_t mask = 0;
	if (d >= 0 && H5Dget_chunk_storage_size(d, &off, &size) >= 0 && (buf = malloc(size ? size : 1)) &&
	    H5Dread_chunk(d, H5P_DEFAULT, &off, &mask, buf) < 0) {
		free(buf);
		buf = NULL;
	}
	*len = (size_t)size;
	if (d >= 0)
		H5Dclose(d);
	if (file >= 0)
		H5Fclose(file);
	return buf;
}

/* Two deflated columns whose bytes are equal in a block share its deflated chunk
 * (sim/h5out.c, reuse_equal_column): preemptions and interruptions are i % 5 in every
 * job but the last row of block 1 (of 3 blocks of 13,334 rows), whose interruptions
 * are 7. Blocks 0 and 2 store the same bytes for both columns, block 1 not, and
 * every value reads back as written (a reuse of block 1 would read 26,667 % 5 = 2
 * there, not 7). */
static void test_h5out_equal_columns_share_chunks(void)
{
	enum { N = 40000, ROWS = 13334 };
	struct sim_trace *t = tiled_trace(N);
	struct sim_cluster *c = fx_cluster();
	CU_ASSERT_FATAL(t && c);
	const size_t odd = 2 * ROWS - 1;
	for (size_t i = 0; i < N; i++) {
		t->jobs[i].preemptions = (uint32_t)(i % 5);
		t->jobs[i].interruptions = i == odd ? 7u : (uint32_t)(i % 5);
	}
	const char *path = tmp_path("equal-cols.h5");
	CU_ASSERT_EQUAL_FATAL(write_trace_run(path, t, c), 0);
	for (hsize_t k = 0; k < 3; k++) {
		size_t la = 0, lb = 0;
		unsigned char *a = column_chunk(path, "preemptions", k, ROWS, &la);
		unsigned char *b = column_chunk(path, "interruptions", k, ROWS, &lb);
		CU_ASSERT_FATAL(a && b);
		int same = la == lb && memcmp(a, b, la) == 0;
		CU_ASSERT_EQUAL(same, k != 1);
		CU_ASSERT(la < ROWS * 4 / 2); /* deflated: at most half of the raw 4 bytes a row */
		free(a);
		free(b);
	}
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	struct h5read_jobs j;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(f, "r", &j, &d), 0);
	CU_ASSERT_EQUAL_FATAL(j.n, N);
	size_t bad = 0;
	for (size_t i = 0; i < N; i++)
		bad += j.preemptions[i] != i % 5 || j.interruptions[i] != (i == odd ? 7 : i % 5);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(j.interruptions[odd], 7);
	CU_ASSERT_EQUAL(j.preemptions[odd], 2);
	h5read_jobs_free(&j);
	h5read_close(f);
	sim_diag_fini(&d);
	sim_cluster_destroy(c);
	sim_trace_destroy(t);
	remove(path);
}

/* Replaces /runs/r/jobs/<col> of path with a 1-D dataset of n doubles. */
static int replace_column(const char *path, const char *col, hsize_t n)
{
	hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	if (file < 0)
		return -1;
	char p[128];
	snprintf(p, sizeof p, "/runs/r/jobs/%s", col);
	double v[16] = { 1, 2, 3, 4, 5, 6, 7, 8 }; /* n <= 16 */
	hid_t sp = H5Screate_simple(1, &n, NULL);
	int bad = H5Ldelete(file, p, H5P_DEFAULT) < 0;
	hid_t d = H5Dcreate2(file, p, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	bad |= d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
	H5Dclose(d);
	H5Sclose(sp);
	bad |= H5Fclose(file) < 0;
	return bad ? -1 : 0;
}

/* A 2.0 jobs group whose columns disagree on the row count is refused by name, by
 * h5read_jobs and by the row reader (export); a column of the wrong type too. */
static void test_h5out_reader_refuses_bad_columns(void)
{
	const char *path = tmp_path("badcol.h5");
	const char *names[] = { "r" };
	CU_ASSERT_EQUAL_FATAL(write_fixture(path, names, 1, "{}", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(replace_column(path, "wait_s", 3), 0);
	struct sim_diag d;
	sim_diag_init(&d, 5);
	struct h5read_file *f = NULL;
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	struct h5read_jobs j;
	CU_ASSERT_EQUAL(h5read_jobs(f, "r", &j, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "/runs/r/jobs: column 'wait_s' has 3 rows, expected 7 as the columns before it"));
	CU_ASSERT(j.n == 0 && j.id == NULL);
	struct h5read_rows t;
	CU_ASSERT_EQUAL(h5read_each_row(f, "/runs/r/jobs", &t, NULL, NULL, &d), -SIM_EPARSE);
	CU_ASSERT_EQUAL(d.count, 2);
	h5read_rows_free(&t);
	h5read_close(f);
	sim_diag_fini(&d);

	/* a string column stored as doubles */
	CU_ASSERT_EQUAL_FATAL(write_fixture(path, names, 1, "{}", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(replace_column(path, "queue", FX_N_JOBS), 0);
	sim_diag_init(&d, 5);
	CU_ASSERT_EQUAL_FATAL(h5read_open(path, &f, &d), 0);
	CU_ASSERT_EQUAL(h5read_jobs(f, "r", &j, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "column 'queue' has an unexpected type or shape"));
	h5read_close(f);
	sim_diag_fini(&d);
}

static CU_TestInfo h5out_tests[] = {
	{ "test_h5out_round_trip_jobs", test_h5out_round_trip_jobs },
	{ "test_h5out_round_trip_summary_and_attrs", test_h5out_round_trip_summary_and_attrs },
	{ "test_h5out_round_trip_preemption_tables", test_h5out_round_trip_preemption_tables },
	{ "test_h5out_round_trip_options", test_h5out_round_trip_options },
	{ "test_h5out_options_given", test_h5out_options_given },
	{ "test_h5out_without_engine_extras", test_h5out_without_engine_extras },
	{ "test_h5out_reads_schema_1_1", test_h5out_reads_schema_1_1 },
	{ "test_h5out_enum_and_dataset_attrs", test_h5out_enum_and_dataset_attrs },
	{ "test_h5out_abort_removes_tmp", test_h5out_abort_removes_tmp },
	{ "test_h5out_bad_path_and_names", test_h5out_bad_path_and_names },
	{ "test_h5out_empty_trace", test_h5out_empty_trace },
	{ "test_h5out_large_tables", test_h5out_large_tables },
	{ "test_h5out_columns_round_trip", test_h5out_columns_round_trip },
	{ "test_h5out_decisions_own_chunks", test_h5out_decisions_own_chunks },
	{ "test_h5out_equal_columns_share_chunks", test_h5out_equal_columns_share_chunks },
	{ "test_h5out_reader_refuses_bad_columns", test_h5out_reader_refuses_bad_columns },
	{ "test_h5out_reader_refuses_bad_files", test_h5out_reader_refuses_bad_files },
	{ "test_h5out_summary_not_compound", test_h5out_summary_not_compound },
	{ "test_h5out_root_seeds", test_h5out_root_seeds },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo h5out_suite = { "h5out", init_h5out, clean_h5out, NULL, NULL, h5out_tests };
