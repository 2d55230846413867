/* sim/engine.c: the event loop, the view, proposals and the time series.
 *
 * Ownership: the engine borrows the trace, cluster, policies and driver; it owns
 * the event queue, the proposal buffer and the time series. It writes the run
 * state of the trace's jobs (job.h "run state" block) and nothing else.
 */
#include "engine.h"
#include "draws.h"
#include "fault_events.h"
#include "tick.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sim_view {
	struct sim_engine *e;
};

struct victim_proposal {
	uint32_t victim, preemptor;
	uint8_t reason, requeue;
};

struct sim_placement_buf {
	struct sim_engine *e;
	uint32_t *jobs; /* accepted proposals of the current pass, in order */
	size_t n, cap;
	struct victim_proposal *victims; /* preemptions of the current pass, in order */
	size_t n_victims, cap_victims;
};

struct sim_engine {
	struct sim_view view;
	struct sim_engine_params p;
	struct sim_evq *evq;
	struct sim_placement_buf buf;
	struct sim_timeseries ts;
	struct sim_engine_counters ctr;
	sim_time_t now;
	sim_time_t next_sample;  /* next grid time of the time series */
	sim_time_t sample_ns;    /* its step: p.sample_ns, doubled each time it is thinned */
	struct sim_tick progress_tick; /* when p.progress is due (wall time) */
	size_t next_submit;      /* index of the next job to submit (trace is sorted) */
	size_t n_queued, n_running, n_done;
	int changed;             /* an event since the last decision pass */
	int policy_event;        /* a policy's timed change: pass even with nothing queued */
	struct sim_policy *driver_pol; /* whose pick runs: the quota policy's if it has one */
	struct sim_decisions decisions;
	struct sim_queue_acct *qacct; /* per trace queue */
	struct sim_queue_stats qstats; /* scratch for the quota policy's queue_stats */
	int oom;
	/* Running jobs (dense, with each job's slot), to find those on removed nodes. */
	uint32_t *running, *run_slot;
	size_t n_run, cap_run;
	/* Capacity over time (params.capacity). */
	struct sim_capacity_run *cap_run_state;
	int64_t *cap_base;       /* per flavor: nodes the plan gives now, before stock-outs */
	uint8_t *out_of_stock;   /* per flavor */
	size_t n_stock_models, n_out_of_stock;
	size_t n_tickers;        /* policies with a tick period: one EV_TICK each is always queued */
	uint64_t order_gen;      /* sim_view_order_gen: every change of order keys */
	uint64_t order_gen_all;  /* changes of every job's key (sim_view_order_changed) */
	uint64_t *order_gen_q;   /* per trace queue: changes of its jobs' keys only */
	uint32_t *busy_nodes;    /* scratch: nodes set_nodes put to draining (peak of the largest flavor) */
	uint8_t *node_mark;      /* scratch: the same nodes, marked by index */
	/* GPU-seconds of capacity in force from the first submit to cap_last_t (the
	 * denominator of utilization when capacity changes). */
	double cap_gpu_s;
	sim_time_t cap_last_t;   /* SIM_TIME_NONE before the first submit */
	/* The price of that capacity (currency, sim_engine_capacity_cost); priced = 1
	 * when some flavor has a price (else nothing is integrated). cap_w[f]: flavor f's
	 * price per GPU milli-unit in force and hour (0 for a flavor with node failures,
	 * billed at its configured size: cap_fixed_rate, currency per hour). */
	double cap_cost;
	int priced;
	double *cap_w;
	double cap_fixed_rate;
	/* Faults (params.faults, docs/faults.md); all NULL / 0 without. */
	struct sim_faults_run *flt;
	int job_faults;          /* jobs may crash, hang or have loss spikes */
	/* Checkpoint tiers (sim/ckpt.h): per job, when the policy or loss spikes need
	 * them; NULL = the one-tier accounting. stopping: the cause of the stop whose
	 * work release_running is accounting (the tier rule depends on it). */
	struct sim_ckpt_state *ckst;
	/* trace->fx: the jobs' fault, restart and fail-slow state (sim/job.h), allocated
	 * when the run has faults, spot or fail-slow nodes; NULL otherwise (not owned:
	 * the trace keeps it, zeroed at each reset). */
	struct sim_job_fx *fx;
	enum sim_stop_cause stopping;
	uint32_t *slot_base;     /* per flavor: global index of its node 0 in slots[] */
	struct node_slot *slots; /* one per node of every flavor (only faulty flavors' are used) */
	uint32_t *pool;          /* per flavor: spare nodes in the pool now */
	uint32_t *waiting;       /* per flavor: slots waiting for a repair (no spare was free) */
	size_t n_fault_pending;  /* node fault events queued (they never end a run by themselves) */
	size_t n_nodes_down;     /* slots failed and not yet back */
	size_t n_exhausted;      /* flavors with spares whose pool is empty while slots wait */
	size_t n_slots;          /* entries of slots[] */
	size_t n_fault_slots;    /* nodes of flavors with failures */
	size_t idle_ups;         /* slots come up since the last start while nothing ran (run end) */
	uint32_t *replay_job;    /* per incident-log row: the job it names, UINT32_MAX = none (node rows,
				  * unknown ids); NULL without a log */
	sim_time_t flt_last_t;   /* last time pool_empty_s was integrated */
	/* Autoscaling (params.autoscale, docs/capacity.md); all NULL / 0 without. */
	struct sim_autoscale_run *as_run;
	uint32_t *as_base;       /* per flavor: global index of its node 0 in as_nodes[] */
	struct as_node *as_nodes; /* one per node of every flavor (only autoscaled flavors' are used) */
	uint32_t *as_up, *as_prov; /* per flavor: nodes up, nodes provisioning */
	uint64_t *as_draws;      /* per flavor: provisioning delays drawn so far */
	uint32_t *as_need;       /* scratch per flavor: nodes the unplaced demand needs */
	sim_qty_t *as_room;      /* scratch per flavor: GPUs left on the last node packed, -1 = none */
	uint32_t *as_demand;     /* jobs queued since the last evaluation that may want an autoscaled flavor */
	size_t n_as_demand, cap_as_demand;
	uint8_t *as_listed;      /* per job: 1 while in as_demand */
	uint32_t *as_scratch;    /* nodes of a job being released (the largest flavor's peak) */
	size_t n_as_pending;     /* autoscaling events queued (idle checks, arrivals) */
	size_t n_as_prov;        /* nodes provisioning, all flavors */
	int as_dirty;            /* a scale-up evaluation is due after this time's passes */
	sim_time_t as_last_t;    /* last time as_node_s was integrated */
	/* Spot (params.spot, docs/capacity.md); all NULL / 0 without. */
	uint32_t *spot_base;     /* per flavor: global index of its node 0 in spot_k[] */
	uint32_t *spot_k;        /* per node of every flavor: notices so far (the k of its next draw) */
	struct sim_draws spot_draws; /* the spot interruptions' keyed draws (sim/draws.h); owned */
	size_t *spot_next;       /* per flavor: index of its next fixed notice time */
	sim_time_t *spot_notice; /* per job: the notice its running segment got, SIM_TIME_NONE = none */
	uint8_t *spot_save;      /* per job: 1 when it saves its work within that notice */
	size_t n_spot_pending;   /* spot events queued (they never end a run by themselves) */
	size_t n_spot_away;      /* spot nodes noticed and not back yet */
	size_t n_spot_nodes;     /* nodes of spot flavors */
	size_t spot_idle_backs;  /* spot nodes back since the last start (run end, as idle_ups) */
	uint64_t *mw_ev;         /* per job: its pending max_wait_s event, 0 = none; NULL when no job has one */
	/* Fail-slow nodes (params.faults, docs/faults.md); all NULL / 0 without. */
	uint32_t *slow_base;     /* per flavor: global index of its node 0 in slow_nodes[] */
	struct slow_node *slow_nodes; /* one per node of every flavor (only fail-slow flavors' are used) */
	size_t n_slow_pending;   /* fail-slow events queued (they never end a run by themselves) */
	size_t n_slow_nodes;     /* nodes of fail-slow flavors */
	size_t n_slow_down;      /* nodes out of placement after a detection */
	size_t slow_idle_ups;    /* such nodes back since the last start (run end, as idle_ups) */
	/* Flex-start (params.flex, docs/capacity.md, "Flex-start"); all NULL / 0 without. */
	struct sim_draws flex_draws; /* the requests' keyed draws (sim/draws.h); owned */
	uint8_t *flex_st;        /* per job: enum flex_state */
	uint32_t *flex_k;        /* per job: requests made over the run (the k of its next draw) */
	uint32_t *flex_fails;    /* per job: failed requests since it last became queued */
	uint64_t *flex_ev;       /* per job: its pending flex event (answer, retry, cut-off), 0 = none */
	uint32_t *flex_used;     /* per flavor: nodes up or asked for */
	struct flex_fifo *flex_q; /* per flavor: jobs waiting for room to ask, in the order they came */
	uint8_t **flex_taken;    /* per flavor with a capacity trace: its offers taken, NULL otherwise */
};

/* A node slot under fail-slow: its speed now (1 = full), its episodes so far (the
 * k of its next draws), and whether the current episode was detected. */
struct slow_node {
	double factor;
	uint32_t k;
	uint8_t detected;
};

/* A node of an autoscaled flavor: off (no capacity, not billed), provisioning
 * (asked for, arriving), or up (online, billed; idle_since is when it last became
 * fully free, the start of its idle timeout). */
enum as_state { AS_OFF = 0, AS_PROV, AS_UP };
struct as_node {
	int32_t flavor;
	uint8_t state; /* enum as_state */
	sim_time_t idle_since;
};

/* A job's place in flex-start (docs/capacity.md, "Flex-start"): not a flex job (or
 * not waiting), waiting for room in its flavor to ask, asked (its answer queued),
 * backing off after a failed request, running on its provisioned nodes, or out of
 * attempts and falling back to its other options. */
enum flex_state { FLEX_NONE = 0, FLEX_WAIT_ROOM, FLEX_ASKED, FLEX_BACKOFF, FLEX_RUNNING, FLEX_GAVE_UP };
struct flex_fifo {
	uint32_t *v; /* job indices; [head, n) waiting */
	size_t head, n, cap;
};

/* A node slot's life under failures: up (online, its next failure queued), or
 * down waiting for its own repair, or down waiting for a spare on its way. */
enum slot_state { SLOT_UP = 0, SLOT_WAIT_REPAIR, SLOT_REPLACING };
struct node_slot {
	int32_t flavor;
	uint8_t state;          /* enum slot_state */
	uint32_t k;             /* failures of this slot so far */
	sim_time_t up_since;    /* when it last came up (its operating time runs from there) */
	sim_time_t down_since;  /* when it last failed */
};

/* EV_CAPACITY events of the capacity plan carry this arg (policies' carry their
 * family); job is the change's index, or STOCK_EVENT | flavor for a stock-out
 * model's next transition. */
#define EV_ARG_CAPACITY ((int64_t)-1)
#define STOCK_EVENT 0x80000000u
/* EV_CAPACITY events of the fault plan: job is a global node slot. */
#define EV_ARG_NODE_FAIL ((int64_t)-2)     /* the slot's node fails */
#define EV_ARG_NODE_REPAIRED ((int64_t)-3) /* the node that failed from the slot is repaired */
#define EV_ARG_SPARE_IN ((int64_t)-4)      /* a spare arrives in the slot */
/* EV_CAPACITY events of autoscaling: job is a global autoscaled node index. */
#define EV_ARG_AS_ARRIVE ((int64_t)-5)     /* a provisioned node comes up */
#define EV_ARG_AS_IDLE ((int64_t)-6)       /* a node's idle timeout may have run out */
/* EV_CAPACITY events of spot flavors. */
#define EV_ARG_SPOT_NOTICE ((int64_t)-7)   /* job: a global node: its notice (rate) */
#define EV_ARG_SPOT_TIMES ((int64_t)-8)    /* job: a flavor: its next fixed notice time, every node */
#define EV_ARG_SPOT_BACK ((int64_t)-9)     /* job: a global node: it is back after its taking */
/* EV_CAPACITY events of fail-slow nodes: job is a global node index. */
#define EV_ARG_SLOW_START ((int64_t)-10)   /* an episode begins */
#define EV_ARG_SLOW_END ((int64_t)-11)     /* it ends: full speed again */
#define EV_ARG_SLOW_DETECT ((int64_t)-12)  /* it is detected (detection on) */
/* EV_CAPACITY events of flex-start flavors: job is the job. */
#define EV_ARG_FLEX_SERVED ((int64_t)-13)  /* its request is served: the nodes arrive, it starts */
#define EV_ARG_FLEX_FAILED ((int64_t)-14)  /* its request failed */
#define EV_ARG_FLEX_RETRY ((int64_t)-15)   /* its backoff ran out: it may ask again */
#define EV_ARG_FLEX_CUTOFF ((int64_t)-16)  /* its maximum run duration ran out: the nodes go */
/* EV_CAPACITY events of a replayed incident log: job is the row's index (tested before
 * the ranges above, which it lies below). */
#define EV_ARG_REPLAY ((int64_t)-17)

/* ---- time series ---- */

static int ts_reserve(struct sim_timeseries *ts)
{
	if (ts->n < ts->cap)
		return 0;
	size_t ncap = ts->cap ? ts->cap * 2 : 1024;
	if (ncap > ts->max_rows && ts->max_rows > ts->n)
		ncap = ts->max_rows; /* it is thinned there, never longer */
	double **cols[] = { &ts->t_s, &ts->gpus_busy, &ts->jobs_queued, &ts->jobs_running };
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		double *nc = realloc(*cols[i], ncap * sizeof **cols[i]);
		if (!nc)
			return -SIM_ENOMEM;
		*cols[i] = nc;
	}
	double *nf = realloc(ts->gpus_busy_by_flavor, ncap * ts->n_flavors * sizeof *nf);
	if (!nf && ts->n_flavors)
		return -SIM_ENOMEM;
	ts->gpus_busy_by_flavor = nf;
	if (ts->has_nodes_down) {
		double *nd = realloc(ts->nodes_down, ncap * sizeof *nd);
		if (!nd)
			return -SIM_ENOMEM;
		ts->nodes_down = nd;
	}
	double **qcols[] = { &ts->q_usage, &ts->q_nominal, &ts->q_borrowed, &ts->q_lent };
	for (size_t i = 0; i < 4 && ts->n_queues; i++) {
		double *nc = realloc(*qcols[i], ncap * ts->n_queues * sizeof *nc);
		if (!nc)
			return -SIM_ENOMEM;
		*qcols[i] = nc;
	}
	ts->cap = ncap;
	return 0;
}

static void ts_free(struct sim_timeseries *ts)
{
	free(ts->t_s);
	free(ts->gpus_busy);
	free(ts->jobs_queued);
	free(ts->jobs_running);
	free(ts->gpus_busy_by_flavor);
	free(ts->q_usage);
	free(ts->q_nominal);
	free(ts->q_borrowed);
	free(ts->q_lent);
	free(ts->nodes_down);
	memset(ts, 0, sizeof *ts);
}

/* Keeps every other sample (times 0, 2 step, 4 step...) and doubles the step, so a
 * run much longer than the step expected (a long job after the last submit, a tiny
 * sample_s) keeps at most SIM_TS_MAX_SAMPLES rows. */
static void ts_thin(struct sim_engine *e)
{
	struct sim_timeseries *ts = &e->ts;
	size_t kept = (ts->n + 1) / 2, nf = ts->n_flavors;
	for (size_t i = 1; i < kept; i++) {
		ts->t_s[i] = ts->t_s[2 * i];
		ts->gpus_busy[i] = ts->gpus_busy[2 * i];
		ts->jobs_queued[i] = ts->jobs_queued[2 * i];
		ts->jobs_running[i] = ts->jobs_running[2 * i];
		if (ts->has_nodes_down)
			ts->nodes_down[i] = ts->nodes_down[2 * i];
		memmove(&ts->gpus_busy_by_flavor[i * nf], &ts->gpus_busy_by_flavor[2 * i * nf],
			nf * sizeof *ts->gpus_busy_by_flavor);
		double *qcols[] = { ts->q_usage, ts->q_nominal, ts->q_borrowed, ts->q_lent };
		for (size_t k = 0; k < 4 && ts->n_queues; k++)
			memmove(&qcols[k][i * ts->n_queues], &qcols[k][2 * i * ts->n_queues],
				ts->n_queues * sizeof(double));
	}
	ts->n = kept;
	e->sample_ns *= 2;
	e->next_sample = (sim_time_t)kept * e->sample_ns;
}

/* Per-queue columns of sample row i: the engine's own usage, and the quota
 * policy's view of nominal, borrowed and lent when it reports one. */
static void ts_sample_queues(struct sim_engine *e, size_t i)
{
	struct sim_timeseries *ts = &e->ts;
	size_t nq = ts->n_queues;
	if (!nq)
		return;
	double *u = &ts->q_usage[i * nq], *nom = &ts->q_nominal[i * nq];
	double *bor = &ts->q_borrowed[i * nq], *lent = &ts->q_lent[i * nq];
	struct sim_policy *qp = e->p.policies[SIM_FAM_QUOTA];
	if (ts->has_quota_stats) {
		qp->ops->queue_stats(qp, &e->view, &e->qstats);
		memcpy(nom, e->qstats.nominal, nq * sizeof *nom);
		memcpy(bor, e->qstats.borrowed, nq * sizeof *bor);
		memcpy(lent, e->qstats.lent, nq * sizeof *lent);
	} else {
		for (size_t q = 0; q < nq; q++)
			nom[q] = bor[q] = lent[q] = 0;
	}
	for (size_t q = 0; q < nq; q++)
		u[q] = (double)e->qacct[q].gpus / SIM_MILLI;
}

size_t sim_ts_max_rows(size_t n_queues)
{
	size_t rows = n_queues ? SIM_TS_MAX_QUEUE_CELLS / n_queues : SIM_TS_MAX_SAMPLES;
	if (rows > SIM_TS_MAX_SAMPLES)
		rows = SIM_TS_MAX_SAMPLES;
	return rows < SIM_TS_MIN_SAMPLES ? SIM_TS_MIN_SAMPLES : rows;
}

/* Records the state in force for every grid time in [e->next_sample, until). */
static int ts_sample_until(struct sim_engine *e, sim_time_t until)
{
	if (e->sample_ns <= 0)
		return 0;
	while (e->next_sample < until) {
		struct sim_timeseries *ts = &e->ts;
		if (ts->n == ts->max_rows)
			ts_thin(e);
		if (e->next_sample >= until)
			break;
		int rc = ts_reserve(ts);
		if (rc)
			return rc;
		ts->t_s[ts->n] = sim_time_to_s(e->next_sample);
		ts->gpus_busy[ts->n] = (double)sim_cluster_gpu_busy(e->p.cluster, -1) / SIM_MILLI;
		ts->jobs_queued[ts->n] = (double)e->n_queued;
		ts->jobs_running[ts->n] = (double)e->n_running;
		if (ts->has_nodes_down)
			ts->nodes_down[ts->n] = (double)e->n_nodes_down;
		for (size_t f = 0; f < ts->n_flavors; f++)
			ts->gpus_busy_by_flavor[ts->n * ts->n_flavors + f] =
				(double)sim_cluster_gpu_busy(e->p.cluster, (int)f) / SIM_MILLI;
		ts_sample_queues(e, ts->n);
		ts->n++;
		if (e->next_sample > SIM_TIME_MAX - e->sample_ns)
			e->next_sample = SIM_TIME_MAX; /* the grid ends at the end of time */
		else
			e->next_sample += e->sample_ns;
	}
	return 0;
}

/* ---- lifecycle ---- */

static size_t largest_peak(const struct sim_cluster *c)
{
	size_t peak = 1;
	for (size_t f = 0; f < sim_cluster_n_flavors(c); f++)
		if (sim_cluster_n_nodes(c, (int)f) > peak)
			peak = sim_cluster_n_nodes(c, (int)f);
	return peak;
}

/* Per-run spot state, when some flavor is spot. */
/* A job's fault state (sim/job.h, struct sim_job_fx): only with e->fx. */
#define FX(e, job) (&(e)->fx[(job)->idx])

/* When a running job hung (0: not hung, or a run without faults). */
static sim_time_t job_hang_ns(const struct sim_engine *e, const struct sim_job *job)
{
	return e->fx ? FX(e, job)->hang_ns : 0;
}

/* trace->fx, when the run has a source that writes it: faults (failures, crashes,
 * hangs, loss spikes, fail-slow nodes, a replayed log) or spot stops. */
static int fx_create(struct sim_engine *e)
{
	struct sim_trace *t = e->p.trace;
	if (!sim_faults_any(e->p.faults) && !sim_spot_on(e->p.spot, -1))
		return 0;
	if (!t->fx)
		t->fx = calloc(t->n_jobs ? t->n_jobs : 1, sizeof *t->fx);
	e->fx = t->fx;
	return e->fx ? 0 : -SIM_ENOMEM;
}

