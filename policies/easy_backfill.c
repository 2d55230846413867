/* policies/easy_backfill.c: EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001).
 *
 * Jobs are kept in FIFO (submit) order. A pass starts the head while it fits. When
 * the head does not fit it gets a reservation: the earliest time (the "shadow time")
 * at which it fits, in every resource of its request, if running jobs end at their
 * estimated ends, on one flavor. Then the jobs behind the head are scanned in queue
 * order (at most max_candidates of them, like Slurm's bf_max_job_test) and each that
 * fits now starts unless it would delay the reservation. A candidate does not delay it
 * when
 *   - now + its estimate <= the shadow time, or
 *   - it was placed on a flavor other than the reserved one, or
 *   - the head still fits at the shadow time once what the candidate holds is taken
 *     from the projection (a candidate ending after the shadow keeps it then).
 * Otherwise it is withdrawn (sim_placement_buf_retract) and stays queued.
 *
 * Estimates: estimated end = last start + sim_view_estimate(option, flavor), the
 * trace's estimate_s scaled like the runtime (else the duration: exact). A job
 * running past its estimate is assumed to end now. With exact estimates a head
 * never starts later than the first shadow time it was given (tests/test_backfill.c).
 *
 * Projection: the free vector (every resource of the cluster: gpu, cpu, mem_gib,
 * custom ones) of each node of the reserved flavor at the shadow time = free now +
 * what the jobs that end by then hold there (their request; a whole-node job holds
 * every resource of its nodes). Only nodes such a job runs on are stored ("touched":
 * a slot with the vector released there, reset by a touched list); other nodes are as
 * free then as now and are read from the cluster's index (sim_cluster_fits). A head
 * of up to one node's GPUs fits when one node's projected free vector is >= its
 * request in every resource; a bigger head needs k = ceil(gpu / node_gpu) nodes
 * projected fully free in every resource (the cluster's whole-node rule). The count
 * of touched nodes meeting that bound is kept incrementally, so a fit test is one
 * sim_cluster_fits call: with the head's request (single node), the node's shape (one
 * more whole node) or m whole nodes (O(1)).
 *
 * Limitations (documented choices):
 *   - The head is reserved on option 0 (what sim_placement_buf_try(-1) uses with the
 *     strict fallback). For a "*" option 0 the shadow is computed on every flavor and
 *     the earliest wins (ties: lowest flavor index).
 *   - A head that does not fit even when every running job has ended (capacity
 *     lost) gets no reservation; candidates then start whenever they fit.
 *   - Only the head holds a reservation (EASY, not conservative backfilling).
 *
 * Costs, for R running jobs, Q queued jobs, N nodes of a flavor, K request classes
 * (distinct (flavor, request) of single-option jobs), W running jobs walked until the
 * head fits (usually a few) and C = min(Q, max_candidates):
 *   on_submit, on_stop, on_start: O(log jobs) (Fenwick tree) / O(log R) (indexed
 *     heap per flavor). A requeued job is put back in place in O(position).
 *   pick: O(S log N) for S heads started, plus, when the head is blocked,
 *     - the shadow: O(W log W + W (log N + res)), a lazy walk of the running heap (a
 *       small frontier heap pops the k smallest in O(k log k); nothing is sorted),
 *       for res resources. The fit tests are sim_cluster_fits calls: O(1) for GPU-only
 *       requests and whole nodes; for a request with other resources the cluster walks
 *       nodes with enough GPUs until one has the rest (sim/cluster.c), so a cpu-bound
 *       head costs more there;
 *     - the scan of the C jobs behind the head. A job is refused without asking the
 *       cluster, in O(resources), when its request dominates (in every resource) one
 *       that already failed on its flavor in this pass (a "*" request: on every flavor
 *       where it could fit, O(flavors x resources)), or when an identical request was
 *       withdrawn since the
 *       last start and it ends after the shadow (try_candidate). The scan merges
 *       per-class lists (K <= 64) so classes that cannot fit are skipped whole:
 *       O((K + T) log K) for T jobs tested, each O(log N) to place (+ O(nodes) to
 *       withdraw). With more classes it walks the queue, O(C).
 *   A pass where only submits happened since the previous one (no finish, no
 *   preemption, no change in busy or total GPUs, same head and reservation) tests
 *   only jobs not tested before; a job withdrawn earlier is tested again if a job
 *   started after it (it may land elsewhere now).
 *   Measured (bench/gen_workload, 1M jobs, 10,000 GPUs, best_fit, 2 busy cores):
 *   whole-run wall time 1.1x fifo's at load 0.7 and 1.2x at 0.95; at load 1.2 (the
 *   queue grows to 10^5 jobs) the loop takes 3.3 s against fifo's 0.36 s (2.5x wall).
 *   With --diurnal 0.6 (seed 1, queues every day) the loop takes 0.65 s against
 *   fifo's 0.25 s (wall 1.85 s against 1.45 s). When cpus bind too (the same trace
 *   with 1-48 of a node's 96 cpus a single-node job) it takes about 67 s: nearly all
 *   in sim_cluster_place, whose walk for multi-resource requests passes every node
 *   with the GPUs but not the cpus, for candidates placed and then withdrawn.
 * Memory: about 45 bytes a job (queue node, heap index, estimate, Fenwick count),
 *   O(nodes x resources) scratch and O(K) per class, allocated at the first hook call.
 *
 * Params: max_candidates (integer >= 0, default 1000; 0 = unlimited);
 *         record_reservations (true/false, default false; easy_backfill.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "easy_backfill.h"
#include "policy.h"

#define NIL UINT32_MAX
#define DEFAULT_MAX_CANDIDATES 1000

enum { Q_NONE = 0, Q_QUEUED = 1 };

/* Per job: its place in the queue and its request class (see struct ebf). */
struct qnode {
	uint32_t next, prev;   /* queue links, NIL at the ends */
	uint32_t cnext, cprev; /* links in its class's list (struct ebf lhead) */
	uint32_t cls;          /* request class, NIL for other jobs */
	uint8_t state;         /* Q_NONE or Q_QUEUED */
};

/* A running job in its flavor's heap, keyed on (estimated end, trace index). */
struct run_entry {
	sim_time_t end_ns; /* last start + estimate, not clamped to now */
	uint32_t idx;
};

struct run_heap {
	struct run_entry *a;
	size_t n, cap;
};

struct merge_entry {
	uint32_t idx;  /* next queued job of the list */
	uint32_t list; /* class, or n_classes for the others */
};

struct req_class {
	int32_t flavor;
	sim_qty_t req[SIM_MAX_RES];
	uint64_t withdrawn_gen; /* == wd_gen: withdrawn since the last start of this pass */
};

