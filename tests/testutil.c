/* nftw is an XSI interface. */
#define _XOPEN_SOURCE 700

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp_dir[256]; /* the process's scratch folder, removed at exit */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tmpdir(void)
{
	if (tmp_dir[0])
		nftw(tmp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tu_tmpdir(void)
{
	if (!tmp_dir[0]) {
		snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gpusched-test-%ld-XXXXXX", (long)getpid());
		if (!mkdtemp(tmp_dir)) {
			perror("mkdtemp");
			abort();
		}
		atexit(remove_tmpdir);
	}
	return tmp_dir;
}

const char *tu_write_file(const char *name, const char *text)
{
	static char path[8][512];
	static int slot;
	char *p = path[slot++ % 8];
	snprintf(p, 512, "%s/%s", tu_tmpdir(), name);
	FILE *f = fopen(p, "w");
	if (!f) {
		perror(p);
		abort();
	}
	fputs(text, f);
	fclose(f);
	return p;
}

int tu_has_bytes(const void *buf, size_t n, const char *what)
{
	size_t w = strlen(what);
	for (size_t i = 0; i + w <= n; i++)
		if (memcmp((const char *)buf + i, what, w) == 0)
			return 1;
	return 0;
}

int tu_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

char *tu_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		if (len)
			*len = (size_t)n;
	}
	return buf;
}

int tu_run_gpusched(const char *args, char **out)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "%s %s 2>&1", GPUSCHED_BIN, args);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += got;
		if (cap - n < 1024) {
			cap *= 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
	}
	if (buf)
		buf[n] = 0;
	int st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#include <math.h>

#include "../policies/policy.h"

static size_t pow2_at_least(size_t x)
{
	size_t p = 1;
	while (p < x)
		p *= 2;
	return x ? p : 0;
}

size_t tu_trace_add(struct sim_trace *t, const char *id, double submit_s, double duration_s,
		    sim_qty_t gpu_milli, const char *flavor, int priority)
{
	size_t n = t->n_jobs;
	size_t idlen = strlen(id) + 1;
	/* Capacities are the next powers of two of the sizes: grow geometrically. */
	if ((n & (n - 1)) == 0) {
		t->jobs = realloc(t->jobs, (n ? 2 * n : 1) * sizeof *t->jobs);
		t->opts = realloc(t->opts, (n ? 2 * n : 1) * sizeof *t->opts);
	}
	if (pow2_at_least(t->strings_len) < t->strings_len + idlen)
		t->strings = realloc(t->strings, pow2_at_least(t->strings_len + idlen));
	if (!t->jobs || !t->opts || !t->strings)
		abort();
	memcpy(t->strings + t->strings_len, id, idlen);
	struct sim_job *j = &t->jobs[n];
	memset(j, 0, sizeof *j);
	j->line = (uint32_t)n + 2;
	j->id_off = (uint32_t)t->strings_len;
	t->strings_len += idlen;
	j->queue = sim_trace_intern_queue(t, "default");
	j->user = -1;
	j->priority = priority;
	j->submit_ns = (sim_time_t)llround(submit_s * 1e9);
	j->duration_ns = (sim_time_t)llround(duration_s * 1e9);
	j->estimate_ns = j->duration_ns;
	j->max_pending_ns = SIM_TIME_NONE;
	j->deadline_ns = SIM_TIME_NONE;
	j->checkpoint_ns = SIM_TIME_NONE;
	j->opt_first = (uint32_t)t->n_opts;
	j->n_opts = 1;
	j->preemptible = 1;
	struct sim_job_option *o = &t->opts[t->n_opts++];
	memset(o, 0, sizeof *o);
	o->flavor_id = strcmp(flavor, "*") == 0 ? SIM_FLAVOR_ANY : sim_trace_intern_flavor(t, flavor);
	o->req[SIM_RES_GPU] = gpu_milli;
	t->n_jobs++;
	return n;
}

