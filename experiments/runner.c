/* experiments/runner.c: runs every (variant, seed) of a config into one HDF5 file.
 *
 * Two passes: first every variant is built and checked against the trace (cluster,
 * flavor and resource names, request sizes, policy names and params) so that bad
 * input is reported in full before any file exists; then the runs execute, each
 * into its part file, merged into OUTPUT's temporary and renamed to OUTPUT at the
 * end (experiments/parallel.h). A config of one run keeps the stack its check built
 * for the run, and writes the run in place, into OUTPUT's temporary itself
 * (sweep_run_in_place).
 */
#include "runner.h"

#include "../sim/outpath.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../gpu_exec/drv_real.h"
#include "../gpu_exec/real_results.h"
#include "../policies/kq_policy.h"
#include "../policies/policy.h"
#include "../sim/engine.h"
#include "../sim/h5out.h"
#include "../sim/metrics.h"
#include "../traces/native.h"
#include "inputs.h"
#include "parallel.h"
#include "sweepdesc.h"

/* Everything one run needs; built by stack_create, freed by stack_destroy. */
struct run_stack {
	struct sim_cluster *cluster;
	struct sim_policy pol[SIM_FAM_COUNT_];
	int have[SIM_FAM_COUNT_];
};

static double wall_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The CPU seconds of every thread of the process so far. */
static double cpu_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Phase times for profiling (bench/README.md, "Phases against their floors"): with
 * GPUSCHED_PHASES set in the environment, each phase_mark prints on stderr the wall
 * seconds since the previous mark and the CPU seconds of all the process's threads
 * over the same span ("phase NAME S cpu C"). Off, a mark costs one branch.
 * phase_on: -1 not looked up yet, 0 off, 1 on. */
static int phase_on = -1;
static double phase_last_s, phase_last_cpu_s;

static void phase_mark(const char *name)
{
	if (phase_on < 0)
		phase_on = getenv("GPUSCHED_PHASES") != NULL;
	if (!phase_on)
		return;
	double t = wall_now_s(), c = cpu_now_s();
	if (name)
		fprintf(stderr, "phase %s %.4f cpu %.4f\n", name, t - phase_last_s, c - phase_last_cpu_s);
	phase_last_s = t;
	phase_last_cpu_s = c;
}

static void stack_destroy(struct run_stack *s)
{
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		if (s->have[f])
			sim_policy_destroy(&s->pol[f]);
	sim_cluster_destroy(s->cluster);
	memset(s, 0, sizeof *s);
}

/* Lists the registered names of a family, for "expected one of ..." messages. */
static void family_names(enum sim_policy_family fam, char *buf, size_t n)
{
	buf[0] = 0;
	const struct sim_policy_ops *const *all = sim_policy_all();
	for (size_t i = 0; all[i]; i++) {
		if (all[i]->family != fam)
			continue;
		if (buf[0])
			strncat(buf, ", ", n - strlen(buf) - 1);
		strncat(buf, all[i]->name, n - strlen(buf) - 1);
	}
}

/* The stack validator (policies/policy.h) on the tables found for a variant. */
static int check_policy_combination(const struct exp_config *cfg, const struct exp_variant *v,
				    const struct run_stack *s, struct sim_diag *diag)
{
	const struct sim_policy_ops *ops[SIM_FAM_COUNT_];
	const char *paths[SIM_FAM_COUNT_];
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		ops[f] = s->pol[f].ops;
		paths[f] = v->policy_path[f];
	}
	return sim_stack_validate(ops, cfg->path, paths, diag);
}

