/* sim/metrics.c: per-job derived values and the per-run summary (analysis/SCHEMA.md).
 *
 * Every metric is computed from the job table after a run; one pass collects the
 * samples, a radix sort orders them and GSL takes the mean and the quantiles
 * (gsl_stats_quantile_from_sorted_data: linear interpolation between order
 * statistics, R's type 7). Cost is O(n) in the number of jobs.
 */
#include "metrics.h"
#include "metrics_job.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

static const char *const summary_names[SIM_SUM_COUNT_] = {
#define SIM_SUM_NAME(name, unit, desc) #name,
	SIM_SUMMARY_FIELDS(SIM_SUM_NAME)
#undef SIM_SUM_NAME
};
static const char *const summary_units[SIM_SUM_COUNT_] = {
#define SIM_SUM_UNIT(name, unit, desc) unit,
	SIM_SUMMARY_FIELDS(SIM_SUM_UNIT)
#undef SIM_SUM_UNIT
};
static const char *const summary_descs[SIM_SUM_COUNT_] = {
#define SIM_SUM_DESC(name, unit, desc) desc,
	SIM_SUMMARY_FIELDS(SIM_SUM_DESC)
#undef SIM_SUM_DESC
};

static const char *const queue_names[SIM_QF_COUNT_] = {
#define SIM_QF_NAME(name, unit, desc) #name,
	SIM_QUEUE_FIELDS(SIM_QF_NAME)
#undef SIM_QF_NAME
};
static const char *const queue_units[SIM_QF_COUNT_] = {
#define SIM_QF_UNIT(name, unit, desc) unit,
	SIM_QUEUE_FIELDS(SIM_QF_UNIT)
#undef SIM_QF_UNIT
};
static const char *const queue_descs[SIM_QF_COUNT_] = {
#define SIM_QF_DESC(name, unit, desc) desc,
	SIM_QUEUE_FIELDS(SIM_QF_DESC)
#undef SIM_QF_DESC
};

static const char *const option_names[SIM_OF_COUNT_] = {
#define SIM_OF_NAME(name, unit, desc) #name,
	SIM_OPTION_FIELDS(SIM_OF_NAME)
#undef SIM_OF_NAME
};
static const char *const option_units[SIM_OF_COUNT_] = {
#define SIM_OF_UNIT(name, unit, desc) unit,
	SIM_OPTION_FIELDS(SIM_OF_UNIT)
#undef SIM_OF_UNIT
};
static const char *const option_descs[SIM_OF_COUNT_] = {
#define SIM_OF_DESC(name, unit, desc) desc,
	SIM_OPTION_FIELDS(SIM_OF_DESC)
#undef SIM_OF_DESC
};

const char *sim_option_field_name(enum sim_option_field f)
{
	return (unsigned)f < SIM_OF_COUNT_ ? option_names[f] : "invalid";
}

const char *sim_option_field_unit(enum sim_option_field f)
{
	return (unsigned)f < SIM_OF_COUNT_ ? option_units[f] : "";
}

const char *sim_option_field_description(enum sim_option_field f)
{
	return (unsigned)f < SIM_OF_COUNT_ ? option_descs[f] : "";
}

const char *sim_queue_field_name(enum sim_queue_field f)
{
	return (unsigned)f < SIM_QF_COUNT_ ? queue_names[f] : "invalid";
}

const char *sim_queue_field_unit(enum sim_queue_field f)
{
	return (unsigned)f < SIM_QF_COUNT_ ? queue_units[f] : "";
}

const char *sim_queue_field_description(enum sim_queue_field f)
{
	return (unsigned)f < SIM_QF_COUNT_ ? queue_descs[f] : "";
}

const char *sim_summary_name(enum sim_summary_field f)
{
	return (unsigned)f < SIM_SUM_COUNT_ ? summary_names[f] : "invalid";
}

const char *sim_summary_unit(enum sim_summary_field f)
{
	return (unsigned)f < SIM_SUM_COUNT_ ? summary_units[f] : "";
}

const char *sim_summary_description(enum sim_summary_field f)
{
	return (unsigned)f < SIM_SUM_COUNT_ ? summary_descs[f] : "";
}

/* Wait: submit to first start, for jobs that started at least once. */
double sim_job_wait_s(const struct sim_job *j)
{
	if (j->start_ns == SIM_TIME_NONE)
		return NAN;
	return (double)(j->start_ns - j->submit_ns) / (double)SIM_NS_PER_S;
}

/* Job completion time: submit to completion, for completed jobs only. */
double sim_job_jct_s(const struct sim_job *j)
{
	if (j->state != SIM_JOB_COMPLETED || j->end_ns == SIM_TIME_NONE)
		return NAN;
	return (double)(j->end_ns - j->submit_ns) / (double)SIM_NS_PER_S;
}

/* Bounded slowdown (Feitelson): max(1, jct / max(runtime, tau)); runtime is the
 * run time on the option the job ran on, so a slower fallback flavor is not
 * counted as slowdown. */
double sim_job_bsld(const struct sim_job *j)
{
	double jct = sim_job_jct_s(j);
	if (isnan(jct))
		return NAN;
	double rt = (double)j->runtime_ns / (double)SIM_NS_PER_S;
	double b = jct / fmax(rt, SIM_BSLD_TAU_S);
	return b > 1.0 ? b : 1.0;
}

int sim_metrics_job_flavor(const struct sim_trace *t, const struct sim_job *j)
{
	if (j->alloc.flavor >= 0)
		return j->alloc.flavor;
	if (j->opt_chosen >= 0 && j->opt_chosen < (int)j->n_opts) {
		int f = sim_job_opt(t, j, j->opt_chosen)->flavor_id;
		if (f >= 0)
			return f;
	}
	return -1;
}