void tu_trace_finish(struct sim_trace *t)
{
	sim_trace_sort(t);
}

struct sim_cluster *tu_cluster(uint32_t nodes, int node_gpus, double speed, enum sim_placement placement)
{
	struct sim_resources res;
	sim_resources_init(&res);
	struct sim_flavor_spec spec = { .name = "f", .nodes = nodes, .speed = speed };
	spec.node_cap[SIM_RES_GPU] = (sim_qty_t)node_gpus * SIM_MILLI;
	return sim_cluster_create(&res, &spec, 1, placement);
}

int tu_simulate(struct sim_trace *t, uint32_t nodes, int node_gpus, const char *order,
		const char *params_json, enum sim_placement placement)
{
	return tu_simulate_logged(t, nodes, node_gpus, order, params_json, placement, NULL);
}

int tu_simulate_logged(struct sim_trace *t, uint32_t nodes, int node_gpus, const char *order,
		       const char *params_json, enum sim_placement placement, FILE *log)
{
	struct sim_cluster *c = tu_cluster(nodes, node_gpus, 1.0, placement);
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	diag.echo = stderr;
	int rc = sim_trace_bind(t, c, &diag);
	struct sim_driver drv;
	sim_driver_virtual_init(&drv);
	struct sim_policy pol = { 0 };
	struct sim_engine_params ep = { .trace = t, .cluster = c, .driver = drv, .log = log };
	ep.policies[SIM_FAM_ORDER] = &pol;
	pol.ops = sim_policy_lookup(SIM_FAM_ORDER, order);
	struct sim_engine *e = rc ? NULL : sim_engine_create(&ep);
	cJSON *params = params_json ? cJSON_Parse(params_json) : NULL;
	if (e) {
		struct sim_policy_env env = { .view = sim_engine_view(e), .file = "test", .json_path = "$" };
		rc = sim_policy_create(&pol, pol.ops, &env, params, &diag);
		if (!rc)
			rc = sim_engine_run(e);
		sim_policy_destroy(&pol);
	} else if (!rc) {
		rc = -SIM_ENOMEM;
	}
	cJSON_Delete(params);
	sim_engine_destroy(e);
	sim_driver_virtual_fini(&drv);
	sim_diag_fini(&diag);
	/* The trace's allocs were released as jobs finished; unfinished ones keep theirs
	 * until sim_trace_reset/destroy. The cluster can go now. */
	sim_cluster_destroy(c);
	return rc;
}

double tu_start_s(const struct sim_trace *t, const char *id)
{
	for (size_t i = 0; i < t->n_jobs; i++)
		if (strcmp(sim_job_id(t, &t->jobs[i]), id) == 0)
			return t->jobs[i].start_ns == SIM_TIME_NONE ? NAN : sim_time_to_s(t->jobs[i].start_ns);
	return NAN;
}

#include "../traces/import.h"

const char *tu_tmp_path(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tu_tmpdir(), name);
	return buf[k];
}

size_t tu_reason_count(const struct trace_import_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		if (strcmp(r->reasons[i].name, name) == 0)
			return r->reasons[i].count;
	return (size_t)-1;
}

#include "../experiments/config.h"
#include "../experiments/runner.h"

int tu_run_config(const char *config_path, const char *out, const struct real_opts *real)
{
	struct exp_run_opts opts = { .output = out, .quiet = 1, .real = real };
	return tu_run_config_opts(config_path, &opts);
}

int tu_run_config_opts(const char *config_path, const struct exp_run_opts *opts)
{
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	struct exp_config *cfg = NULL;
	int rc = exp_config_load(config_path, &cfg, &diag);
	if (!rc)
		rc = exp_run_config(cfg, opts, &diag);
	if (rc)
		sim_diag_print(&diag, stderr);
	exp_config_destroy(cfg);
	sim_diag_fini(&diag);
	return rc;
}

#include <time.h>