/* Builds the cluster, binds the trace, creates the policies. Errors go to diag. */
static int stack_create(struct run_stack *s, const struct exp_config *cfg, const struct exp_variant *v,
			struct sim_trace *trace, struct sim_engine **engine_out,
			const struct sim_engine_params *ep_tmpl, struct sim_diag *diag)
{
	memset(s, 0, sizeof *s);
	s->cluster = sim_cluster_create(&v->res, v->flavors, v->n_flavors, v->placement);
	if (!s->cluster)
		return -SIM_ENOMEM;
	int rc = sim_trace_bind(trace, s->cluster, diag);
	if (rc)
		goto out_destroy;
	struct sim_engine_params ep = *ep_tmpl;
	ep.trace = trace;
	ep.cluster = s->cluster;
	ep.capacity = v->capacity;
	ep.faults = v->faults;
	ep.autoscale = v->autoscale;
	ep.spot = v->spot;
	ep.flex = v->flex;
	/* Policies need a view at init; the engine provides it, so create the engine
	 * first with the order slot filled after. */
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		const char *name = v->policy[f];
		if (!name[0] || sim_policy_is_none((enum sim_policy_family)f, name))
			continue;
		const struct sim_policy_ops *ops = sim_policy_lookup((enum sim_policy_family)f, name);
		if (!ops) {
			char names[256];
			family_names((enum sim_policy_family)f, names, sizeof names);
			rc = sim_diag_add(diag, cfg->path, "%s: expected one of %s, got '%s'",
					  v->policy_path[f], names[0] ? names : "(none yet)", name);
			goto out_destroy;
		}
		s->pol[f].ops = ops; /* placeholder so the engine sees the family */
		ep.policies[f] = &s->pol[f];
	}
	if (!ep.policies[SIM_FAM_ORDER]) {
		rc = sim_diag_add(diag, cfg->path, "$.policies.order: expected an order policy, got none");
		goto out_destroy;
	}
	if ((rc = check_policy_combination(cfg, v, s, diag)))
		goto out_destroy;
	struct sim_engine *e = sim_engine_create(&ep);
	if (!e) {
		rc = -SIM_ENOMEM;
		goto out_destroy;
	}
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		if (!ep.policies[f])
			continue;
		const struct sim_policy_ops *ops = s->pol[f].ops;
		struct sim_policy_env env = { .view = sim_engine_view(e), .file = cfg->path,
					      .json_path = v->policy_path[f] };
		rc = sim_policy_create(&s->pol[f], ops, &env, v->policy_params[f], diag);
		if (rc) {
			sim_engine_destroy(e);
			goto out_destroy;
		}
		s->have[f] = 1;
	}
	sim_engine_set_cost(e, &v->cost);
	*engine_out = e;
	return 0;
out_destroy:
	stack_destroy(s);
	return rc;
}

/* ---- progress on a terminal ---- */

struct progress {
	int on;
	const char *run;
	size_t done, runs;  /* runs with a complete part, of all */
	size_t done_here;   /* runs finished by this invocation (the ETA's basis) */
	double t0_s;        /* when this invocation started running */
	double last_s;
};

static void progress_cb(void *arg, size_t done, size_t total, sim_time_t now)
{
	struct progress *p = arg;
	double t = wall_now_s();
	if (!p->on || (t - p->last_s < 0.25 && done < total))
		return;
	p->last_s = t;
	char head[160];
	exp_progress_prefix(head, sizeof head, p->done, p->runs, p->done_here, t - p->t0_s);
	fprintf(stderr, "\r%s %s: %zu/%zu jobs done (%.0f%%), simulated %.2f days   ", head, p->run, done,
		total, total ? 100.0 * (double)done / (double)total : 100.0, sim_time_to_s(now) / 86400.0);
	fflush(stderr);
}

/* ---- helpers ---- */

static sim_time_t auto_sample_ns(const struct exp_config *cfg, const struct sim_trace *t)
{
	if (cfg->sample_s > 0)
		return (sim_time_t)llround(cfg->sample_s * 1e9);
	sim_time_t span = t->n_jobs ? t->jobs[t->n_jobs - 1].submit_ns : 0;
	sim_time_t step = span / 2000;
	/* Whole seconds, at least one. */
	step = step / SIM_NS_PER_S * SIM_NS_PER_S;
	return step < SIM_NS_PER_S ? SIM_NS_PER_S : step;
}

static void run_name(const struct exp_config *cfg, const struct exp_variant *v, uint64_t seed, char *buf,
		     size_t n)
{
	const char *base = v->name;
	if (cfg->n_variants == 1 && strcmp(v->name, "base") == 0)
		base = v->policy[SIM_FAM_ORDER];
	snprintf(buf, n, "%s-s%llu", base, (unsigned long long)seed);
}

/* mkdir -p of the folder holding path. */
static int make_parent_dirs(const char *path)
{
	char *dup = strdup(path);
	if (!dup)
		return -SIM_ENOMEM;
	for (char *p = dup + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dup, 0777) && errno != EEXIST) {
			int saved = errno; /* for the caller's message */
			free(dup);
			errno = saved;
			return -SIM_EIO;
		}
		*p = '/';
	}
	free(dup);
	return 0;
}

/* Refuses outputs that would destroy an input of the run (the config, the trace,
 * any side file a variant names), replace a device node or other non-regular
 * file, or each other (-o and --log). Checked before anything runs. */
static int check_outputs(const struct exp_config *cfg, const char *output, const char *log_path,
			 struct sim_diag *diag)
{
	int rc = exp_check_output(cfg, output, diag);
	if (!rc && log_path)
		rc = exp_check_output(cfg, log_path, diag);
	if (!rc && log_path)
		rc = sim_out_check_distinct(output, "-o", log_path, "--log", diag);
	return rc;
}