/* The head's reservation and the projection of its flavor at the shadow time. */
struct proj {
	int flavor;          /* reserved flavor; -1 = no reservation */
	sim_time_t shadow_ns;
	/* A node "serves" the head when its projected free vector is >= thr in every
	 * resource: the head's request (single node) or the node's shape (whole nodes). */
	sim_qty_t thr[SIM_MAX_RES];
	sim_qty_t node_gpu;
	uint32_t k;          /* nodes the head needs */
	uint32_t ok;         /* touched nodes that serve the head */
};

struct ebf {
	size_t max_candidates; /* 0 = unlimited */
	int record;

	/* Per job, sized to the trace on first use. The queue is a doubly linked list
	 * over trace indices in submit order, so a backfilled job leaves in O(1). */
	size_t n_jobs;
	struct qnode *q;      /* links and request class together: one cache line a step */
	uint32_t qhead, qtail;
	size_t qlen;
	uint32_t *hpos;  /* position in run[hflav], NIL when not running */
	int32_t *hflav;

	/* Per flavor. */
	size_t n_flavors;
	struct run_heap *run;
	sim_qty_t (*failed)[SIM_MAX_RES]; /* smallest refused request this pass */
	uint8_t *has_failed;
	sim_qty_t (*minreq)[SIM_MAX_RES]; /* componentwise least request of the trace's jobs */
	uint8_t *has_jobs;
	int other_jobs;       /* some job has a "*" option 0 or a preference list */

	/* Request classes: the distinct (flavor or "*", request) of single-option jobs,
	 * interned once per run, so a scan reads compact arrays instead of job and
	 * option structs (the scan is memory-bound). */
	sim_time_t *est0;     /* per job: estimate on option 0 (exact on a named flavor, which
			       * sim_view_estimate does not scale) */
	struct req_class *classes;
	size_t n_classes;
	uint64_t wd_gen;      /* bumped at each pass and each start: see try_candidate */
	/* Queued jobs of each class in queue order; list n_classes holds the others. */
	uint32_t *lhead, *ltail;
	struct merge_entry *mh; /* the merged scan's heap, one entry per list */
	/* Fenwick tree over trace indices of queued jobs (1-based), for the window's end
	 * in O(log jobs); kept only when max_candidates bounds the window. */
	int32_t *fw;
	size_t fw_step;       /* highest power of two <= n_jobs */

	/* Scratch for the projection, sized to the largest flavor. A node is "touched"
	 * when a job on it ends by the shadow time (or a candidate there does): it gets
	 * a slot, in touch order, holding what is released there by then. */
	int nres;           /* the cluster's resources (entries used in a vector) */
	uint32_t *slot;     /* per node: its slot, NIL = untouched (all NIL between passes) */
	uint32_t *touched;  /* per slot: the node */
	sim_qty_t (*dvec)[SIM_MAX_RES]; /* per slot: milli-units released by the shadow time */
	uint8_t *serve;     /* per slot: the node serves the head (counted in pr.ok) */
	size_t n_touched;
	uint32_t delta_cap; /* nodes the scratch holds */
	uint32_t *frontier; /* positions in a run heap, a min-heap on their keys */
	size_t frontier_cap;
	struct proj pr;

	/* What changed since the last pass (incremental passes, see pick). */
	int dirty;             /* a finish or preemption happened */
	uint32_t scan_last;    /* last job the scan tested that is still queued, NIL if none */
	size_t scan_kept;      /* tested jobs still queued: a prefix of the jobs behind the head */
	int scan_withdrawn;    /* a job of that prefix was placed and withdrawn */
	int scan_stale;        /* a job started after such a withdrawal: rescan next pass */
	int scan_blocked;      /* the scan stopped: no job of the trace fits now */
	sim_qty_t busy_after, total_after; /* GPUs busy / in total when the last pass ended */
	uint32_t last_head;    /* blocked head of the last pass, NIL if none */

	struct easy_backfill_reservation *rec;
	size_t n_rec, rec_cap;
	uint32_t rec_head; /* last head recorded */

	int oom;
};

/* ---- params ---- */

static int param_bool(const struct sim_policy_env *env, const cJSON *params, const char *key, int *inout,
		      struct sim_diag *diag)
{
	const cJSON *it = params ? cJSON_GetObjectItemCaseSensitive(params, key) : NULL;
	if (!it)
		return 0;
	if (!cJSON_IsBool(it)) {
		char *txt = cJSON_PrintUnformatted(it);
		int rc = sim_diag_add(diag, env && env->file ? env->file : "config",
				      "%s.%s: expected true or false, got %s", env ? env->json_path : "$", key,
				      txt ? txt : "?");
		cJSON_free(txt);
		return rc;
	}
	*inout = cJSON_IsTrue(it);
	return 0;
}

static int ebf_init(struct sim_policy *pol, const struct sim_policy_env *env, const cJSON *params,
		    struct sim_diag *diag)
{
	static const char *const keys[] = { "max_candidates", "record_reservations", NULL };
	struct ebf *s = calloc(1, sizeof *s);
	if (!s)
		return -SIM_ENOMEM;
	pol->priv = s;
	s->qhead = s->qtail = NIL;
	s->scan_last = NIL;
	s->last_head = NIL;
	s->rec_head = NIL;
	s->pr.flavor = -1;
	int bad = sim_policy_params_check_keys(env, params, keys, diag);
	double mc = DEFAULT_MAX_CANDIDATES;
	int rc = sim_policy_param_double(env, params, "max_candidates", 0, 1e9, &mc, diag);
	if (!rc && mc != floor(mc))
		rc = sim_diag_add(diag, env && env->file ? env->file : "config",
				  "%s.max_candidates: expected an integer >= 0, got %g",
				  env ? env->json_path : "$", mc);
	bad |= rc;
	bad |= param_bool(env, params, "record_reservations", &s->record, diag);
	s->max_candidates = (size_t)mc;
	return bad ? -SIM_EPARSE : 0;
}

static void ebf_fini(struct sim_policy *pol)
{
	struct ebf *s = pol->priv;
	if (s) {
		free(s->q);
		free(s->hpos);
		free(s->hflav);
		for (size_t f = 0; s->run && f < s->n_flavors; f++)
			free(s->run[f].a);
		free(s->run);
		free(s->failed);
		free(s->has_failed);
		free(s->minreq);
		free(s->has_jobs);
		free(s->est0);
		free(s->classes);
		free(s->lhead);
		free(s->ltail);
		free(s->mh);
		free(s->fw);
		free(s->slot);
		free(s->touched);
		free(s->dvec);
		free(s->serve);
		free(s->frontier);
		free(s->rec);
	}
	free(s);
	pol->priv = NULL;
}

static uint64_t class_hash(int32_t f, const sim_qty_t *req)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(uint32_t)f;
	for (int r = 0; r < SIM_MAX_RES; r++) {
		h ^= (uint64_t)req[r];
		h *= 1099511628211ULL;
		h ^= h >> 29;
	}
	return h;
}

/* Once per run, O(jobs): each single-option job's request class (open addressing on
 * (flavor or "*", request)), its option-0 estimate, and the least request per named
 * flavor, so a scan can stop when even that cannot fit. Returns 0 or -SIM_ENOMEM. */