void tu_done_cb(void *arg, uint32_t job, uint64_t seq, int64_t wall_ns)
{
	struct tu_done_log *d = arg;
	pthread_mutex_lock(&d->mu);
	d->n++;
	d->job = job;
	d->seq = seq;
	d->wall_ns = wall_ns;
	pthread_mutex_unlock(&d->mu);
}

int tu_done_count(struct tu_done_log *d)
{
	pthread_mutex_lock(&d->mu);
	int n = d->n;
	pthread_mutex_unlock(&d->mu);
	return n;
}

void tu_sleep_ms(double ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(fmod(ms, 1000) * 1e6) };
	nanosleep(&ts, NULL);
}

int tu_done_wait(struct tu_done_log *d, int n, int limit_ms)
{
	for (int i = 0; i < limit_ms && tu_done_count(d) < n; i++)
		tu_sleep_ms(1);
	return tu_done_count(d) >= n;
}

/* ---- the real-mode fixture (tests/data/real/preempt.json) ---- */

#include "../analysis/h5read.h"
#include "../gpu_exec/drv_real.h"

#define TU_REAL_RUN "priority-s1"

int tu_job_row(const struct h5read_jobs *j, const char *id)
{
	for (size_t i = 0; i < j->n; i++)
		if (strcmp(j->id[i], id) == 0)
			return (int)i;
	return -1;
}

/* 1 if |got - want| <= tol; else prints what differed and returns 0. */
static int tu_near(const char *what, double got, double want, double tol)
{
	if (fabs(got - want) <= tol)
		return 1;
	fprintf(stderr, "note: %s %.4f, expected %.4f +- %.4f\n", what, got, want, tol);
	return 0;
}

/* The schedule's structure (who ends how, preempted how often) and its timing
 * relations, checked on the real run against the simulated one. */
static int tu_real_jobs_hold(const struct h5read_jobs *sj, const struct h5read_jobs *rj)
{
	int ok = sj->n == 4 && rj->n == 4;
	for (size_t i = 0; ok && i < sj->n; i++) {
		int k = tu_job_row(rj, sj->id[i]);
		if (k < 0 || strcmp(rj->state[k], sj->state[i]) != 0 || rj->preemptions[k] != sj->preemptions[i]) {
			fprintf(stderr, "note: job %s ended otherwise than simulated\n", sj->id[i]);
			return 0;
		}
		char what[64];
		snprintf(what, sizeof what, "job %s: real JCT (s)", sj->id[i]);
		ok &= tu_near(what, rj->jct_s[k], sj->jct_s[i], 0.05 * sj->jct_s[i]);
	}
	return ok;
}

/* j1's two segments: stopped at 50 s having done 47% and saved 30%; resumed, it
 * runs restore 5 s + 70 s of work + two 2 s checkpoints = 79 s. Every job's
 * measured run time within 3% of the model's, j1's 49 + 79 s. */
static int tu_real_segments_hold(const struct h5read_real *r)
{
	const struct h5read_real_segments *sg = &r->segments;
	size_t first = sg->n, second = sg->n;
	for (size_t i = 0; i < sg->n; i++)
		if (strcmp(sg->id[i], "j1") == 0)
			*(first < sg->n ? &second : &first) = i;
	if (sg->n != 5 || first >= sg->n || second >= sg->n) {
		fprintf(stderr, "note: %zu segments, expected 5 (j1 twice)\n", sg->n);
		return 0;
	}
	int ok = tu_near("j1's first segment: work done", sg->done[first], 0.47, 0.02);
	ok &= tu_near("j1's second segment: run time (s)", sg->end_s[second] - sg->start_s[second], 79.0,
		      79.0 * 0.02);
	for (size_t i = 0; i < r->jobs.n; i++) {
		double m = r->jobs.measured_runtime_s[i], p = r->jobs.predicted_runtime_s[i];
		char what[64];
		snprintf(what, sizeof what, "job %s: measured run time (s)", r->jobs.id[i]);
		ok &= tu_near(what, m, p, 0.03 * p);
		if (strcmp(r->jobs.id[i], "j1") == 0)
			ok &= tu_near("j1: predicted run time (s)", p, 49.0 + 79.0, 1.0);
	}
	return ok;
}