/* Pass 1: every variant against the trace. */
static int check_variants(const struct exp_config *cfg, struct sim_trace *trace, struct sim_diag *diag)
{
	int bad = 0;
	struct sim_driver drv;
	if (sim_driver_virtual_init(&drv))
		return -SIM_ENOMEM;
	for (size_t i = 0; i < cfg->n_variants; i++) {
		struct run_stack s;
		struct sim_engine *e = NULL;
		struct sim_engine_params ep = { .driver = drv };
		size_t before = diag->count;
		int rc = stack_create(&s, cfg, &cfg->variants[i], trace, &e, &ep, diag);
		if (rc == -SIM_ENOMEM) {
			sim_driver_virtual_fini(&drv);
			return rc;
		}
		if (rc) {
			bad = 1;
			if (cfg->n_variants > 1 && diag->count > before)
				sim_diag_add(diag, cfg->path, "(the errors above are in sweep variant '%s')",
					     cfg->variants[i].name);
			continue;
		}
		sim_engine_destroy(e);
		stack_destroy(&s);
	}
	sim_driver_virtual_fini(&drv);
	return bad ? -SIM_EPARSE : 0;
}

/* One simulated run and its metrics; owns what the writer reads (engine, stack,
 * per-queue rows) until run_result_free. */
struct run_result {
	struct sim_driver drv;
	struct run_stack s;
	struct sim_engine *e;
	struct sim_queue_row *queues;
	uint8_t *cost_types; /* per flavor: enum sim_cost_type (sim_metrics_flavor_cost_types) */
	struct sim_option_row options[SIM_MAX_OPTIONS]; /* n_options rows (sim_metrics_options) */
	size_t n_options;
	struct sim_summary sum;
	double wall_s;
};

static void driver_fini(struct sim_driver *drv)
{
	if (sim_driver_real_results(drv))
		sim_driver_real_fini(drv);
	else if (drv->ops)
		sim_driver_virtual_fini(drv);
}

static void run_result_free(struct run_result *r)
{
	free(r->queues);
	free(r->cost_types);
	sim_engine_destroy(r->e);
	stack_destroy(&r->s);
	driver_fini(&r->drv);
	memset(r, 0, sizeof *r); /* freed: r->e NULL */
}

/* The run's driver: virtual time, or (real mode) the wall clock and an executor
 * with one virtual GPU group per flavor of the variant's cluster. */
static int driver_init(struct sim_driver *drv, const struct exp_config *cfg, const struct exp_variant *v,
		       const struct sim_trace *trace, const struct real_opts *real, struct sim_diag *diag)
{
	if (!real)
		return sim_driver_virtual_init(drv);
	return sim_driver_real_init(drv, real, v->flavors, v->n_flavors, trace, cfg->path, diag);
}

/* Builds what run (v, seed) needs before it runs: its driver and stack (engine and
 * policies bound to the trace). On failure everything is freed. ep_extra: progress
 * and log, may be NULL. */
static int prepare_run(const struct exp_config *cfg, const struct exp_variant *v, uint64_t seed,
		       struct sim_trace *trace, const struct sim_engine_params *ep_extra, const struct real_opts *real,
		       struct run_result *r, struct sim_diag *diag)
{
	memset(r, 0, sizeof *r);
	/* Real mode: node failures, crashes and hangs stop (or freeze) workloads through
	 * the driver (docs/faults.md, "Limits"). */
	if (real && (sim_autoscale_on(v->autoscale, -1) || sim_spot_on(v->spot, -1) ||
		     sim_flex_on(v->flex, -1))) /* docs/capacity.md */
		return sim_diag_add(diag, cfg->path, "$.cluster.flavors: expected no autoscale, spot or flex flavor in "
				    "real mode (they are simulated only), got one"), -SIM_EPARSE;
	/* The real executors checkpoint in one tier (gpu_exec/README.md, "Faults"). */
	if (real && sim_ckpt_tiered(&v->cost.tiers))
		return sim_diag_add(diag, cfg->path, "$.jobs.checkpoint: expected no memory tier and a fixed interval "
				    "in real mode (checkpoint tiers are simulated only), got them"), -SIM_EPARSE;
	if (real && v->faults && v->faults->job.spike_per_h > 0)
		return sim_diag_add(diag, cfg->path, "$.jobs.faults.loss_spike_per_h: expected 0 in real mode (loss "
				    "spikes are simulated only), got more"), -SIM_EPARSE;
	int rc = driver_init(&r->drv, cfg, v, trace, real, diag);
	if (rc)
		return rc;
	struct sim_engine_params ep = { .driver = r->drv, .sample_ns = auto_sample_ns(cfg, trace), .seed = seed };
	if (ep_extra) {
		ep.progress = ep_extra->progress;
		ep.progress_arg = ep_extra->progress_arg;
		ep.log = ep_extra->log;
	}
	if ((rc = stack_create(&r->s, cfg, v, trace, &r->e, &ep, diag))) {
		driver_fini(&r->drv);
		memset(r, 0, sizeof *r);
		return rc;
	}
	return 0;
}

/* The summary's part of the metrics, on a thread of its own while the caller
 * computes the per-queue rows: both only read the finished run (trace, cluster)
 * and each writes its own output, so the results do not depend on the timing. */
struct summarize_job {
	const struct sim_trace *trace;
	const struct sim_cluster *cluster;
	sim_time_t end_ns;
	struct sim_summary *out;
	int rc;
};