sim_qty_t sim_metrics_job_alloc_gpu(const struct sim_trace *t, const struct sim_cluster *c,
				    const struct sim_job *j)
{
	int f = sim_metrics_job_flavor(t, j);
	if (j->opt_chosen < 0 || j->opt_chosen >= (int)j->n_opts)
		return -1;
	const sim_qty_t *req = sim_job_opt(t, j, j->opt_chosen)->req;
	if (f < 0 || (size_t)f >= sim_cluster_n_flavors(c))
		return req[SIM_RES_GPU]; /* flavor unknown: the request is the best guess */
	return sim_cluster_alloc_gpu(c, f, req);
}

/* Cost: a job pays price_per_node_hour for the share of nodes it holds, measured in
 * GPUs (alloc_gpu / node_gpu): whole nodes for a multi-node job, a fraction of one
 * node for a partial-node job, for the wall time it held them (held_s, kept by the
 * engine over every run segment; a segment still running when the run stopped
 * counts to the end). Preempted jobs pay only for the time they ran. */
double sim_metrics_job_cost(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *j)
{
	if (j->start_ns == SIM_TIME_NONE || !(j->held_s > 0))
		return 0.0;
	sim_qty_t agpu = sim_metrics_job_alloc_gpu(t, c, j);
	if (agpu <= 0)
		return 0.0;
	int f = sim_metrics_job_flavor(t, j);
	if (f < 0 || (size_t)f >= sim_cluster_n_flavors(c))
		return NAN;
	const struct sim_flavor_spec *fs = sim_cluster_flavor(c, f);
	double node_gpu = (double)fs->node_cap[SIM_RES_GPU] / (double)SIM_MILLI;
	if (!(node_gpu > 0))
		return NAN;
	double gpus = (double)agpu / (double)SIM_MILLI;
	return fs->price_per_node_hour * (gpus / node_gpu) * (j->held_s / 3600.0);
}

/* ---- sorting the samples ----
 *
 * Why not qsort: three million-sample sorts took about 0.2 s, a tenth of a whole
 * 1M-job run. Why not a selection (gsl_stats_select) for the quantiles: the mean is
 * gsl_stats_mean's running mean, whose rounding depends on the order of the samples,
 * so it must still see them sorted for the summary not to change by a bit. GSL's
 * own sort is a heapsort, slower than qsort. So: a stable LSD radix sort on the
 * IEEE-754 bits, 11 bits a pass. The bits are mapped to an unsigned key that orders
 * like the doubles (flip every bit of a negative, the sign bit of a positive), with
 * -0.0 keyed as +0.0 so that, as under qsort's comparison, the two zeros tie and
 * keep their input order (glibc's qsort merge-sorts arrays like these, stably), so
 * the sorted sequence is the same to the bit. Samples are never NaN (callers filter
 * them). Digits equal in every key are skipped: no wait at all (a cluster that never
 * fills) costs one counting pass. */

#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)

struct radix_buf {
	double *tmp;                          /* n samples */
	size_t (*count)[RADIX];               /* RADIX_PASSES histograms */
};

static uint64_t sort_key(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	if (u == (uint64_t)1 << 63)
		u = 0; /* -0.0 ties with +0.0 */
	return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

static void sort_samples(double *x, size_t n, struct radix_buf *rb)
{
	if (n < 2)
		return;
	memset(rb->count, 0, RADIX_PASSES * sizeof *rb->count);
	for (size_t i = 0; i < n; i++) {
		uint64_t k = sort_key(x[i]);
		for (int p = 0; p < RADIX_PASSES; p++)
			rb->count[p][(k >> (p * RADIX_BITS)) & (RADIX - 1)]++;
	}
	double *src = x, *dst = rb->tmp;
	uint64_t k0 = sort_key(x[0]);
	for (int p = 0; p < RADIX_PASSES; p++) {
		size_t *c = rb->count[p];
		unsigned shift = (unsigned)(p * RADIX_BITS);
		if (c[(k0 >> shift) & (RADIX - 1)] == n)
			continue; /* every key has this digit */
		size_t sum = 0;
		for (unsigned d = 0; d < RADIX; d++) {
			size_t cd = c[d];
			c[d] = sum;
			sum += cd;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(sort_key(src[i]) >> shift) & (RADIX - 1)]++] = src[i];
		double *t = src;
		src = dst;
		dst = t;
	}
	if (src != x)
		memcpy(x, src, n * sizeof *x);
}

/* Sorts and takes mean / quantiles of n samples into out[mean], out[p50].. (NaN when n = 0). */
/* GSL's mean (statistics/mean_source.c): mean += (x[i] - mean) / (i + 1) in long
 * double, one dependent division a sample (about 8 ms a million). A finite sample
 * equal to the running mean adds (x - x) / (i + 1) = +0, which leaves the mean as
 * it was (the mean is never -0: it starts at +0, and a sum is -0 only when both
 * terms are), so its division is skipped: the sorted waits and slowdowns of a run
 * where most jobs never wait are long runs of 0 and 1. The same bits as
 * gsl_stats_mean (tests/test_metrics.c compares them). */
double sim_metrics_mean(const double *x, size_t n)
{
	long double mean = 0;
	for (size_t i = 0; i < n; i++) {
		if ((long double)x[i] == mean && isfinite(x[i]))
			continue;
		mean += (x[i] - mean) / (i + 1);
	}
	return (double)mean;
}

static void fill_stats(double *x, size_t n, struct radix_buf *rb, struct sim_summary *out, int f_mean,
		       int f_p50, int f_p95, int f_p99, int f_max)
{
	if (n == 0) {
		out->v[f_mean] = out->v[f_p50] = out->v[f_p95] = out->v[f_p99] = NAN;
		if (f_max >= 0)
			out->v[f_max] = NAN;
		return;
	}
	sort_samples(x, n, rb);
	out->v[f_mean] = sim_metrics_mean(x, n);
	out->v[f_p50] = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.50);
	out->v[f_p95] = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.95);
	out->v[f_p99] = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.99);
	if (f_max >= 0)
		out->v[f_max] = x[n - 1];
}