int tu_real_timing_holds(const char *sim_h5, const char *real_h5)
{
	struct sim_diag diag;
	sim_diag_init(&diag, 5);
	struct h5read_file *sf = NULL, *rf = NULL;
	struct h5read_jobs sj, rj;
	struct h5read_real r;
	struct h5read_summary rs;
	memset(&sj, 0, sizeof sj);
	memset(&rj, 0, sizeof rj);
	memset(&r, 0, sizeof r);
	memset(&rs, 0, sizeof rs);
	int ok = !h5read_open(sim_h5, &sf, &diag) && !h5read_open(real_h5, &rf, &diag) &&
		 !h5read_jobs(sf, TU_REAL_RUN, &sj, &diag) && !h5read_jobs(rf, TU_REAL_RUN, &rj, &diag) &&
		 !h5read_real(rf, TU_REAL_RUN, &r, &diag) && !h5read_summary(rf, &rs, &diag);
	if (!ok)
		sim_diag_print(&diag, stderr);
	ok = ok && tu_real_jobs_hold(&sj, &rj);
	ok = ok && tu_real_segments_hold(&r);
	ok = ok && tu_near("run time error", h5read_summary_get(&rs, 0, "runtime_error"), 0, 0.0099);
	h5read_summary_free(&rs);
	h5read_real_free(&r);
	h5read_jobs_free(&sj);
	h5read_jobs_free(&rj);
	h5read_close(sf);
	h5read_close(rf);
	sim_diag_fini(&diag);
	return ok;
}

double tu_real_fixture(const char *sim_out, const char *real_out)
{
	const char *config = TEST_DATA_DIR "/real/preempt.json";
	if (tu_run_config(config, sim_out, NULL))
		return 0;
	double scale = TU_REAL_SCALE;
	for (int attempt = 1;; attempt++, scale /= 2) {
		struct real_opts ro = { .backend = "cpu", .time_scale = scale, .fail_job = -1 };
		if (tu_run_config(config, real_out, &ro))
			return 0;
		if (tu_real_timing_holds(sim_out, real_out) || attempt == TU_REAL_ATTEMPTS)
			return scale;
		fprintf(stderr, "note: a busy machine: real run at time scale %g missed its timing; "
				"again at %g\n", scale, scale / 2);
	}
}

int tu_retry_slower(int (*attempt)(void *arg, int slow), void *arg)
{
	for (int slow = 1; slow <= 8; slow *= 2) {
		if (attempt(arg, slow))
			return slow;
		if (slow < 8)
			fprintf(stderr, "note: a busy machine: timing missed; again with durations x%d\n", 2 * slow);
	}
	return 0;
}

#include <CUnit/CUnit.h>

/* ---- tu_result: a result file opened for checks ---- */

void tu_result_open(struct tu_result *r, const char *h5, const char *run)
{
	memset(r, 0, sizeof *r);
	sim_diag_init(&r->diag, 5);
	CU_ASSERT_EQUAL_FATAL(h5read_open(h5, &r->f, &r->diag), 0);
	CU_ASSERT_EQUAL_FATAL(h5read_summary(r->f, &r->sum, &r->diag), 0);
	CU_ASSERT_FATAL(run || r->sum.n_rows > 0);
	CU_ASSERT_EQUAL_FATAL(h5read_jobs(r->f, run ? run : r->sum.run[0], &r->jobs, &r->diag), 0);
}

void tu_result_close(struct tu_result *r)
{
	h5read_summary_free(&r->sum);
	h5read_jobs_free(&r->jobs);
	h5read_close(r->f);
	sim_diag_fini(&r->diag);
}

/* ---- tu_crun: one run of a config, kept to inspect ---- */