static int spot_create(struct sim_engine *e)
{
	if (!sim_spot_on(e->p.spot, -1))
		return 0;
	const struct sim_cluster *c = e->p.cluster;
	size_t nf = sim_cluster_n_flavors(c), n = 0, nj = e->p.trace->n_jobs ? e->p.trace->n_jobs : 1;
	e->spot_base = calloc(nf ? nf : 1, sizeof *e->spot_base);
	e->spot_next = calloc(nf ? nf : 1, sizeof *e->spot_next);
	e->spot_notice = malloc(nj * sizeof *e->spot_notice);
	e->spot_save = calloc(nj, 1);
	if (!e->spot_base || !e->spot_next || !e->spot_notice || !e->spot_save)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < nj; i++)
		e->spot_notice[i] = SIM_TIME_NONE;
	for (size_t f = 0; f < nf; f++) {
		e->spot_base[f] = (uint32_t)n;
		n += sim_cluster_n_nodes(c, (int)f);
		if (sim_spot_on(e->p.spot, (int)f))
			e->n_spot_nodes += sim_cluster_n_nodes(c, (int)f);
	}
	e->spot_k = calloc(n ? n : 1, sizeof *e->spot_k);
	if (!e->spot_k || sim_draws_init(&e->spot_draws, e->p.seed))
		return -SIM_ENOMEM;
	if (!e->node_mark) { /* spot_notice marks the noticed node */
		e->node_mark = calloc(largest_peak(c), 1);
		if (!e->node_mark)
			return -SIM_ENOMEM;
	}
	return 0;
}

/* Per-run flex-start state, when some flavor is flex-start. */
static int flex_create(struct sim_engine *e)
{
	if (!sim_flex_on(e->p.flex, -1))
		return 0;
	size_t nj = e->p.trace->n_jobs ? e->p.trace->n_jobs : 1, nf = sim_cluster_n_flavors(e->p.cluster);
	e->flex_st = calloc(nj, 1);
	e->flex_k = calloc(nj, sizeof *e->flex_k);
	e->flex_fails = calloc(nj, sizeof *e->flex_fails);
	e->flex_ev = calloc(nj, sizeof *e->flex_ev);
	e->flex_used = calloc(nf ? nf : 1, sizeof *e->flex_used);
	e->flex_q = calloc(nf ? nf : 1, sizeof *e->flex_q);
	e->flex_taken = calloc(nf ? nf : 1, sizeof *e->flex_taken);
	if (!e->flex_st || !e->flex_k || !e->flex_fails || !e->flex_ev || !e->flex_used || !e->flex_q ||
	    !e->flex_taken || sim_draws_init(&e->flex_draws, e->p.seed))
		return -SIM_ENOMEM;
	for (size_t f = 0; f < nf; f++) {
		size_t n = sim_flex_on(e->p.flex, (int)f) ? e->p.flex->fl[f].n_offers : 0;
		if (n && !(e->flex_taken[f] = calloc(n, 1)))
			return -SIM_ENOMEM;
	}
	return 0;
}

/* Per-run autoscaling state, when some flavor is autoscaled. */
static int autoscale_create(struct sim_engine *e)
{
	const struct sim_autoscale *a = e->p.autoscale;
	if (!sim_autoscale_on(a, -1))
		return 0;
	const struct sim_cluster *c = e->p.cluster;
	size_t nf = sim_cluster_n_flavors(c), n = 0, nfa = nf ? nf : 1;
	e->as_run = sim_autoscale_run_create(a, e->p.seed);
	e->as_base = calloc(nfa, sizeof *e->as_base);
	e->as_up = calloc(nfa, sizeof *e->as_up);
	e->as_prov = calloc(nfa, sizeof *e->as_prov);
	e->as_draws = calloc(nfa, sizeof *e->as_draws);
	e->as_need = calloc(nfa, sizeof *e->as_need);
	e->as_room = calloc(nfa, sizeof *e->as_room);
	e->as_listed = calloc(e->p.trace->n_jobs ? e->p.trace->n_jobs : 1, 1);
	e->as_scratch = malloc(largest_peak(c) * sizeof *e->as_scratch);
	if (!e->as_run || !e->as_base || !e->as_up || !e->as_prov || !e->as_draws || !e->as_need || !e->as_room ||
	    !e->as_listed || !e->as_scratch)
		return -SIM_ENOMEM;
	for (size_t f = 0; f < nf; f++) {
		e->as_base[f] = (uint32_t)n;
		n += sim_cluster_n_nodes(c, (int)f);
	}
	e->as_nodes = calloc(n ? n : 1, sizeof *e->as_nodes);
	if (!e->as_nodes)
		return -SIM_ENOMEM;
	for (size_t f = 0; f < nf; f++)
		for (uint32_t i = 0; i < sim_cluster_n_nodes(c, (int)f); i++)
			e->as_nodes[e->as_base[f] + i].flavor = (int32_t)f;
	return 0;
}

/* Per-run capacity state, when the plan changes anything. */
static int capacity_create(struct sim_engine *e)
{
	const struct sim_capacity *cap = e->p.capacity;
	if (!sim_capacity_any(cap))
		return 0;
	size_t nf = sim_cluster_n_flavors(e->p.cluster), peak = 1;
	for (size_t f = 0; f < nf; f++)
		if (sim_cluster_n_nodes(e->p.cluster, (int)f) > peak)
			peak = sim_cluster_n_nodes(e->p.cluster, (int)f);
	e->cap_run_state = sim_capacity_run_create(cap, e->p.seed);
	e->cap_base = calloc(nf ? nf : 1, sizeof *e->cap_base);
	e->out_of_stock = calloc(nf ? nf : 1, 1);
	e->busy_nodes = malloc(peak * sizeof *e->busy_nodes);
	e->node_mark = calloc(peak, 1);
	if (!e->cap_run_state || !e->cap_base || !e->out_of_stock || !e->busy_nodes || !e->node_mark)
		return -SIM_ENOMEM;
	return 0;
}

/* Per-run fail-slow state, when some flavor has slow episodes (docs/faults.md). */
static int slow_create(struct sim_engine *e)
{
	const struct sim_faults *fp = e->p.faults;
	if (!sim_faults_slow_any(fp, -1))
		return 0;
	const struct sim_cluster *c = e->p.cluster;
	size_t nf = sim_cluster_n_flavors(c), n = 0;
	e->slow_base = calloc(nf ? nf : 1, sizeof *e->slow_base);
	if (!e->slow_base)
		return -SIM_ENOMEM;
	for (size_t f = 0; f < nf; f++) {
		e->slow_base[f] = (uint32_t)n;
		n += sim_cluster_n_nodes(c, (int)f);
		if (sim_faults_slow_any(fp, (int)f))
			e->n_slow_nodes += sim_cluster_n_nodes(c, (int)f);
	}
	e->slow_nodes = calloc(n ? n : 1, sizeof *e->slow_nodes);
	if (!e->slow_nodes)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < n; i++)
		e->slow_nodes[i].factor = 1.0;
	if (!e->node_mark) { /* a detection stops the jobs on the marked node */
		e->node_mark = calloc(largest_peak(c), 1);
		if (!e->node_mark)
			return -SIM_ENOMEM;
	}
	return 0;
}

/* Per-run fault state, when the plan has faults. */
static int faults_create(struct sim_engine *e)
{
	const struct sim_faults *fp = e->p.faults;
	if (!sim_faults_any(fp))
		return 0;
	e->flt = sim_faults_run_create(fp, e->p.seed);
	if (!e->flt)
		return -SIM_ENOMEM;
	e->job_faults = sim_faults_jobs_any(fp) && !sim_faults_replay(fp); /* a log replaces the draws */
	if (!sim_faults_nodes_any(fp, -1))
		return 0;
	size_t nf = sim_cluster_n_flavors(e->p.cluster), n = 0;
	e->slot_base = calloc(nf ? nf : 1, sizeof *e->slot_base);
	e->pool = calloc(nf ? nf : 1, sizeof *e->pool);
	e->waiting = calloc(nf ? nf : 1, sizeof *e->waiting);
	if (!e->slot_base || !e->pool || !e->waiting)
		return -SIM_ENOMEM;
	for (size_t f = 0; f < nf; f++) {
		e->slot_base[f] = (uint32_t)n;
		n += sim_cluster_n_nodes(e->p.cluster, (int)f);
	}
	e->n_slots = n;
	e->slots = calloc(n ? n : 1, sizeof *e->slots);
	if (!e->slots)
		return -SIM_ENOMEM;
	for (size_t f = 0; f < nf; f++) {
		for (uint32_t i = 0; i < sim_cluster_n_nodes(e->p.cluster, (int)f); i++)
			e->slots[e->slot_base[f] + i].flavor = (int32_t)f;
		if (sim_faults_nodes_any(fp, (int)f))
			e->n_fault_slots += sim_cluster_n_nodes(e->p.cluster, (int)f);
	}
	if (!e->node_mark) { /* interrupt_on_nodes marks the failed node */
		size_t peak = 1;
		for (size_t f = 0; f < nf; f++)
			if (sim_cluster_n_nodes(e->p.cluster, (int)f) > peak)
				peak = sim_cluster_n_nodes(e->p.cluster, (int)f);
		e->node_mark = calloc(peak, 1);
		if (!e->node_mark)
			return -SIM_ENOMEM;
	}
	return 0;
}

static int cap_prices_create(struct sim_engine *e);
static double cap_cost_rate(const struct sim_engine *e);

struct sim_engine *sim_engine_create(const struct sim_engine_params *p)
{
	assert(p->trace && p->cluster && p->driver.ops && p->policies[SIM_FAM_ORDER]);
	struct sim_engine *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->view.e = e;
	e->p = *p;
	e->buf.e = e;
	e->evq = sim_evq_create(1024);
	if (!e->evq) {
		free(e);
		return NULL;
	}
	e->ts.n_flavors = sim_cluster_n_flavors(p->cluster);
	e->ts.n_queues = p->trace->n_queues;
	e->ts.max_rows = sim_ts_max_rows(e->ts.n_queues);
	size_t nq = p->trace->n_queues ? p->trace->n_queues : 1;
	e->qacct = calloc(nq, sizeof *e->qacct);
	e->order_gen_q = calloc(nq, sizeof *e->order_gen_q);
	double *qs = calloc(4 * nq, sizeof *qs);
	if (!e->qacct || !e->order_gen_q || !qs) {
		free(qs);
		sim_engine_destroy(e);
		return NULL;
	}
	e->qstats = (struct sim_queue_stats){ qs, qs + nq, qs + 2 * nq, qs + 3 * nq };
	e->cap_last_t = SIM_TIME_NONE;
	e->run_slot = malloc((p->trace->n_jobs ? p->trace->n_jobs : 1) * sizeof *e->run_slot);
	int any_mw = 0;
	for (size_t i = 0; i < p->trace->n_jobs && !any_mw; i++)
		any_mw = p->trace->jobs[i].max_wait_ns > 0;
	if (any_mw)
		e->mw_ev = calloc(p->trace->n_jobs, sizeof *e->mw_ev);
	if (!e->run_slot || (any_mw && !e->mw_ev) || fx_create(e) || cap_prices_create(e) || capacity_create(e) ||
	    faults_create(e) ||
	    autoscale_create(e) || spot_create(e) || slow_create(e) || flex_create(e)) {
		sim_engine_destroy(e);
		return NULL;
	}
	e->ts.has_nodes_down = e->slots != NULL; /* node failures: the nodes-down series */
	sim_trace_reset(p->trace);
	return e;
}

void sim_engine_destroy(struct sim_engine *e)
{
	if (!e)
		return;
	sim_evq_destroy(e->evq);
	free(e->buf.jobs);
	free(e->buf.victims);
	free(e->decisions.v);
	free(e->qacct);
	free(e->order_gen_q);
	free(e->qstats.usage);
	free(e->running);
	free(e->run_slot);
	free(e->cap_w);
	sim_capacity_run_destroy(e->cap_run_state);
	free(e->cap_base);
	free(e->out_of_stock);
	free(e->busy_nodes);
	free(e->node_mark);
	sim_faults_run_destroy(e->flt);
	free(e->slot_base);
	free(e->slots);
	free(e->replay_job);
	free(e->pool);
	free(e->waiting);
	sim_autoscale_run_destroy(e->as_run);
	free(e->as_base);
	free(e->as_nodes);
	free(e->as_up);
	free(e->as_prov);
	free(e->as_draws);
	free(e->as_need);
	free(e->as_room);
	free(e->as_demand);
	free(e->as_listed);
	free(e->as_scratch);
	free(e->spot_base);
	free(e->spot_k);
	sim_draws_fini(&e->spot_draws);
	free(e->spot_next);
	free(e->spot_notice);
	free(e->spot_save);
	free(e->ckst);
	sim_draws_fini(&e->flex_draws);
	free(e->flex_st);
	free(e->flex_k);
	free(e->flex_fails);
	free(e->flex_ev);
	free(e->flex_used);
	for (size_t f = 0; e->flex_q && f < sim_cluster_n_flavors(e->p.cluster); f++)
		free(e->flex_q[f].v);
	free(e->flex_q);
	for (size_t f = 0; e->flex_taken && f < sim_cluster_n_flavors(e->p.cluster); f++)
		free(e->flex_taken[f]);
	free(e->flex_taken);
	free(e->mw_ev);
	free(e->slow_base);
	free(e->slow_nodes);
	ts_free(&e->ts);
	free(e);
}

const struct sim_timeseries *sim_engine_timeseries(const struct sim_engine *e) { return &e->ts; }
const struct sim_engine_counters *sim_engine_counters(const struct sim_engine *e) { return &e->ctr; }
const struct sim_view *sim_engine_view(const struct sim_engine *e) { return &e->view; }
const struct sim_decisions *sim_engine_decisions(const struct sim_engine *e) { return &e->decisions; }
void sim_engine_set_cost(struct sim_engine *e, const struct sim_preempt_cost *cost) { e->p.cost = *cost; }

const struct sim_preempt_cost *sim_engine_cost(const struct sim_engine *e) { return &e->p.cost; }
const struct sim_queue_acct *sim_engine_queue_acct(const struct sim_engine *e) { return e->qacct; }

/* Integrates the capacity in force up to now. Capacity is constant between event
 * times, so one call as the clock reaches a new time, before its events, is exact. */
static void cap_touch(struct sim_engine *e)
{
	if (e->cap_last_t == SIM_TIME_NONE)
		return;
	double dt = sim_time_to_s(e->now - e->cap_last_t);
	e->cap_gpu_s += (double)sim_cluster_gpu_total(e->p.cluster, -1) / SIM_MILLI * dt;
	if (e->priced)
		e->cap_cost += cap_cost_rate(e) * dt / 3600.0;
	e->cap_last_t = e->now;
}

/* Currency per hour of the capacity paid for now (docs/capacity.md, "What the
 * capacity costs"): per flavor, its price x the nodes billed: the nodes in force
 * (online GPUs and the busy part of draining nodes, over the node's GPUs), except
 * that a flavor with node failures is billed for its configured nodes and spares,
 * failed or not (they are owned or rented whatever their state). */
static double cap_cost_rate(const struct sim_engine *e)
{
	double rate = e->cap_fixed_rate;
	for (size_t f = 0; f < sim_cluster_n_flavors(e->p.cluster); f++)
		if (e->cap_w[f] > 0)
			rate += e->cap_w[f] * (double)sim_cluster_gpu_total(e->p.cluster, (int)f);
	return rate;
}

/* cap_w and cap_fixed_rate from the flavors' prices (see cap_cost_rate). */
static int cap_prices_create(struct sim_engine *e)
{
	size_t n = sim_cluster_n_flavors(e->p.cluster);
	for (size_t f = 0; f < n; f++)
		e->priced |= sim_cluster_flavor(e->p.cluster, (int)f)->price_per_node_hour > 0;
	if (!e->priced)
		return 0;
	e->cap_w = calloc(n, sizeof *e->cap_w);
	if (!e->cap_w)
		return -SIM_ENOMEM;
	for (size_t f = 0; f < n; f++) {
		const struct sim_flavor_spec *fs = sim_cluster_flavor(e->p.cluster, (int)f);
		if (sim_faults_nodes_any(e->p.faults, (int)f))
			e->cap_fixed_rate += fs->price_per_node_hour *
					     ((double)fs->nodes + (double)e->p.faults->node[f].spares);
		else
			e->cap_w[f] = fs->price_per_node_hour / (double)fs->node_cap[SIM_RES_GPU];
	}
	return 0;
}

double sim_engine_capacity_gpu_s(const struct sim_engine *e)
{
	double tail = e->cap_last_t == SIM_TIME_NONE ? 0
			: (double)sim_cluster_gpu_total(e->p.cluster, -1) / SIM_MILLI *
				  sim_time_to_s(e->now - e->cap_last_t);
	return e->cap_gpu_s + tail;
}

double sim_engine_capacity_cost(const struct sim_engine *e)
{
	if (!e->priced || e->cap_last_t == SIM_TIME_NONE)
		return 0;
	return e->cap_cost + cap_cost_rate(e) * sim_time_to_s(e->now - e->cap_last_t) / 3600.0;
}
sim_time_t sim_engine_now(const struct sim_engine *e) { return e->now; }

/* EV_FINISH's arg for a run that failed, and for the job faults (their events carry
 * the job and sit in FX(e, job)->fault_ev). */
#define FINISH_FAILED 1
#define FINISH_CRASH 2     /* the workload crashes now */
#define FINISH_HANG 3      /* it stops progressing now, holding its GPUs */
#define FINISH_HANG_KILL 4 /* the hung job is killed now (detected, or its run's end) */
#define FINISH_SPOT 5      /* its spot node's notice runs out (or its notice checkpoint is written) */
#define FINISH_SPIKE 6     /* a loss spike: it rolls back to an earlier checkpoint */

int sim_engine_job_ends(struct sim_engine *e, struct sim_job *job, sim_time_t t, int failed)
{
	if (job->state != SIM_JOB_RUNNING || t < e->now)
		return -SIM_ESTATE;
	struct sim_event ev = { .t = t, .phase = EV_FINISH, .job = job->idx, .arg = failed ? FINISH_FAILED : 0 };
	return sim_evq_push(e->evq, &ev, &job->finish_ev);
}

void sim_engine_job_end_cancel(struct sim_engine *e, struct sim_job *job)
{
	sim_evq_cancel(e->evq, job->finish_ev);
	job->finish_ev = 0;
}

/* ---- the view ---- */

sim_time_t sim_view_now(const struct sim_view *v) { return v->e->now; }
const struct sim_trace *sim_view_trace(const struct sim_view *v) { return v->e->p.trace; }
const struct sim_cluster *sim_view_cluster(const struct sim_view *v) { return v->e->p.cluster; }

const struct sim_policy *sim_view_policy(const struct sim_view *v, enum sim_policy_family fam)
{
	return (unsigned)fam < SIM_FAM_COUNT_ ? v->e->p.policies[fam] : NULL;
}

void sim_view_order_changed(const struct sim_view *v)
{
	v->e->order_gen++;
	v->e->order_gen_all++;
}

void sim_view_order_changed_queue(const struct sim_view *v, int32_t queue)
{
	v->e->order_gen++;
	if (queue >= 0 && (size_t)queue < v->e->p.trace->n_queues)
		v->e->order_gen_q[queue]++;
	else
		v->e->order_gen_all++;
}

uint64_t sim_view_order_gen(const struct sim_view *v) { return v->e->order_gen; }

uint64_t sim_view_order_gen_queue(const struct sim_view *v, int32_t queue)
{
	uint64_t q = queue >= 0 && (size_t)queue < v->e->p.trace->n_queues ? v->e->order_gen_q[queue] : 0;
	return v->e->order_gen_all + q;
}

int sim_view_post_event(const struct sim_view *v, sim_time_t t, enum sim_policy_family fam, uint32_t handle)
{
	if (t < v->e->now || (unsigned)fam >= SIM_FAM_COUNT_)
		return -SIM_EINVAL;
	struct sim_event ev = { .t = t, .phase = EV_CAPACITY, .job = handle, .arg = fam };
	return sim_evq_push(v->e->evq, &ev, NULL);
}

const struct sim_capacity *sim_view_capacity(const struct sim_view *v)
{
	return sim_capacity_any(v->e->p.capacity) ? v->e->p.capacity : NULL;
}

sim_time_t sim_view_next_open(const struct sim_view *v, int flavor)
{
	return sim_capacity_next_open(v->e->p.capacity, flavor, v->e->now);
}

const struct sim_job *sim_view_job(const struct sim_view *v, uint32_t idx)
{
	return &v->e->p.trace->jobs[idx];
}

/* Speed of a flavor; "any flavor" options are stated at the reference speed 1.0. */
static double flavor_speed(const struct sim_cluster *c, int flavor)
{
	return flavor >= 0 ? sim_cluster_flavor(c, flavor)->speed : 1.0;
}

/* docs/design.md section 1: the trace's duration holds on option 0 as stated (on a named
 * flavor it was measured there). A "*" option 0 is taken at the reference speed and
 * divided by the speed of the flavor chosen. Option k > 0 without its own duration
 * scales by (count_0 x speed_0) / (count_k x speed_k). */
double sim_scaled_time_ns(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *job,
			  sim_time_t base, int opt, int flavor)
{
	const struct sim_job_option *o0 = sim_job_opt(t, job, 0);
	if (opt <= 0) {
		if (o0->flavor_id != SIM_FLAVOR_ANY)
			return (double)base;
		return (double)base / flavor_speed(c, flavor);
	}
	const struct sim_job_option *ok = sim_job_opt(t, job, opt);
	if (ok->duration_ns > 0 && base == job->duration_ns)
		return (double)ok->duration_ns;
	double s0 = flavor_speed(c, o0->flavor_id), sk = flavor_speed(c, flavor);
	double n0 = (double)o0->req[SIM_RES_GPU], nk = (double)ok->req[SIM_RES_GPU];
	if (n0 <= 0 || nk <= 0) /* GPU-less options scale by speed alone */
		n0 = nk = 1;
	return (double)base * (n0 * s0) / (nk * sk);
}