int sim_metrics_summarize(const struct sim_trace *t, const struct sim_cluster *c,
			  sim_time_t end_ns, struct sim_summary *out)
{
	size_t n = t->n_jobs;
	/* One block for the three sample arrays and the sort's scratch; at least one
	 * element so malloc(0) never returns NULL for an empty trace. */
	double *buf = malloc((4 * n + 1) * sizeof *buf);
	struct radix_buf rb = { NULL, malloc(RADIX_PASSES * sizeof *rb.count) };
	if (!buf || !rb.count) {
		free(buf);
		free(rb.count);
		return -SIM_ENOMEM;
	}
	memset(out, 0, sizeof *out); /* the fields set later (engine counts, setters) read 0 until then */
	rb.tmp = buf + 3 * n;
	double *waits = buf, *jcts = buf + n, *bslds = buf + 2 * n;
	size_t n_wait = 0, n_jct = 0, n_bsld = 0;
	size_t completed = 0, rejected = 0, unfinished = 0, preempted_out = 0, timed_out = 0, failed = 0;
	size_t with_limit = 0, multi_started = 0, fell_back = 0, costed = 0, max_wait_out = 0;
	sim_time_t first_submit = SIM_TIME_MAX;
	double busy_gpu_s = 0.0, cost = 0.0, preemptions = 0.0, lost_gpu_s = 0.0, restore_s = 0.0;
	double interruptions = 0.0, fb_evals = 0.0;
	double fault_stops[SIM_JOB_FAULT_CAUSES] = { 0 }, fault_lost[SIM_JOB_FAULT_CAUSES] = { 0 };
	double useful_gpu_s = 0.0;

	for (size_t i = 0; i < n; i++) {
		const struct sim_job *j = &t->jobs[i];
		if (j->submit_ns < first_submit)
			first_submit = j->submit_ns;
		switch (j->state) {
		case SIM_JOB_COMPLETED:
			completed++;
			break;
		case SIM_JOB_REJECTED:
			rejected++;
			break;
		case SIM_JOB_UNFINISHED:
			unfinished++;
			break;
		case SIM_JOB_PREEMPTED_OUT:
			preempted_out++;
			break;
		case SIM_JOB_TIMED_OUT_PENDING:
			timed_out++;
			break;
		case SIM_JOB_FAILED:
			failed++;
			break;
		case SIM_JOB_MAX_WAIT_EXCEEDED:
			max_wait_out++;
			break;
		default:
			break;
		}
		preemptions += (double)j->preemptions;
		lost_gpu_s += j->lost_gpu_s;
		restore_s += j->restore_s;
		interruptions += (double)j->interruptions;
		fb_evals += (double)j->fb_evals;
		for (int k = 0; t->fx && k < SIM_JOB_FAULT_CAUSES; k++) {
			fault_stops[k] += (double)t->fx[i].fault_stops[k];
			fault_lost[k] += t->fx[i].lost_fault_gpu_s[k];
		}
		with_limit += j->max_pending_ns != SIM_TIME_NONE;
		double w = sim_job_wait_s(j);
		if (!isnan(w))
			waits[n_wait++] = w;
		double jct = sim_job_jct_s(j);
		if (!isnan(jct))
			jcts[n_jct++] = jct;
		double b = sim_job_bsld(j);
		if (!isnan(b))
			bslds[n_bsld++] = b;

		if (j->start_ns == SIM_TIME_NONE)
			continue;
		/* Fallback: a started job of a preference list that ran on a later option. */
		if (j->n_opts >= 2) {
			multi_started++;
			fell_back += j->opt_chosen > 0;
		}
		/* Cost: the sum of the jobs' own (a job that held nothing pays 0). */
		double jc = sim_metrics_job_cost(t, c, j);
		if (!isnan(jc)) {
			cost += jc;
			costed++;
		}
		/* Allocated GPU-seconds: the time it held its allocation over every run
		 * segment (held_s, kept by the engine; a segment still running when the
		 * run stopped counts to the end). Preempted jobs count only the time
		 * they ran. */
		double run_s = j->held_s;
		if (run_s <= 0)
			continue;
		sim_qty_t agpu = sim_metrics_job_alloc_gpu(t, c, j);
		if (agpu > 0) {
			busy_gpu_s += (double)agpu / (double)SIM_MILLI * run_s;
			useful_gpu_s += (double)agpu / (double)SIM_MILLI * sim_metrics_job_useful_s(t, c, j);
		}
	}

	out->v[SIM_SUM_jobs] = (double)n;
	out->v[SIM_SUM_completed] = (double)completed;
	out->v[SIM_SUM_rejected] = (double)rejected;
	out->v[SIM_SUM_unfinished] = (double)unfinished;
	fill_stats(waits, n_wait, &rb, out, SIM_SUM_mean_wait_s, SIM_SUM_p50_wait_s, SIM_SUM_p95_wait_s,
		   SIM_SUM_p99_wait_s, SIM_SUM_max_wait_s);
	fill_stats(jcts, n_jct, &rb, out, SIM_SUM_mean_jct_s, SIM_SUM_p50_jct_s, SIM_SUM_p95_jct_s,
		   SIM_SUM_p99_jct_s, -1);
	fill_stats(bslds, n_bsld, &rb, out, SIM_SUM_mean_bsld, SIM_SUM_p50_bsld, SIM_SUM_p95_bsld,
		   SIM_SUM_p99_bsld, -1);
	free(rb.count);
	free(buf);

	double makespan_s = NAN;
	if (n > 0 && end_ns != SIM_TIME_NONE && end_ns >= first_submit)
		makespan_s = (double)(end_ns - first_submit) / (double)SIM_NS_PER_S;
	double cap = (double)sim_cluster_gpu_total(c, -1) / (double)SIM_MILLI;
	out->v[SIM_SUM_makespan_s] = makespan_s;
	out->v[SIM_SUM_gpu_capacity] = cap;
	out->v[SIM_SUM_busy_gpu_s] = busy_gpu_s;
	out->v[SIM_SUM_utilization] = (makespan_s > 0 && cap > 0) ? busy_gpu_s / (cap * makespan_s) : NAN;
	out->v[SIM_SUM_throughput_per_h] = makespan_s > 0 ? (double)completed / (makespan_s / 3600.0) : NAN;
	out->v[SIM_SUM_cost] = cost;
	out->v[SIM_SUM_preemptions] = preemptions;
	out->v[SIM_SUM_lost_gpu_s] = lost_gpu_s;
	out->v[SIM_SUM_restore_s] = restore_s;
	out->v[SIM_SUM_preempted_out] = (double)preempted_out;
	out->v[SIM_SUM_jain_fairness] = NAN; /* needs the queues: sim_metrics_summarize_queues */
	out->v[SIM_SUM_fallback_rate] = multi_started ? (double)fell_back / (double)multi_started : NAN;
	out->v[SIM_SUM_pending_timeouts] = (double)timed_out;
	out->v[SIM_SUM_pending_timeout_rate] = with_limit ? (double)timed_out / (double)with_limit : NAN;
	out->v[SIM_SUM_mean_cost_per_job] = costed ? cost / (double)costed : NAN;
	out->v[SIM_SUM_interruptions] = interruptions;
	out->v[SIM_SUM_fallback_evals] = fb_evals;
	out->v[SIM_SUM_failed] = (double)failed;
	/* Measured by a real driver only (gpu_exec/drv_real.h: real_summarize). */
	out->v[SIM_SUM_runtime_error] = NAN;
	out->v[SIM_SUM_decision_latency_p50_s] = NAN;
	out->v[SIM_SUM_decision_latency_p99_s] = NAN;
	/* Faults: per-job counts here, engine counts by sim_metrics_set_faults. The
	 * fields that engine counts or other setters fill (faults, autoscale, spot,
	 * capacity cost, flex) stay at the 0 of the memset above until then. */
	out->v[SIM_SUM_stops_node_failed] = fault_stops[0];
	out->v[SIM_SUM_stops_crashed] = fault_stops[1];
	out->v[SIM_SUM_stops_hang] = fault_stops[2];
	out->v[SIM_SUM_lost_node_failed_gpu_s] = fault_lost[0];
	out->v[SIM_SUM_lost_crashed_gpu_s] = fault_lost[1];
	out->v[SIM_SUM_lost_hang_gpu_s] = fault_lost[2];
	out->v[SIM_SUM_stops_loss_spike] = fault_stops[3];
	out->v[SIM_SUM_lost_loss_spike_gpu_s] = fault_lost[3];
	out->v[SIM_SUM_ettr] = busy_gpu_s > 0 ? useful_gpu_s / busy_gpu_s : NAN;
	/* Cost by capacity type: every flavor is on demand until spot exists; the
	 * autoscaler's part comes from sim_metrics_set_autoscale. */
	out->v[SIM_SUM_cost_on_demand] = cost;
	out->v[SIM_SUM_useful_gpu_h] = useful_gpu_s / 3600.0;
	out->v[SIM_SUM_cost_per_useful_gpu_h] = useful_gpu_s > 0 ? cost / (useful_gpu_s / 3600.0) : NAN;
	out->v[SIM_SUM_max_wait_exceeded] = (double)max_wait_out;
	return 0;
}