#include "../experiments/config.h"
#include "../policies/policy.h"
#include "../traces/native.h"

void tu_crun(struct tu_crun *r, const char *config, const char *trace)
{
	tu_crun_with(r, config, trace, NULL);
}

void tu_expect_config_error(const char *name, const char *config, const char *want)
{
	size_t n = strlen(config);
	char *json = malloc(n + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	for (size_t i = 0; i <= n; i++)
		json[i] = config[i] == '\'' ? '"' : config[i];
	const char *path = tu_write_file(name, json);
	free(json);
	struct exp_config *cfg = NULL;
	struct sim_diag d;
	sim_diag_init(&d, 20);
	CU_ASSERT_EQUAL(exp_config_load(path, &cfg, &d), -SIM_EPARSE);
	if (!sim_diag_contains(&d, want)) {
		fprintf(stderr, "\nwanted: %s\n", want);
		for (size_t i = 0; i < d.count && i < d.limit; i++)
			fprintf(stderr, "got: %s\n", d.lines[i]);
		CU_FAIL("message");
	}
	sim_diag_fini(&d);
	exp_config_destroy(cfg);
}

void tu_crun_with(struct tu_crun *r, const char *config, const char *trace, const struct tu_crun_opts *opt)
{
	memset(r, 0, sizeof *r);
	char tpath[512];
	snprintf(tpath, sizeof tpath, "%s", tu_write_file("crun_trace.csv", trace));
	size_t n = strlen(config) + strlen(tpath) + 1;
	char *json = malloc(n), *o = json;
	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	for (const char *p = config; *p; p++) {
		if (strncmp(p, "TRACE", 5) == 0) {
			o += sprintf(o, "%s", tpath);
			p += 4;
		} else {
			*o++ = *p == '\'' ? '"' : *p;
		}
	}
	*o = 0;
	const char *cpath = tu_write_file("crun.json", json);
	free(json);
	struct sim_diag d;
	sim_diag_init(&d, 20);
	d.echo = stderr;
	CU_ASSERT_EQUAL_FATAL(exp_config_load(cpath, &r->cfg, &d), 0);
	CU_ASSERT_EQUAL_FATAL(trace_native_read(r->cfg->trace_path, &r->t, &d), 0);
	const struct exp_variant *v = &r->cfg->variants[0];
	r->c = sim_cluster_create(&v->res, v->flavors, v->n_flavors, v->placement);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->c);
	CU_ASSERT_EQUAL_FATAL(sim_trace_bind(r->t, r->c, &d), 0);
	sim_driver_virtual_init(&r->drv);
	r->virtual_ops = r->drv.ops;
	if (opt && opt->driver)
		r->drv.ops = opt->driver;
	struct sim_engine_params ep = { .trace = r->t, .cluster = r->c, .driver = r->drv,
					.capacity = v->capacity, .seed = opt ? opt->seed : 1, .cost = v->cost,
					.faults = v->faults, .autoscale = v->autoscale, .spot = v->spot, .flex = v->flex,
					.log = opt ? opt->log : NULL,
					/* a time series only when the config asks for a step (output_options.sample_s) */
					.sample_ns = r->cfg->sample_s > 0 ? (sim_time_t)llround(r->cfg->sample_s * 1e9) : 0 };
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		if (sim_policy_is_none((enum sim_policy_family)f, v->policy[f]))
			continue;
		r->pol[f].ops = sim_policy_lookup((enum sim_policy_family)f, v->policy[f]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r->pol[f].ops);
		ep.policies[f] = &r->pol[f];
	}
	r->e = sim_engine_create(&ep);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->e);
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		if (!ep.policies[f])
			continue;
		struct sim_policy_env env = { .view = sim_engine_view(r->e), .file = "crun.json",
					      .json_path = v->policy_path[f] };
		CU_ASSERT_EQUAL_FATAL(sim_policy_create(&r->pol[f], r->pol[f].ops, &env, v->policy_params[f], &d), 0);
	}
	r->rc = sim_engine_run(r->e);
	CU_ASSERT_EQUAL(r->rc, 0);
	sim_diag_fini(&d);
}