/* sim_trace_bind refuses jobs whose scaled times exceed SIM_RUNTIME_MAX_NS, so the
 * rounding below stays in range. */
static sim_time_t scale_time(const struct sim_view *v, const struct sim_job *job, sim_time_t base,
			     int opt, int flavor)
{
	double ns = sim_scaled_time_ns(v->e->p.trace, v->e->p.cluster, job, base, opt, flavor);
	return ns < (double)SIM_RUNTIME_MAX_NS ? (sim_time_t)llround(ns) : SIM_RUNTIME_MAX_NS;
}

sim_time_t sim_view_runtime(const struct sim_view *v, const struct sim_job *job, int opt, int flavor)
{
	return scale_time(v, job, job->duration_ns, opt, flavor);
}

sim_time_t sim_view_estimate(const struct sim_view *v, const struct sim_job *job, int opt, int flavor)
{
	return scale_time(v, job, job->estimate_ns, opt, flavor);
}

/* The option a proposal uses: fallback policies choose later; strict takes option 0. */
static int resolve_option(int opt)
{
	return opt < 0 ? 0 : opt;
}

int sim_view_fits(const struct sim_view *v, uint32_t idx, int opt)
{
	const struct sim_trace *t = v->e->p.trace;
	const struct sim_cluster *c = v->e->p.cluster;
	const struct sim_job *job = &t->jobs[idx];
	const struct sim_job_option *o = sim_job_opt(t, job, resolve_option(opt));
	if (o->flavor_id != SIM_FLAVOR_ANY)
		return sim_cluster_fits(c, o->flavor_id, o->req);
	for (size_t f = 0; f < sim_cluster_n_flavors(c); f++)
		if (sim_cluster_fits(c, (int)f, o->req))
			return 1;
	return 0;
}

static int flex_refuses(const struct sim_engine *e, const struct sim_job *job, int f);

static int place_job(struct sim_engine *e, struct sim_job *job, const struct sim_job_option *o, int flavor)
{
	struct sim_cluster *c = e->p.cluster;
	if (flavor < 0 && o->flavor_id != SIM_FLAVOR_ANY)
		flavor = o->flavor_id;
	if (flavor >= 0)
		return flex_refuses(e, job, flavor) ? -SIM_ENOFIT : sim_cluster_place(c, flavor, o->req, &job->alloc);
	int rc = -SIM_ENOFIT;
	for (size_t f = 0; f < sim_cluster_n_flavors(c) && rc == -SIM_ENOFIT; f++)
		if (!flex_refuses(e, job, (int)f))
			rc = sim_cluster_place(c, (int)f, o->req, &job->alloc);
	return rc;
}

int sim_placement_buf_try(struct sim_placement_buf *out, uint32_t idx, int opt)
{
	return sim_placement_buf_try_flavor(out, idx, opt, -1);
}

/* The free-capacity generation of the flavors a job's options name (a sum of
 * counters that only grow, so it is unchanged exactly when none of them moved). */
static uint64_t options_free_gen(const struct sim_engine *e, const struct sim_job *job)
{
	const struct sim_trace *t = e->p.trace;
	uint64_t g = 0;
	for (int k = 0; k < job->n_opts; k++) {
		int f = sim_job_opt(t, job, k)->flavor_id;
		g += sim_cluster_free_gen(e->p.cluster, f == SIM_FLAVOR_ANY ? -1 : f);
	}
	return g;
}

/* The options to try now, in order: the fallback policy's choice, or option 0. */
static int fallback_choose(struct sim_engine *e, const struct sim_job *job, int8_t opts[SIM_MAX_OPTIONS])
{
	struct sim_policy *fb = e->p.policies[SIM_FAM_FALLBACK];
	if (!fb || !fb->ops || !fb->ops->choose) {
		opts[0] = 0;
		return 1;
	}
	int n = fb->ops->choose(fb, &e->view, job, opts);
	return n < 0 ? 0 : (n > job->n_opts ? job->n_opts : n);
}

int sim_placement_buf_preempt(struct sim_placement_buf *out, uint32_t victim, uint32_t preemptor,
			      enum sim_preempt_reason reason, int requeue)
{
	struct sim_trace *t = out->e->p.trace;
	if (victim >= t->n_jobs || preemptor >= t->n_jobs || (unsigned)reason >= SIM_PR_COUNT_)
		return -SIM_EINVAL;
	if (t->jobs[victim].state != SIM_JOB_RUNNING && t->jobs[victim].state != SIM_JOB_QUEUED)
		return -SIM_ESTATE;
	for (size_t i = 0; i < out->n_victims; i++)
		if (out->victims[i].victim == victim)
			return -SIM_ESTATE;
	struct victim_proposal *nv = sim_grow(out->victims, &out->cap_victims, out->n_victims, sizeof *nv, 16);
	if (!nv)
		return -SIM_ENOMEM;
	out->victims = nv;
	out->victims[out->n_victims++] =
		(struct victim_proposal){ victim, preemptor, (uint8_t)reason, (uint8_t)(requeue != 0) };
	return 0;
}

/* A try that leaves the option to the fallback policy. A request that did not fit
 * cannot fit before some capacity is freed (placements only take), so a job whose
 * last evaluation found nothing is not evaluated again until the free capacity of
 * its flavors grew: waiting is event-driven, never polling. */
static int try_fallback(struct sim_placement_buf *out, struct sim_job *job)
{
	struct sim_engine *e = out->e;
	uint64_t gen = options_free_gen(e, job);
	if (job->fb_seen == gen + 1) {
		e->ctr.fallback_skips++;
		e->ctr.proposals_rejected++;
		return -SIM_ENOFIT;
	}
	job->fb_evals++;
	e->ctr.fallback_evals++;
	int8_t opts[SIM_MAX_OPTIONS];
	int n = fallback_choose(e, job, opts);
	for (int i = 0; i < n; i++) {
		int k = opts[i];
		if (k < 0 || k >= job->n_opts)
			continue;
		if (place_job(e, job, sim_job_opt(e->p.trace, job, k), -1) == 0) {
			job->opt_chosen = (int8_t)k;
			job->fb_seen = 0;
			out->jobs[out->n++] = job->idx;
			return 0;
		}
	}
	job->fb_seen = gen + 1;
	e->ctr.proposals_rejected++;
	return -SIM_ENOFIT;
}

int sim_placement_buf_try_flavor(struct sim_placement_buf *out, uint32_t idx, int opt, int flavor)
{
	struct sim_engine *e = out->e;
	struct sim_trace *t = e->p.trace;
	struct sim_cluster *c = e->p.cluster;
	if (idx >= t->n_jobs)
		return -SIM_EINVAL;
	struct sim_job *job = &t->jobs[idx];
	if (job->state != SIM_JOB_QUEUED || job->alloc.n_nodes)
		return -SIM_ESTATE;
	int k = resolve_option(opt);
	if (k >= job->n_opts || flavor >= (int)sim_cluster_n_flavors(c))
		return -SIM_EINVAL;
	uint32_t *nj = sim_grow(out->jobs, &out->cap, out->n, sizeof *nj, 64);
	if (!nj)
		return -SIM_ENOMEM;
	out->jobs = nj;
	if (opt < 0 && flavor < 0)
		return try_fallback(out, job);
	int rc = place_job(e, job, sim_job_opt(t, job, k), flavor);
	if (rc) {
		e->ctr.proposals_rejected++;
		return rc;
	}
	job->opt_chosen = (int8_t)k;
	out->jobs[out->n++] = idx;
	return 0;
}

size_t sim_placement_buf_count(const struct sim_placement_buf *out) { return out->n; }

int sim_placement_buf_retract(struct sim_placement_buf *out, uint32_t idx)
{
	struct sim_engine *e = out->e;
	if (!out->n || out->jobs[out->n - 1] != idx)
		return -SIM_ESTATE;
	struct sim_job *job = &e->p.trace->jobs[idx];
	sim_cluster_release(e->p.cluster, &job->alloc, sim_job_opt(e->p.trace, job, job->opt_chosen)->req);
	job->opt_chosen = -1;
	out->n--;
	return 0;
}

/* ---- events ---- */

static void notify(struct sim_engine *e, size_t hook_off, const struct sim_job *job)
{
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		struct sim_policy *pol = e->p.policies[f];
		if (!pol || !pol->ops)
			continue;
		void (*hook)(struct sim_policy *, const struct sim_view *, const struct sim_job *);
		memcpy(&hook, (const char *)pol->ops + hook_off, sizeof hook);
		if (hook)
			hook(pol, &e->view, job);
	}
}

#define NOTIFY(e, hook, job) notify((e), offsetof(struct sim_policy_ops, hook), (job))

static void notify_stop(struct sim_engine *e, const struct sim_job *job, enum sim_stop_cause cause)
{
	for (int f = 0; f < SIM_FAM_COUNT_; f++) {
		struct sim_policy *pol = e->p.policies[f];
		if (pol && pol->ops && pol->ops->on_stop)
			pol->ops->on_stop(pol, &e->view, job, cause);
	}
}

/* ---- the event log (params.log) ---- */

enum log_kind { LOG_SUBMIT, LOG_START, LOG_FINISH };

static void log_event(const struct sim_engine *e, const struct sim_job *job, enum log_kind kind)
{
	static const char *const names[] = { "submit", "start", "finish" };
	const struct sim_trace *t = e->p.trace;
	FILE *f = e->p.log;
	fprintf(f, "[%.3f] job=%s event=%s", sim_time_to_s(e->now), sim_job_id(t, job), names[kind]);
	if (kind == LOG_SUBMIT) {
		char g[32];
		sim_qty_format(sim_job_opt(t, job, 0)->req[SIM_RES_GPU], g, sizeof g);
		fprintf(f, " gpus=%s queue=%s", g, t->queues[job->queue]);
	} else if (kind == LOG_START) {
		const struct sim_alloc *a = &job->alloc;
		fprintf(f, " flavor=%s", sim_cluster_flavor(e->p.cluster, a->flavor)->name);
		if (a->n_nodes == 1) {
			fprintf(f, " node=%u", a->node);
		} else {
			for (uint32_t k = 0; k < a->n_nodes; k++)
				fprintf(f, "%s%u", k ? "," : " nodes=", a->nodes[k]);
		}
		fprintf(f, " runtime_s=%.3f", sim_time_to_s(job->runtime_ns));
	}
	fputc('\n', f);
}

/* ---- per-queue accounting ---- */

/* Integrates queue q's totals up to now; call before changing its usage, pending
 * count or nominal. */
static void q_touch(struct sim_engine *e, int32_t q)
{
	struct sim_queue_acct *a = &e->qacct[q];
	double dt = sim_time_to_s(e->now - a->last_t);
	a->last_t = e->now;
	if (dt <= 0)
		return;
	double gpus = (double)a->gpus / SIM_MILLI;
	a->busy_gpu_s += gpus * dt;
	if (gpus > a->nominal)
		a->borrowed_gpu_s += (gpus - a->nominal) * dt;
	if (a->pending && gpus < a->nominal)
		a->below_nominal_demanding_s += dt;
}

/* GPUs a queue's quota counts for a job: its request (a multi-node job may hold
 * more, whole nodes; utilization counts those, quota does not). */
static sim_qty_t quota_gpus(const struct sim_engine *e, const struct sim_job *job)
{
	return sim_job_opt(e->p.trace, job, job->opt_chosen)->req[SIM_RES_GPU];
}

static sim_qty_t alloc_gpus(const struct sim_engine *e, const struct sim_job *job)
{
	const struct sim_job_option *o = sim_job_opt(e->p.trace, job, job->opt_chosen);
	return sim_cluster_alloc_gpu(e->p.cluster, job->alloc.flavor, o->req);
}

/* Refreshes every queue's nominal from the quota policy (at start and after a
 * quota change). */
static void q_refresh_nominal(struct sim_engine *e)
{
	struct sim_policy *qp = e->p.policies[SIM_FAM_QUOTA];
	if (!e->ts.has_quota_stats)
		return;
	qp->ops->queue_stats(qp, &e->view, &e->qstats);
	for (size_t q = 0; q < e->p.trace->n_queues; q++) {
		q_touch(e, (int32_t)q);
		e->qacct[q].nominal = e->qstats.nominal[q];
	}
}

/* ---- the running set ---- */

static int running_add(struct sim_engine *e, uint32_t idx)
{
	uint32_t *nr = sim_grow(e->running, &e->cap_run, e->n_run, sizeof *nr, 256);
	if (!nr)
		return -SIM_ENOMEM;
	e->running = nr;
	e->run_slot[idx] = (uint32_t)e->n_run;
	e->running[e->n_run++] = idx;
	return 0;
}

static void running_remove(struct sim_engine *e, uint32_t idx)
{
	uint32_t slot = e->run_slot[idx], last = e->running[--e->n_run];
	e->running[slot] = last;
	e->run_slot[last] = slot;
}

/* ---- events ---- */

static void as_note_queued(struct sim_engine *e, const struct sim_job *job);
static int flex_note_queued(struct sim_engine *e, struct sim_job *job);
static int flex_on_stop(struct sim_engine *e, struct sim_job *job, int requeue);
static size_t as_snapshot_nodes(struct sim_engine *e, const struct sim_job *job);
static int as_nodes_released(struct sim_engine *e, int flavor, size_t n);

/* The pending clock (max_pending_s) starts at submit, or, when the first option is
 * a reservation whose window has not opened, at the window's opening: SageMaker
 * does not count the wait for a training plan to start. */
static int arm_plan_limit(struct sim_engine *e, struct sim_job *job, int f0);

static int arm_pending_limit(struct sim_engine *e, struct sim_job *job)
{
	job->pending_from_ns = e->now;
	int f0 = sim_job_opt(e->p.trace, job, 0)->flavor_id;
	if (f0 >= 0 && e->p.capacity && e->p.capacity->plan[f0])
		return arm_plan_limit(e, job, f0);
	if (job->max_pending_ns == SIM_TIME_NONE)
		return 0;
	if (f0 >= 0) {
		sim_time_t open = sim_capacity_next_open(e->p.capacity, f0, e->now);
		if (open != SIM_TIME_NONE)
			job->pending_from_ns = open;
	}
	sim_time_t at = job->pending_from_ns > SIM_TIME_MAX - job->max_pending_ns
				? SIM_TIME_MAX - 1
				: job->pending_from_ns + job->max_pending_ns;
	struct sim_event ev = { .t = at, .phase = EV_TIMEOUT, .job = job->idx };
	return sim_evq_push(e->evq, &ev, &job->timeout_ev);
}

/* A job whose first option is a training plan (docs/capacity.md, "Training plans")
 * gives up after 2 days pending (or its own max_pending_s, if shorter), its pending
 * clock running only inside the plan's windows. */
static int arm_plan_limit(struct sim_engine *e, struct sim_job *job, int f0)
{
	sim_time_t limit = (sim_time_t)SIM_PLAN_MAX_PENDING_S * SIM_NS_PER_S;
	if (job->max_pending_ns != SIM_TIME_NONE && job->max_pending_ns < limit)
		limit = job->max_pending_ns;
	sim_time_t open = sim_capacity_next_open(e->p.capacity, f0, e->now);
	if (open != SIM_TIME_NONE)
		job->pending_from_ns = open;
	sim_time_t at = sim_capacity_plan_deadline(e->p.capacity, f0, e->now, limit);
	if (at == SIM_TIME_NONE)
		return 0; /* the plans left are too short to use up the limit */
	struct sim_event ev = { .t = at, .phase = EV_TIMEOUT, .job = job->idx };
	return sim_evq_push(e->evq, &ev, &job->timeout_ev);
}

/* MaxWaitTimeInSeconds (docs/capacity.md, "Spot capacity"): the job must complete
 * within max_wait_s of its submit, waits and interruptions included. The event is an
 * EV_TIMEOUT of arg EV_TIMEOUT_MAX_WAIT; it is withdrawn when the job ends. */
#define EV_TIMEOUT_MAX_WAIT 1
static int arm_max_wait(struct sim_engine *e, struct sim_job *job)
{
	if (job->max_wait_ns <= 0 || !e->mw_ev)
		return 0;
	sim_time_t at = e->now > SIM_TIME_MAX - 1 - job->max_wait_ns ? SIM_TIME_MAX - 1 : e->now + job->max_wait_ns;
	struct sim_event ev = { .t = at, .phase = EV_TIMEOUT, .job = job->idx, .arg = EV_TIMEOUT_MAX_WAIT };
	return sim_evq_push(e->evq, &ev, &e->mw_ev[job->idx]);
}

static void apply_submit(struct sim_engine *e, struct sim_job *job)
{
	if (e->cap_last_t == SIM_TIME_NONE) {
		e->cap_last_t = e->now; /* utilization counts from the first submit */
		e->as_last_t = e->now;  /* and so does the bill of autoscaled nodes */
	}
	if (e->p.log)
		log_event(e, job, LOG_SUBMIT);
	job->eff_priority = job->priority;
	struct sim_policy *qp = e->p.policies[SIM_FAM_QUOTA];
	if (qp && qp->ops && qp->ops->admit && qp->ops->admit(qp, job, &e->view) == SIM_REJECT) {
		job->state = SIM_JOB_REJECTED; /* can never fit its queue's quota */
		job->end_ns = e->now;
		e->n_done++;
		return;
	}
	job->state = SIM_JOB_QUEUED;
	q_touch(e, job->queue);
	e->qacct[job->queue].pending++;
	e->n_queued++;
	if (arm_pending_limit(e, job) || arm_max_wait(e, job))
		e->oom = 1;
	as_note_queued(e, job);
	if (flex_note_queued(e, job))
		e->oom = 1;
	NOTIFY(e, on_submit, job);
}

static int stop_job(struct sim_engine *e, struct sim_job *job, enum sim_stop_cause cause, int requeue,
		    const struct victim_proposal *vp);

/* A job still waiting for its first start when its pending limit runs out ends as
 * timed_out_pending, over its whole preference list. */
static void apply_timeout(struct sim_engine *e, struct sim_job *job)
{
	job->timeout_ev = 0;
	if (job->state != SIM_JOB_QUEUED || job->start_ns != SIM_TIME_NONE || job->alloc.n_nodes)
		return;
	stop_job(e, job, SIM_STOP_PENDING_TIMEOUT, 0, NULL); /* a queued stop cannot fail */
}

/* A job still queued or running when its max_wait_s runs out ends max_wait_exceeded
 * (SageMaker ends the job); a running one loses the work since its last checkpoint. */
static int apply_max_wait(struct sim_engine *e, struct sim_job *job)
{
	e->mw_ev[job->idx] = 0;
	if (job->state != SIM_JOB_QUEUED && job->state != SIM_JOB_RUNNING)
		return 0;
	return stop_job(e, job, SIM_STOP_MAX_WAIT, 0, NULL);
}

/* ---- the segment clock (fail-slow nodes, docs/faults.md) ----
 * A running segment's own time, its time at full speed: restore, work and
 * checkpoint writes all advance at the speed of its slowest node. With rate 1 it is
 * exactly the wall time since the segment's start, so a run without fail-slow
 * computes what it always did. */

/* Segment time at wall time t (>= seg_since_ns), ns. */
static sim_time_t seg_elapsed_at(const struct sim_engine *e, const struct sim_job *job, sim_time_t t)
{
	if (!e->fx) /* no fail-slow node, no in-place restart: the clock is the wall's */
		return t - job->last_start_ns;
	const struct sim_job_fx *x = FX(e, job);
	sim_time_t d = t - x->seg_since_ns;
	if (x->seg_rate == 1.0)
		return x->seg_base_ns + d;
	return x->seg_base_ns + (sim_time_t)llround((double)d * x->seg_rate);
}

/* Segment time of a running job now: what every stop accounting uses in place of
 * now - last_start_ns. */
static sim_time_t seg_elapsed(const struct sim_engine *e, const struct sim_job *job)
{
	return seg_elapsed_at(e, job, e->now);
}

/* Number of checkpoints a segment of `work` ns takes (none at the very end). */
static sim_time_t ckpt_count(const struct sim_job *job, sim_time_t work)
{
	sim_time_t c = job->checkpoint_ns;
	if (c == SIM_TIME_NONE || c <= 0 || work <= 0)
		return 0;
	return (work - 1) / c;
}

/* The job's whole work on the flavor it holds, ns (at least 1). */
static sim_time_t full_work(struct sim_engine *e, const struct sim_job *job)
{
	sim_time_t w = sim_view_runtime(&e->view, job, job->opt_chosen, job->alloc.flavor);
	return w < 1 ? 1 : w;
}

static sim_time_t remaining_work(struct sim_engine *e, const struct sim_job *job)
{
	sim_time_t r = (sim_time_t)llround((1.0 - job->progress) * (double)full_work(e, job));
	return r < 1 ? 1 : r;
}

/* ---- checkpoint tiers (sim/ckpt.h; docs/faults.md, "Checkpoint tiers") ---- */

/* Per-run tier state, when a memory tier, an interval policy or loss spikes are on. */
static int ckpt_start(struct sim_engine *e)
{
	const struct sim_faults *f = e->p.faults;
	int spikes = f && (f->job.spike_per_h > 0 || (f->events && f->events->has_kind[SIM_FEV_LOSS_SPIKE]));
	if (!sim_ckpt_tiered(&e->p.cost.tiers) && !spikes) /* a spike's rollback needs the checkpoints kept */
		return 0;
	size_t nj = e->p.trace->n_jobs ? e->p.trace->n_jobs : 1;
	e->ckst = calloc(nj, sizeof *e->ckst);
	if (!e->ckst)
		return -SIM_ENOMEM;
	for (size_t i = 0; i < nj; i++)
		sim_ckpt_state_init(&e->ckst[i]);
	return 0;
}