/* ---- per option ---- */

/* 1 if option k of the job names a flavor the cluster has, or "*". */
static int option_flavor_known(const struct sim_trace *t, const struct sim_cluster *c,
			       const struct sim_job *j, int k)
{
	int32_t f = sim_job_opt(t, j, k)->flavor_id;
	return f == SIM_FLAVOR_ANY || (f >= 0 && (size_t)f < sim_cluster_n_flavors(c));
}

/* Run time of the whole job, in s, on the option it ran on (*on_opt) and on option 0
 * (*on_first), scaled as docs/design.md section 1 (sim_scaled_time_ns). The chosen option
 * is taken on the flavor the job ran on; option 0 on its own flavor, or for a "*"
 * option 0 on the flavor the job ran on when that was option 0, else at the
 * reference speed 1.0. NaN when a flavor is not one of the cluster's. */
static void option_runtimes(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *j,
			    double *on_opt, double *on_first)
{
	int k = j->opt_chosen, f = sim_metrics_job_flavor(t, j);
	*on_opt = *on_first = NAN;
	if (f >= (int)sim_cluster_n_flavors(c) || !option_flavor_known(t, c, j, 0) ||
	    !option_flavor_known(t, c, j, k))
		return;
	int32_t f0 = sim_job_opt(t, j, 0)->flavor_id;
	if (f0 == SIM_FLAVOR_ANY)
		f0 = k == 0 ? f : -1;
	*on_opt = sim_scaled_time_ns(t, c, j, j->duration_ns, k, f) / (double)SIM_NS_PER_S;
	*on_first = sim_scaled_time_ns(t, c, j, j->duration_ns, 0, f0) / (double)SIM_NS_PER_S;
}

/* 1 if the job counts in the options table: it started and ran on a known option. */
static int option_counted(const struct sim_job *j)
{
	return j->start_ns != SIM_TIME_NONE && j->opt_chosen >= 0 && j->opt_chosen < (int)j->n_opts &&
	       j->opt_chosen < SIM_MAX_OPTIONS;
}