void tu_crun_logged(struct tu_crun *r, const char *config, const char *trace, char **log_text)
{
	FILE *log = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	tu_crun_with(r, config, trace, &(struct tu_crun_opts){ .seed = 1, .log = log });
	long n = ftell(log);
	*log_text = calloc((size_t)n + 1, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*log_text);
	rewind(log);
	CU_ASSERT_EQUAL(fread(*log_text, 1, (size_t)n, log), (size_t)n);
	fclose(log);
}

void tu_expect_line(const char *log, const char *line)
{
	if (!strstr(log, line)) {
		fprintf(stderr, "\nwanted line: %s\nin log:\n%s", line, log);
		CU_FAIL("log line");
	}
}

void tu_crun_free(struct tu_crun *r)
{
	sim_engine_destroy(r->e);
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		sim_policy_destroy(&r->pol[f]);
	if (r->virtual_ops)
		r->drv.ops = r->virtual_ops;
	sim_driver_virtual_fini(&r->drv);
	sim_trace_destroy(r->t);
	sim_cluster_destroy(r->c);
	exp_config_destroy(r->cfg);
	memset(r, 0, sizeof *r);
}

const struct sim_job *tu_crun_job(const struct tu_crun *r, const char *id)
{
	for (size_t i = 0; i < r->t->n_jobs; i++)
		if (strcmp(sim_job_id(r->t, &r->t->jobs[i]), id) == 0)
			return &r->t->jobs[i];
	CU_FAIL_FATAL("no such job");
	return NULL;
}

/* ---- hangs in real mode (tests/data/real/hang.json, hang_undetected.json) ---- */

/* The hung job's segment (its first one, killed): work done and saved, the second
 * ones' run. */
static int tu_hang_segment(const struct h5read_real_segments *sg, const char *id, size_t *first)
{
	int n = 0;
	for (size_t i = 0; i < sg->n; i++)
		if (strcmp(sg->id[i], id) == 0 && n++ == 0)
			*first = i;
	return n;
}