static int intern_classes(struct ebf *s, const struct sim_trace *t)
{
	size_t n = t->n_jobs, cap = 64, nf = s->n_flavors;
	uint32_t *slot = NULL;
	s->est0 = malloc((n + 1) * sizeof *s->est0);
	if (!s->est0)
		return -SIM_ENOMEM;
	size_t ccap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sim_job *j = &t->jobs[i];
		const struct sim_job_option *o = sim_job_opt(t, j, 0);
		s->est0[i] = j->estimate_ns < 0 ? 0 : j->estimate_ns;
		s->q[i].cls = NIL;
		if (j->n_opts != 1 || o->flavor_id < SIM_FLAVOR_ANY || o->flavor_id >= (int32_t)nf) {
			s->other_jobs = 1;
			continue;
		}
		if (!slot || 2 * s->n_classes >= cap) { /* (re)build the table at half load */
			size_t ncap = slot ? cap * 2 : cap;
			uint32_t *ns = malloc(ncap * sizeof *ns);
			if (!ns) {
				free(slot);
				return -SIM_ENOMEM;
			}
			for (size_t k = 0; k < ncap; k++)
				ns[k] = NIL;
			for (size_t c = 0; c < s->n_classes; c++) {
				size_t h = class_hash(s->classes[c].flavor, s->classes[c].req) & (ncap - 1);
				while (ns[h] != NIL)
					h = (h + 1) & (ncap - 1);
				ns[h] = (uint32_t)c;
			}
			free(slot);
			slot = ns;
			cap = ncap;
		}
		size_t h = class_hash(o->flavor_id, o->req) & (cap - 1);
		while (slot[h] != NIL && (s->classes[slot[h]].flavor != o->flavor_id ||
					  memcmp(s->classes[slot[h]].req, o->req, sizeof o->req) != 0))
			h = (h + 1) & (cap - 1);
		if (slot[h] == NIL) {
			struct req_class *ncl = sim_grow(s->classes, &ccap, s->n_classes, sizeof *ncl, 16);
			if (!ncl) {
				free(slot);
				return -SIM_ENOMEM;
			}
			s->classes = ncl;
			struct req_class *k = &s->classes[s->n_classes];
			k->flavor = o->flavor_id;
			memcpy(k->req, o->req, sizeof k->req);
			k->withdrawn_gen = 0;
			slot[h] = (uint32_t)s->n_classes++;
			if (o->flavor_id == SIM_FLAVOR_ANY) {
				s->other_jobs = 1; /* nothing_fits reasons per named flavor */
			} else {
				sim_qty_t *m = s->minreq[o->flavor_id];
				for (int r = 0; r < SIM_MAX_RES; r++)
					if (!s->has_jobs[o->flavor_id] || o->req[r] < m[r])
						m[r] = o->req[r];
				s->has_jobs[o->flavor_id] = 1;
			}
		}
		s->q[i].cls = slot[h];
	}
	free(slot);
	s->wd_gen = 1;
	s->lhead = malloc((s->n_classes + 1) * sizeof *s->lhead);
	s->ltail = malloc((s->n_classes + 1) * sizeof *s->ltail);
	s->mh = malloc((s->n_classes + 1) * sizeof *s->mh);
	if (!s->lhead || !s->ltail || !s->mh)
		return -SIM_ENOMEM;
	for (size_t l = 0; l <= s->n_classes; l++)
		s->lhead[l] = s->ltail[l] = NIL;
	if (s->max_candidates) {
		s->fw = calloc(n + 1, sizeof *s->fw);
		if (!s->fw)
			return -SIM_ENOMEM;
		for (s->fw_step = 1; s->fw_step * 2 <= n; s->fw_step *= 2)
			;
	}
	return 0;
}

/* Allocates the per-job and per-flavor arrays on first use (the trace and cluster
 * are fixed for a run), and grows the node scratch when a flavor grew. */
static int ensure_state(struct ebf *s, const struct sim_view *v)
{
	if (s->oom)
		return -SIM_ENOMEM;
	const struct sim_cluster *c = sim_view_cluster(v);
	if (!s->q) {
		size_t n = sim_view_trace(v)->n_jobs;
		size_t nf = sim_cluster_n_flavors(c);
		s->q = calloc(n + 1, sizeof *s->q);
		s->hpos = malloc((n + 1) * sizeof *s->hpos);
		s->hflav = malloc((n + 1) * sizeof *s->hflav);
		s->run = calloc(nf + 1, sizeof *s->run);
		s->failed = calloc(nf + 1, sizeof *s->failed);
		s->has_failed = calloc(nf + 1, sizeof *s->has_failed);
		s->minreq = calloc(nf + 1, sizeof *s->minreq);
		s->has_jobs = calloc(nf + 1, sizeof *s->has_jobs);
		if (!s->q || !s->hpos || !s->hflav || !s->run || !s->failed ||
		    !s->has_failed || !s->minreq || !s->has_jobs) {
			s->oom = 1;
			return -SIM_ENOMEM;
		}
		for (size_t i = 0; i < n; i++)
			s->hpos[i] = NIL;
		s->n_jobs = n;
		s->n_flavors = nf;
		s->nres = sim_cluster_resources(c)->n;
		if (intern_classes(s, sim_view_trace(v))) {
			s->oom = 1;
			return -SIM_ENOMEM;
		}
	}
	uint32_t need = 0;
	for (size_t f = 0; f < s->n_flavors; f++) {
		uint32_t nn = sim_cluster_n_nodes(c, (int)f);
		if (nn > need)
			need = nn;
	}
	if (need > s->delta_cap) {
		/* Between passes no node is touched (n_touched == 0): only slot[] keeps state. */
		uint32_t *nsl = realloc(s->slot, need * sizeof *nsl);
		if (nsl)
			s->slot = nsl;
		uint32_t *nt = realloc(s->touched, need * sizeof *nt);
		if (nt)
			s->touched = nt;
		sim_qty_t(*nd)[SIM_MAX_RES] = realloc(s->dvec, need * sizeof *nd);
		if (nd)
			s->dvec = nd;
		uint8_t *nv = realloc(s->serve, need * sizeof *nv);
		if (nv)
			s->serve = nv;
		if (!nsl || !nt || !nd || !nv) {
			s->oom = 1;
			return -SIM_ENOMEM;
		}
		for (uint32_t i = s->delta_cap; i < need; i++)
			s->slot[i] = NIL;
		s->delta_cap = need;
	}
	return 0;
}

/* ---- the FIFO queue: a doubly linked list over trace indices ---- */

/* Fenwick tree: d queued jobs more at trace index idx. O(log jobs). */
static void fw_add(struct ebf *s, uint32_t idx, int32_t d)
{
	if (!s->fw)
		return;
	for (size_t i = (size_t)idx + 1; i <= s->n_jobs; i += i & (~i + 1))
		s->fw[i] += d;
}