/* Sums over the jobs of each option: counts, runtime and cost sums (NaNs skipped,
 * with their own counts), and the waits grouped by option into w (option k's at
 * w[off[k] .. off[k] + n[k]), unsorted). */
struct option_sums {
	size_t n[SIM_MAX_OPTIONS], off[SIM_MAX_OPTIONS + 1];
	size_t n_rt[SIM_MAX_OPTIONS], n_ratio[SIM_MAX_OPTIONS], n_cost[SIM_MAX_OPTIONS];
	double rt[SIM_MAX_OPTIONS], ratio[SIM_MAX_OPTIONS], cost[SIM_MAX_OPTIONS];
};

static void option_collect(const struct sim_trace *t, const struct sim_cluster *c, struct option_sums *os,
			   double *w)
{
	size_t fill[SIM_MAX_OPTIONS] = { 0 };
	for (int k = 0; k < SIM_MAX_OPTIONS; k++)
		os->off[k + 1] = os->off[k] + os->n[k];
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		if (!option_counted(j))
			continue;
		int k = j->opt_chosen;
		w[os->off[k] + fill[k]++] = sim_job_wait_s(j);
		double on_opt, on_first, cost = sim_metrics_job_cost(t, c, j);
		option_runtimes(t, c, j, &on_opt, &on_first);
		if (!isnan(on_opt)) {
			os->rt[k] += on_opt;
			os->n_rt[k]++;
		}
		if (on_first > 0 && !isnan(on_opt)) {
			os->ratio[k] += on_opt / on_first;
			os->n_ratio[k]++;
		}
		if (!isnan(cost)) {
			os->cost[k] += cost;
			os->n_cost[k]++;
		}
	}
}

static double mean_or_nan(double sum, size_t n)
{
	return n ? sum / (double)n : NAN;
}

int sim_metrics_options(const struct sim_trace *t, const struct sim_cluster *c,
			struct sim_option_row rows[SIM_MAX_OPTIONS], size_t *n_rows)
{
	struct option_sums os;
	size_t n_rows_ = 0, started = 0;
	memset(&os, 0, sizeof os);
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		if (j->n_opts > n_rows_)
			n_rows_ = j->n_opts;
		if (option_counted(j)) {
			os.n[j->opt_chosen]++;
			started++;
		}
	}
	if (n_rows_ > SIM_MAX_OPTIONS)
		n_rows_ = SIM_MAX_OPTIONS;
	*n_rows = n_rows_;
	/* the waits, then the radix sort's scratch; at least one element each */
	double *w = malloc((2 * started + 2) * sizeof *w);
	struct radix_buf rb = { w ? w + started + 1 : NULL, malloc(RADIX_PASSES * sizeof *rb.count) };
	if (!w || !rb.count) {
		free(w);
		free(rb.count);
		return -SIM_ENOMEM;
	}
	option_collect(t, c, &os, w);
	for (size_t k = 0; k < n_rows_; k++) {
		double *v = rows[k].v, *x = w + os.off[k];
		size_t n = os.n[k];
		for (int f = 0; f < SIM_OF_COUNT_; f++)
			v[f] = NAN;
		v[SIM_OF_jobs] = (double)n;
		if (started)
			v[SIM_OF_share] = (double)n / (double)started;
		if (n == 0)
			continue;
		sort_samples(x, n, &rb);
		v[SIM_OF_mean_wait_s] = sim_metrics_mean(x, n);
		v[SIM_OF_p50_wait_s] = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.50);
		v[SIM_OF_p95_wait_s] = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.95);
		v[SIM_OF_mean_runtime_s] = mean_or_nan(os.rt[k], os.n_rt[k]);
		v[SIM_OF_runtime_ratio] = mean_or_nan(os.ratio[k], os.n_ratio[k]);
		v[SIM_OF_mean_cost] = mean_or_nan(os.cost[k], os.n_cost[k]);
	}
	free(rb.count);
	free(w);
	return 0;
}

/* ---- per queue ---- */

/* Time-weighted integral of column q of a [n][nq] step series, in value x hours:
 * row i holds from t_s[i] until t_s[i+1], the last row until end_s. */
static double ts_integral_h(const struct sim_timeseries *ts, const double *col, size_t q, double end_s)
{
	double sum = 0.0;
	for (size_t i = 0; i < ts->n; i++) {
		double t1 = i + 1 < ts->n ? ts->t_s[i + 1] : end_s;
		double dt = t1 - ts->t_s[i];
		if (dt > 0)
			sum += col[i * ts->n_queues + q] * dt;
	}
	return sum / 3600.0;
}

/* Starts each queue's row: every field NaN but the counts, which are 0. */
static void queue_rows_init(struct sim_queue_row *rows, size_t nq)
{
	for (size_t q = 0; q < nq; q++) {
		double *v = rows[q].v;
		for (int f = 0; f < SIM_QF_COUNT_; f++)
			v[f] = NAN;
		v[SIM_QF_jobs] = v[SIM_QF_completed] = 0;
		v[SIM_QF_preemptions_suffered] = v[SIM_QF_preemptions_caused] = 0;
		v[SIM_QF_lost_gpu_h] = v[SIM_QF_restore_h] = 0;
	}
}

/* Waits of each queue's started jobs, grouped: queue q's are w[off[q] .. off[q+1]),
 * sorted. The same pass over the jobs (two passes over a million 256-byte records
 * instead of four) adds each job to its queue's counts in rows (counts, costs from
 * the jobs: exact, and present without the engine; in job order, so the sums are
 * the same to the bit) and finds the first submit. Returns the arrays (caller
 * frees *w and *off) or -SIM_ENOMEM. */