/* The interval of a segment starting now: the trace's (fixed), or Young's or
 * Daly's from the policy's MTBF, else from the job's nodes' failure law and its
 * own fault rates (sim_ckpt_job_mtbf_s). */
static sim_time_t segment_interval(struct sim_engine *e, const struct sim_job *job)
{
	const struct sim_ckpt_policy *p = &e->p.cost.tiers;
	if (p->interval == SIM_CKPT_FIXED)
		return job->checkpoint_ns;
	double m = p->mtbf_s;
	const struct sim_faults *f = e->p.faults;
	if (!(m > 0) && f) {
		int fl = job->alloc.flavor;
		double node_mean = 0;
		if (fl >= 0 && (size_t)fl < f->n_flavors) {
			const struct sim_node_faults *nf = &f->node[fl];
			double g = (double)sim_cluster_flavor(e->p.cluster, fl)->node_cap[SIM_RES_GPU] / SIM_MILLI;
			node_mean = sim_ckpt_node_mean_s(nf->law, nf->mtbf_s, nf->shape, nf->scale_s, nf->per_gpu, g);
		}
		uint32_t nodes = job->alloc.n_nodes ? job->alloc.n_nodes : 1;
		m = sim_ckpt_job_mtbf_s(nodes, node_mean, f->job.crash_per_h, f->job.spike_per_h);
	}
	return sim_ckpt_interval_ns(p, sim_ckpt_mean_write_s(p, e->p.cost.ckpt_overhead_ns), m);
}

static uint64_t tier_count(const struct sim_ckpt_state *st, sim_time_t work)
{
	return sim_ckpt_count(st->interval_ns, work);
}

static sim_time_t tiered_segment_runtime(struct sim_engine *e, struct sim_job *job)
{
	struct sim_ckpt_state *st = &e->ckst[job->idx];
	const struct sim_ckpt_policy *p = &e->p.cost.tiers;
	st->interval_ns = segment_interval(e, job);
	sim_time_t work = remaining_work(e, job);
	sim_time_t restore = st->restore_mem ? p->mem_restore_ns : e->p.cost.restore_ns;
	job->seg_restore_ns = job->progress > 0 ? restore : 0;
	job->restore_s += sim_time_to_s(job->seg_restore_ns);
	e->qacct[job->queue].restore_s += sim_time_to_s(job->seg_restore_ns);
	double wall = (double)job->seg_restore_ns + (double)work +
		      sim_ckpt_write_ns(p, e->p.cost.ckpt_overhead_ns, st->seq, tier_count(st, work));
	return wall < (double)SIM_RUNTIME_MAX_NS ? (sim_time_t)wall : SIM_RUNTIME_MAX_NS;
}

/* Records the k checkpoints completed in this segment (sim_ckpt_record) and pays
 * their writes; returns the newest position. */
static double record_segment_ckpts(struct sim_engine *e, struct sim_job *job, uint64_t k)
{
	struct sim_ckpt_state *st = &e->ckst[job->idx];
	const struct sim_ckpt_policy *p = &e->p.cost.tiers;
	job->ckpt_overhead_s += sim_ckpt_write_ns(p, e->p.cost.ckpt_overhead_ns, st->seq, k) / 1e9;
	return sim_ckpt_record(st, p, job->progress, (double)full_work(e, job), k);
}

/* Where the job resumes after a stop by `cause`, its newest checkpoint at `newest`
 * (sim_ckpt_restart). Returns the work lost beyond `newest`, in s of work. */
static double tiered_restart_point(struct sim_engine *e, struct sim_job *job, double newest,
				   enum sim_stop_cause cause)
{
	uint32_t rollback = e->p.faults ? e->p.faults->job.rollback : 1;
	double target = sim_ckpt_restart(&e->ckst[job->idx], &e->p.cost.tiers, cause, rollback);
	job->progress = target;
	return newest > target ? (newest - target) * sim_time_to_s(full_work(e, job)) : 0;
}

/* stop_progress under the tiers: the checkpoints completed by now are kept (in
 * their tiers), the work since the newest is lost, and so is the work between the
 * newest and the one the job resumes from. GPU-seconds. */
static double tiered_stop_progress(struct sim_engine *e, struct sim_job *job)
{
	struct sim_ckpt_state *st = &e->ckst[job->idx];
	const struct sim_ckpt_policy *p = &e->p.cost.tiers;
	sim_time_t ov = e->p.cost.ckpt_overhead_ns;
	/* in segment time (seg_elapsed: wall time since the start unless a node was slow) */
	sim_time_t seg = seg_elapsed(e, job), work_start = job->seg_restore_ns, saved_until = work_start;
	double newest = job->progress;
	if (seg > work_start && st->interval_ns != SIM_TIME_NONE && st->interval_ns > 0) {
		uint64_t kmax = tier_count(st, remaining_work(e, job));
		uint64_t k = sim_ckpt_completed(p, ov, st->seq, st->interval_ns, seg - work_start, kmax);
		saved_until = work_start + (sim_time_t)k * st->interval_ns +
			      (sim_time_t)llround(sim_ckpt_write_ns(p, ov, st->seq, k));
		newest = record_segment_ckpts(e, job, k);
	}
	double since = seg > saved_until ? sim_time_to_s(seg - saved_until) : 0;
	double back = tiered_restart_point(e, job, newest, e->stopping);
	return (double)alloc_gpus(e, job) / SIM_MILLI * (since + back);
}

/* spot_save_progress under the tiers: the periodic checkpoints completed by the
 * notice and the work since, saved by one persistent checkpoint (the job leaves its
 * nodes: the memory tier is lost, the persistent one has it all). */
static double tiered_spot_save(struct sim_engine *e, struct sim_job *job)
{
	struct sim_ckpt_state *st = &e->ckst[job->idx];
	const struct sim_ckpt_policy *p = &e->p.cost.tiers;
	sim_time_t t = seg_elapsed_at(e, job, e->spot_notice[job->idx]), ws = job->seg_restore_ns; /* segment time */
	sim_time_t c = st->interval_ns, ov = e->p.cost.ckpt_overhead_ns;
	if (t > ws) {
		sim_time_t elapsed = t - ws, rem = remaining_work(e, job), done = elapsed;
		if (c != SIM_TIME_NONE && c > 0) {
			uint64_t k = sim_ckpt_completed(p, ov, st->seq, c, elapsed, tier_count(st, rem));
			sim_time_t tail = elapsed - (sim_time_t)k * c - (sim_time_t)llround(sim_ckpt_write_ns(p, ov, st->seq, k));
			if (tail > c)
				tail = c; /* the notice came while a periodic checkpoint was being written */
			record_segment_ckpts(e, job, k);
			done = tail;
		}
		if (done > rem)
			done = rem;
		job->progress = fmin(job->progress + (double)done / (double)full_work(e, job), 1.0 - 1e-12);
	}
	job->ckpt_overhead_s += sim_time_to_s(ov);
	sim_ckpt_push_persistent(st, job->progress);
	st->mem_pos = -1;
	st->restore_mem = 0;
	return 0;
}

static int apply_capacity_event(struct sim_engine *e, const struct sim_event *ev);
static int apply_node_fault(struct sim_engine *e, const struct sim_event *ev);
static int apply_autoscale_event(struct sim_engine *e, const struct sim_event *ev);
static int apply_spot_event(struct sim_engine *e, const struct sim_event *ev);
static int apply_flex_event(struct sim_engine *e, const struct sim_event *ev);
static int apply_job_fault(struct sim_engine *e, struct sim_job *job, int64_t kind);
static int apply_replay_event(struct sim_engine *e, const struct sim_event *ev);
static int apply_slow_event(struct sim_engine *e, const struct sim_event *ev);
static int slow_job_rate(struct sim_engine *e, struct sim_job *job);
static int slow_episode(struct sim_engine *e, int f, uint32_t g, double factor, sim_time_t period);
static int stop_job(struct sim_engine *e, struct sim_job *job, enum sim_stop_cause cause, int requeue,
		    const struct victim_proposal *vp);

/* A policy's periodic tick (sim/hooks.h, on_tick): ev->job is its family. The next
 * one is queued first, so a tick is always pending while the run goes on. */
static int apply_tick(struct sim_engine *e, const struct sim_event *ev)
{
	struct sim_policy *pol = ev->job < SIM_FAM_COUNT_ ? e->p.policies[ev->job] : NULL;
	if (!pol || !pol->ops || !pol->ops->on_tick || pol->tick_ns <= 0)
		return -SIM_EINVAL;
	if (e->now <= SIM_TIME_MAX - pol->tick_ns) {
		struct sim_event next = { .t = e->now + pol->tick_ns, .phase = EV_TICK, .job = ev->job };
		int rc = sim_evq_push(e->evq, &next, NULL);
		if (rc)
			return rc;
	} else {
		e->n_tickers--;
	}
	pol->ops->on_tick(pol, &e->view, e->now);
	return 0;
}

/* Queues every ticking policy's first tick, at its period. */
static int ticks_start(struct sim_engine *e)
{
	for (uint32_t f = 0; f < SIM_FAM_COUNT_; f++) {
		struct sim_policy *pol = e->p.policies[f];
		if (!pol || !pol->ops || pol->tick_ns <= 0)
			continue;
		if (!pol->ops->on_tick)
			return -SIM_EINVAL;
		struct sim_event ev = { .t = pol->tick_ns, .phase = EV_TICK, .job = f };
		int rc = sim_evq_push(e->evq, &ev, NULL);
		if (rc)
			return rc;
		e->n_tickers++;
	}
	return 0;
}

static int apply_event(struct sim_engine *e, const struct sim_event *ev)
{
	switch (ev->phase) {
	case EV_FINISH:
		if (ev->arg >= FINISH_CRASH)
			return apply_job_fault(e, &e->p.trace->jobs[ev->job], ev->arg);
		return stop_job(e, &e->p.trace->jobs[ev->job],
				ev->arg == FINISH_FAILED ? SIM_STOP_FAILED : SIM_STOP_COMPLETED, 0, NULL);
	case EV_TICK:
		return apply_tick(e, ev);
	case EV_TIMEOUT:
		if (ev->arg == EV_TIMEOUT_MAX_WAIT)
			return apply_max_wait(e, &e->p.trace->jobs[ev->job]);
		apply_timeout(e, &e->p.trace->jobs[ev->job]);
		return 0;
	case EV_CAPACITY: {
		if (ev->arg == EV_ARG_CAPACITY)
			return apply_capacity_event(e, ev);
		if (ev->arg == EV_ARG_REPLAY)
			return apply_replay_event(e, ev);
		if (ev->arg <= EV_ARG_FLEX_SERVED)
			return apply_flex_event(e, ev);
		if (ev->arg <= EV_ARG_SLOW_START)
			return apply_slow_event(e, ev);
		if (ev->arg <= EV_ARG_SPOT_NOTICE)
			return apply_spot_event(e, ev);
		if (ev->arg <= EV_ARG_AS_ARRIVE)
			return apply_autoscale_event(e, ev);
		if (ev->arg <= EV_ARG_NODE_FAIL)
			return apply_node_fault(e, ev);
		struct sim_policy *pol = (unsigned)ev->arg < SIM_FAM_COUNT_ ? e->p.policies[ev->arg] : NULL;
		if (!pol || !pol->ops || !pol->ops->on_event)
			return -SIM_EINVAL;
		pol->ops->on_event(pol, &e->view, ev->job);
		e->policy_event = 1; /* a quota shrink may stop running jobs */
		if (ev->arg == SIM_FAM_QUOTA)
			q_refresh_nominal(e);
		return 0;
	}
	default:
		return -SIM_EINVAL; /* no other event kind exists yet */
	}
}

/* Segment wall time: restore (after a preemption that left saved work), the
 * remaining work, and one checkpoint overhead per checkpoint interval of it. */
static sim_time_t segment_runtime(struct sim_engine *e, struct sim_job *job)
{
	if (e->ckst)
		return tiered_segment_runtime(e, job);
	sim_time_t work = remaining_work(e, job);
	job->seg_restore_ns = job->progress > 0 ? e->p.cost.restore_ns : 0;
	job->restore_s += sim_time_to_s(job->seg_restore_ns);
	e->qacct[job->queue].restore_s += sim_time_to_s(job->seg_restore_ns);
	double wall = (double)job->seg_restore_ns + (double)work +
		      (double)ckpt_count(job, work) * (double)e->p.cost.ckpt_overhead_ns;
	return wall < (double)SIM_RUNTIME_MAX_NS ? (sim_time_t)wall : SIM_RUNTIME_MAX_NS;
}

/* ---- job faults (docs/faults.md, "Crashes" and "Hangs") ---- */

static int post_job_fault(struct sim_engine *e, struct sim_job *job, sim_time_t at, int64_t kind)
{
	struct sim_event ev = { .t = at, .phase = EV_FINISH, .job = job->idx, .arg = kind };
	return sim_evq_push(e->evq, &ev, &FX(e, job)->fault_ev);
}

/* A segment's crash or hang, whichever comes first within its wall time: the
 * draws are keyed by (job, segment), the segment numbered by the job's stops. */
static int arm_job_faults(struct sim_engine *e, struct sim_job *job)
{
	uint32_t seg = job->preemptions + job->interruptions;
	for (int k = 0; k < SIM_JOB_FAULT_CAUSES; k++)
		seg += FX(e, job)->fault_stops[k];
	sim_time_t c = sim_faults_draw_crash(e->flt, job->idx, seg);
	sim_time_t h = sim_faults_draw_hang(e->flt, job->idx, seg);
	sim_time_t s = sim_faults_draw_spike(e->flt, job->idx, seg);
	sim_time_t t = SIM_TIME_NONE;
	int64_t kind = 0;
	if (c != SIM_TIME_NONE && c < job->runtime_ns) {
		t = c;
		kind = FINISH_CRASH;
	}
	if (h != SIM_TIME_NONE && h < job->runtime_ns && (t == SIM_TIME_NONE || h < t)) {
		t = h;
		kind = FINISH_HANG;
	}
	if (s != SIM_TIME_NONE && s < job->runtime_ns && (t == SIM_TIME_NONE || s < t)) {
		t = s;
		kind = FINISH_SPIKE;
	}
	return t == SIM_TIME_NONE ? 0 : post_job_fault(e, job, job->last_start_ns + t, kind);
}

static int restart_in_place(struct sim_engine *e, struct sim_job *job, enum sim_stop_cause cause);

/* A stop by a fault (docs/faults.md, "Retries"): while the job has retries left
 * (max_retries counts every fault stop of the job), a crash or hang kill restarts
 * it in place up to inplace_restarts times since it last started from the queue;
 * otherwise (a node failure or a loss spike always) it is queued again while it has full
 * restarts left (max_full_restarts), at the back of the queue with requeue_back;
 * else it ends failed. A job with a spot notice pending is never restarted in
 * place (its node is going away). */
static int fault_stop(struct sim_engine *e, struct sim_job *job, enum sim_stop_cause cause)
{
	const struct sim_job_faults *jf = e->p.faults ? &e->p.faults->job : NULL;
	int64_t max = jf ? jf->max_retries : -1;
	int64_t used = 0;
	for (int k = 0; k < SIM_JOB_FAULT_CAUSES; k++)
		used += FX(e, job)->fault_stops[k];
	int retry = max < 0 || used < max;
	int spot_pending = e->spot_notice && e->spot_notice[job->idx] != SIM_TIME_NONE;
	int healthy = cause == SIM_STOP_CRASHED || cause == SIM_STOP_HANG; /* its nodes can go on */
	if (retry && jf && healthy && FX(e, job)->inplace_run < jf->inplace_restarts && !spot_pending)
		return restart_in_place(e, job, cause);
	int requeue = retry && (!jf || jf->max_full_restarts < 0 || (int64_t)FX(e, job)->full_restarts < jf->max_full_restarts);
	if (requeue) {
		FX(e, job)->full_restarts++;
		e->ctr.full_restarts++;
		if (jf && jf->requeue_back) /* policies read it when they hear of the stop */
			job->order_shift_ns = e->now - job->submit_ns;
	}
	int rc = stop_job(e, job, cause, requeue, NULL);
	if (!rc && requeue)
		FX(e, job)->fault_stop_ns = e->now; /* its time to recover runs until it starts again */
	return rc;
}

/* A job's fault event: a crash stops it now; a hang stops its progress and queues
 * its kill, hang_timeout later with detection, else at its run's end. */
static int apply_job_fault(struct sim_engine *e, struct sim_job *job, int64_t kind)
{
	FX(e, job)->fault_ev = 0;
	if (job->state != SIM_JOB_RUNNING)
		return 0;
	if (kind == FINISH_SPOT)
		return stop_job(e, job, SIM_STOP_SPOT, 1, NULL);
	if (kind == FINISH_CRASH) {
		e->ctr.crashes++;
		return fault_stop(e, job, SIM_STOP_CRASHED);
	}
	if (kind == FINISH_SPIKE)
		return fault_stop(e, job, SIM_STOP_LOSS_SPIKE);
	if (kind == FINISH_HANG_KILL) {
		e->ctr.hang_hold_s += sim_time_to_s(e->now - FX(e, job)->hang_ns);
		return fault_stop(e, job, SIM_STOP_HANG);
	}
	e->ctr.hangs++;
	FX(e, job)->hang_ns = e->now;
	sim_engine_job_end_cancel(e, job); /* it will not finish: it makes no progress */
	const struct sim_driver *drv = &e->p.driver;
	int rc = drv->ops->hang ? drv->ops->hang(drv->priv, e, job) : 0; /* a real workload freezes now */
	if (rc)
		return rc;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] job=%s event=hang\n", sim_time_to_s(e->now), sim_job_id(e->p.trace, job));
	const struct sim_job_faults *jf = &e->p.faults->job;
	sim_time_t end = job->last_start_ns + job->runtime_ns;
	sim_time_t kill = jf->hang_detect ? e->now + jf->hang_timeout_ns : end;
	return post_job_fault(e, job, kill, FINISH_HANG_KILL);
}

/* Starts every accepted proposal, in order. */
static int commit_proposals(struct sim_engine *e)
{
	struct sim_trace *t = e->p.trace;
	for (size_t i = 0; i < e->buf.n; i++) {
		struct sim_job *job = &t->jobs[e->buf.jobs[i]];
		job->state = SIM_JOB_RUNNING;
		if (job->start_ns == SIM_TIME_NONE)
			job->start_ns = e->now;
		job->last_start_ns = e->now;
		if (e->fx) { /* the segment clock starts at full speed */
			FX(e, job)->seg_rate = 1.0;
			FX(e, job)->seg_base_ns = 0;
			FX(e, job)->seg_since_ns = e->now;
		}
		job->runtime_ns = segment_runtime(e, job);
		if (job->runtime_ns < 1)
			job->runtime_ns = 1;
		q_touch(e, job->queue);
		e->qacct[job->queue].pending--;
		e->qacct[job->queue].gpus += quota_gpus(e, job);
		e->n_queued--;
		e->n_running++;
		e->ctr.starts++;
		if (job->timeout_ev) {
			sim_evq_cancel(e->evq, job->timeout_ev);
			job->timeout_ev = 0;
		}
		int rc = running_add(e, job->idx);
		if (!rc)
			rc = e->p.driver.ops->start(e->p.driver.priv, e, job);
		if (rc)
			return rc;
		if (e->p.log)
			log_event(e, job, LOG_START);
		if (e->job_faults && (rc = arm_job_faults(e, job)))
			return rc;
		if (e->fx)
			FX(e, job)->inplace_run = 0; /* in-place restarts count from its last start from the queue */
		if (e->slow_nodes && (rc = slow_job_rate(e, job)))
			return rc; /* placed on a slow node: it runs at its speed from the start */
		if (e->fx && FX(e, job)->fault_stop_ns) {
			e->ctr.recover_s += sim_time_to_s(e->now - FX(e, job)->fault_stop_ns);
			e->ctr.recoveries++;
			FX(e, job)->fault_stop_ns = 0;
		}
		e->idle_ups = 0;
		e->spot_idle_backs = 0;
		e->slow_idle_ups = 0;
		NOTIFY(e, on_start, job);
	}
	e->buf.n = 0;
	return 0;
}

/* A real driver's measurement of a stopped job: it keeps the work saved at its last
 * checkpoint (never less than it had) and loses what it did since, in GPU-seconds
 * of trace time on the flavor it held. */
static double measured_stop_progress(struct sim_engine *e, struct sim_job *job, const struct sim_stop_measure *m)
{
	double saved = m->saved, done = m->done;
	if (saved < job->progress)
		saved = job->progress;
	if (saved > 1.0 - 1e-12)
		saved = 1.0 - 1e-12;
	if (done < saved)
		done = saved;
	double w_s = sim_time_to_s(full_work(e, job));
	job->progress = saved;
	job->ckpt_overhead_s += (double)m->ckpts * sim_time_to_s(e->p.cost.ckpt_overhead_ns);
	return (double)alloc_gpus(e, job) / SIM_MILLI * (done - saved) * w_s;
}

static double stop_progress(struct sim_engine *e, struct sim_job *job, const struct sim_stop_measure *m);

/* A hung job (docs/faults.md, "Hangs"): its work stopped at hang_ns, so it keeps the
 * checkpoints completed before then and loses the work since the last of them; the
 * time it then held its GPUs without progress is lost too. */