/* Queued jobs with trace index <= idx. O(log jobs). */
static size_t fw_prefix(const struct ebf *s, uint32_t idx)
{
	size_t sum = 0;
	for (size_t i = (size_t)idx + 1; i > 0; i -= i & (~i + 1))
		sum += (size_t)s->fw[i];
	return sum;
}

/* Trace index of the k-th queued job (k >= 1, k <= qlen). O(log jobs). */
static uint32_t fw_select(const struct ebf *s, size_t k)
{
	size_t pos = 0;
	for (size_t step = s->fw_step; step; step >>= 1)
		if (pos + step <= s->n_jobs && (size_t)s->fw[pos + step] < k) {
			pos += step;
			k -= (size_t)s->fw[pos];
		}
	return (uint32_t)pos; /* 1-based pos + 1, as a 0-based index */
}

/* The links of a node in the queue (cls 0) or in its class's list (cls 1). */
static uint32_t *lnext(struct qnode *q, uint32_t i, int cls)
{
	return cls ? &q[i].cnext : &q[i].next;
}

static uint32_t *lprev(struct qnode *q, uint32_t i, int cls)
{
	return cls ? &q[i].cprev : &q[i].prev;
}

/* Links idx into a list kept in trace order. Appends in O(1) (submits come in trace
 * order); a requeued job walks from the head, O(position). */
static void list_insert(struct qnode *q, uint32_t *head, uint32_t *tail, uint32_t idx, int cls)
{
	uint32_t at = NIL;
	if (*tail != NIL && *tail > idx)
		for (at = *head; at != NIL && at < idx; at = *lnext(q, at, cls))
			;
	uint32_t before = at == NIL ? *tail : *lprev(q, at, cls);
	*lnext(q, idx, cls) = at;
	*lprev(q, idx, cls) = before;
	if (before != NIL)
		*lnext(q, before, cls) = idx;
	else
		*head = idx;
	if (at != NIL)
		*lprev(q, at, cls) = idx;
	else
		*tail = idx;
}

static void list_remove(struct qnode *q, uint32_t *head, uint32_t *tail, uint32_t idx, int cls)
{
	uint32_t p = *lprev(q, idx, cls), n = *lnext(q, idx, cls);
	if (p != NIL)
		*lnext(q, p, cls) = n;
	else
		*head = n;
	if (n != NIL)
		*lprev(q, n, cls) = p;
	else
		*tail = p;
}

static uint32_t list_of(const struct ebf *s, uint32_t idx)
{
	return s->q[idx].cls != NIL ? s->q[idx].cls : (uint32_t)s->n_classes;
}

/* The queue is in trace order (submit order; a requeued job goes back in its place),
 * so queue position and trace index order agree. */
static void q_insert(struct ebf *s, uint32_t idx)
{
	uint32_t l = list_of(s, idx);
	list_insert(s->q, &s->qhead, &s->qtail, idx, 0);
	list_insert(s->q, &s->lhead[l], &s->ltail[l], idx, 1);
	fw_add(s, idx, 1);
	s->q[idx].state = Q_QUEUED;
	s->qlen++;
}

static void q_remove(struct ebf *s, uint32_t idx)
{
	uint32_t l = list_of(s, idx);
	list_remove(s->q, &s->qhead, &s->qtail, idx, 0);
	list_remove(s->q, &s->lhead[l], &s->ltail[l], idx, 1);
	fw_add(s, idx, -1);
	s->q[idx].state = Q_NONE;
	s->qlen--;
}

/* ---- running jobs: one indexed binary min-heap per flavor ---- */

static int run_before(const struct run_entry *a, const struct run_entry *b)
{
	if (a->end_ns != b->end_ns)
		return a->end_ns < b->end_ns;
	return a->idx < b->idx;
}

static void run_set(struct ebf *s, struct run_heap *h, size_t i, struct run_entry e)
{
	h->a[i] = e;
	s->hpos[e.idx] = (uint32_t)i;
}