static int queue_waits(const struct sim_trace *t, int count_caused, struct sim_queue_row *rows, double **w_out,
		       size_t **off_out, sim_time_t *first_submit)
{
	size_t nq = t->n_queues;
	size_t *off = calloc(nq + 2, sizeof *off), *fill = calloc(nq + 1, sizeof *fill);
	double *w = malloc((t->n_jobs + 1) * sizeof *w);
	if (!off || !fill || !w) {
		free(off);
		free(fill);
		free(w);
		return -SIM_ENOMEM;
	}
	sim_time_t first = SIM_TIME_MAX;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		if (j->submit_ns < first)
			first = j->submit_ns;
		int32_t q = j->queue;
		if (q < 0 || (size_t)q >= nq)
			continue;
		off[q + 1] += !isnan(sim_job_wait_s(j));
		double *v = rows[q].v;
		v[SIM_QF_jobs]++;
		if (j->state == SIM_JOB_COMPLETED)
			v[SIM_QF_completed]++;
		v[SIM_QF_preemptions_suffered] += (double)j->preemptions;
		v[SIM_QF_lost_gpu_h] += j->lost_gpu_s / 3600.0;
		v[SIM_QF_restore_h] += j->restore_s / 3600.0;
		if (count_caused)
			v[SIM_QF_preemptions_caused] += (double)j->preemptions_caused;
	}
	*first_submit = first;
	for (size_t q = 0; q < nq; q++)
		off[q + 1] += off[q];
	for (size_t i = 0; i < t->n_jobs; i++) {
		int32_t q = t->jobs[i].queue;
		double x = sim_job_wait_s(&t->jobs[i]);
		if (q >= 0 && (size_t)q < nq && !isnan(x))
			w[off[q] + fill[q]++] = x;
	}
	for (size_t q = 0; q < nq; q++)
		gsl_sort(w + off[q], 1, off[q + 1] - off[q]);
	free(fill);
	*w_out = w;
	*off_out = off;
	return 0;
}

int sim_metrics_queues(const struct sim_trace *t, const struct sim_queue_acct *acct,
		       const struct sim_timeseries *ts, const struct sim_decisions *decisions,
		       sim_time_t end_ns, struct sim_queue_row *rows)
{
	size_t nq = t->n_queues;
	double *w;
	size_t *off;
	sim_time_t first_submit;
	queue_rows_init(rows, nq);
	if (queue_waits(t, !decisions, rows, &w, &off, &first_submit))
		return -SIM_ENOMEM;
	int quota = ts && ts->has_quota_stats;
	double end_s = end_ns != SIM_TIME_NONE ? sim_time_to_s(end_ns) : NAN;
	double makespan_s = (t->n_jobs > 0 && end_ns != SIM_TIME_NONE && end_ns >= first_submit) ?
				    sim_time_to_s(end_ns - first_submit) : NAN;
	for (size_t q = 0; q < nq; q++) {
		double *v = rows[q].v;
		size_t n = off[q + 1] - off[q];
		if (n > 0) {
			v[SIM_QF_mean_wait_s] = sim_metrics_mean(w + off[q], n);
			v[SIM_QF_p95_wait_s] = gsl_stats_quantile_from_sorted_data(w + off[q], 1, n, 0.95);
		}
		if (acct) {
			v[SIM_QF_busy_gpu_h] = acct[q].busy_gpu_s / 3600.0;
			if (quota) {
				v[SIM_QF_nominal_gpus] = acct[q].nominal;
				v[SIM_QF_borrowed_gpu_h] = acct[q].borrowed_gpu_s / 3600.0;
				v[SIM_QF_below_nominal_demanding_h] =
					acct[q].below_nominal_demanding_s / 3600.0;
				if (acct[q].nominal > 0 && makespan_s > 0)
					v[SIM_QF_share] = acct[q].busy_gpu_s / (acct[q].nominal * makespan_s);
			}
		}
		if (quota && ts->n > 0 && ts->n_queues == nq && ts->q_lent && !isnan(end_s))
			v[SIM_QF_lent_gpu_h] = ts_integral_h(ts, ts->q_lent, q, end_s);
	}
	/* A decision whose preemptor is its victim had no preemptor (a quota shrink). */
	for (size_t k = 0; decisions && k < decisions->n; k++) {
		const struct sim_decision *d = &decisions->v[k];
		if (d->preemptor == d->victim || d->preemptor >= t->n_jobs)
			continue;
		int32_t q = t->jobs[d->preemptor].queue;
		if (q >= 0 && (size_t)q < nq)
			rows[q].v[SIM_QF_preemptions_caused]++;
	}
	free(w);
	free(off);
	return 0;
}

double sim_metrics_jain(const double *x, size_t n)
{
	double sum = 0.0, sq = 0.0;
	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	if (n == 0 || !(sq > 0))
		return NAN;
	return sum * sum / ((double)n * sq);
}

void sim_metrics_summarize_queues(const struct sim_trace *t, const struct sim_queue_row *rows,
				  struct sim_summary *sum)
{
	size_t nq = t->n_queues, n = 0;
	double *x = malloc((nq + 1) * sizeof *x);
	for (size_t q = 0; x && rows && q < nq; q++)
		if (rows[q].v[SIM_QF_nominal_gpus] > 0 && rows[q].v[SIM_QF_jobs] > 0)
			x[n++] = rows[q].v[SIM_QF_share];
	sum->v[SIM_SUM_jain_fairness] = x ? sim_metrics_jain(x, n) : NAN;
	free(x);
}

/* Mean and 95% CI half-width t_{0.975, m-1} * sd / sqrt(m) per field, over the m
 * runs where the field is not NaN (a metric with no data in one seed, e.g. no
 * completed job, does not poison the others). m = 0 gives NaN, m = 1 a CI of 0. */
