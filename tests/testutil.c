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
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	struct exp_config *cfg = NULL;
	int rc = exp_config_load(config_path, &cfg, &diag);
	struct exp_run_opts opts = { .output = out, .quiet = 1, .real = real };
	if (!rc)
		rc = exp_run_config(cfg, &opts, &diag);
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