static double hung_stop_progress(struct sim_engine *e, struct sim_job *job)
{
	sim_time_t hang = FX(e, job)->hang_ns, now = e->now;
	double hung = (double)alloc_gpus(e, job) / SIM_MILLI * sim_time_to_s(now - hang);
	struct sim_stop_measure none = { 0 };
	FX(e, job)->hang_ns = 0;
	e->now = hang; /* the work as it stood when the job hung */
	double lost = stop_progress(e, job, &none);
	e->now = now;
	return lost + hung;
}

/* A spot job that writes a checkpoint within its notice (docs/capacity.md, "Spot
 * capacity"): it keeps the periodic checkpoints completed by the notice and the work
 * since the last of them (the notice's checkpoint saves it), and loses nothing; it
 * pays one more checkpoint overhead. */
static double spot_save_progress(struct sim_engine *e, struct sim_job *job)
{
	if (e->ckst)
		return tiered_spot_save(e, job);
	sim_time_t t = seg_elapsed_at(e, job, e->spot_notice[job->idx]), ws = job->seg_restore_ns; /* segment time */
	sim_time_t c = job->checkpoint_ns, ov = e->p.cost.ckpt_overhead_ns;
	double ov_s = sim_time_to_s(ov);
	if (t > ws) {
		sim_time_t elapsed = t - ws, period = c + ov, rem = remaining_work(e, job);
		sim_time_t k = elapsed / period, kmax = ckpt_count(job, rem);
		if (k > kmax)
			k = kmax;
		sim_time_t tail = elapsed - k * period;
		if (tail > c)
			tail = c; /* the notice came while a periodic checkpoint was being written */
		sim_time_t done = k * c + tail;
		if (done > rem)
			done = rem;
		job->progress += (double)done / (double)full_work(e, job);
		if (job->progress > 1.0 - 1e-12)
			job->progress = 1.0 - 1e-12;
		job->ckpt_overhead_s += (double)k * ov_s;
	}
	job->ckpt_overhead_s += ov_s;
	return 0;
}

/* Work saved and lost when a running job stops at now (docs/design.md section 2): the
 * checkpoints completed in this segment are kept; the work since the last one (or
 * since the segment's restore ended) is lost, in GPU-seconds. */
static double spot_save_progress(struct sim_engine *e, struct sim_job *job);

static double stop_progress(struct sim_engine *e, struct sim_job *job, const struct sim_stop_measure *m)
{
	if (m->measured && job_hang_ns(e, job)) {
		/* A real workload frozen at the hang (sim_driver_ops.hang): its measured work
		 * stops there; the time it then held its GPUs is lost too, as simulated. */
		double hung = (double)alloc_gpus(e, job) / SIM_MILLI * sim_time_to_s(e->now - FX(e, job)->hang_ns);
		FX(e, job)->hang_ns = 0;
		return measured_stop_progress(e, job, m) + hung;
	}
	if (m->measured)
		return measured_stop_progress(e, job, m);
	if (e->spot_save && e->spot_save[job->idx] && e->spot_notice[job->idx] != SIM_TIME_NONE)
		return spot_save_progress(e, job);
	if (job_hang_ns(e, job))
		return hung_stop_progress(e, job);
	if (e->ckst)
		return tiered_stop_progress(e, job);
	/* In segment time (seg_elapsed): the lost work is counted at full speed; the
	 * time a slow node added is counted apart (slow_account). */
	sim_time_t seg = seg_elapsed(e, job), work_start = job->seg_restore_ns;
	if (seg <= work_start)
		return 0;
	sim_time_t elapsed = seg - work_start, saved_until = work_start;
	sim_time_t c = job->checkpoint_ns;
	if (c != SIM_TIME_NONE && c > 0) {
		sim_time_t period = c + e->p.cost.ckpt_overhead_ns;
		sim_time_t k = elapsed / period, kmax = ckpt_count(job, remaining_work(e, job));
		if (k > kmax)
			k = kmax;
		double w = (double)full_work(e, job);
		job->progress += (double)(k * c) / w;
		if (job->progress > 1.0 - 1e-12)
			job->progress = 1.0 - 1e-12;
		job->ckpt_overhead_s += (double)k * sim_time_to_s(e->p.cost.ckpt_overhead_ns);
		saved_until = work_start + k * period;
	}
	return (double)alloc_gpus(e, job) / SIM_MILLI * sim_time_to_s(seg - saved_until);
}

static int record_decision(struct sim_engine *e, const struct sim_decision *d)
{
	struct sim_decisions *ds = &e->decisions;
	struct sim_decision *nv = sim_grow(ds->v, &ds->cap, ds->n, sizeof *nv, 256);
	if (!nv)
		return -SIM_ENOMEM;
	ds->v = nv;
	ds->v[ds->n++] = *d;
	return 0;
}

/* A victim that held quota but had not started: a start proposed for it in this
 * pass is withdrawn (nothing ran, nothing is lost). */
static void withdraw_proposal(struct sim_engine *e, struct sim_job *job)
{
	for (size_t i = 0; i < e->buf.n; i++) {
		if (e->buf.jobs[i] != job->idx)
			continue;
		sim_cluster_release(e->p.cluster, &job->alloc, sim_job_opt(e->p.trace, job, job->opt_chosen)->req);
		job->opt_chosen = -1;
		memmove(&e->buf.jobs[i], &e->buf.jobs[i + 1], (e->buf.n - i - 1) * sizeof *e->buf.jobs);
		e->buf.n--;
		return;
	}
}

/* The state a job ends in when it is not queued again. */
static enum sim_job_state final_state(enum sim_stop_cause cause)
{
	switch (cause) {
	case SIM_STOP_COMPLETED:
		return SIM_JOB_COMPLETED;
	case SIM_STOP_FAILED:
		return SIM_JOB_FAILED;
	case SIM_STOP_PENDING_TIMEOUT:
		return SIM_JOB_TIMED_OUT_PENDING;
	case SIM_STOP_MAX_WAIT:
		return SIM_JOB_MAX_WAIT_EXCEEDED;
	case SIM_STOP_NODE_FAILED:
	case SIM_STOP_CRASHED:
	case SIM_STOP_HANG:
	case SIM_STOP_LOSS_SPIKE: /* out of retries */
		return SIM_JOB_FAILED;
	default:
		return SIM_JOB_PREEMPTED_OUT;
	}
}

/* Releases a running job's nodes and quota and accounts its segment: the work it
 * saved and lost (a stop before the end: the driver stops it first) or the
 * checkpoints of its last stretch (it ran to the end). Returns the GPU-seconds
 * lost, or a negative -SIM_E* from the driver (nothing changed then). */
static void slow_account(struct sim_engine *e, const struct sim_job *job);

static double release_running(struct sim_engine *e, struct sim_job *job, enum sim_stop_cause cause, int *rc)
{
	double lost = 0;
	*rc = 0;
	if (e->slow_nodes)
		slow_account(e, job);
	if (cause == SIM_STOP_COMPLETED || cause == SIM_STOP_FAILED) {
		if (e->ckst) {
			struct sim_ckpt_state *st = &e->ckst[job->idx];
			uint64_t k = tier_count(st, remaining_work(e, job));
			job->ckpt_overhead_s += sim_ckpt_write_ns(&e->p.cost.tiers, e->p.cost.ckpt_overhead_ns, st->seq, k) / 1e9;
			st->seq += k;
		} else {
			/* Without checkpoints the count is 0 whatever the work: remaining_work
			 * (a runtime lookup and an llround, a tenth of a fifo run's loop) is
			 * skipped, the same sum added. */
			sim_time_t k = job->checkpoint_ns != SIM_TIME_NONE && job->checkpoint_ns > 0 ?
					       ckpt_count(job, remaining_work(e, job)) : 0;
			job->ckpt_overhead_s += (double)k * sim_time_to_s(e->p.cost.ckpt_overhead_ns);
		}
	} else {
		struct sim_stop_measure m = { 0 };
		if ((*rc = e->p.driver.ops->stop(e->p.driver.priv, e, job, &m)))
			return 0;
		e->stopping = cause;
		lost = stop_progress(e, job, &m);
	}
	if (e->fx && FX(e, job)->fault_ev) { /* a crash, hang or spot stop still to come in this segment */
		sim_evq_cancel(e->evq, FX(e, job)->fault_ev);
		FX(e, job)->fault_ev = 0;
	}
	if (e->spot_notice && e->spot_notice[job->idx] != SIM_TIME_NONE) {
		if (cause == SIM_STOP_SPOT && e->spot_save[job->idx])
			e->ctr.spot_saved++;
		e->spot_notice[job->idx] = SIM_TIME_NONE;
		e->spot_save[job->idx] = 0;
	}
	q_touch(e, job->queue);
	struct sim_queue_acct *qa = &e->qacct[job->queue];
	qa->gpus -= quota_gpus(e, job);
	if (cause != SIM_STOP_COMPLETED && cause != SIM_STOP_FAILED)
		qa->lost_gpu_s += lost;
	/* The release empties the alloc; the flavor it ran on stays for the results
	 * (a "*" request has no other record of it). */
	int32_t ran_on = job->alloc.flavor;
	size_t n_as = as_snapshot_nodes(e, job);
	sim_cluster_release(e->p.cluster, &job->alloc, sim_job_opt(e->p.trace, job, job->opt_chosen)->req);
	job->alloc.flavor = ran_on;
	if (n_as && (*rc = as_nodes_released(e, ran_on, n_as)))
		return 0;
	job->finish_ev = 0;
	job->lost_gpu_s += lost;
	job->held_s += sim_time_to_s(e->now - job->last_start_ns);
	e->n_running--;
	running_remove(e, job->idx);
	return lost;
}

/* The counters of one stop, by cause (a preemption also counts for its preemptor). */
/* Index of a fault cause in the jobs' and counters' arrays, or -1. */
static int fault_index(enum sim_stop_cause cause)
{
	if (cause == SIM_STOP_LOSS_SPIKE)
		return 3; /* appended to the causes after the first three */
	return cause >= SIM_STOP_NODE_FAILED && cause <= SIM_STOP_HANG ? (int)(cause - SIM_STOP_NODE_FAILED) : -1;
}

static void count_stop(struct sim_engine *e, struct sim_job *job, enum sim_stop_cause cause,
		       const struct victim_proposal *vp, int requeue, double lost)
{
	int fi = fault_index(cause);
	if (fi >= 0) {
		FX(e, job)->fault_stops[fi]++;
		FX(e, job)->lost_fault_gpu_s[fi] += lost;
		e->ctr.fault_stops[fi]++;
		if (!requeue)
			e->ctr.retries_exhausted++;
		return;
	}
	struct sim_queue_acct *qa = &e->qacct[job->queue];
	if (cause == SIM_STOP_PREEMPTED) {
		struct sim_job *by = &e->p.trace->jobs[vp->preemptor];
		qa->preempted++;
		if (by != job) { /* a quota shrink has no preemptor (the victim is named twice) */
			e->qacct[by->queue].caused++;
			by->preemptions_caused++;
		}
		job->preemptions++;
		e->ctr.preemptions++;
	} else if (cause == SIM_STOP_CAPACITY_REMOVED) {
		job->interruptions++;
		e->ctr.interruptions++;
	} else if (cause == SIM_STOP_SPOT) { /* its node was taken away: an interruption too */
		job->interruptions++;
		e->ctr.interruptions++;
		e->ctr.spot_stops++;
		e->ctr.spot_lost_gpu_s += lost;
	} else if (cause == SIM_STOP_SLOW_MIGRATED) { /* its node left placement: an interruption too */
		job->interruptions++;
		e->ctr.interruptions++;
		e->ctr.slow_stops++;
		e->ctr.slow_migrated_lost_gpu_s += lost;
	} else if (cause == SIM_STOP_PENDING_TIMEOUT) {
		e->ctr.pending_timeouts++;
	}
}

static void log_stop(struct sim_engine *e, const struct sim_job *job, enum sim_stop_cause cause, int was_running,
		     int requeue, const struct victim_proposal *vp, double lost)
{
	const struct sim_trace *t = e->p.trace;
	FILE *f = e->p.log;
	double now_s = sim_time_to_s(e->now);
	switch (cause) {
	case SIM_STOP_COMPLETED:
		log_event(e, job, LOG_FINISH);
		break;
	case SIM_STOP_FAILED:
		fprintf(f, "[%.3f] job=%s event=failed\n", now_s, sim_job_id(t, job));
		break;
	case SIM_STOP_PENDING_TIMEOUT:
		fprintf(f, "[%.3f] job=%s event=timeout waited_s=%.3f\n", now_s, sim_job_id(t, job),
			sim_time_to_s(e->now - job->pending_from_ns));
		break;
	case SIM_STOP_CAPACITY_REMOVED:
		fprintf(f, "[%.3f] job=%s event=interrupt reason=capacity_removed lost_gpu_s=%.3f\n", now_s,
			sim_job_id(t, job), lost);
		break;
	case SIM_STOP_SPOT:
		fprintf(f, "[%.3f] job=%s event=interrupt reason=spot lost_gpu_s=%.3f\n", now_s, sim_job_id(t, job), lost);
		break;
	case SIM_STOP_SLOW_MIGRATED:
		fprintf(f, "[%.3f] job=%s event=interrupt reason=slow_migrated lost_gpu_s=%.3f\n", now_s,
			sim_job_id(t, job), lost);
		break;
	case SIM_STOP_MAX_WAIT:
		fprintf(f, "[%.3f] job=%s event=max_wait_exceeded lost_gpu_s=%.3f%s\n", now_s, sim_job_id(t, job), lost,
			was_running ? "" : " (queued)");
		break;
	case SIM_STOP_NODE_FAILED:
	case SIM_STOP_CRASHED:
	case SIM_STOP_HANG:
	case SIM_STOP_LOSS_SPIKE:
		fprintf(f, "[%.3f] job=%s event=interrupt reason=%s lost_gpu_s=%.3f%s\n", now_s, sim_job_id(t, job),
			sim_stop_cause_name(cause), lost, requeue ? "" : " final=failed");
		break;
	default:
		fprintf(f, "[%.3f] job=%s event=preempt by=%s reason=%s lost_gpu_s=%.3f%s%s\n", now_s,
			sim_job_id(t, job), sim_job_id(t, &t->jobs[vp->preemptor]),
			sim_preempt_reason_name((enum sim_preempt_reason)vp->reason), lost,
			was_running ? "" : " (not started)", requeue ? "" : " final=preempted_out");
	}
}

/* The one transition out of running or queued (sim/hooks.h, on_stop), whatever
 * stopped the job: releases what it holds, accounts the work lost and saved,
 * queues it again (requeue) or ends it, logs, records a preemption's decision,
 * notifies. A queued job (held quota but no nodes, or timed out) loses nothing.
 * vp: the preemption (cause SIM_STOP_PREEMPTED), else NULL. */
static int stop_job(struct sim_engine *e, struct sim_job *job, enum sim_stop_cause cause, int requeue,
		    const struct victim_proposal *vp)
{
	int was_running = job->state == SIM_JOB_RUNNING, rc = 0;
	double lost = 0;
	assert(was_running || (cause != SIM_STOP_COMPLETED && cause != SIM_STOP_FAILED)); /* only a run ends */
	if (e->flex_st && (rc = flex_on_stop(e, job, requeue)))
		return rc;
	if (was_running) {
		lost = release_running(e, job, cause, &rc);
		if (rc)
			return rc;
	} else {
		withdraw_proposal(e, job);
		q_touch(e, job->queue);
	}
	count_stop(e, job, cause, vp, requeue, lost);
	struct sim_queue_acct *qa = &e->qacct[job->queue];
	if (requeue && was_running) {
		job->state = SIM_JOB_QUEUED;
		qa->pending++;
		e->n_queued++;
		as_note_queued(e, job);
		if ((rc = flex_note_queued(e, job)))
			return rc;
	} else if (!requeue) {
		job->state = final_state(cause);
		job->end_ns = e->now;
		e->n_done++;
		if (e->mw_ev && e->mw_ev[job->idx]) { /* it ended: its max wait no longer applies */
			sim_evq_cancel(e->evq, e->mw_ev[job->idx]);
			e->mw_ev[job->idx] = 0;
		}
		if (!was_running) {
			qa->pending--;
			e->n_queued--;
		}
	}
	if (e->p.log)
		log_stop(e, job, cause, was_running, requeue, vp, lost);
	if (vp) {
		struct sim_decision d = { .t = e->now, .preemptor = vp->preemptor, .victim = vp->victim,
					  .reason = vp->reason, .requeued = vp->requeue, .lost_gpu_s = lost };
		if ((rc = record_decision(e, &d)))
			return rc;
	}
	/* A queued job ended by its max wait leaves its queue for good, as one whose pending
	 * limit ran out: policies hear it as that (sim/hooks.h, SIM_STOP_MAX_WAIT). */
	notify_stop(e, job, cause == SIM_STOP_MAX_WAIT && !was_running ? SIM_STOP_PENDING_TIMEOUT : cause);
	return 0;
}

/* A crash or hang kill restarted in place (docs/faults.md, "Retries"): the job keeps
 * its nodes and quota, loses the work since its last checkpoint as any stop does,
 * and runs again at once: inplace_restart_s, then its restore, then the rest of its
 * work. Policies hear nothing: it never left running. */
static int restart_in_place(struct sim_engine *e, struct sim_job *job, enum sim_stop_cause cause)
{
	const struct sim_driver *drv = &e->p.driver;
	struct sim_stop_measure m = { 0 };
	if (e->slow_nodes)
		slow_account(e, job);
	int rc = drv->ops->stop(drv->priv, e, job, &m);
	if (rc)
		return rc;
	e->stopping = cause; /* the tiers: its nodes are up, its memory checkpoints survive */
	double lost = stop_progress(e, job, &m);
	if (FX(e, job)->fault_ev) { /* a crash or hang still to come in the old segment */
		sim_evq_cancel(e->evq, FX(e, job)->fault_ev);
		FX(e, job)->fault_ev = 0;
	}
	q_touch(e, job->queue);
	e->qacct[job->queue].lost_gpu_s += lost;
	job->lost_gpu_s += lost;
	job->held_s += sim_time_to_s(e->now - job->last_start_ns);
	int fi = fault_index(cause);
	FX(e, job)->fault_stops[fi]++;
	FX(e, job)->lost_fault_gpu_s[fi] += lost;
	e->ctr.fault_stops[fi]++;
	FX(e, job)->inplace_run++;
	e->ctr.inplace_restarts++;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] job=%s event=interrupt reason=%s lost_gpu_s=%.3f restart=in_place\n",
			sim_time_to_s(e->now), sim_job_id(e->p.trace, job), sim_stop_cause_name(cause), lost);
	job->last_start_ns = e->now;
	FX(e, job)->seg_rate = 1.0; /* a new segment clock, as at any start */
	FX(e, job)->seg_base_ns = 0;
	FX(e, job)->seg_since_ns = e->now;
	job->runtime_ns = segment_runtime(e, job);
	/* The delay comes before the restore: no work is done (or saved) until both end
	 * (segment time: on a slow node it stretches like the restore). */
	sim_time_t d = e->p.faults->job.inplace_restart_ns;
	job->seg_restore_ns += d;
	job->runtime_ns = job->runtime_ns < SIM_RUNTIME_MAX_NS - d ? job->runtime_ns + d : SIM_RUNTIME_MAX_NS;
	if ((rc = drv->ops->start(drv->priv, e, job)))
		return rc;
	if (e->job_faults && (rc = arm_job_faults(e, job)))
		return rc;
	return e->slow_nodes ? slow_job_rate(e, job) : 0; /* still on its slow node, if it was */
}

static int apply_preemption(struct sim_engine *e, const struct victim_proposal *vp)
{
	struct sim_job *job = &e->p.trace->jobs[vp->victim];
	if (job->state != SIM_JOB_RUNNING && job->state != SIM_JOB_QUEUED)
		return 0; /* ended earlier in this pass */
	return stop_job(e, job, SIM_STOP_PREEMPTED, vp->requeue, vp);
}

/* ---- capacity over time ---- */

/* A running job whose nodes were removed (docs/design.md section 3, node failure): it
 * keeps the work up to its last checkpoint, loses the rest, and is queued again. */
static int interrupt_job(struct sim_engine *e, struct sim_job *job)
{
	return stop_job(e, job, SIM_STOP_CAPACITY_REMOVED, 1, NULL);
}

/* 1 if the job holds one of the marked nodes of its flavor. */
static int on_marked_node(const struct sim_engine *e, const struct sim_job *job)
{
	const struct sim_alloc *a = &job->alloc;
	if (a->n_nodes == 1)
		return e->node_mark[a->node];
	for (uint32_t k = 0; k < a->n_nodes; k++)
		if (e->node_mark[a->nodes[k]])
			return 1;
	return 0;
}

/* Stops the running jobs on the n busy nodes a removal put to draining. The
 * running set is walked from its end: a removal moves the last job into the freed
 * slot, which was already visited. */
static int fault_stop(struct sim_engine *e, struct sim_job *job, enum sim_stop_cause cause);

static int interrupt_on_nodes(struct sim_engine *e, int flavor, const uint32_t *nodes, size_t n,
			      enum sim_stop_cause cause)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		e->node_mark[nodes[i]] = 1;
	for (size_t i = e->n_run; i-- > 0 && !rc;) {
		struct sim_job *job = &e->p.trace->jobs[e->running[i]];
		if (job->alloc.flavor == flavor && on_marked_node(e, job))
			rc = cause == SIM_STOP_CAPACITY_REMOVED ? interrupt_job(e, job)
			     : cause == SIM_STOP_SLOW_MIGRATED ? stop_job(e, job, cause, 1, NULL)
							       : fault_stop(e, job, cause);
	}
	for (size_t i = 0; i < n; i++)
		e->node_mark[nodes[i]] = 0;
	return rc;
}