void sim_metrics_replicate(const struct sim_summary *runs, size_t n, struct sim_summary *mean,
			   struct sim_summary *ci95)
{
	double *x = malloc((n + 1) * sizeof *x);
	for (int f = 0; f < SIM_SUM_COUNT_; f++) {
		size_t m = 0;
		double sum = 0.0;
		for (size_t r = 0; r < n; r++) {
			double v = runs[r].v[f];
			if (isnan(v))
				continue;
			if (x)
				x[m] = v;
			sum += v;
			m++;
		}
		if (m == 0) {
			mean->v[f] = ci95->v[f] = NAN;
			continue;
		}
		if (!x) { /* no memory: still give the mean, the CI is unknown */
			mean->v[f] = sum / (double)m;
			ci95->v[f] = m == 1 ? 0.0 : NAN;
			continue;
		}
		mean->v[f] = gsl_stats_mean(x, 1, m);
		if (m == 1) {
			ci95->v[f] = 0.0;
			continue;
		}
		double sd = gsl_stats_sd_m(x, 1, m, mean->v[f]);
		ci95->v[f] = gsl_cdf_tdist_Pinv(0.975, (double)(m - 1)) * sd / sqrt((double)m);
	}
	free(x);
}

void sim_metrics_set_faults(struct sim_summary *sum, const struct sim_engine_counters *ctr, double configured_gpus)
{
	if (configured_gpus > 0) {
		double ms = sum->v[SIM_SUM_makespan_s];
		sum->v[SIM_SUM_gpu_capacity] = configured_gpus;
		sum->v[SIM_SUM_utilization] = ms > 0 ? sum->v[SIM_SUM_busy_gpu_s] / (configured_gpus * ms) : NAN;
	}
	sum->v[SIM_SUM_nodes_failed] = (double)ctr->nodes_failed;
	sum->v[SIM_SUM_nodes_repaired] = (double)ctr->nodes_repaired;
	sum->v[SIM_SUM_nodes_replaced] = (double)ctr->nodes_replaced;
	sum->v[SIM_SUM_spare_pool_empty_s] = ctr->pool_empty_s;
	sum->v[SIM_SUM_crashes] = (double)ctr->crashes;
	sum->v[SIM_SUM_hangs] = (double)ctr->hangs;
	sum->v[SIM_SUM_retries_exhausted] = (double)ctr->retries_exhausted;
	sum->v[SIM_SUM_fault_restarts] = (double)ctr->recoveries;
	sum->v[SIM_SUM_time_to_recover_s] = ctr->recover_s;
	sum->v[SIM_SUM_time_to_detect_hang_s] = ctr->hang_hold_s;
	sum->v[SIM_SUM_slow_episodes] = (double)ctr->slow_episodes;
	sum->v[SIM_SUM_slow_detected] = (double)ctr->slow_detected;
	sum->v[SIM_SUM_lost_slow_gpu_s] = ctr->slow_lost_gpu_s;
	sum->v[SIM_SUM_stops_slow_migrated] = (double)ctr->slow_stops;
	sum->v[SIM_SUM_lost_slow_migrated_gpu_s] = ctr->slow_migrated_lost_gpu_s;
	sum->v[SIM_SUM_restarts_in_place] = (double)ctr->inplace_restarts;
	sum->v[SIM_SUM_restarts_full] = (double)ctr->full_restarts;
	sum->v[SIM_SUM_replay_ignored] = (double)ctr->replay_ignored;
}

double sim_metrics_job_useful_s(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *j)
{
	if (j->start_ns == SIM_TIME_NONE || j->opt_chosen < 0)
		return 0.0;
	double work_s = sim_scaled_time_ns(t, c, j, j->duration_ns, j->opt_chosen, sim_metrics_job_flavor(t, j)) /
			(double)SIM_NS_PER_S;
	return j->state == SIM_JOB_COMPLETED ? work_s : j->progress * work_s;
}

double sim_metrics_job_ettr(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *j)
{
	if (!(j->held_s > 0))
		return NAN;
	return sim_metrics_job_useful_s(t, c, j) / j->held_s;
}

void sim_metrics_set_autoscale(struct sim_summary *sum, const struct sim_trace *t, const struct sim_cluster *c,
			       const struct sim_autoscale *as, const struct sim_engine_counters *ctr)
{
	if (!sim_autoscale_on(as, -1))
		return;
	double busy_cost = 0; /* the jobs' cost on autoscaled flavors: the busy part of their node-hours */
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		int f = sim_metrics_job_flavor(t, j);
		if (j->start_ns == SIM_TIME_NONE || !sim_autoscale_on(as, f))
			continue;
		double jc = sim_metrics_job_cost(t, c, j);
		if (!isnan(jc))
			busy_cost += jc;
	}
	double idle = ctr->as_cost - busy_cost;
	sum->v[SIM_SUM_autoscale_nodes_requested] = (double)ctr->as_requested;
	sum->v[SIM_SUM_autoscale_nodes_removed] = (double)ctr->as_removed;
	sum->v[SIM_SUM_autoscale_node_h] = ctr->as_node_s / 3600.0;
	sum->v[SIM_SUM_cost_autoscaled_idle] = idle;
	sum->v[SIM_SUM_cost] += idle;
	double useful_h = sum->v[SIM_SUM_useful_gpu_h];
	sum->v[SIM_SUM_cost_per_useful_gpu_h] = useful_h > 0 ? sum->v[SIM_SUM_cost] / useful_h : NAN;
}