static void *summarize_main(void *arg)
{
	struct summarize_job *j = arg;
	j->rc = sim_metrics_summarize(j->trace, j->cluster, j->end_ns, j->out);
	return NULL;
}

/* The per-queue rows and their costs (r->queues, r->cost_types). */
static int queue_metrics(const struct exp_variant *v, const struct sim_trace *trace, struct run_result *r)
{
	const struct sim_queue_acct *acct = sim_engine_queue_acct(r->e);
	r->queues = calloc(trace->n_queues ? trace->n_queues : 1, sizeof *r->queues);
	r->cost_types = malloc(v->n_flavors ? v->n_flavors : 1);
	if (!r->queues || !r->cost_types)
		return -SIM_ENOMEM;
	int rc = sim_metrics_queues(trace, acct, sim_engine_timeseries(r->e), sim_engine_decisions(r->e),
				    sim_engine_now(r->e), r->queues);
	if (rc)
		return rc;
	sim_metrics_flavor_cost_types(v->n_flavors, v->capacity, v->autoscale, v->spot, v->flex, r->cost_types);
	sim_metrics_queue_costs(trace, r->s.cluster, r->cost_types, r->queues);
	return 0;
}

/* What the main thread computes while the summary is computed on another: the
 * per-queue rows and costs, then the options table's rows (the write would
 * otherwise compute them after the jobs table, on its critical path). */
static int main_thread_metrics(const struct exp_variant *v, const struct sim_trace *trace, struct run_result *r)
{
	int rc = queue_metrics(v, trace, r);
	if (rc)
		return rc;
	return sim_metrics_options(trace, r->s.cluster, r->options, &r->n_options);
}

/* The summary, the per-queue rows and the options table's rows of a finished run:
 * the summary on a second thread (here when no thread can be started), the rest
 * on this one meanwhile (main_thread_metrics). */
static int run_metrics(const struct exp_variant *v, struct sim_trace *trace, struct run_result *r)
{
	struct summarize_job sj = { .trace = trace, .cluster = r->s.cluster, .end_ns = sim_engine_now(r->e),
				    .out = &r->sum };
	pthread_t th;
	int threaded = pthread_create(&th, NULL, summarize_main, &sj) == 0;
	if (!threaded)
		summarize_main(&sj);
	int rc = main_thread_metrics(v, trace, r);
	if (threaded)
		pthread_join(th, NULL);
	return rc ? rc : sj.rc;
}

/* Runs a prepared run and computes its summary and per-queue rows. On failure
 * frees r. */
static int run_prepared(const struct exp_variant *v, struct sim_trace *trace, const char *name,
			struct run_result *r, struct sim_diag *diag)
{
	phase_mark("setup");
	double t0 = wall_now_s();
	int rc = sim_engine_run(r->e);
	r->wall_s = wall_now_s() - t0;
	phase_mark("simulate");
	sim_driver_real_end(&r->drv);
	if (rc == -SIM_ERANGE) {
		/* The clock reached its end (int64 ns): a run that never ends, not a bug. */
		sim_diag_add(diag, name,
			     "simulation failed: the simulated clock would pass its limit (about 292 years) after "
			     "%.0f s: some job never finishes, e.g. its run between checkpoints is longer than "
			     "the time between the faults that stop it (add checkpoints, or set "
			     "$.jobs.faults.max_retries)",
			     sim_time_to_s(sim_engine_now(r->e)));
		goto fail;
	}
	if (rc) {
		sim_diag_add(diag, name, "simulation failed: %s", sim_strerror(rc));
		goto fail;
	}
	/* Per-queue results; the summary's fairness (and, with preemption, its busy
	 * GPU-seconds) come from them. */
	if ((rc = run_metrics(v, trace, r)))
		goto fail;
	sim_metrics_summarize_queues(trace, r->queues, &r->sum);
	/* With capacity over time, utilization is over the capacity in force, not the
	 * cluster's final size. */
	if (sim_capacity_any(v->capacity) || sim_autoscale_on(v->autoscale, -1) || sim_spot_on(v->spot, -1) ||
	    sim_flex_on(v->flex, -1))
		sim_metrics_set_capacity_gpu_s(&r->sum, sim_engine_capacity_gpu_s(r->e));
	sim_metrics_set_capacity_cost(&r->sum, sim_engine_capacity_cost(r->e));
	double configured_gpus = 0; /* with node failures: the GPUs configured, whatever is down at the end */
	for (size_t f = 0; (sim_faults_nodes_any(v->faults, -1) || sim_faults_slow_any(v->faults, -1)) &&
			       !sim_capacity_any(v->capacity) && f < v->n_flavors;
	     f++)
		configured_gpus += (double)v->flavors[f].nodes * (double)v->flavors[f].node_cap[SIM_RES_GPU] / SIM_MILLI;
	sim_metrics_set_faults(&r->sum, sim_engine_counters(r->e), configured_gpus);
	sim_metrics_set_autoscale(&r->sum, trace, r->s.cluster, v->autoscale, sim_engine_counters(r->e));
	sim_metrics_set_spot(&r->sum, trace, r->s.cluster, v->spot, sim_engine_counters(r->e));
	sim_metrics_set_flex(&r->sum, trace, r->s.cluster, v->flex, sim_engine_counters(r->e));
	const struct real_results *measured = sim_driver_real_results(&r->drv);
	if (measured)
		real_summarize(measured, &r->sum);
	phase_mark("metrics");
	return 0;
fail:
	run_result_free(r);
	return rc;
}