static void run_sift_up(struct ebf *s, struct run_heap *h, size_t i)
{
	struct run_entry e = h->a[i];
	while (i > 0 && run_before(&e, &h->a[(i - 1) / 2])) {
		run_set(s, h, i, h->a[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	run_set(s, h, i, e);
}

static void run_sift_down(struct ebf *s, struct run_heap *h, size_t i)
{
	struct run_entry e = h->a[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && run_before(&h->a[c + 1], &h->a[c]))
			c++;
		if (!run_before(&h->a[c], &e))
			break;
		run_set(s, h, i, h->a[c]);
		i = c;
	}
	run_set(s, h, i, e);
}

static sim_time_t add_sat(sim_time_t a, sim_time_t b)
{
	return b > SIM_TIME_MAX - a ? SIM_TIME_MAX : a + b;
}

/* Adds a placed job (alloc set) with estimated end start_ns + estimate. O(log R). */
static void run_insert(struct ebf *s, const struct sim_view *v, const struct sim_job *job,
		       sim_time_t start_ns)
{
	int f = job->alloc.flavor;
	if (f < 0 || (size_t)f >= s->n_flavors || s->hpos[job->idx] != NIL)
		return;
	struct run_heap *h = &s->run[f];
	struct run_entry *na = sim_grow(h->a, &h->cap, h->n, sizeof *na, 64);
	if (!na) {
		s->oom = 1;
		return;
	}
	h->a = na;
	sim_time_t est = sim_view_estimate(v, job, job->opt_chosen, f);
	h->a[h->n] = (struct run_entry){ .end_ns = add_sat(start_ns, est < 0 ? 0 : est), .idx = job->idx };
	s->hflav[job->idx] = f;
	run_sift_up(s, h, h->n++);
}

/* Removes a job by its position. O(log R). */
static void run_remove(struct ebf *s, uint32_t idx)
{
	uint32_t i = s->hpos[idx];
	if (i == NIL)
		return;
	struct run_heap *h = &s->run[s->hflav[idx]];
	s->hpos[idx] = NIL;
	struct run_entry last = h->a[--h->n];
	if (i == h->n)
		return;
	h->a[i] = last;
	s->hpos[last.idx] = i;
	if (i > 0 && run_before(&last, &h->a[(i - 1) / 2]))
		run_sift_up(s, h, i);
	else
		run_sift_down(s, h, i);
}

/* ---- notifications ---- */

static void ebf_on_submit(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct ebf *s = pol->priv;
	if (ensure_state(s, v) || job->idx >= s->n_jobs || s->q[job->idx].state == Q_QUEUED)
		return;
	q_insert(s, job->idx);
}

/* Jobs this policy proposed are already in the heap; others (started elsewhere) join. */
static void ebf_on_start(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct ebf *s = pol->priv;
	if (ensure_state(s, v) || job->idx >= s->n_jobs)
		return;
	if (s->q[job->idx].state == Q_QUEUED)
		q_remove(s, job->idx);
	run_insert(s, v, job, job->last_start_ns);
}

static void ebf_on_finish(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct ebf *s = pol->priv;
	if (ensure_state(s, v) || job->idx >= s->n_jobs)
		return;
	run_remove(s, job->idx);
	s->dirty = 1;
}

/* A victim leaves the running set; if the engine has requeued it (state queued), it
 * goes back in submit order. */
static void ebf_on_preempt(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *victim)
{
	struct ebf *s = pol->priv;
	if (ensure_state(s, v) || victim->idx >= s->n_jobs)
		return;
	run_remove(s, victim->idx);
	if (victim->state == SIM_JOB_QUEUED && s->q[victim->idx].state != Q_QUEUED)
		q_insert(s, victim->idx);
	s->dirty = 1;
}

/* A queued job that gave up (pending limit) leaves the queue. */
static void ebf_on_drop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job)
{
	struct ebf *s = pol->priv;
	if (ensure_state(s, v) || job->idx >= s->n_jobs)
		return;
	if (s->q[job->idx].state == Q_QUEUED)
		q_remove(s, job->idx);
	s->dirty = 1;
}

/* The one stop notification, by cause: a finish, a timeout, or a stop that may
 * queue the job again (a preemption, its nodes removed). */
static void ebf_on_stop(struct sim_policy *pol, const struct sim_view *v, const struct sim_job *job,
		       enum sim_stop_cause cause)
{
	switch (cause) {
	case SIM_STOP_COMPLETED:
	case SIM_STOP_FAILED:
		ebf_on_finish(pol, v, job);
		break;
	case SIM_STOP_PENDING_TIMEOUT:
		ebf_on_drop(pol, v, job);
		break;
	default:
		ebf_on_preempt(pol, v, job);
	}
}

/* ---- the projection ---- */

static uint32_t alloc_node(const struct sim_alloc *a, uint32_t i)
{
	return a->n_nodes > 1 ? a->nodes[i] : a->node;
}

/* What a placed job holds on each of its nodes (milli-units, cluster order): its
 * request, or for whole nodes every resource of the node. Borrowed from the trace
 * or the cluster. */
static const sim_qty_t *job_amount(const struct sim_view *v, const struct sim_job *job)
{
	if (job->alloc.whole)
		return sim_cluster_flavor(sim_view_cluster(v), job->alloc.flavor)->node_cap;
	return sim_job_opt(sim_view_trace(v), job, job->opt_chosen)->req;
}

static int vec_zero(const struct ebf *s, const sim_qty_t *a)
{
	for (int r = 0; r < s->nres; r++)
		if (a[r] != 0)
			return 0;
	return 1;
}

/* 1 if a node with free vector fr now and d released by the shadow time serves the head. */
static int node_serves(const struct ebf *s, const sim_qty_t *fr, const sim_qty_t *d)
{
	for (int r = 0; r < s->nres; r++)
		if (fr[r] + d[r] < s->pr.thr[r])
			return 0;
	return 1;
}

/* Adds amount to what node n releases by the shadow time, giving the node a slot
 * (not serving yet) if it had none; returns the slot. */
static uint32_t proj_add(struct ebf *s, uint32_t n, const sim_qty_t *amount)
{
	uint32_t sl = s->slot[n];
	if (sl != NIL) {
		for (int r = 0; r < s->nres; r++)
			s->dvec[sl][r] += amount[r];
		return sl;
	}
	sl = (uint32_t)s->n_touched++;
	s->slot[n] = sl;
	s->touched[sl] = n;
	memcpy(s->dvec[sl], amount, sizeof s->dvec[sl]); /* amount has SIM_MAX_RES entries */
	s->serve[sl] = 0;
	return sl;
}

static void proj_reset(struct ebf *s)
{
	for (size_t i = 0; i < s->n_touched; i++)
		s->slot[s->touched[i]] = NIL;
	s->n_touched = 0;
	s->pr.ok = 0;
	s->pr.flavor = -1;
	s->pr.shadow_ns = SIM_TIME_MAX;
}

/* The head's need on flavor f: thr and k (see struct proj). */
static void proj_setup(struct ebf *s, const struct sim_cluster *c, int f, const sim_qty_t *req)
{
	const struct sim_flavor_spec *sp = sim_cluster_flavor(c, f);
	sim_qty_t ng = sp->node_cap[SIM_RES_GPU], gpu = req[SIM_RES_GPU];
	const sim_qty_t *thr = req;
	s->pr.flavor = f;
	s->pr.node_gpu = ng;
	s->pr.k = 1;
	if (gpu > ng) {
		s->pr.k = (uint32_t)((gpu + ng - 1) / ng);
		thr = sp->node_cap;
	}
	memset(s->pr.thr, 0, sizeof s->pr.thr);
	memcpy(s->pr.thr, thr, (size_t)s->nres * sizeof *thr);
}

/* Node n will have `amount` more free at the shadow time (a job there ends by then). */
static void proj_release(struct ebf *s, const struct sim_cluster *c, uint32_t n, const sim_qty_t *amount)
{
	if (vec_zero(s, amount))
		return;
	uint32_t sl = proj_add(s, n, amount);
	if (s->serve[sl])
		return; /* releasing more keeps it serving */
	const sim_qty_t *fr = sim_cluster_node_free(c, s->pr.flavor, n);
	if (fr && node_serves(s, fr, s->dvec[sl])) {
		s->serve[sl] = 1;
		s->pr.ok++;
	}
}

/* A candidate just took `amount` on node n and returns it by the shadow time: the
 * projection is unchanged, but the node must now be tracked here. */
static void proj_shift(struct ebf *s, const struct sim_cluster *c, uint32_t n, const sim_qty_t *amount)
{
	const sim_qty_t *fr = sim_cluster_node_free(c, s->pr.flavor, n);
	if (!fr || vec_zero(s, amount))
		return;
	int fresh = s->slot[n] == NIL;
	uint32_t sl = proj_add(s, n, amount);
	if (fresh && node_serves(s, fr, s->dvec[sl])) {
		s->serve[sl] = 1;
		s->pr.ok++;
	}
}

/* A candidate was just placed on a and keeps it past the shadow time. Touched nodes
 * of a that served the head and no longer do (their free vector now is smaller by
 * the candidate's share, what is released is the same): counted, and with commit
 * also marked as not serving. Untouched nodes are read from the cluster anyway. */
static uint32_t proj_take(struct ebf *s, const struct sim_cluster *c, const struct sim_alloc *a, int commit)
{
	uint32_t lost = 0;
	for (uint32_t i = 0; i < a->n_nodes; i++) {
		uint32_t n = alloc_node(a, i), sl = s->slot[n];
		if (sl == NIL || !s->serve[sl])
			continue;
		const sim_qty_t *fr = sim_cluster_node_free(c, s->pr.flavor, n);
		if (fr && node_serves(s, fr, s->dvec[sl]))
			continue;
		lost++;
		if (commit)
			s->serve[sl] = 0;
	}
	return lost;
}

/* Does the head fit the projection? Touched nodes are counted in pr.ok. The others
 * are as free then as now, so the cluster's index answers for them: a touched node
 * fits now only if it serves (what it releases is >= 0) and is never fully free now
 * (it holds a job), so neither query counts it again. O(log N) (sim_cluster_fits;
 * with resources besides GPUs its walk also passes nodes with the GPUs but not the
 * rest free). */
static int proj_fits(const struct ebf *s, const struct sim_cluster *c)
{
	if (s->pr.ok >= s->pr.k)
		return 1;
	uint32_t m = s->pr.k - s->pr.ok;
	if (m == 1) /* one node of thr: the head's request, or a fully free node */
		return sim_cluster_fits(c, s->pr.flavor, s->pr.thr);
	sim_qty_t q[SIM_MAX_RES] = { 0 };
	q[SIM_RES_GPU] = (sim_qty_t)m * s->pr.node_gpu; /* m whole nodes, every resource free */
	return sim_cluster_fits(c, s->pr.flavor, q);
}

static int frontier_before(const struct run_heap *h, const uint32_t *fr, size_t a, size_t b)
{
	return run_before(&h->a[fr[a]], &h->a[fr[b]]);
}

static int frontier_push(struct ebf *s, const struct run_heap *h, size_t *n, uint32_t pos)
{
	uint32_t *nf = sim_grow(s->frontier, &s->frontier_cap, *n, sizeof *nf, 64);
	if (!nf)
		return -SIM_ENOMEM;
	s->frontier = nf;
	uint32_t *fr = s->frontier;
	size_t i = (*n)++;
	fr[i] = pos;
	while (i > 0 && frontier_before(h, fr, i, (i - 1) / 2)) {
		uint32_t t = fr[i];
		fr[i] = fr[(i - 1) / 2];
		fr[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static uint32_t frontier_pop(struct ebf *s, const struct run_heap *h, size_t *n)
{
	uint32_t *fr = s->frontier;
	uint32_t top = fr[0];
	fr[0] = fr[--(*n)];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && frontier_before(h, fr, c + 1, c))
			c++;
		if (!frontier_before(h, fr, c, i))
			break;
		uint32_t t = fr[i];
		fr[i] = fr[c];
		fr[c] = t;
		i = c;
	}
	return top;
}

/* Builds the projection of flavor f for a head requesting req, walking running jobs
 * in order of estimated end until it fits; returns the shadow time (SIM_TIME_MAX:
 * never fits) in *shadow. The projection is left in place. Returns 0 or -SIM_ENOMEM. */
static int compute_shadow(struct ebf *s, const struct sim_view *v, int f, const sim_qty_t *req,
			  sim_time_t *shadow)
{
	const struct sim_cluster *c = sim_view_cluster(v);
	sim_time_t now = sim_view_now(v);
	proj_reset(s);
	*shadow = SIM_TIME_MAX;
	if (!sim_cluster_could_fit(c, f, req))
		return 0;
	proj_setup(s, c, f, req);
	if (proj_fits(s, c)) { /* it fits now: something besides capacity blocks it */
		*shadow = now;
		return 0;
	}
	const struct run_heap *h = &s->run[f];
	size_t nfr = 0;
	if (h->n && frontier_push(s, h, &nfr, 0))
		return -SIM_ENOMEM;
	while (nfr) {
		/* Every job estimated to end by the shadow time has ended then: jobs tied
		 * with the one that made the head fit are released too. */
		uint32_t p = s->frontier[0];
		sim_time_t end = h->a[p].end_ns > now ? h->a[p].end_ns : now;
		if (*shadow != SIM_TIME_MAX && end > *shadow)
			return 0;
		frontier_pop(s, h, &nfr);
		for (uint32_t ch = 2 * p + 1; ch <= 2 * p + 2; ch++)
			if (ch < h->n && frontier_push(s, h, &nfr, ch))
				return -SIM_ENOMEM;
		const struct sim_job *j = sim_view_job(v, h->a[p].idx);
		if (j->alloc.flavor != f)
			continue; /* defensive: the heap is per flavor */
		const sim_qty_t *amount = job_amount(v, j);
		for (uint32_t i = 0; i < j->alloc.n_nodes; i++)
			proj_release(s, c, alloc_node(&j->alloc, i), amount);
		if (*shadow == SIM_TIME_MAX && proj_fits(s, c))
			*shadow = end;
	}
	return 0;
}

/* Reserves for a blocked head: fills s->pr (flavor -1 when none). */
static int reserve(struct ebf *s, const struct sim_view *v, const struct sim_job *head)
{
	const struct sim_job_option *o = sim_job_opt(sim_view_trace(v), head, 0);
	sim_time_t sh;
	int rc;
	if (o->flavor_id != SIM_FLAVOR_ANY) {
		if ((rc = compute_shadow(s, v, o->flavor_id, o->req, &sh)))
			return rc;
		if (sh == SIM_TIME_MAX)
			proj_reset(s);
		s->pr.shadow_ns = sh;
		return 0;
	}
	int best = -1;
	sim_time_t best_sh = SIM_TIME_MAX;
	for (size_t f = 0; f < s->n_flavors; f++) {
		if ((rc = compute_shadow(s, v, (int)f, o->req, &sh)))
			return rc;
		if (sh < best_sh) {
			best_sh = sh;
			best = (int)f;
		}
	}
	if (best < 0) {
		proj_reset(s);
		return 0;
	}
	if (s->pr.flavor != best && (rc = compute_shadow(s, v, best, o->req, &sh)))
		return rc;
	s->pr.shadow_ns = best_sh;
	return 0;
}

static void record(struct ebf *s, const struct sim_view *v, uint32_t head)
{
	if (!s->record || s->rec_head == head)
		return;
	struct easy_backfill_reservation *nr = sim_grow(s->rec, &s->rec_cap, s->n_rec, sizeof *nr, 64);
	if (!nr) {
		s->oom = 1;
		return;
	}
	s->rec = nr;
	s->rec[s->n_rec++] = (struct easy_backfill_reservation){
		.job = head, .flavor = s->pr.flavor, .decided_ns = sim_view_now(v), .shadow_ns = s->pr.shadow_ns,
	};
	s->rec_head = head;
}

size_t easy_backfill_reservations(const struct sim_policy *pol, const struct easy_backfill_reservation **out)
{
	*out = NULL;
	if (!pol || pol->ops != &easy_backfill_policy_ops || !pol->priv)
		return 0;
	const struct ebf *s = pol->priv;
	*out = s->rec;
	return s->n_rec;
}

/* ---- candidates ---- */

static int dominates(const sim_qty_t *a, const sim_qty_t *b)
{
	for (int r = 0; r < SIM_MAX_RES; r++)
		if (a[r] < b[r])
			return 0;
	return 1;
}

/* 1 if req cannot fit flavor f now because a request it dominates (>= in every
 * resource) already failed there in this pass: free capacity only shrinks during a
 * pass, and a failed request is kept only if it could fit an empty flavor, so it
 * failed for want of free capacity (note_nofit). Then no node has its vector free,
 * so none has a larger one and none is fully free (a node's shape holds it), and a
 * whole-node request failed for want of fully free nodes, which a larger one needs
 * as many or more of. A "*" request: on every flavor, where it could fit at all. */
static int known_nofit(const struct ebf *s, const struct sim_cluster *c, int f, const sim_qty_t *req)
{
	if (f != SIM_FLAVOR_ANY)
		return s->has_failed[f] && dominates(req, s->failed[f]);
	for (size_t g = 0; g < s->n_flavors; g++)
		if ((!s->has_failed[g] || !dominates(req, s->failed[g])) && sim_cluster_could_fit(c, (int)g, req))
			return 0;
	return s->n_flavors > 0;
}

/* 1 if no job of the trace can fit now: on every flavor with jobs, a request no
 * larger than the least one failed in this pass. O(flavors x resources). */
static int nothing_fits(const struct ebf *s)
{
	if (s->other_jobs)
		return 0;
	for (size_t f = 0; f < s->n_flavors; f++)
		if (s->has_jobs[f] && (!s->has_failed[f] || !dominates(s->minreq[f], s->failed[f])))
			return 0;
	return 1;
}

/* Records a request that failed on f (or on every flavor, for "*") as the witness
 * of known_nofit: where it could fit an empty flavor at all (so it failed for want of
 * free capacity, not because of the node shape), and when it is a stronger witness
 * than the one kept (dominated by it), or has fewer GPUs (a heuristic: any failed
 * request is a valid witness). */
static void note_nofit(struct ebf *s, const struct sim_cluster *c, int f, const sim_qty_t *req)
{
	for (size_t g = 0; g < s->n_flavors; g++) {
		if (f != SIM_FLAVOR_ANY && (int)g != f)
			continue;
		if (s->has_failed[g] && !dominates(s->failed[g], req) &&
		    req[SIM_RES_GPU] >= s->failed[g][SIM_RES_GPU])
			continue;
		if (!sim_cluster_could_fit(c, (int)g, req))
			continue;
		memcpy(s->failed[g], req, sizeof s->failed[g]);
		s->has_failed[g] = 1;
	}
}

/* Tries one candidate. Returns 1 started, 0 not (does not fit now, or gone), 2 placed
 * and withdrawn (it would delay the head), or -SIM_E*.
 *
 * Fast refusals, without placing (they read only the compact per-job arrays):
 *   - its request dominates one that already failed on its flavor in this pass
 *     (free capacity only shrinks during a pass);
 *   - its request class was withdrawn since the last start in this pass and it
 *     ends after the shadow: placement depends only on node state (sim/cluster.c,
 *     "Tie-breaks") and a withdrawal restores that state exactly, so it would land
 *     on the same nodes and be withdrawn too. tests/test_backfill.c checks every
 *     start against references that do place and withdraw each time. */
static int try_candidate(struct ebf *s, const struct sim_view *v, struct sim_placement_buf *out, uint32_t idx)
{
	const struct sim_cluster *c = sim_view_cluster(v);
	sim_time_t now = sim_view_now(v);
	uint32_t k = s->q[idx].cls;
	struct req_class *kc = k != NIL ? &s->classes[k] : NULL;
	if (kc) {
		if (known_nofit(s, c, kc->flavor, kc->req))
			return 0;
		if (kc->withdrawn_gen == s->wd_gen && kc->flavor >= 0 && kc->flavor == s->pr.flavor &&
		    add_sat(now, s->est0[idx]) > s->pr.shadow_ns)
			return 2;
	}
	int rc = sim_placement_buf_try(out, idx, -1);
	if (rc == -SIM_ENOFIT) {
		if (kc)
			note_nofit(s, c, kc->flavor, kc->req);
		return 0;
	}
	if (rc == -SIM_ESTATE) {
		q_remove(s, idx); /* no longer queued: rejected elsewhere */
		return 0;
	}
	if (rc)
		return rc;
	const struct sim_job *job = sim_view_job(v, idx);
	int f = job->alloc.flavor;
	if (s->pr.flavor < 0 || f != s->pr.flavor)
		return 1;
	sim_time_t est = sim_view_estimate(v, job, job->opt_chosen, f);
	if (add_sat(now, est < 0 ? 0 : est) <= s->pr.shadow_ns) {
		const sim_qty_t *amount = job_amount(v, job);
		for (uint32_t i = 0; i < job->alloc.n_nodes; i++)
			proj_shift(s, c, alloc_node(&job->alloc, i), amount);
		return 1;
	}
	uint32_t lost = proj_take(s, c, &job->alloc, 0);
	s->pr.ok -= lost;
	if (proj_fits(s, c)) {
		if (lost)
			proj_take(s, c, &job->alloc, 1);
		return 1;
	}
	/* It would delay the head: withdraw it; capacity returns exactly as it was. */
	s->pr.ok += lost;
	rc = sim_placement_buf_retract(out, idx);
	if (rc)
		return rc;
	if (kc)
		kc->withdrawn_gen = s->wd_gen;
	return 2;
}

/* ---- pick ---- */

static void accept(struct ebf *s, const struct sim_view *v, uint32_t idx)
{
	q_remove(s, idx);
	run_insert(s, v, sim_view_job(v, idx), sim_view_now(v));
}

/* Bookkeeping after one candidate test (rc of try_candidate); see struct ebf. */
static void tested(struct ebf *s, const struct sim_view *v, uint32_t idx, int rc)
{
	if (rc == 1) {
		accept(s, v, idx);
		s->scan_stale |= s->scan_withdrawn;
		s->wd_gen++; /* the free capacity changed */
	} else if (rc == 2) {
		s->scan_withdrawn = 1;
	}
}

static void mh_push(struct merge_entry *h, size_t *n, struct merge_entry e)
{
	size_t i = (*n)++;
	while (i > 0 && e.idx < h[(i - 1) / 2].idx) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = e;
}

static struct merge_entry mh_pop(struct merge_entry *h, size_t *n)
{
	struct merge_entry top = h[0], last = h[--(*n)];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].idx < h[c].idx)
			c++;
		if (h[c].idx >= last.idx)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
	return top;
}