int tu_hang_attempt(const struct tu_hang_case *c, int slow)
{
	const int detect = c->detect;
	const char *cfg = detect ? TEST_DATA_DIR "/real/hang.json"
				 : TEST_DATA_DIR "/real/hang_undetected.json";
	char sim[4096], real[4096];
	snprintf(sim, sizeof sim, "%s/hang%d_sim.h5", tu_tmpdir(), detect);
	snprintf(real, sizeof real, "%s/hang%d_%s.h5", tu_tmpdir(), detect, c->backend);
	struct real_opts ro = { .backend = c->backend, .sms = c->sms, .time_scale = 100.0 / slow,
				.fail_job = -1 };
	CU_ASSERT_EQUAL_FATAL(tu_run_config(cfg, sim, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tu_run_config(cfg, real, &ro), 0);
	/* hang.csv, by hand: the ends, the lost GPU-s (work since the checkpoint + time
	 * hung) and the time hung, with detection and without. */
	const double ends[2][3] = { { 153, 50, 177 }, { 129, 50, 177 } };
	const double lost = detect ? 58 : 82, hung = detect ? 20 : 44;
	static const char *ids[3] = { "h1", "h2", "h3" };
	/* The cuda backend plans at its calibrated pace, within 2% of the device's (the
	 * fake's, under a busy host): work done by a wall time, so the work lost at a
	 * hang (8 + 30 s) and a segment's end, may be off by that much more. */
	const double cal = strcmp(c->backend, "cuda") == 0 ? 0.025 : 0;
	int timely = 1;
	for (int which = 0; which < 2; which++) {
		struct tu_result res;
		struct h5read_real r;
		memset(&r, 0, sizeof r);
		tu_result_open(&res, which ? real : sim, "fifo-s1");
		CU_ASSERT_EQUAL(h5read_summary_get(&res.sum, 0, "hangs"), 2);
		CU_ASSERT_EQUAL(h5read_summary_get(&res.sum, 0, "stops_hang"), 2);
		const double l = h5read_summary_get(&res.sum, 0, "lost_hang_gpu_s");
		const double h = h5read_summary_get(&res.sum, 0, "time_to_detect_hang_s");
		CU_ASSERT_EQUAL_FATAL(res.jobs.n, 3);
		if (!which) { /* the simulation: exactly the hand-computed values */
			CU_ASSERT_DOUBLE_EQUAL(l, lost, 1e-9);
			CU_ASSERT_DOUBLE_EQUAL(h, hung, 1e-9);
		} else {
			/* However late a thread runs: a detected hang's kill is never before it
			 * is due, hang_timeout_s after the hang (an undetected one's is due at
			 * its run's end, which a late hang brings nearer: no bound holds), and
			 * lost work counts the time hung. */
			if (detect)
				CU_ASSERT(h >= hung - 1e-6);
			CU_ASSERT(l >= h - 1e-6);
			timely &= tu_near("real: lost to hangs (GPU-s)", l, lost, 2.0 + cal * 38);
			timely &= tu_near("real: time hung (s)", h, hung, 1.0);
		}
		for (int k = 0; k < 3; k++) {
			int i = tu_job_row(&res.jobs, ids[k]);
			CU_ASSERT_FATAL(i >= 0);
			CU_ASSERT_STRING_EQUAL(res.jobs.state[i], "completed");
			CU_ASSERT(res.jobs.end_s[i] >= ends[detect][k] - 0.1); /* never early */
			if (!which) {
				CU_ASSERT_DOUBLE_EQUAL(res.jobs.end_s[i], ends[detect][k], 1e-9);
			} else {
				char what[64];
				snprintf(what, sizeof what, "real: %s's end (s)", ids[k]);
				const double want = ends[detect][k];
				timely &= tu_near(what, res.jobs.end_s[i], want, want * (0.01 + cal));
			}
		}
		if (which) {
			/* The workload froze at the hang: h1 killed with 68 of its 100 s done
			 * and 60 saved (at its kill 10 s later it would have had 78 unfrozen; left
			 * to run undetected, it would have completed); h3 with 70 of 80 done, 40
			 * saved. A frozen segment never completes. */
			CU_ASSERT_EQUAL_FATAL(h5read_real(res.f, "fifo-s1", &r, &res.diag), 0);
			const struct h5read_real_segments *sg = &r.segments;
			CU_ASSERT_EQUAL(sg->n, 5);
			static const struct { const char *id; double done, saved; } hung_segs[2] = {
				{ "h1", 0.68, 0.6 }, { "h3", 0.875, 0.5 } };
			for (int k = 0; k < 2; k++) {
				size_t s = 0;
				CU_ASSERT_EQUAL_FATAL(tu_hang_segment(sg, hung_segs[k].id, &s), 2);
				CU_ASSERT_STRING_EQUAL(sg->outcome[s], "preempted");
				CU_ASSERT(sg->done[s] < 1.0 && sg->done[s] >= sg->saved[s]);
				char what[64];
				snprintf(what, sizeof what, "real: %s hung with work done", hung_segs[k].id);
				const double d = hung_segs[k].done;
				timely &= tu_near(what, sg->done[s], d, 0.01 + cal * d);
				snprintf(what, sizeof what, "real: %s hung with work saved", hung_segs[k].id);
				timely &= tu_near(what, sg->saved[s], hung_segs[k].saved, 0.001);
			}
			h5read_real_free(&r);
		}
		tu_result_close(&res);
	}
	if (!timely)
		fprintf(stderr, "note: hangs (%s, %s) at time scale %g missed their timing\n", c->backend,
			detect ? "detected" : "undetected", ro.time_scale);
	return timely;
}