/* Builds the stack for (v, seed), runs it, and computes the summary and per-queue
 * rows. On failure everything is freed. ep_extra: progress and log, may be NULL. */
static int simulate(const struct exp_config *cfg, const struct exp_variant *v, uint64_t seed,
		    struct sim_trace *trace, const struct sim_engine_params *ep_extra, const struct real_opts *real,
		    const char *name, struct run_result *r, struct sim_diag *diag)
{
	int rc = prepare_run(cfg, v, seed, trace, ep_extra, real, r, diag);
	return rc ? rc : run_prepared(v, trace, name, r, diag);
}

int exp_run_summary(const struct exp_config *cfg, const struct exp_variant *v, uint64_t seed,
		    struct sim_trace *trace, struct sim_summary *out, struct sim_diag *diag)
{
	struct run_result r;
	int rc = simulate(cfg, v, seed, trace, NULL, NULL, v->name, &r, diag);
	if (rc)
		return rc;
	*out = r.sum;
	run_result_free(&r);
	return 0;
}

/* A real run's one line: what it measured against the model. */
static void print_real_line(const char *name, const struct sim_trace *trace, const struct run_result *r,
			    const struct real_results *m)
{
	fprintf(stderr, "run %s (real, %s, x%g): %zu jobs, %.0f s of trace time in %.3f s wall; run time error "
		"%.2f%%, decision latency p50 %.3f ms p99 %.3f ms; %llu failed\n", name, m->backend, m->time_scale,
		trace->n_jobs, sim_time_to_s(sim_engine_now(r->e)), r->wall_s,
		100 * r->sum.v[SIM_SUM_runtime_error], 1e3 * r->sum.v[SIM_SUM_decision_latency_p50_s],
		1e3 * r->sum.v[SIM_SUM_decision_latency_p99_s], (unsigned long long)m->failed);
}

/* Runs (v, seed) and writes it into out. pre: its stack built already (the checked
 * stack of a config of one run: taken over and freed here), or NULL. */
static int run_one(const struct exp_config *cfg, const struct exp_variant *v, uint64_t seed,
		   struct sim_trace *trace, struct h5out *out, struct progress *prog,
		   const struct exp_run_opts *opts, FILE *log, struct run_result *pre, struct sim_diag *diag)
{
	char name[256];
	run_name(cfg, v, seed, name, sizeof name);
	if (log)
		fprintf(log, "# run %s\n", name);
	struct sim_engine_params extra = { .log = log };
	if (prog) {
		prog->run = name;
		extra.progress = progress_cb;
		extra.progress_arg = prog;
	}
	/* The engine points into the stack: a kept one runs where it was built. */
	struct run_result local, *r = pre && pre->e ? pre : &local;
	int rc = r == pre ? run_prepared(v, trace, name, r, diag) /* built with these parameters (keep_checked_stack) */
			  : simulate(cfg, v, seed, trace, &extra, opts->real, name, r, diag);
	if (prog && prog->on)
		fputc('\n', stderr);
	if (rc)
		return rc;
	const struct sim_engine_counters *ctr = sim_engine_counters(r->e);
	const struct real_results *measured = sim_driver_real_results(&r->drv);
	if (!opts->quiet && measured)
		print_real_line(name, trace, r, measured);
	else if (!opts->quiet)
		fprintf(stderr, "run %s: %zu jobs, %llu events, %.0f s simulated in %.3f s (%.0f events/s)\n",
			name, trace->n_jobs, (unsigned long long)ctr->events, sim_time_to_s(sim_engine_now(r->e)),
			r->wall_s, r->wall_s > 0 ? (double)ctr->events / r->wall_s : 0.0);
	struct real_h5 real_out = { .res = measured, .trace = trace, .cluster = r->s.cluster };
	struct h5out_run run = {
		.name = name, .policy = v->policy[SIM_FAM_ORDER], .seed = seed, .trace = trace,
		.variant = (size_t)(v - cfg->variants), .placement = sim_placement_name(v->placement),
		.cluster = r->s.cluster, .ts = sim_engine_timeseries(r->e), .counters = ctr, .summary = &r->sum,
		.faults = sim_faults_any(v->faults),
		.wall_s = r->wall_s, .decisions = sim_engine_decisions(r->e), .queues = r->queues,
		.options = r->options, .n_options = r->n_options,
		.flavor_cost_type = r->cost_types,
		.write_extra = measured ? real_h5_write : NULL, .extra_arg = &real_out,
	};
	for (int f = 0; f < SIM_FAM_COUNT_; f++)
		run.policies[f] = v->policy[f];
	rc = h5out_write_run(out, &run, diag);
	phase_mark("write");
	run_result_free(r);
	phase_mark("free_run");
	return rc;
}