void sim_metrics_set_spot(struct sim_summary *sum, const struct sim_trace *t, const struct sim_cluster *c,
			  const struct sim_spot *sp, const struct sim_engine_counters *ctr)
{
	if (!sim_spot_on(sp, -1))
		return;
	double spot_cost = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		if (j->start_ns == SIM_TIME_NONE || !sim_spot_on(sp, sim_metrics_job_flavor(t, j)))
			continue;
		double jc = sim_metrics_job_cost(t, c, j);
		if (!isnan(jc))
			spot_cost += jc;
	}
	sum->v[SIM_SUM_cost_spot] = spot_cost;
	sum->v[SIM_SUM_cost_on_demand] -= spot_cost;
	sum->v[SIM_SUM_spot_notices] = (double)ctr->spot_notices;
	sum->v[SIM_SUM_stops_spot] = (double)ctr->spot_stops;
	sum->v[SIM_SUM_spot_saved] = (double)ctr->spot_saved;
	sum->v[SIM_SUM_lost_spot_gpu_s] = ctr->spot_lost_gpu_s;
}

void sim_metrics_set_capacity_cost(struct sim_summary *sum, double cost)
{
	sum->v[SIM_SUM_cost_capacity] = cost;
}

void sim_metrics_set_flex(struct sim_summary *sum, const struct sim_trace *t, const struct sim_cluster *c,
			  const struct sim_flex *fx, const struct sim_engine_counters *ctr)
{
	if (!sim_flex_on(fx, -1))
		return;
	double jobs_cost = 0; /* the jobs' cost on flex flavors: their GPU share of the nodes */
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		if (j->start_ns == SIM_TIME_NONE || !sim_flex_on(fx, sim_metrics_job_flavor(t, j)))
			continue;
		double jc = sim_metrics_job_cost(t, c, j);
		if (!isnan(jc))
			jobs_cost += jc;
	}
	sum->v[SIM_SUM_flex_requests] = (double)ctr->flex_requests;
	sum->v[SIM_SUM_flex_requests_failed] = (double)ctr->flex_failures;
	sum->v[SIM_SUM_flex_gave_up] = (double)ctr->flex_gave_up;
	sum->v[SIM_SUM_flex_cutoffs] = (double)ctr->flex_cutoffs;
	sum->v[SIM_SUM_flex_node_h] = ctr->flex_node_s / 3600.0;
	sum->v[SIM_SUM_cost_flex] = ctr->flex_cost;
	sum->v[SIM_SUM_cost_on_demand] -= jobs_cost;
	sum->v[SIM_SUM_cost] += ctr->flex_cost - jobs_cost;
	double useful_h = sum->v[SIM_SUM_useful_gpu_h];
	sum->v[SIM_SUM_cost_per_useful_gpu_h] = useful_h > 0 ? sum->v[SIM_SUM_cost] / useful_h : NAN;
}

static const char *const cost_type_names[SIM_COST_TYPE_COUNT_] = { "on_demand", "spot", "plan", "autoscaled",
									"flex" };

const char *sim_cost_type_name(enum sim_cost_type t)
{
	return (unsigned)t < SIM_COST_TYPE_COUNT_ ? cost_type_names[t] : "none";
}

void sim_metrics_flavor_cost_types(size_t n_flavors, const struct sim_capacity *cap, const struct sim_autoscale *as,
				   const struct sim_spot *sp, const struct sim_flex *fx, uint8_t *out)
{
	for (size_t f = 0; f < n_flavors; f++) {
		int i = (int)f;
		out[f] = sim_spot_on(sp, i)	 ? SIM_COST_SPOT :
			 sim_flex_on(fx, i)	 ? SIM_COST_FLEX :
			 sim_autoscale_on(as, i) ? SIM_COST_AUTOSCALED :
			 (cap && cap->plan && f < cap->n_flavors && cap->plan[f]) ? SIM_COST_PLAN :
						   SIM_COST_ON_DEMAND;
	}
}

uint8_t sim_metrics_job_cost_type(const struct sim_trace *t, const uint8_t *types, size_t n_flavors,
				  const struct sim_job *j)
{
	if (j->start_ns == SIM_TIME_NONE)
		return SIM_COST_TYPE_NONE;
	int f = sim_metrics_job_flavor(t, j);
	if (f < 0 || (size_t)f >= n_flavors)
		return SIM_COST_TYPE_NONE;
	return types ? types[f] : SIM_COST_ON_DEMAND;
}

void sim_metrics_queue_costs(const struct sim_trace *t, const struct sim_cluster *c, const uint8_t *types,
			     struct sim_queue_row *rows)
{
	static const enum sim_queue_field by_type[SIM_COST_TYPE_COUNT_] = {
		SIM_QF_cost_on_demand, SIM_QF_cost_spot, SIM_QF_cost_plan, SIM_QF_cost_autoscaled, SIM_QF_cost_flex
	};
	for (size_t q = 0; q < t->n_queues; q++) {
		rows[q].v[SIM_QF_cost] = 0;
		for (int k = 0; k < SIM_COST_TYPE_COUNT_; k++)
			rows[q].v[by_type[k]] = 0;
	}
	size_t nf = sim_cluster_n_flavors(c);
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		uint8_t k = sim_metrics_job_cost_type(t, types, nf, j);
		if (j->queue < 0 || (size_t)j->queue >= t->n_queues || k == SIM_COST_TYPE_NONE)
			continue;
		double jc = sim_metrics_job_cost(t, c, j);
		if (isnan(jc))
			continue;
		rows[j->queue].v[SIM_QF_cost] += jc;
		rows[j->queue].v[by_type[k]] += jc;
	}
}

void sim_metrics_set_capacity_gpu_s(struct sim_summary *sum, double capacity_gpu_s)
{
	sum->v[SIM_SUM_utilization] = capacity_gpu_s > 0 ? sum->v[SIM_SUM_busy_gpu_s] / capacity_gpu_s : NAN;
}