/* Lists of more classes than this are scanned linearly: the merge's set-up is
 * O(classes) a pass. */
#define MERGE_MAX_CLASSES 64

/* A full scan of the window in queue order that skips whole classes: it merges the
 * classes' lists by trace index (= queue order) with a heap, and drops a class
 * when its request is known not to fit (known_nofit), so the jobs of a class that
 * cannot fit are never visited; runs of a withdrawn class are skipped in O(1) a job
 * without the heap. Same decisions, in the same order, as the linear scan.
 * O((classes + T) log classes + log jobs + W) for T jobs tested, W skipped. */
static int scan_merged(struct ebf *s, const struct sim_view *v, struct sim_placement_buf *out, size_t limit)
{
	uint32_t end = NIL; /* last trace index in the window; NIL: the whole queue */
	if (limit != SIZE_MAX && s->qlen - 1 > limit)
		end = fw_select(s, 1 + limit);
	size_t n = 0;
	for (uint32_t l = 0; l <= s->n_classes; l++) {
		uint32_t i = s->lhead[l];
		if (i == s->qhead)
			i = s->q[i].cnext;
		if (i != NIL && (end == NIL || i <= end))
			mh_push(s->mh, &n, (struct merge_entry){ .idx = i, .list = l });
	}
	sim_time_t now = sim_view_now(v);
	while (n) {
		struct merge_entry e = mh_pop(s->mh, &n);
		const struct req_class *k = e.list < s->n_classes ? &s->classes[e.list] : NULL;
		if (k && known_nofit(s, sim_view_cluster(v), k->flavor, k->req))
			continue; /* the whole class: free capacity only shrinks in a pass */
		if (k && k->withdrawn_gen == s->wd_gen && k->flavor >= 0 && k->flavor == s->pr.flavor) {
			/* Withdrawn class: its jobs ending after the shadow are refused without
			 * changing anything, so skip them, up to the next job of another list
			 * (testing that one may start a job and lift the withdrawal). */
			uint32_t i = e.idx;
			while (i != NIL && (end == NIL || i <= end) && (!n || i < s->mh[0].idx) &&
			       add_sat(now, s->est0[i]) > s->pr.shadow_ns)
				i = s->q[i].cnext;
			if (i == NIL || (end != NIL && i > end))
				continue;
			if (n && i > s->mh[0].idx) {
				mh_push(s->mh, &n, (struct merge_entry){ .idx = i, .list = e.list });
				continue;
			}
			e.idx = i;
		}
		uint32_t nx = s->q[e.idx].cnext;
		int rc = try_candidate(s, v, out, e.idx);
		if (rc < 0)
			return rc;
		tested(s, v, e.idx, rc);
		if (nx != NIL && (end == NIL || nx <= end))
			mh_push(s->mh, &n, (struct merge_entry){ .idx = nx, .list = e.list });
	}
	/* Every queued job up to `end` was tested or refused with its class. */
	if (end == NIL) {
		s->scan_kept = s->qlen - 1;
		s->scan_last = s->scan_kept ? s->qtail : NIL;
	} else {
		size_t r = fw_prefix(s, end);
		s->scan_kept = r - 1;
		s->scan_last = s->scan_kept ? fw_select(s, r) : NIL;
	}
	s->scan_blocked = nothing_fits(s);
	return 0;
}