/* What every run of a sweep shares; the pool's runs read it (workers: a
 * copy-on-write copy). */
struct sweep {
	const struct exp_config *cfg;
	const struct exp_run_opts *opts;
	struct sim_trace *trace;
	struct exp_parts parts;
	struct h5out_meta meta;
	struct exp_sweep_desc desc; /* meta.sweep */
	struct progress prog; /* -j 1 only: the per-run job progress */
	int per_run_progress;
	/* A config of one run (keep_checked_stack): the stack the check built, with the
	 * run's own parameters, which the run takes over (kept.e NULL: none). */
	struct run_result kept;
	/* Run i's trace is no longer read once it is written (a config of one run,
	 * written in place): the trace is then freed on a thread of its own while the
	 * file is committed (release_trace). */
	int free_trace_early;
	pthread_t trace_freer;
	int have_trace_freer;
};

/* ---- a config of one run: its stack built once, its file written in place ---- */

/* A config of one run in this process (no MPI, and unless opts->via_parts): the run
 * is written straight into the output's temporary, without a part file copied after
 * (runs_in_place). */
static int single_run(const struct exp_config *cfg, const struct exp_run_opts *opts)
{
	return cfg->n_variants * cfg->n_seeds == 1 && !exp_mpi_active() && !opts->via_parts;
}

/* Such a run can also use the stack the check builds, when that stack is built
 * with the run's own engine parameters: simulated (real mode's driver starts an
 * executor), and without --log (the run's log file is opened later, with its part). */
static int keep_checked_stack(const struct exp_config *cfg, const struct exp_run_opts *opts)
{
	return single_run(cfg, opts) && !opts->real && !opts->log_path;
}

/* Pass 1 for a config of one run (keep_checked_stack): the run's stack built for
 * the run (seed, time series step, the progress line) and kept in sw->kept; the
 * errors and their result are check_variants' for the one variant. */
static int check_and_keep(struct sweep *sw, struct sim_diag *diag)
{
	const struct exp_config *cfg = sw->cfg;
	/* The progress line of the one run: sweep_execute's per_run_progress for it. */
	struct sim_engine_params extra = { 0 };
	if (sw->opts->progress && isatty(2)) {
		extra.progress = progress_cb;
		extra.progress_arg = &sw->prog;
	}
	int rc = prepare_run(cfg, &cfg->variants[0], cfg->seeds[0], sw->trace, &extra, NULL, &sw->kept, diag);
	return rc == 0 || rc == -SIM_ENOMEM ? rc : -SIM_EPARSE;
}

static void *free_trace_main(void *arg)
{
	sim_trace_destroy(arg);
	return NULL;
}

/* Frees the trace on a thread (here when none can be started); the caller joins it
 * (join_trace_freer) before it returns. Nothing reads sw->trace after. */
static void release_trace(struct sweep *sw)
{
	struct sim_trace *t = sw->trace;
	sw->trace = NULL;
	sw->have_trace_freer = pthread_create(&sw->trace_freer, NULL, free_trace_main, t) == 0;
	if (!sw->have_trace_freer)
		sim_trace_destroy(t);
}

static void join_trace_freer(struct sweep *sw)
{
	if (sw->have_trace_freer)
		pthread_join(sw->trace_freer, NULL);
	sw->have_trace_freer = 0;
}

static void sweep_run_name(void *arg, size_t i, char *buf, size_t n)
{
	const struct sweep *sw = arg;
	run_name(sw->cfg, &sw->cfg->variants[i / sw->cfg->n_seeds], sw->cfg->seeds[i % sw->cfg->n_seeds], buf, n);
}

/* Closes the part's event log and renames it complete; on rc != 0 removes it.
 * Frees tmp. */