/* Sets the flavor's online nodes to what the plan gives now: its base, capped at
 * out_nodes while out of stock. */
static int capacity_apply(struct sim_engine *e, int f, enum sim_cap_mode mode)
{
	int64_t target = e->cap_base[f];
	const struct sim_stockout *st = &e->p.capacity->stock[f];
	if (e->out_of_stock[f] && target > (int64_t)st->out_nodes)
		target = st->out_nodes;
	uint32_t peak = sim_cluster_n_nodes(e->p.cluster, f);
	if (target > (int64_t)peak)
		target = peak;
	size_t n_busy = 0;
	int rc = sim_cluster_set_nodes(e->p.cluster, f, (uint32_t)target, e->busy_nodes, &n_busy);
	if (rc)
		return rc;
	e->ctr.capacity_changes++;
	e->policy_event = 1; /* a pass even with nothing new queued: capacity moved */
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=capacity flavor=%s nodes=%lld%s\n", sim_time_to_s(e->now),
			sim_cluster_flavor(e->p.cluster, f)->name, (long long)target,
			e->out_of_stock[f] ? " out_of_stock" : "");
	if (mode == SIM_CAP_REMOVE && n_busy)
		return interrupt_on_nodes(e, f, e->busy_nodes, n_busy, SIM_STOP_CAPACITY_REMOVED);
	return 0;
}

static int post_stock_transition(struct sim_engine *e, int f)
{
	sim_time_t len = sim_capacity_draw_period(e->cap_run_state, f, !e->out_of_stock[f]);
	sim_time_t at = e->now > SIM_TIME_MAX - len ? SIM_TIME_MAX - 1 : e->now + len;
	struct sim_event ev = { .t = at, .phase = EV_CAPACITY, .job = STOCK_EVENT | (uint32_t)f,
				.arg = EV_ARG_CAPACITY };
	return sim_evq_push(e->evq, &ev, NULL);
}

static int apply_capacity_event(struct sim_engine *e, const struct sim_event *ev)
{
	const struct sim_capacity *cap = e->p.capacity;
	if (ev->job & STOCK_EVENT) {
		int f = (int)(ev->job & ~STOCK_EVENT);
		e->out_of_stock[f] = !e->out_of_stock[f];
		if (e->out_of_stock[f])
			e->n_out_of_stock++;
		else
			e->n_out_of_stock--;
		int rc = capacity_apply(e, f, SIM_CAP_DRAIN);
		return rc ? rc : post_stock_transition(e, f);
	}
	const struct sim_cap_change *ch = &cap->changes[ev->job];
	int64_t n = ch->is_delta ? e->cap_base[ch->flavor] + ch->nodes : ch->nodes;
	e->cap_base[ch->flavor] = n < 0 ? 0 : n;
	return capacity_apply(e, ch->flavor, (enum sim_cap_mode)ch->mode);
}

/* Posts the plan's changes and each stock-out model's first transition. */
static int capacity_start(struct sim_engine *e)
{
	const struct sim_capacity *cap = e->p.capacity;
	if (!e->cap_base)
		return 0;
	for (size_t f = 0; f < sim_cluster_n_flavors(e->p.cluster); f++) {
		e->cap_base[f] = sim_capacity_is_reservation(cap, (int)f)
					 ? 0
					 : (int64_t)sim_cluster_nodes_online(e->p.cluster, (int)f);
		if (cap->stock[f].law == SIM_STOCK_NONE)
			continue;
		e->n_stock_models++;
		int rc = post_stock_transition(e, (int)f);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < cap->n_changes; i++) {
		struct sim_event ev = { .t = cap->changes[i].t, .phase = EV_CAPACITY, .job = (uint32_t)i,
					.arg = EV_ARG_CAPACITY };
		int rc = sim_evq_push(e->evq, &ev, NULL);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- node faults (docs/faults.md, "Node failures" and "Repair") ---- */

static int post_slot_event(struct sim_engine *e, sim_time_t at, int64_t kind, uint32_t slot)
{
	struct sim_event ev = { .t = at, .phase = EV_CAPACITY, .job = slot, .arg = kind };
	int rc = sim_evq_push(e->evq, &ev, NULL);
	if (!rc)
		e->n_fault_pending++;
	return rc;
}

static sim_time_t after(const struct sim_engine *e, sim_time_t d)
{
	return e->now > SIM_TIME_MAX - 1 - d ? SIM_TIME_MAX - 1 : e->now + d;
}

/* Integrates the time flavors spent with an empty pool and slots waiting. */
static void pool_touch(struct sim_engine *e)
{
	e->ctr.pool_empty_s += (double)e->n_exhausted * sim_time_to_s(e->now - e->flt_last_t);
	e->flt_last_t = e->now;
}

static int pool_exhausted(const struct sim_engine *e, int f)
{
	return e->p.faults->node[f].spares > 0 && e->pool[f] == 0 && e->waiting[f] > 0;
}

/* Moves flavor f's pool and waiting slots by dpool and dwait (+1 or -1), keeping
 * the count of exhausted flavors (and its integral) right. */
static void pool_move(struct sim_engine *e, int f, int dpool, int dwait)
{
	pool_touch(e);
	int was = pool_exhausted(e, f);
	e->pool[f] = (uint32_t)((int64_t)e->pool[f] + dpool);
	e->waiting[f] = (uint32_t)((int64_t)e->waiting[f] + dwait);
	int is = pool_exhausted(e, f);
	if (is && !was)
		e->n_exhausted++;
	else if (was && !is)
		e->n_exhausted--;
}

/* A slot's node is up (at the start, repaired, or a spare in place): online, with
 * its next failure after a fresh operating time. */
static int slot_up(struct sim_engine *e, uint32_t s, const char *how)
{
	struct node_slot *sl = &e->slots[s];
	int f = sl->flavor;
	uint32_t node = s - e->slot_base[f];
	if (how) {
		sim_cluster_node_up(e->p.cluster, f, node);
		e->n_nodes_down--;
		e->idle_ups++;
		e->policy_event = 1; /* capacity grew: a pass even with nothing new queued */
		if (e->p.log)
			fprintf(e->p.log, "[%.3f] event=node_up flavor=%s node=%u how=%s\n", sim_time_to_s(e->now),
				sim_cluster_flavor(e->p.cluster, f)->name, node, how);
	}
	sl->state = SLOT_UP;
	sl->up_since = e->now;
	if (sim_faults_replay(e->p.faults))
		return 0; /* the incident log gives the failures: no drawn one */
	double g = (double)sim_cluster_flavor(e->p.cluster, f)->node_cap[SIM_RES_GPU] / SIM_MILLI;
	return post_slot_event(e, after(e, sim_faults_draw_uptime(e->flt, f, node, sl->k, g)), EV_ARG_NODE_FAIL, s);
}

/* The oldest slot of flavor f waiting for a repair gets a spare from the pool. */
static int dispatch_spare(struct sim_engine *e, int f)
{
	if (!e->pool[f] || !e->waiting[f])
		return 0;
	uint32_t best = UINT32_MAX, n = sim_cluster_n_nodes(e->p.cluster, f);
	for (uint32_t i = 0; i < n; i++) {
		const struct node_slot *sl = &e->slots[e->slot_base[f] + i];
		if (sl->state == SLOT_WAIT_REPAIR &&
		    (best == UINT32_MAX || sl->down_since < e->slots[e->slot_base[f] + best].down_since))
			best = i;
	}
	uint32_t s = e->slot_base[f] + best;
	pool_move(e, f, -1, -1);
	e->slots[s].state = SLOT_REPLACING;
	e->ctr.nodes_replaced++;
	return post_slot_event(e, after(e, (sim_time_t)llround(e->p.faults->node[f].replace_s * 1e9)),
			       EV_ARG_SPARE_IN, s);
}

/* A node fails: it leaves placement at once, its jobs stop (node_failed), its
 * repair starts (rep_ns, or SIM_TIME_NONE: drawn from the flavor's repair law),
 * and a spare is sent to its slot when the pool has one. */
static int node_fails(struct sim_engine *e, uint32_t s, sim_time_t rep_ns)
{
	struct node_slot *sl = &e->slots[s];
	int f = sl->flavor;
	uint32_t node = s - e->slot_base[f];
	e->ctr.nodes_failed++;
	e->n_nodes_down++;
	e->policy_event = 1;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=node_failed flavor=%s node=%u uptime_s=%.3f\n", sim_time_to_s(e->now),
			sim_cluster_flavor(e->p.cluster, f)->name, node, sim_time_to_s(e->now - sl->up_since));
	int rc = 0;
	if (sim_cluster_node_down(e->p.cluster, f, node))
		rc = interrupt_on_nodes(e, f, &node, 1, SIM_STOP_NODE_FAILED);
	if (rc)
		return rc;
	sim_time_t rep = rep_ns != SIM_TIME_NONE ? rep_ns : sim_faults_draw_repair(e->flt, f, node, sl->k);
	sl->k++;
	sl->down_since = e->now;
	sl->state = SLOT_WAIT_REPAIR;
	pool_move(e, f, 0, +1);
	if ((rc = post_slot_event(e, after(e, rep), EV_ARG_NODE_REPAIRED, s)))
		return rc;
	return dispatch_spare(e, f);
}

/* The node that failed from slot s is repaired: back in its slot if the slot
 * still waits for it, else into the pool (which may refill another slot). */
static int node_repaired(struct sim_engine *e, uint32_t s)
{
	struct node_slot *sl = &e->slots[s];
	int f = sl->flavor;
	e->ctr.nodes_repaired++;
	if (sl->state == SLOT_WAIT_REPAIR) {
		pool_move(e, f, 0, -1);
		return slot_up(e, s, "repaired");
	}
	pool_move(e, f, +1, 0);
	return dispatch_spare(e, f);
}

static int apply_node_fault(struct sim_engine *e, const struct sim_event *ev)
{
	if (!e->slots || ev->job >= e->n_slots)
		return -SIM_EINVAL;
	e->n_fault_pending--;
	switch (ev->arg) {
	case EV_ARG_NODE_FAIL:
		return node_fails(e, ev->job, SIM_TIME_NONE);
	case EV_ARG_NODE_REPAIRED:
		return node_repaired(e, ev->job);
	case EV_ARG_SPARE_IN:
		return slot_up(e, ev->job, "replaced");
	default:
		return -SIM_EINVAL;
	}
}

/* ---- replay of an incident log (docs/faults.md, "Replay of an incident log") ---- */

/* A row that finds nothing to do is counted and logged, not an error. */
static int replay_ignore(struct sim_engine *e, const struct sim_fault_event *fv, const char *why)
{
	e->ctr.replay_ignored++;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=replay_ignored line=%u reason=%s\n", sim_time_to_s(e->now), fv->line,
			why);
	return 0;
}

/* One row of the log, at its time. */
static int apply_replay_event(struct sim_engine *e, const struct sim_event *ev)
{
	const struct sim_fault_events *fe = e->p.faults ? e->p.faults->events : NULL;
	if (!fe || ev->job >= fe->n)
		return -SIM_EINVAL;
	e->n_fault_pending--;
	const struct sim_fault_event *fv = &fe->v[ev->job];
	if (fv->kind == SIM_FEV_SLOW) {
		uint32_t g = e->slow_base[fv->flavor] + fv->node;
		if (e->slow_nodes[g].factor < 1.0)
			return replay_ignore(e, fv, "node_slow"); /* an episode is on: they do not overlap */
		return slow_episode(e, fv->flavor, g, fv->factor, fv->duration_ns);
	}
	if (fv->kind == SIM_FEV_NODE_FAIL) {
		uint32_t s = e->slot_base[fv->flavor] + fv->node;
		if (e->slots[s].state != SLOT_UP)
			return replay_ignore(e, fv, "node_down");
		return node_fails(e, s, fv->repair_ns);
	}
	uint32_t j = e->replay_job[ev->job];
	if (j == UINT32_MAX)
		return replay_ignore(e, fv, "unknown_job");
	struct sim_job *job = &e->p.trace->jobs[j];
	if (job->state != SIM_JOB_RUNNING)
		return replay_ignore(e, fv, "not_running");
	if (fv->kind == SIM_FEV_CRASH) { /* its pending hang kill or spot stop, if any, is cancelled by the stop */
		e->ctr.crashes++;
		return fault_stop(e, job, SIM_STOP_CRASHED);
	}
	if (fv->kind == SIM_FEV_LOSS_SPIKE) /* as a drawn spike: a full restart from an earlier checkpoint */
		return fault_stop(e, job, SIM_STOP_LOSS_SPIKE);
	if (FX(e, job)->hang_ns || FX(e, job)->fault_ev) /* hung already, or a spot stop is on its way */
		return replay_ignore(e, fv, "busy");
	return apply_job_fault(e, job, FINISH_HANG);
}

struct id_idx {
	const char *id;
	uint32_t idx;
};