/* Context: after all events at now. Starts the head while it fits; then reserves
 * for the blocked head and backfills behind it.
 *
 * Incremental pass: if since the last pass only submits happened (no finish or
 * preemption, busy and total GPUs unchanged: no capacity event), the same head is
 * blocked on the same reservation, and every job behind it was already tested
 * against that state, so only the new jobs are tested. A refused job stays refused:
 * capacity did not grow, the projection is the same, and now + estimate only grew. */
static int ebf_pick(struct sim_policy *pol, const struct sim_view *v, struct sim_placement_buf *out)
{
	struct ebf *s = pol->priv;
	int rc = ensure_state(s, v);
	if (rc)
		return rc;
	const struct sim_cluster *c = sim_view_cluster(v);
	int incremental = !s->dirty && !s->scan_stale && sim_cluster_gpu_busy(c, -1) == s->busy_after &&
			  sim_cluster_gpu_total(c, -1) == s->total_after;
	s->dirty = 0;

	while (s->qhead != NIL) {
		uint32_t idx = s->qhead;
		rc = sim_placement_buf_try(out, idx, -1);
		if (rc == -SIM_ENOFIT)
			break;
		incremental = 0;
		if (rc == -SIM_ESTATE) {
			q_remove(s, idx);
			continue;
		}
		if (rc)
			return rc;
		accept(s, v, idx);
	}
	if (s->last_head == NIL || s->last_head != s->qhead)
		incremental = 0;
	s->last_head = s->qhead;
	if (s->qhead == NIL)
		goto out_done;

	struct proj prev = s->pr;
	if ((rc = reserve(s, v, sim_view_job(v, s->qhead))))
		goto out_reset;
	record(s, v, s->qhead);
	if (s->pr.flavor != prev.flavor || s->pr.shadow_ns != prev.shadow_ns)
		incremental = 0;

	memset(s->has_failed, 0, s->n_flavors * sizeof *s->has_failed);
	size_t limit = s->max_candidates ? s->max_candidates : SIZE_MAX;
	/* pos: queue position behind the head (1 = right behind it) at the start of the
	 * pass; the jobs tested and refused form a prefix of what stays queued. An
	 * incremental pass resumes after that prefix (the previous pass's starts moved
	 * untested jobs into the window, and new jobs came at the tail). */
	size_t pos = 0;
	uint32_t at = s->q[s->qhead].next;
	if (incremental) {
		pos = s->scan_kept;
		if (s->scan_last != NIL)
			at = s->q[s->scan_last].next;
		if (s->scan_blocked)
			at = NIL; /* still nothing fits: capacity did not grow */
	} else {
		s->scan_last = NIL;
		s->scan_kept = 0;
		s->scan_withdrawn = 0;
		s->scan_blocked = 0;
	}
	s->scan_stale = 0;
	s->wd_gen++;
	if (!incremental && s->n_classes <= MERGE_MAX_CLASSES && (limit == SIZE_MAX || s->fw)) {
		rc = scan_merged(s, v, out, limit);
		goto out_reset;
	}
	while (at != NIL && pos < limit) {
		uint32_t next = s->q[at].next;
		pos++;
		rc = try_candidate(s, v, out, at);
		if (rc < 0)
			goto out_reset;
		tested(s, v, at, rc);
		if (s->q[at].state == Q_QUEUED) {
			s->scan_last = at;
			s->scan_kept++;
			if (nothing_fits(s)) {
				s->scan_blocked = 1;
				break;
			}
		}
		at = next;
	}
	rc = 0;
out_reset:
	/* Keep flavor and shadow to detect a changed reservation next pass. */
	prev = s->pr;
	proj_reset(s);
	s->pr.flavor = prev.flavor;
	s->pr.shadow_ns = prev.shadow_ns;
out_done:
	s->busy_after = sim_cluster_gpu_busy(c, -1);
	s->total_after = sim_cluster_gpu_total(c, -1);
	if (s->oom)
		return -SIM_ENOMEM;
	return rc;
}

const struct sim_policy_ops easy_backfill_policy_ops = {
	.name = "easy_backfill",
	.family = SIM_FAM_ORDER,
	.init = ebf_init,
	.fini = ebf_fini,
	.on_submit = ebf_on_submit,
	.on_start = ebf_on_start,
	.on_stop = ebf_on_stop,
	.pick = ebf_pick,
};