static int finish_part_log(FILE *log, char *tmp, const char *path, int rc, struct sim_diag *diag)
{
	int err = sim_out_close(log);
	if (err && !rc) {
		sim_diag_add(diag, path, "cannot write the event log: %s", sim_out_write_error(err));
		rc = -SIM_EIO;
	}
	if (!rc && rename(tmp, path)) {
		sim_diag_add(diag, path, "cannot rename the event log: %s", strerror(errno));
		rc = -SIM_EIO;
	}
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

/* Run i of the sweep into out, and its event log (with --log) into its part's log,
 * written under a new temporary and renamed (before out is complete, so that a
 * part that exists is a complete run). */
static int run_with_log(struct sweep *sw, size_t i, struct h5out *out, struct sim_diag *diag)
{
	const struct exp_config *cfg = sw->cfg;
	char log_path[4096], *log_tmp = NULL;
	FILE *log = NULL;
	/* Each temporary is created and handed to the guard with SIGINT and SIGTERM held
	 * off, so a stop in between cannot leave it behind. */
	if (sw->parts.with_log) {
		exp_parts_path(&sw->parts, i, "log", log_path, sizeof log_path);
		exp_guard_hold();
		if ((log = sim_out_tmp_fopen(log_path, &log_tmp, diag)))
			exp_guard_tmp_log(log_tmp);
		exp_guard_release();
		if (!log)
			return -SIM_EIO;
	}
	int rc = run_one(cfg, &cfg->variants[i / cfg->n_seeds], cfg->seeds[i % cfg->n_seeds], sw->trace, out,
			 sw->per_run_progress ? &sw->prog : NULL, sw->opts, log, &sw->kept, diag);
	if (log)
		rc = finish_part_log(log, log_tmp, log_path, rc, diag);
	exp_guard_tmp_log(NULL);
	if (!rc && sw->per_run_progress) {
		sw->prog.done++;
		sw->prog.done_here++;
	}
	return rc;
}

/* Run i of the sweep into its part file (and its log, with --log): both written
 * under new temporaries and renamed, the log first, so an existing part is a
 * complete run. */
static int sweep_run_part(void *arg, size_t i, struct sim_diag *diag)
{
	struct sweep *sw = arg;
	char path[4096];
	exp_parts_path(&sw->parts, i, "h5", path, sizeof path);
	exp_guard_hold();
	struct h5out *out = h5out_create(path, &sw->meta, diag);
	if (out)
		exp_guard_tmp(h5out_tmp_path(out));
	exp_guard_release();
	int rc = out ? run_with_log(sw, i, out, diag) : -SIM_EIO;
	if (rc)
		h5out_abort(out);
	else
		rc = h5out_commit(out, diag), h5out_destroy(out);
	phase_mark("commit_part");
	exp_guard_tmp(NULL);
	return rc;
}

/* The one run of a config of one run (single_run), written in place: into the
 * output's own temporary (exp_merge_output: in the parts folder, guarded and known
 * to the cleaner, so a stop or a kill leaves no file behind, as for a part), then
 * committed as a merge is; no part file is written and copied. The file holds what
 * the part's copy would (h5out_copy_run equals h5out_write_run). Since no part is
 * kept, a run stopped or failed here leaves nothing for --resume, as a run stopped
 * before its part was complete does. */
static int sweep_run_in_place(struct sweep *sw, const char *output, char *const *names, struct sim_diag *diag)
{
	struct exp_merge merge;
	int rc = exp_merge_begin(&merge, &sw->parts, output, &sw->meta, names, diag);
	if (rc)
		return rc;
	struct h5out *out = exp_merge_output(&merge, diag);
	rc = out ? run_with_log(sw, 0, out, diag) : -SIM_EIO;
	if (rc) {
		exp_merge_abort(&merge);
		return rc;
	}
	/* The trace's last reader was the write (the run's stack is freed): its 300 MB
	 * a million jobs go back while the file is committed. */
	if (sw->free_trace_early)
		release_trace(sw);
	exp_merge_written(&merge);
	return exp_merge_finish(&merge, sw->opts->log_path, diag);
}

static int run_jobs(const struct exp_run_opts *opts)
{
	return opts->jobs > 1 ? opts->jobs : 1;
}

/* Runs the pending runs (here, in workers, or on MPI ranks), then rank 0 merges. */
static int sweep_execute(struct sweep *sw, const char *output, struct sim_diag *diag)
{
	const struct exp_run_opts *opts = sw->opts;
	int mpi = exp_mpi_active();
	int workers = mpi ? 1 : run_jobs(opts);
	int tty = opts->progress && isatty(2) && exp_mpi_rank() == 0;
	size_t pending = exp_parts_pending(&sw->parts);
	sw->per_run_progress = tty && (workers == 1 || pending <= 1) && !mpi;
	sw->prog = (struct progress){ .on = sw->per_run_progress, .runs = sw->parts.n,
				      .done = sw->parts.n - pending, .t0_s = wall_now_s() };
	if (!opts->quiet && exp_mpi_rank() == 0 && pending < sw->parts.n)
		fprintf(stderr, "resuming: %zu of %zu runs already done in %s\n", sw->parts.n - pending,
			sw->parts.n, sw->parts.dir);
	size_t n = sw->parts.n;
	char **names = calloc(n ? n : 1, sizeof *names);
	if (!names)
		return -SIM_ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		char buf[256];
		sweep_run_name(sw, i, buf, sizeof buf);
		if (!(names[i] = strdup(buf)))
			rc = -SIM_ENOMEM;
	}
	struct exp_pool pool = { .workers = workers, .progress = tty && !sw->per_run_progress,
				 .run = sweep_run_part, .name = sweep_run_name, .arg = sw };
	/* With worker processes the parent merges while they run (exp_merge). */
	struct exp_merge merge;
	int early = !rc && !mpi && workers > 1 && pending > 1;
	if (!rc && single_run(sw->cfg, opts) && pending == 1) {
		rc = sweep_run_in_place(sw, output, names, diag);
	} else {
		if (early && !(rc = exp_merge_begin(&merge, &sw->parts, output, &sw->meta, names, diag)))
			pool.merge = &merge;
		if (!rc)
			rc = mpi ? exp_mpi_run(&pool, &sw->parts, diag) : exp_pool_run(&pool, &sw->parts, diag);
		if (pool.merge)
			rc = rc ? (exp_merge_abort(&merge), rc) : exp_merge_finish(&merge, opts->log_path, diag);
		else if (!rc && exp_mpi_rank() == 0)
			rc = exp_parts_merge(&sw->parts, output, &sw->meta, names, opts->log_path, diag);
	}
	phase_mark("merge");
	if (!rc && exp_mpi_rank() == 0)
		exp_parts_remove(&sw->parts);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int exp_run_config(const struct exp_config *cfg, const struct exp_run_opts *opts, struct sim_diag *diag)
{
	const char *output = opts->output ? opts->output : cfg->output;
	struct sweep sw = { .cfg = cfg, .opts = opts, .free_trace_early = 1 };
	int rc = 0;
	if (opts->real && (run_jobs(opts) > 1 || exp_mpi_active()))
		return sim_diag_add(diag, cfg->path, "real mode runs one run at a time on the wall clock: expected "
				    "no -j and no mpirun");
	phase_mark(NULL);
	rc = trace_native_read(cfg->trace_path, &sw.trace, diag);
	phase_mark("load");
	if (!rc)
		rc = keep_checked_stack(cfg, opts) ? check_and_keep(&sw, diag) : check_variants(cfg, sw.trace, diag);
	phase_mark("check");
	if (!rc)
		rc = check_outputs(cfg, output, opts->log_path, diag);
	if (!rc && exp_mpi_rank() == 0 && (rc = make_parent_dirs(output)))
		sim_diag_add(diag, output, "cannot create the output folder: %s", strerror(errno));
	/* Rank 0 owns the parts folder; other ranks write theirs to a private folder. */
	if (!rc)
		rc = exp_mpi_rank() == 0 ? exp_parts_open(&sw.parts, cfg, output, opts->resume, opts->log_path != NULL,
							  diag)
					 : exp_parts_open_private(&sw.parts, cfg, opts->log_path != NULL, diag);
	rc = exp_mpi_all_ok(rc);
	if (rc)
		goto out_trace;
	sw.meta = (struct h5out_meta){ .experiment_json = cfg->text, .config_path = cfg->path,
				       .software_version = GPUSCHED_VERSION };
	if ((rc = exp_sweep_desc_build(cfg, &sw.desc)))
		goto out_parts;
	sw.meta.sweep = &sw.desc.pub;
	if (opts->real)
		sw.meta.mode = "real", sw.meta.backend = opts->real->backend, sw.meta.time_scale = opts->real->time_scale;
	exp_guard_install();
	/* Under MPI no fork: mpirun stops the ranks and their temporaries are their own.
	 * The cleaner never reads the trace: it is forked without the trace's arrays, so
	 * the run's writes to them are not copied while it waits (sim_trace_fork_share);
	 * they are handed to forks again at once (the pool's workers need them). */
	if (!exp_mpi_active()) {
		int kept_out = sim_trace_fork_share(sw.trace, 0) == 0;
		exp_cleaner_start(&sw.parts);
		if (kept_out && sim_trace_fork_share(sw.trace, 1)) {
			sim_diag_add(diag, cfg->path, "cannot hand the trace to worker processes again (madvise)");
			rc = -SIM_EIO;
			goto out_cleaner;
		}
	}
	phase_mark("open");
	rc = sweep_execute(&sw, output, diag);
	phase_mark("remove_parts");
out_cleaner:
	exp_cleaner_stop();
	exp_guard_uninstall();
	exp_sweep_desc_free(&sw.desc);
out_parts:
	/* Rank 0 keeps complete parts of a failed or stopped sweep for --resume; a
	 * folder with none is removed. */
	if (exp_mpi_rank() != 0 || (rc && exp_parts_any_done(&sw.parts) == 0))
		exp_parts_remove(&sw.parts);
	exp_parts_fini(&sw.parts);
out_trace:
	if (sw.kept.e) /* checked, then not run: bad outputs, or --resume found the run done */
		run_result_free(&sw.kept);
	join_trace_freer(&sw);
	sim_trace_destroy(sw.trace); /* NULL when release_trace took it */
	phase_mark("free_trace");
	return rc;
}