static int cmp_id(const void *a, const void *b)
{
	const struct id_idx *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_id_only(const void *a, const void *b)
{
	return strcmp(((const struct id_idx *)a)->id, ((const struct id_idx *)b)->id);
}

/* Each job row's job, by id (sorted ids, binary search), and every row queued. */
static int replay_start(struct sim_engine *e)
{
	const struct sim_fault_events *fe = e->p.faults->events;
	const struct sim_trace *t = e->p.trace;
	e->replay_job = malloc((fe->n ? fe->n : 1) * sizeof *e->replay_job);
	if (!e->replay_job)
		return -SIM_ENOMEM;
	struct id_idx *ids = NULL;
	if (fe->has_kind[SIM_FEV_CRASH] || fe->has_kind[SIM_FEV_HANG] || fe->has_kind[SIM_FEV_LOSS_SPIKE]) {
		ids = malloc((t->n_jobs ? t->n_jobs : 1) * sizeof *ids);
		if (!ids)
			return -SIM_ENOMEM;
		for (size_t i = 0; i < t->n_jobs; i++)
			ids[i] = (struct id_idx){ sim_job_id(t, &t->jobs[i]), (uint32_t)i };
		qsort(ids, t->n_jobs, sizeof *ids, cmp_id);
	}
	int rc = 0;
	for (size_t i = 0; i < fe->n && !rc; i++) {
		const struct sim_fault_event *fv = &fe->v[i];
		e->replay_job[i] = UINT32_MAX;
		if (fv->kind != SIM_FEV_NODE_FAIL && fv->kind != SIM_FEV_SLOW) {
			struct id_idx key = { sim_fault_event_job(fe, fv), 0 };
			const struct id_idx *hit = bsearch(&key, ids, t->n_jobs, sizeof *ids, cmp_id_only);
			while (hit && hit > ids && strcmp(hit[-1].id, key.id) == 0)
				hit--; /* an id repeated in the trace: its first job */
			if (hit)
				e->replay_job[i] = hit->idx;
		}
		struct sim_event ev = { .t = fv->t, .phase = EV_CAPACITY, .job = (uint32_t)i, .arg = EV_ARG_REPLAY };
		if (!(rc = sim_evq_push(e->evq, &ev, NULL)))
			e->n_fault_pending++; /* like drawn failures, they keep no run alive by themselves */
	}
	free(ids);
	return rc;
}

/* Every node of a flavor with failures starts up, its first failure queued; its
 * pool starts full. A replayed log queues its rows. */
static int faults_start(struct sim_engine *e)
{
	if (sim_faults_replay(e->p.faults)) {
		int rc = replay_start(e);
		if (rc)
			return rc;
	}
	if (!e->slots)
		return 0;
	e->flt_last_t = e->now;
	for (size_t f = 0; f < sim_cluster_n_flavors(e->p.cluster); f++) {
		if (!sim_faults_nodes_any(e->p.faults, (int)f))
			continue;
		e->pool[f] = e->p.faults->node[f].spares;
		for (uint32_t i = 0; i < sim_cluster_n_nodes(e->p.cluster, (int)f); i++) {
			int rc = slot_up(e, e->slot_base[f] + i, NULL);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* ---- autoscaling (docs/capacity.md, "Autoscaled node groups") ---- */

/* Integrates the node-seconds (and their price) of the autoscaled nodes up to now,
 * from the first submit; called before every change of a flavor's nodes up, and at
 * the end. */
static void as_touch(struct sim_engine *e)
{
	double dt = sim_time_to_s(e->now - e->as_last_t);
	e->as_last_t = e->now;
	if (!(dt > 0) || e->cap_last_t == SIM_TIME_NONE) /* nothing is billed before the first submit */
		return;
	for (size_t f = 0; f < sim_cluster_n_flavors(e->p.cluster); f++) {
		if (!e->as_up[f])
			continue;
		double node_s = (double)e->as_up[f] * dt;
		e->ctr.as_node_s += node_s;
		e->ctr.as_cost += sim_cluster_flavor(e->p.cluster, (int)f)->price_per_node_hour * node_s / 3600.0;
	}
}

static int as_post(struct sim_engine *e, sim_time_t at, int64_t kind, uint32_t g)
{
	struct sim_event ev = { .t = at, .phase = EV_CAPACITY, .job = g, .arg = kind };
	int rc = sim_evq_push(e->evq, &ev, NULL);
	if (!rc)
		e->n_as_pending++;
	return rc;
}

/* 1 when nothing is allocated on the node: every resource free. */
static int as_node_idle(const struct sim_engine *e, int f, uint32_t node)
{
	const struct sim_cluster *c = e->p.cluster;
	const sim_qty_t *fr = sim_cluster_node_free(c, f, node);
	const sim_qty_t *cap = sim_cluster_flavor(c, f)->node_cap;
	for (int r = 0; r < sim_cluster_resources(c)->n; r++)
		if (fr[r] != cap[r])
			return 0;
	return 1;
}

/* The node became idle now: its idle timeout starts (an earlier check queued for
 * it finds idle_since moved and does nothing). */
static int as_idle_from_now(struct sim_engine *e, uint32_t g)
{
	struct as_node *n = &e->as_nodes[g];
	n->idle_since = e->now;
	return as_post(e, after(e, e->p.autoscale->fl[n->flavor].idle_timeout_ns), EV_ARG_AS_IDLE, g);
}

/* 1 when some option of the job may run on an autoscaled flavor (or any flavor). */
static int as_may_want(const struct sim_engine *e, const struct sim_job *job)
{
	for (int k = 0; k < job->n_opts; k++) {
		int f = sim_job_opt(e->p.trace, job, k)->flavor_id;
		if (f == SIM_FLAVOR_ANY || sim_autoscale_on(e->p.autoscale, f))
			return 1;
	}
	return 0;
}

/* A job became queued (submitted, or stopped and queued again): it joins the demand
 * list, and a scale-up evaluation runs after this time's passes. */
static void as_note_queued(struct sim_engine *e, const struct sim_job *job)
{
	if (!e->as_run || e->as_listed[job->idx] || !as_may_want(e, job))
		return;
	uint32_t *nd = sim_grow(e->as_demand, &e->cap_as_demand, e->n_as_demand, sizeof *nd, 256);
	if (!nd) {
		e->oom = 1;
		return;
	}
	e->as_demand = nd;
	e->as_demand[e->n_as_demand++] = job->idx;
	e->as_listed[job->idx] = 1;
	e->as_dirty = 1;
}

/* Copies the nodes a running job on an autoscaled flavor holds (before their
 * release); returns how many (0 on other flavors). */
static size_t as_snapshot_nodes(struct sim_engine *e, const struct sim_job *job)
{
	const struct sim_alloc *a = &job->alloc;
	if (!e->as_run || a->n_nodes == 0 || !sim_autoscale_on(e->p.autoscale, a->flavor))
		return 0;
	for (uint32_t k = 0; k < a->n_nodes; k++)
		e->as_scratch[k] = a->n_nodes == 1 ? a->node : a->nodes[k];
	return a->n_nodes;
}

/* After a release: each of the n snapshot nodes that is idle now starts its timeout. */
static int as_nodes_released(struct sim_engine *e, int flavor, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint32_t node = e->as_scratch[k], g = e->as_base[flavor] + node;
		if (e->as_nodes[g].state != AS_UP || !as_node_idle(e, flavor, node))
			continue;
		int rc = as_idle_from_now(e, g);
		if (rc)
			return rc;
	}
	return 0;
}

/* One node of flavor f is asked for: the lowest-numbered node off, arriving after
 * the flavor's k-th provisioning delay. */
static int as_provision(struct sim_engine *e, int f)
{
	uint32_t n = sim_cluster_n_nodes(e->p.cluster, f), base = e->as_base[f], i = 0;
	while (i < n && e->as_nodes[base + i].state != AS_OFF)
		i++;
	if (i == n)
		return -SIM_ESTATE; /* the request rule keeps up + provisioning <= max_nodes */
	sim_time_t d = sim_autoscale_draw_delay(e->as_run, f, e->as_draws[f]++);
	e->as_nodes[base + i].state = AS_PROV;
	e->as_prov[f]++;
	e->n_as_prov++;
	e->ctr.as_requested++;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=scale_up flavor=%s node=%u ready_s=%.3f\n", sim_time_to_s(e->now),
			sim_cluster_flavor(e->p.cluster, f)->name, i, sim_time_to_s(after(e, d)));
	return as_post(e, after(e, d), EV_ARG_AS_ARRIVE, base + i);
}

/* Adds a queued job's unplaced demand to its flavor's count: nothing when one of
 * the options it may use now fits the free capacity (it waits for its turn, not for
 * nodes); else its request is packed, by GPUs, onto new nodes of the first
 * autoscaled flavor among those options that could hold it: a request larger than
 * a node takes ceil(gpu / node gpu) nodes of its own, a smaller one goes onto the
 * last node packed when its GPUs are left there, else onto a new node (next fit). */
static void as_count_demand(struct sim_engine *e, const struct sim_job *job)
{
	const struct sim_cluster *c = e->p.cluster;
	int8_t opts[SIM_MAX_OPTIONS];
	int n = fallback_choose(e, job, opts), want = -1;
	const sim_qty_t *wreq = NULL;
	for (int i = 0; i < n; i++) {
		if (opts[i] < 0 || opts[i] >= job->n_opts)
			continue;
		const struct sim_job_option *o = sim_job_opt(e->p.trace, job, opts[i]);
		size_t lo = o->flavor_id == SIM_FLAVOR_ANY ? 0 : (size_t)o->flavor_id;
		size_t hi = o->flavor_id == SIM_FLAVOR_ANY ? sim_cluster_n_flavors(c) : lo + 1;
		for (size_t f = lo; f < hi; f++) {
			if (sim_cluster_fits(c, (int)f, o->req))
				return;
			if (want < 0 && sim_autoscale_on(e->p.autoscale, (int)f) && sim_cluster_could_fit(c, (int)f, o->req)) {
				want = (int)f;
				wreq = o->req;
			}
		}
	}
	if (want < 0)
		return;
	sim_qty_t ng = sim_cluster_flavor(c, want)->node_cap[SIM_RES_GPU], g = wreq[SIM_RES_GPU];
	if (g > ng) {
		e->as_need[want] += (uint32_t)((g + ng - 1) / ng);
	} else if (e->as_room[want] < 0 || g > e->as_room[want]) {
		e->as_need[want]++;
		e->as_room[want] = ng - g;
	} else {
		e->as_room[want] -= g;
	}
}

/* Scale-up, after the passes of a time at which a job became queued or nodes
 * arrived: the queued jobs of the demand list that fit nowhere they may run now
 * are packed onto new nodes per flavor (as_count_demand); the shortfall is what
 * that needs beyond the nodes already provisioning, and the mode turns it into a
 * request (sim/autoscale.h). Jobs no longer queued leave the list. */
static int as_evaluate(struct sim_engine *e)
{
	const struct sim_autoscale *a = e->p.autoscale;
	size_t nf = sim_cluster_n_flavors(e->p.cluster);
	int room = 0;
	e->as_dirty = 0;
	for (size_t f = 0; f < nf; f++) {
		e->as_need[f] = 0;
		e->as_room[f] = -1;
		room |= a->fl[f].on && e->as_up[f] + e->as_prov[f] < a->fl[f].max_nodes;
	}
	if (!room)
		return 0; /* every autoscaled flavor is at its maximum: nothing to ask for */
	size_t w = 0;
	for (size_t i = 0; i < e->n_as_demand; i++) {
		const struct sim_job *job = &e->p.trace->jobs[e->as_demand[i]];
		if (job->state != SIM_JOB_QUEUED) {
			e->as_listed[job->idx] = 0;
			continue;
		}
		e->as_demand[w++] = job->idx;
		as_count_demand(e, job);
	}
	e->n_as_demand = w;
	for (size_t f = 0; f < nf; f++) {
		const struct sim_as_flavor *af = &a->fl[f];
		if (!af->on)
			continue;
		uint32_t short_n = e->as_need[f] > e->as_prov[f] ? e->as_need[f] - e->as_prov[f] : 0;
		uint32_t ask = sim_autoscale_request((enum sim_as_mode)af->mode, short_n, e->as_up[f], e->as_prov[f],
						     af->max_nodes);
		for (uint32_t k = 0; k < ask; k++) {
			int rc = as_provision(e, (int)f);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* A provisioned node comes up: online, idle from now, and another evaluation (the
 * jobs it was asked for may have lost it to others). */
static int as_arrive(struct sim_engine *e, uint32_t g)
{
	struct as_node *n = &e->as_nodes[g];
	int f = n->flavor;
	uint32_t node = g - e->as_base[f];
	as_touch(e);
	n->state = AS_UP;
	e->as_prov[f]--;
	e->n_as_prov--;
	e->as_up[f]++;
	sim_cluster_node_up(e->p.cluster, f, node);
	e->policy_event = 1; /* capacity grew: a pass even with nothing new queued */
	e->as_dirty = 1;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=node_up flavor=%s node=%u how=provisioned\n", sim_time_to_s(e->now),
			sim_cluster_flavor(e->p.cluster, f)->name, node);
	return as_idle_from_now(e, g);
}

/* A node's idle check: given back when it is up, has been idle for the whole
 * timeout (idle_since did not move since this check was queued) and the flavor has
 * more than min_nodes up. A node kept for the minimum is checked again only when it
 * next becomes idle. */
static int as_idle_check(struct sim_engine *e, uint32_t g)
{
	struct as_node *n = &e->as_nodes[g];
	int f = n->flavor;
	uint32_t node = g - e->as_base[f];
	const struct sim_as_flavor *af = &e->p.autoscale->fl[f];
	if (n->state != AS_UP || e->now - n->idle_since < af->idle_timeout_ns || !as_node_idle(e, f, node) ||
	    e->as_up[f] <= af->min_nodes)
		return 0;
	as_touch(e);
	sim_cluster_node_down(e->p.cluster, f, node); /* idle: offline at once, nothing to stop */
	n->state = AS_OFF;
	e->as_up[f]--;
	e->ctr.as_removed++;
	e->as_dirty = 1; /* a queued job that needs more nodes than were idle asks again */
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=scale_down flavor=%s node=%u idle_s=%.3f\n", sim_time_to_s(e->now),
			sim_cluster_flavor(e->p.cluster, f)->name, node, sim_time_to_s(e->now - n->idle_since));
	return 0;
}

static int apply_autoscale_event(struct sim_engine *e, const struct sim_event *ev)
{
	if (!e->as_run || e->as_nodes[ev->job].flavor < 0)
		return -SIM_EINVAL;
	e->n_as_pending--;
	return ev->arg == EV_ARG_AS_ARRIVE ? as_arrive(e, ev->job) : as_idle_check(e, ev->job);
}

/* The initial nodes of every autoscaled flavor are up and idle from the start. */
static int autoscale_start(struct sim_engine *e)
{
	if (!e->as_run)
		return 0;
	e->as_last_t = e->now;
	for (size_t f = 0; f < sim_cluster_n_flavors(e->p.cluster); f++) {
		if (!sim_autoscale_on(e->p.autoscale, (int)f))
			continue;
		for (uint32_t i = 0; i < sim_cluster_n_nodes(e->p.cluster, (int)f); i++) {
			if (sim_cluster_node_state(e->p.cluster, (int)f, i) != SIM_NODE_ONLINE)
				continue;
			e->as_nodes[e->as_base[f] + i].state = AS_UP;
			e->as_up[f]++;
			int rc = as_idle_from_now(e, e->as_base[f] + i);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* ---- flex-start (docs/capacity.md, "Flex-start") ---- */

/* The flex-start flavor a job asks for: its option 0's, or -1. */
static int flex_flavor_of(const struct sim_engine *e, const struct sim_job *job)
{
	int f = sim_job_opt(e->p.trace, job, 0)->flavor_id;
	return f != SIM_FLAVOR_ANY && sim_flex_on(e->p.flex, f) ? f : -1;
}

/* Normal placement never uses a flex-start flavor (its nodes exist only for the
 * job they were provisioned for), nor places a job while its request is on. */
static int flex_refuses(const struct sim_engine *e, const struct sim_job *job, int f)
{
	if (!e->flex_st)
		return 0;
	uint8_t st = e->flex_st[job->idx];
	if (st == FLEX_WAIT_ROOM || st == FLEX_ASKED || st == FLEX_BACKOFF)
		return 1;
	return sim_flex_on(e->p.flex, f);
}

/* Nodes of flavor f a job's request takes: one for up to a node's GPUs, else
 * ceil(gpu / node gpu), as the cluster places it. */
static uint32_t flex_nodes_needed(const struct sim_engine *e, const struct sim_job *job, int f)
{
	const struct sim_cluster *c = e->p.cluster;
	sim_qty_t g = sim_cluster_alloc_gpu(c, f, sim_job_opt(e->p.trace, job, 0)->req);
	sim_qty_t node = sim_cluster_flavor(c, f)->node_cap[SIM_RES_GPU];
	return g <= node ? 1 : (uint32_t)((g + node - 1) / node);
}

static int flex_post(struct sim_engine *e, sim_time_t at, int64_t kind, struct sim_job *job)
{
	struct sim_event ev = { .t = at, .phase = EV_CAPACITY, .job = job->idx, .arg = kind };
	return sim_evq_push(e->evq, &ev, &e->flex_ev[job->idx]);
}

static void flex_cancel(struct sim_engine *e, struct sim_job *job)
{
	if (e->flex_ev[job->idx])
		sim_evq_cancel(e->evq, e->flex_ev[job->idx]);
	e->flex_ev[job->idx] = 0;
}

/* One request for all the job's nodes: its answer (served or failed) is drawn now,
 * or taken from the capacity trace, and queued; a trace request that nothing will
 * ever answer stays asked, with no event. */
static int flex_ask(struct sim_engine *e, struct sim_job *job, int f)
{
	uint32_t need = flex_nodes_needed(e, job, f);
	uint64_t k = e->flex_k[job->idx]++;
	int never = 0;
	struct sim_flex_outcome o =
		e->flex_taken[f] ? sim_flex_answer_trace(e->p.flex, &e->flex_draws, e->flex_taken[f], f, job->idx, k,
							 e->now, need, &never)
				 : sim_flex_draw(e->p.flex, &e->flex_draws, f, job->idx, k);
	e->flex_st[job->idx] = FLEX_ASKED;
	e->flex_used[f] += need;
	e->ctr.flex_requests++;
	if (e->p.log && never)
		fprintf(e->p.log, "[%.3f] job=%s event=flex_request flavor=%s nodes=%u attempt=%u answer_s=none\n",
			sim_time_to_s(e->now), sim_job_id(e->p.trace, job), sim_cluster_flavor(e->p.cluster, f)->name,
			need, e->flex_fails[job->idx] + 1);
	else if (e->p.log)
		fprintf(e->p.log, "[%.3f] job=%s event=flex_request flavor=%s nodes=%u attempt=%u answer_s=%.3f %s\n",
			sim_time_to_s(e->now), sim_job_id(e->p.trace, job), sim_cluster_flavor(e->p.cluster, f)->name,
			need, e->flex_fails[job->idx] + 1, sim_time_to_s(after(e, o.after_ns)),
			o.served ? "served" : "fails");
	if (never)
		return 0;
	return flex_post(e, after(e, o.after_ns), o.served ? EV_ARG_FLEX_SERVED : EV_ARG_FLEX_FAILED, job);
}

/* Jobs waiting for room in flavor f ask in the order they came, while the head's
 * nodes fit beside those up or asked for (the head blocks the others: Kueue's
 * StrictFIFO over the flavor's node limit). Entries no longer waiting leave. */
static int flex_pump(struct sim_engine *e, int f)
{
	struct flex_fifo *q = &e->flex_q[f];
	uint32_t limit = sim_cluster_n_nodes(e->p.cluster, f);
	while (q->head < q->n) {
		struct sim_job *job = &e->p.trace->jobs[q->v[q->head]];
		if (e->flex_st[job->idx] != FLEX_WAIT_ROOM) {
			q->head++;
			continue;
		}
		if (e->flex_used[f] + flex_nodes_needed(e, job, f) > limit)
			break;
		q->head++;
		int rc = flex_ask(e, job, f);
		if (rc)
			return rc;
	}
	if (q->head == q->n)
		q->head = q->n = 0;
	return 0;
}

/* A job waits for room to ask (at the back of its flavor's line). */
static int flex_wait_room(struct sim_engine *e, struct sim_job *job, int f)
{
	struct flex_fifo *q = &e->flex_q[f];
	if (q->head > 0 && q->n == q->cap) { /* reuse the room of those gone */
		memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof *q->v);
		q->n -= q->head;
		q->head = 0;
	}
	uint32_t *nv = sim_grow(q->v, &q->cap, q->n, sizeof *nv, 64);
	if (!nv)
		return -SIM_ENOMEM;
	q->v = nv;
	q->v[q->n++] = job->idx;
	e->flex_st[job->idx] = FLEX_WAIT_ROOM;
	return flex_pump(e, f);
}

/* A job became queued (submitted, or stopped and queued again): a flex job starts
 * a new round of requests (its failures count from 0). */
static int flex_note_queued(struct sim_engine *e, struct sim_job *job)
{
	if (!e->flex_st || e->flex_st[job->idx] != FLEX_NONE)
		return 0;
	int f = flex_flavor_of(e, job);
	if (f < 0)
		return 0;
	e->flex_fails[job->idx] = 0;
	return flex_wait_room(e, job, f);
}

/* A flex job stops or ends: a running one's nodes go with its release (they are
 * draining: no one else may use them), and are billed for the time they were up; a
 * queued one's request is withdrawn. Either frees room for the line. A queued job
 * stopped and kept queued (requeue) keeps its request. */
static int flex_on_stop(struct sim_engine *e, struct sim_job *job, int requeue)
{
	uint8_t st = e->flex_st[job->idx];
	int f = flex_flavor_of(e, job);
	if (f < 0 || st == FLEX_NONE || st == FLEX_GAVE_UP || (job->state != SIM_JOB_RUNNING && requeue))
		return 0;
	uint32_t need = flex_nodes_needed(e, job, f);
	if (st == FLEX_RUNNING) {
		double node_s = (double)need * sim_time_to_s(e->now - job->last_start_ns);
		e->ctr.flex_node_s += node_s;
		e->ctr.flex_cost += sim_cluster_flavor(e->p.cluster, f)->price_per_node_hour * node_s / 3600.0;
	}
	if (st == FLEX_RUNNING || st == FLEX_ASKED)
		e->flex_used[f] -= need;
	flex_cancel(e, job);
	e->flex_st[job->idx] = FLEX_NONE;
	return flex_pump(e, f);
}

/* Served: the nodes arrive together, offline ones (lowest index first) come up, the
 * job is placed on them and starts now; their free part is held back at once
 * (the nodes drain), so no other job uses them and they go when it stops. */
static int flex_served(struct sim_engine *e, struct sim_job *job, int f)
{
	struct sim_cluster *c = e->p.cluster;
	uint32_t need = flex_nodes_needed(e, job, f), up = 0;
	for (uint32_t i = 0; i < sim_cluster_n_nodes(c, f) && up < need; i++)
		if (sim_cluster_node_state(c, f, i) == SIM_NODE_OFFLINE && sim_cluster_node_up(c, f, i) == 0)
			up++;
	const struct sim_job_option *o = sim_job_opt(e->p.trace, job, 0);
	if (up < need || e->buf.n || sim_cluster_place(c, f, o->req, &job->alloc))
		return -SIM_ESTATE; /* the line keeps nodes up + asked <= the flavor's nodes */
	for (uint32_t k = 0; k < job->alloc.n_nodes; k++)
		sim_cluster_node_down(c, f, job->alloc.n_nodes == 1 ? job->alloc.node : job->alloc.nodes[k]);
	uint32_t *nj = sim_grow(e->buf.jobs, &e->buf.cap, 0, sizeof *nj, 64);
	if (!nj)
		return -SIM_ENOMEM;
	e->buf.jobs = nj;
	e->buf.jobs[e->buf.n++] = job->idx;
	job->opt_chosen = 0;
	e->flex_st[job->idx] = FLEX_RUNNING;
	int rc = commit_proposals(e);
	if (rc)
		return rc;
	return flex_post(e, after(e, e->p.flex->fl[f].max_run_ns), EV_ARG_FLEX_CUTOFF, job);
}

/* 1 when the fallback policy may take a job's later options. */
static int flex_may_fall_back(const struct sim_engine *e, const struct sim_job *job)
{
	const struct sim_policy *fb = e->p.policies[SIM_FAM_FALLBACK];
	return job->n_opts > 1 && fb && fb->ops && fb->ops->choose && !(fb->ops->provides & SIM_CAP_FB_STRICT);
}

/* Failed: retried after the backoff while retries are left (Kueue: attempt <=
 * backoffLimitCount); out of them the job falls back to its later options when the
 * fallback policy takes them, else it ends failed. */
static int flex_failed(struct sim_engine *e, struct sim_job *job, int f)
{
	const struct sim_flex_flavor *ff = &e->p.flex->fl[f];
	uint32_t n = ++e->flex_fails[job->idx];
	e->flex_used[f] -= flex_nodes_needed(e, job, f);
	e->ctr.flex_failures++;
	int rc = flex_pump(e, f);
	if (rc)
		return rc;
	if (n <= ff->retries) {
		e->flex_st[job->idx] = FLEX_BACKOFF;
		if (e->p.log)
			fprintf(e->p.log, "[%.3f] job=%s event=flex_failed retry_s=%.3f\n", sim_time_to_s(e->now),
				sim_job_id(e->p.trace, job), sim_time_to_s(after(e, sim_flex_backoff_ns(ff, n))));
		return flex_post(e, after(e, sim_flex_backoff_ns(ff, n)), EV_ARG_FLEX_RETRY, job);
	}
	e->ctr.flex_gave_up++;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] job=%s event=flex_failed retry_s=none\n", sim_time_to_s(e->now),
			sim_job_id(e->p.trace, job));
	if (flex_may_fall_back(e, job)) {
		e->flex_st[job->idx] = FLEX_GAVE_UP;
		job->fb_seen = 0; /* its other options are evaluated afresh */
		e->policy_event = 1;
		return 0;
	}
	e->flex_st[job->idx] = FLEX_NONE;
	/* It leaves its queue for good, as one whose pending limit ran out (policies
	 * hear that); its final state is failed. */
	if ((rc = stop_job(e, job, SIM_STOP_PENDING_TIMEOUT, 0, NULL)))
		return rc;
	e->ctr.pending_timeouts--;
	job->state = SIM_JOB_FAILED;
	return 0;
}

static int apply_flex_event(struct sim_engine *e, const struct sim_event *ev)
{
	if (!e->flex_st || ev->job >= e->p.trace->n_jobs)
		return -SIM_EINVAL;
	struct sim_job *job = &e->p.trace->jobs[ev->job];
	int f = flex_flavor_of(e, job);
	e->flex_ev[job->idx] = 0;
	if (f < 0)
		return -SIM_EINVAL;
	switch (ev->arg) {
	case EV_ARG_FLEX_SERVED:
		return flex_served(e, job, f);
	case EV_ARG_FLEX_FAILED:
		return flex_failed(e, job, f);
	case EV_ARG_FLEX_RETRY:
		return flex_wait_room(e, job, f);
	default: /* the cut-off: the capacity is taken back, the job queued again */
		e->ctr.flex_cutoffs++;
		if (e->p.log)
			fprintf(e->p.log, "[%.3f] job=%s event=flex_cutoff\n", sim_time_to_s(e->now),
				sim_job_id(e->p.trace, job));
		return interrupt_job(e, job);
	}
}

/* ---- spot (docs/capacity.md, "Spot capacity") ---- */

static int spot_post(struct sim_engine *e, sim_time_t at, int64_t kind, uint32_t x)
{
	struct sim_event ev = { .t = at, .phase = EV_CAPACITY, .job = x, .arg = kind };
	int rc = sim_evq_push(e->evq, &ev, NULL);
	if (!rc)
		e->n_spot_pending++;
	return rc;
}

/* A running job on a noticed node: it saves its work when it checkpoints and the
 * checkpoint overhead fits in the notice (it stops once that is written), else it
 * runs to the taking and loses the work since its last checkpoint. A gang job
 * noticed on a second node keeps its first notice. A crash or hang still to come
 * in the segment is withdrawn: the spot stop replaces it. */
static int spot_warn(struct sim_engine *e, struct sim_job *job, int f)
{
	if (e->spot_notice[job->idx] != SIM_TIME_NONE)
		return 0;
	const struct sim_spot_flavor *sf = &e->p.spot->fl[f];
	sim_time_t ov = e->p.cost.ckpt_overhead_ns;
	int save = job->checkpoint_ns != SIM_TIME_NONE && job->checkpoint_ns > 0 && ov <= sf->notice_ns &&
		   !FX(e, job)->hang_ns;
	e->spot_notice[job->idx] = e->now;
	e->spot_save[job->idx] = (uint8_t)save;
	if (FX(e, job)->fault_ev) {
		sim_evq_cancel(e->evq, FX(e, job)->fault_ev);
		FX(e, job)->fault_ev = 0;
	}
	return post_job_fault(e, job, after(e, save ? ov : sf->notice_ns), FINISH_SPOT);
}

/* A notice to node `node` of spot flavor f, if it is up: it leaves placement now,
 * its jobs are warned, and it is back notice + outage later. */
static int spot_notice(struct sim_engine *e, int f, uint32_t node)
{
	if (sim_cluster_node_state(e->p.cluster, f, node) != SIM_NODE_ONLINE)
		return 0; /* noticed already, not back yet */
	const struct sim_spot_flavor *sf = &e->p.spot->fl[f];
	e->ctr.spot_notices++;
	e->spot_k[e->spot_base[f] + node]++;
	e->n_spot_away++;
	e->policy_event = 1;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=spot_notice flavor=%s node=%u taken_s=%.3f\n", sim_time_to_s(e->now),
			sim_cluster_flavor(e->p.cluster, f)->name, node, sim_time_to_s(after(e, sf->notice_ns)));
	int rc = 0;
	if (sim_cluster_node_down(e->p.cluster, f, node) == 1) {
		e->node_mark[node] = 1;
		for (size_t i = 0; i < e->n_run && !rc; i++) {
			struct sim_job *job = &e->p.trace->jobs[e->running[i]];
			if (job->alloc.flavor == f && on_marked_node(e, job))
				rc = spot_warn(e, job, f);
		}
		e->node_mark[node] = 0;
	}
	if (rc)
		return rc;
	sim_time_t back = after(e, sf->notice_ns);
	back = back > SIM_TIME_MAX - 1 - sf->outage_ns ? SIM_TIME_MAX - 1 : back + sf->outage_ns;
	return spot_post(e, back, EV_ARG_SPOT_BACK, e->spot_base[f] + node);
}

/* Node g's next notice under its flavor's rate, counted from now. */
static int spot_arm(struct sim_engine *e, int f, uint32_t node)
{
	uint32_t g = e->spot_base[f] + node;
	sim_time_t d = sim_spot_draw_uptime(e->p.spot, &e->spot_draws, f, node, e->spot_k[g]);
	return d == SIM_TIME_NONE ? 0 : spot_post(e, after(e, d), EV_ARG_SPOT_NOTICE, g);
}

static int flavor_of_spot_node(const struct sim_engine *e, uint32_t g)
{
	int f = (int)sim_cluster_n_flavors(e->p.cluster) - 1;
	while (f > 0 && e->spot_base[f] > g)
		f--;
	return f;
}

static int apply_spot_event(struct sim_engine *e, const struct sim_event *ev)
{
	if (!e->spot_k)
		return -SIM_EINVAL;
	e->n_spot_pending--;
	if (ev->arg == EV_ARG_SPOT_TIMES) {
		int f = (int)ev->job;
		const struct sim_spot_flavor *sf = &e->p.spot->fl[f];
		e->spot_next[f]++;
		for (uint32_t i = 0; i < sim_cluster_n_nodes(e->p.cluster, f); i++) {
			int rc = spot_notice(e, f, i);
			if (rc)
				return rc;
		}
		size_t k = e->spot_next[f];
		return k < sf->n_times ? spot_post(e, sf->times[k], EV_ARG_SPOT_TIMES, (uint32_t)f) : 0;
	}
	int f = flavor_of_spot_node(e, ev->job);
	uint32_t node = ev->job - e->spot_base[f];
	if (ev->arg == EV_ARG_SPOT_NOTICE)
		return spot_notice(e, f, node);
	/* back: new spot capacity in the node's place */
	sim_cluster_node_up(e->p.cluster, f, node);
	e->n_spot_away--;
	e->spot_idle_backs++;
	e->policy_event = 1;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=node_up flavor=%s node=%u how=spot\n", sim_time_to_s(e->now),
			sim_cluster_flavor(e->p.cluster, f)->name, node);
	return spot_arm(e, f, node);
}

/* Each spot flavor's first fixed time, and under a rate every node's first notice. */
static int spot_start(struct sim_engine *e)
{
	if (!e->spot_k)
		return 0;
	for (size_t f = 0; f < sim_cluster_n_flavors(e->p.cluster); f++) {
		if (!sim_spot_on(e->p.spot, (int)f))
			continue;
		const struct sim_spot_flavor *sf = &e->p.spot->fl[f];
		int rc = sf->n_times ? spot_post(e, sf->times[0] < e->now ? e->now : sf->times[0], EV_ARG_SPOT_TIMES,
						  (uint32_t)f)
				     : 0;
		for (uint32_t i = 0; !rc && i < sim_cluster_n_nodes(e->p.cluster, (int)f); i++)
			rc = spot_arm(e, (int)f, i);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- fail-slow nodes (docs/faults.md, "Fail-slow nodes") ---- */

/* The slow time a job's segment held so far, GPUs x (wall - segment time): its
 * held GPU time x (1 - rate), piece by piece; a hung job's slowness stops at the
 * hang (the time hung is lost as a hang). Called once, when the segment ends. */
static void slow_account(struct sim_engine *e, const struct sim_job *job)
{
	sim_time_t t0 = FX(e, job)->hang_ns ? FX(e, job)->hang_ns : e->now;
	sim_time_t seg = seg_elapsed_at(e, job, t0);
	if (seg > job->runtime_ns)
		seg = job->runtime_ns; /* the end rounds up to whole ns */
	sim_time_t slow = (t0 - job->last_start_ns) - seg;
	if (slow > 0)
		e->ctr.slow_lost_gpu_s += (double)alloc_gpus(e, job) / SIM_MILLI * sim_time_to_s(slow);
}

/* The speed of a job's slowest node. */
static double slow_rate_of(const struct sim_engine *e, const struct sim_job *job)
{
	const struct sim_alloc *a = &job->alloc;
	const struct slow_node *sn = &e->slow_nodes[e->slow_base[a->flavor]];
	double r = sn[a->node].factor;
	for (uint32_t k = 0; a->n_nodes > 1 && k < a->n_nodes; k++)
		if (sn[a->nodes[k]].factor < r)
			r = sn[a->nodes[k]].factor;
	return r;
}

/* Puts a running job at the speed of its slowest node: the segment clock keeps
 * the time done so far and runs at the new rate from now on (from the hang for a
 * hung job, which has no end to move); the end moves to when the rest of the
 * segment is done at that rate (the real driver's workload slows down instead). */
static int slow_job_rate(struct sim_engine *e, struct sim_job *job)
{
	double r = slow_rate_of(e, job);
	if (r == FX(e, job)->seg_rate)
		return 0;
	sim_time_t t0 = FX(e, job)->hang_ns ? FX(e, job)->hang_ns : e->now;
	FX(e, job)->seg_base_ns = seg_elapsed_at(e, job, t0);
	FX(e, job)->seg_since_ns = t0;
	FX(e, job)->seg_rate = r;
	if (FX(e, job)->hang_ns)
		return 0;
	const struct sim_driver *drv = &e->p.driver;
	if (drv->ops->slow)
		return drv->ops->slow(drv->priv, e, job, r);
	sim_time_t rem = job->runtime_ns - FX(e, job)->seg_base_ns;
	if (rem < 0)
		rem = 0;
	double wall = r == 1.0 ? (double)rem : ceil((double)rem / r);
	if (wall > (double)(SIM_TIME_MAX / 2))
		return -SIM_ERANGE;
	sim_engine_job_end_cancel(e, job);
	return sim_engine_job_ends(e, job, e->now + (sim_time_t)wall, 0);
}

/* Every running job on global slow node g takes its new speed. */
static int slow_jobs_on(struct sim_engine *e, int f, uint32_t node)
{
	for (size_t i = 0; i < e->n_run; i++) {
		struct sim_job *job = &e->p.trace->jobs[e->running[i]];
		if (job->alloc.flavor != f)
			continue;
		int on = job->alloc.n_nodes == 1 && job->alloc.node == node;
		for (uint32_t k = 0; !on && job->alloc.n_nodes > 1 && k < job->alloc.n_nodes; k++)
			on = job->alloc.nodes[k] == node;
		int rc = on ? slow_job_rate(e, job) : 0;
		if (rc)
			return rc;
	}
	return 0;
}

static int slow_post(struct sim_engine *e, sim_time_t at, int64_t kind, uint32_t g)
{
	struct sim_event ev = { .t = at, .phase = EV_CAPACITY, .job = g, .arg = kind };
	int rc = sim_evq_push(e->evq, &ev, NULL);
	if (!rc)
		e->n_slow_pending++;
	return rc;
}

static int slow_flavor_of(const struct sim_engine *e, uint32_t g)
{
	int f = 0;
	while ((size_t)f + 1 < sim_cluster_n_flavors(e->p.cluster) && e->slow_base[f + 1] <= g)
		f++;
	return f;
}

/* Node g's next episode begins a drawn full-speed time from now. */
static int slow_arm(struct sim_engine *e, int f, uint32_t g)
{
	uint32_t node = g - e->slow_base[f];
	sim_time_t gap = sim_faults_draw_slow_gap(e->flt, f, node, e->slow_nodes[g].k);
	return slow_post(e, after(e, gap), EV_ARG_SLOW_START, g);
}

/* An episode begins: the node runs at its drawn factor for its drawn period (and
 * is detected detect_s in, when that comes first); its jobs slow down. */
static int slow_begin(struct sim_engine *e, int f, uint32_t g)
{
	const struct slow_node *sn = &e->slow_nodes[g];
	uint32_t node = g - e->slow_base[f];
	return slow_episode(e, f, g, sim_faults_draw_slow_factor(e->flt, f, node, sn->k),
			    sim_faults_draw_slow_period(e->flt, f, node, sn->k));
}

/* An episode of node g at `factor` for `period` (drawn, or a replayed log's row). */
static int slow_episode(struct sim_engine *e, int f, uint32_t g, double factor, sim_time_t period)
{
	struct slow_node *sn = &e->slow_nodes[g];
	const struct sim_node_slow *ns = &e->p.faults->slow[f];
	uint32_t node = g - e->slow_base[f];
	sn->factor = factor;
	e->ctr.slow_episodes++;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=node_slow flavor=%s node=%u factor=%.6g period_s=%.3f\n",
			sim_time_to_s(e->now), sim_cluster_flavor(e->p.cluster, f)->name, node, sn->factor,
			sim_time_to_s(period));
	int rc = slow_post(e, after(e, period), EV_ARG_SLOW_END, g);
	sim_time_t det = (sim_time_t)llround(ns->detect_s * (double)SIM_NS_PER_S);
	if (!rc && ns->detect && det < period)
		rc = slow_post(e, after(e, det), EV_ARG_SLOW_DETECT, g);
	return rc ? rc : slow_jobs_on(e, f, node);
}

/* The episode is detected: the node leaves placement until it ends, and the jobs
 * on it stop (slow_migrated), queued again to restart from their checkpoints. */
static int slow_detect(struct sim_engine *e, int f, uint32_t g)
{
	uint32_t node = g - e->slow_base[f];
	e->slow_nodes[g].detected = 1;
	e->ctr.slow_detected++;
	e->n_slow_down++;
	e->policy_event = 1;
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=node_slow_detected flavor=%s node=%u\n", sim_time_to_s(e->now),
			sim_cluster_flavor(e->p.cluster, f)->name, node);
	int busy = sim_cluster_node_down(e->p.cluster, f, node);
	return busy == 1 ? interrupt_on_nodes(e, f, &node, 1, SIM_STOP_SLOW_MIGRATED) : 0;
}

/* The episode ends: full speed again (back in placement if it was detected); its
 * jobs speed up; the next episode is drawn. */
static int slow_end(struct sim_engine *e, int f, uint32_t g)
{
	struct slow_node *sn = &e->slow_nodes[g];
	uint32_t node = g - e->slow_base[f];
	sn->factor = 1.0;
	sn->k++;
	if (sn->detected) {
		sn->detected = 0;
		sim_cluster_node_up(e->p.cluster, f, node);
		e->n_slow_down--;
		e->slow_idle_ups++;
		e->policy_event = 1; /* capacity grew: a pass even with nothing new queued */
	}
	if (e->p.log)
		fprintf(e->p.log, "[%.3f] event=node_full_speed flavor=%s node=%u\n", sim_time_to_s(e->now),
			sim_cluster_flavor(e->p.cluster, f)->name, node);
	int rc = slow_jobs_on(e, f, node);
	if (rc || sim_faults_slow_replayed(e->p.faults))
		return rc; /* a replayed log gives the next episode, if any */
	return slow_arm(e, f, g);
}

static int apply_slow_event(struct sim_engine *e, const struct sim_event *ev)
{
	if (!e->slow_nodes)
		return -SIM_EINVAL;
	e->n_slow_pending--;
	int f = slow_flavor_of(e, ev->job);
	switch (ev->arg) {
	case EV_ARG_SLOW_START:
		return slow_begin(e, f, ev->job);
	case EV_ARG_SLOW_END:
		return slow_end(e, f, ev->job);
	case EV_ARG_SLOW_DETECT:
		return slow_detect(e, f, ev->job);
	default:
		return -SIM_EINVAL;
	}
}

/* Every node of a fail-slow flavor: its first episode. */
static int slow_start(struct sim_engine *e)
{
	if (!e->slow_nodes || sim_faults_slow_replayed(e->p.faults))
		return 0; /* a replayed log's rows are the episodes */
	for (size_t f = 0; f < sim_cluster_n_flavors(e->p.cluster); f++) {
		if (!sim_faults_slow_any(e->p.faults, (int)f))
			continue;
		for (uint32_t i = 0; i < sim_cluster_n_nodes(e->p.cluster, (int)f); i++) {
			int rc = slow_arm(e, (int)f, e->slow_base[f] + i);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Nothing left but stock-out transitions, which never end: stop when no job is
 * queued or running, or when queued jobs can never start (nothing runs, every
 * flavor is in stock: capacity will never be larger than now, and a pass at this
 * capacity has run). */
static int only_endless_events_left(const struct sim_engine *e)
{
	size_t endless = e->n_stock_models + e->n_tickers + e->n_fault_pending + e->n_as_pending + e->n_spot_pending +
			e->n_slow_pending;
	if (!endless || e->next_submit < e->p.trace->n_jobs || e->n_running)
		return 0;
	if (sim_evq_size(e->evq) > endless)
		return 0;
	/* Ticks change no capacity: with nothing running and nothing to come, a job
	 * still queued can never start. Node faults: it may once failed nodes return. */
	if (e->n_queued == 0)
		return 1;
	if (e->n_as_prov) /* a node on its way may let a queued job start */
		return 0;
	/* Spot nodes away come back: one full round of returns with nothing running. */
	if (e->n_spot_away && e->spot_idle_backs <= e->n_spot_nodes)
		return 0;
	/* Nodes out after a slow detection come back too: the same round. */
	if (e->n_slow_down && e->slow_idle_ups <= e->n_slow_nodes)
		return 0;
	if (e->n_stock_models && e->n_out_of_stock)
		return 0;
	/* Nodes come and go without end: a queued job gets one full round of returns
	 * (as many as there are slots) with nothing running before the run stops. */
	return e->n_nodes_down == 0 || e->idle_ups > e->n_fault_slots;
}

/* One pass: the driving policy proposes; victims stop first, then the starts. */
static int decision_pass(struct sim_engine *e)
{
	struct sim_policy *pol = e->driver_pol;
	e->ctr.decision_passes++;
	e->buf.n = 0;
	e->buf.n_victims = 0;
	int rc = pol->ops->pick(pol, &e->view, &e->buf);
	if (rc)
		return rc;
	for (size_t i = 0; i < e->buf.n_victims; i++)
		if ((rc = apply_preemption(e, &e->buf.victims[i])))
			return rc;
	if (e->buf.n_victims)
		e->changed = 1; /* the freed capacity is offered in another pass at this time */
	return commit_proposals(e);
}

/* The job of the next event, when it is a finish: its record (last touched when
 * it started, long ago in a large run, so out of the caches) is asked for now,
 * while the time advances and the samples are taken, instead of when its
 * stop reads it. No effect on any result. */
static void prefetch_finish_job(const struct sim_engine *e, const struct sim_event *ev)
{
	if (ev->phase != EV_FINISH || ev->job >= e->p.trace->n_jobs)
		return;
	const char *p = (const char *)&e->p.trace->jobs[ev->job];
	for (size_t off = 0; off < sizeof(struct sim_job); off += 64)
		__builtin_prefetch(p + off);
}

/* Earliest pending time: heap events and the next trace submit. */
static sim_time_t next_time(struct sim_engine *e)
{
	struct sim_event ev;
	sim_time_t t = SIM_TIME_MAX;
	if (sim_evq_peek(e->evq, &ev) == 0) {
		t = ev.t;
		prefetch_finish_job(e, &ev);
	}
	if (e->next_submit < e->p.trace->n_jobs) {
		sim_time_t ts = e->p.trace->jobs[e->next_submit].submit_ns;
		if (ts < t)
			t = ts;
	}
	return t;
}

/* Applies every event with time <= now, in (t, phase, seq) order; trace submits are
 * merged in as phase EV_SUBMIT. With hold_late, the events at now of phase EV_TIMEOUT
 * and later stay queued: the decision pass at now comes before the pending limits
 * that run out at now (docs/design.md, "Pending limit"). */
static int apply_due_events(struct sim_engine *e, int hold_late)
{
	struct sim_trace *t = e->p.trace;
	for (;;) {
		struct sim_event ev;
		int have_ev = sim_evq_peek(e->evq, &ev) == 0 && ev.t <= e->now &&
			      !(hold_late && ev.t == e->now && ev.phase >= EV_TIMEOUT);
		int have_sub = e->next_submit < t->n_jobs && t->jobs[e->next_submit].submit_ns <= e->now;
		if (!have_ev && !have_sub)
			return 0;
		int take_sub = have_sub &&
			       (!have_ev || t->jobs[e->next_submit].submit_ns < ev.t ||
				(t->jobs[e->next_submit].submit_ns == ev.t && ev.phase >= EV_SUBMIT));
		if (take_sub) {
			apply_submit(e, &t->jobs[e->next_submit++]);
		} else {
			sim_evq_pop(e->evq, &ev);
			int rc = apply_event(e, &ev);
			if (rc)
				return rc;
		}
		e->ctr.events++;
		e->changed = 1;
		if (e->p.progress && sim_tick_due(&e->progress_tick))
			e->p.progress(e->p.progress_arg, e->n_done, t->n_jobs, e->now);
	}
}

/* Passes repeat at this time while a pass preempted (its victims' capacity goes to
 * the preemptors in the next). */
static int run_passes(struct sim_engine *e)
{
	int rc = 0;
	for (unsigned passes = 0; e->changed && (e->n_queued || e->policy_event) && !rc; passes++) {
		e->changed = 0;
		e->policy_event = 0;
		if (passes == 100000)
			rc = -SIM_ESTATE; /* a policy that preempts without end */
		else
			rc = decision_pass(e);
	}
	e->changed = 0;
	e->policy_event = 0;
	return rc;
}

static void mark_unfinished(struct sim_engine *e)
{
	struct sim_trace *t = e->p.trace;
	/* Every job submitted and none queued or running: no job is in a state to mark
	 * (this skips a pass over every job after a run that drained). */
	if (e->next_submit == t->n_jobs && e->n_queued == 0 && e->n_running == 0)
		return;
	for (size_t i = 0; i < t->n_jobs; i++) {
		struct sim_job *j = &t->jobs[i];
		if (j->state == SIM_JOB_RUNNING) /* its open segment counts to the end */
			j->held_s += sim_time_to_s(e->now - j->last_start_ns);
		if (j->state == SIM_JOB_QUEUED || j->state == SIM_JOB_RUNNING ||
		    j->state == SIM_JOB_UNSUBMITTED)
			j->state = SIM_JOB_UNFINISHED;
	}
}

int sim_engine_run(struct sim_engine *e)
{
	const struct sim_driver *drv = &e->p.driver;
	int rc = 0;
	e->now = drv->ops->now(drv->priv);
	struct sim_policy *qp = e->p.policies[SIM_FAM_QUOTA];
	e->driver_pol = qp && qp->ops && qp->ops->pick ? qp : e->p.policies[SIM_FAM_ORDER];
	e->ts.has_quota_stats = qp && qp->ops && qp->ops->queue_stats;
	for (size_t q = 0; q < e->p.trace->n_queues; q++)
		e->qacct[q].last_t = e->now;
	q_refresh_nominal(e);
	e->next_sample = 0;
	e->sample_ns = e->p.sample_ns;
	if (e->p.progress)
		sim_tick_init(&e->progress_tick, SIM_PROGRESS_PERIOD_S, sim_tick_monotonic_s, NULL);
	if ((rc = capacity_start(e)) || (rc = ticks_start(e)) || (rc = faults_start(e)) || (rc = autoscale_start(e)) ||
	    (rc = spot_start(e)) || (rc = ckpt_start(e)) || (rc = slow_start(e)))
		return rc;
	for (;;) {
		sim_time_t t = next_time(e);
		if (t == SIM_TIME_MAX && e->n_running == 0)
			break; /* nothing scheduled, nothing running: queued jobs can never start */
		if (only_endless_events_left(e))
			break;
		if ((rc = drv->ops->advance(drv->priv, e, t)))
			break;
		sim_time_t now = drv->ops->now(drv->priv);
		assert(now >= e->now); /* time never goes backwards */
		/* Samples before now show the state before its events (a real driver may
		 * wake before t, when a workload ends). */
		if ((rc = ts_sample_until(e, now)))
			break;
		e->now = now;
		cap_touch(e);
		/* Decide first, then time out: the passes run after the events at now up to
		 * the submits, then the pending limits due at now apply, then passes again
		 * if they changed anything (a blocking head that timed out). */
		for (int stage = 0; stage < 2 && !rc; stage++) {
			if ((rc = apply_due_events(e, stage == 0)))
				break;
			if (e->oom) {
				rc = -SIM_ENOMEM;
				break;
			}
			rc = run_passes(e);
		}
		if (!rc && e->as_dirty)
			rc = as_evaluate(e);
		if (rc)
			break;
	}
	for (size_t q = 0; q < e->p.trace->n_queues; q++)
		q_touch(e, (int32_t)q);
	if (e->slots)
		pool_touch(e);
	if (e->as_run)
		as_touch(e);
	if (!rc)
		rc = ts_sample_until(e, e->now + 1);
	mark_unfinished(e);
	if (e->p.progress)
		e->p.progress(e->p.progress_arg, e->n_done, e->p.trace->n_jobs, e->now);
	return rc;
}
