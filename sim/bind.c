/* sim/bind.c: maps a trace's flavor and resource names onto a cluster.
 *
 * Readers keep options in the trace's own name space (flavor and resource indices
 * as interned); binding rewrites them in place into the cluster's, and a later bind
 * (another cluster of a sweep) first undoes the previous one, so one loaded trace
 * serves every variant.
 *
 * Cost: one pass over the options (remap and the could-ever-fit check together; an
 * identity mapping, the usual case of one flavor named like the trace's, only
 * clears entries past the trace's resources, which readers leave 0 anyway), and a
 * pass over the jobs only when some option can never fit, to name its row.
 *
 * Every option of a job is checked, not only the first: each must name a flavor of
 * the cluster (else the first row using the name is reported, with the cluster's
 * flavors) and must fit that flavor at its largest (peak nodes of its node shape,
 * sim_cluster_could_fit), else the row and option are reported with that size.
 * Both kinds come in one pass: rows that can never fit are reported even when
 * another row names a flavor or resource the cluster lacks.
 */
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "engine.h"

static void unbind(struct sim_trace *t, const struct sim_cluster *c_prev_unused)
{
	(void)c_prev_unused;
	if (!t->bound)
		return;
	/* An identity binding changed nothing but the entries past the trace's
	 * resources, which it left 0, as the loop below would (options are immutable
	 * while bound): nothing to undo, and no pass over the options. */
	int identity = 1;
	for (size_t i = 0; i < t->n_flavors; i++)
		identity &= t->bind_flavor[i] == (int32_t)i;
	for (int r = 0; r < t->res.n; r++)
		identity &= t->bind_res[r] == r;
	if (identity) {
		t->bound = 0;
		return;
	}
	int max_fl = -1;
	for (size_t i = 0; i < t->n_flavors; i++)
		if (t->bind_flavor[i] > max_fl)
			max_fl = t->bind_flavor[i];
	int32_t *inv = calloc((size_t)(max_fl + 1) + 1, sizeof *inv);
	for (size_t i = 0; inv && i < t->n_flavors; i++)
		inv[t->bind_flavor[i]] = (int32_t)i;
	for (size_t k = 0; k < t->n_opts; k++) {
		struct sim_job_option *o = &t->opts[k];
		if (o->flavor_id != SIM_FLAVOR_ANY && inv)
			o->flavor_id = inv[o->flavor_id];
		sim_qty_t q[SIM_MAX_RES];
		for (int r = 0; r < SIM_MAX_RES; r++)
			q[r] = r < t->res.n ? o->req[t->bind_res[r]] : 0;
		memcpy(o->req, q, sizeof q);
	}
	free(inv);
	t->bound = 0;
}

static void where_of(const struct sim_trace *t, const struct sim_job *j, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%u", t->path ? t->path : "trace", j->line);
}

static const char *column_of(const struct sim_job *j)
{
	return j->has_prefs ? "prefs" : "request";
}

/* "a, b, c": the cluster's flavor names for a message, cut with "..." at n bytes. */
static void flavor_list(const struct sim_cluster *c, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t f = 0; f < sim_cluster_n_flavors(c) && len < n; f++) {
		const char *name = sim_cluster_flavor(c, (int)f)->name;
		if (len + strlen(name) + 8 >= n) {
			snprintf(buf + len, n - len, "%s...", f ? ", " : "");
			return;
		}
		len += (size_t)snprintf(buf + len, n - len, "%s%s", f ? ", " : "", name);
	}
	if (!sim_cluster_n_flavors(c))
		snprintf(buf, n, "none");
}

/* Reports trace flavor i, which the cluster lacks, at the first row using it (a
 * scan of the jobs, done once a missing flavor): in a preference list the message
 * names the option, and every message lists the flavors the cluster has. */
static void report_unknown_flavor(const struct sim_trace *t, const struct sim_cluster *c, size_t i,
				  struct sim_diag *diag)
{
	char known[320], w[512];
	flavor_list(c, known, sizeof known);
	for (size_t k = 0; k < t->n_jobs; k++) {
		const struct sim_job *j = &t->jobs[k];
		for (int o = 0; o < j->n_opts; o++) {
			if (sim_job_opt(t, j, o)->flavor_id != (int32_t)i)
				continue;
			where_of(t, j, w, sizeof w);
			if (j->has_prefs)
				sim_diag_add(diag, w,
					     "column prefs: expected a flavor of the cluster, found '%s' "
					     "(option %d; the cluster has %s)",
					     t->flavors[i], o + 1, known);
			else
				sim_diag_add(diag, w,
					     "column request: expected a flavor of the cluster, found '%s' "
					     "(the cluster has %s)",
					     t->flavors[i], known);
			return;
		}
	}
}

/* Reports trace resource r, which the cluster lacks, at the first row asking for it
 * (the file alone when no row does). */
static void report_unknown_resource(const struct sim_trace *t, int r, const char *file, struct sim_diag *diag)
{
	char w[512];
	snprintf(w, sizeof w, "%s", file);
	for (size_t k = 0; k < t->n_jobs; k++) {
		const struct sim_job *j = &t->jobs[k];
		int uses = 0;
		for (int o = 0; o < j->n_opts && !uses; o++)
			uses = sim_job_opt(t, j, o)->req[r] > 0;
		if (uses) {
			where_of(t, j, w, sizeof w);
			snprintf(w + strlen(w), sizeof w - strlen(w), ": column %s", column_of(j));
			break;
		}
	}
	sim_diag_add(diag, w, "expected resources declared by the cluster, found '%s' in a request",
		     t->res.names[r]);
}

/* Checks the mapping of names; returns the number of errors. */
static int map_names(struct sim_trace *t, const struct sim_cluster *c, int32_t *fmap, int *rmap,
		     struct sim_diag *diag)
{
	const struct sim_resources *cres = sim_cluster_resources(c);
	int errors = 0;
	const char *where = t->path ? t->path : "trace";
	for (size_t i = 0; i < t->n_flavors; i++) {
		fmap[i] = sim_cluster_flavor_find(c, t->flavors[i]);
		if (fmap[i] < 0) {
			report_unknown_flavor(t, c, i, diag);
			errors++;
		}
	}
	for (int r = 0; r < t->res.n; r++) {
		rmap[r] = sim_resources_find(cres, t->res.names[r]);
		if (rmap[r] < 0) {
			report_unknown_resource(t, r, where, diag);
			errors++;
		}
	}
	return errors;
}

static int option_could_fit(const struct sim_cluster *c, const struct sim_job_option *o)
{
	if (o->flavor_id != SIM_FLAVOR_ANY)
		return sim_cluster_could_fit(c, o->flavor_id, o->req);
	for (size_t f = 0; f < sim_cluster_n_flavors(c); f++)
		if (sim_cluster_could_fit(c, (int)f, o->req))
			return 1;
	return 0;
}

/* "gpu=8" or "gpu=24,cpu=200": option o's request (bound: cluster resource order). */
static void format_req(const struct sim_cluster *c, const sim_qty_t *req, char *buf, size_t n)
{
	const struct sim_resources *res = sim_cluster_resources(c);
	size_t len = 0;
	char q[32];
	for (int r = 0; r < res->n && len < n; r++) {
		if (r != SIM_RES_GPU && !req[r])
			continue;
		sim_qty_format(req[r], q, sizeof q);
		len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", r ? "," : "", res->names[r], q);
	}
}

/* " and cpu=96,mem_gib=512 a node": the node's share of the non-GPU resources the
 * request names (what else may keep it out), or "" for a GPU-only request. */
static void format_node_other(const struct sim_cluster *c, const struct sim_flavor_spec *fl,
			      const sim_qty_t *req, char *buf, size_t n)
{
	const struct sim_resources *res = sim_cluster_resources(c);
	size_t len = 0;
	char q[32];
	buf[0] = '\0';
	for (int r = 1; r < res->n && len < n; r++) {
		if (!req[r])
			continue;
		sim_qty_format(fl->node_cap[r], q, sizeof q);
		len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", len ? "," : " and ", res->names[r], q);
	}
	if (len && len < n)
		snprintf(buf + len, n - len, " a node");
}

/* Reports option k of job j (o: the option in the cluster's name space), which can
 * never run: on a named flavor, against that flavor's largest size (peak nodes,
 * node shape); a "*" option fits no flavor. */
static void report_misfit(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *j,
			  int k, const struct sim_job_option *o, struct sim_diag *diag)
{
	char w[512], req[256], other[256], gpus[32];
	where_of(t, j, w, sizeof w);
	format_req(c, o->req, req, sizeof req);
	if (o->flavor_id == SIM_FLAVOR_ANY) {
		sim_diag_add(diag, w,
			     "column %s: expected a request that fits some node shape and node count "
			     "of the cluster, found *:%s (option %d) which no flavor can ever hold",
			     column_of(j), req, k + 1);
		return;
	}
	const struct sim_flavor_spec *fl = sim_cluster_flavor(c, o->flavor_id);
	unsigned peak = (unsigned)sim_cluster_n_nodes(c, o->flavor_id);
	char size[400];
	sim_qty_format(fl->node_cap[SIM_RES_GPU], gpus, sizeof gpus);
	format_node_other(c, fl, o->req, other, sizeof other);
	snprintf(size, sizeof size, "at most %u node%s of %s GPU%s%s", peak, peak == 1 ? "" : "s", gpus,
		 strcmp(gpus, "1") ? "s" : "", other);
	if (j->has_prefs)
		sim_diag_add(diag, w,
			     "column prefs: expected every option to fit its flavor, found option %d (%s:%s) "
			     "which can never run: the flavor has %s",
			     k + 1, fl->name, req, size);
	else
		sim_diag_add(diag, w,
			     "column request: expected a request its flavor can hold, found %s:%s which can "
			     "never run: the flavor has %s",
			     fl->name, req, size);
}

/* Option o of the (unbound) trace in the cluster's name space, through the maps of
 * map_names, into *out; 0 when it names a flavor or asks for a resource the cluster
 * lacks (reported by map_names: its fit cannot be judged). */
static int map_option(const struct sim_trace *t, const struct sim_job_option *o, const int32_t *fmap,
		      const int *rmap, struct sim_job_option *out)
{
	*out = *o;
	if (o->flavor_id != SIM_FLAVOR_ANY && (out->flavor_id = fmap[o->flavor_id]) < 0)
		return 0;
	memset(out->req, 0, sizeof out->req);
	for (int r = 0; r < t->res.n; r++) {
		if (rmap[r] < 0 && o->req[r] > 0)
			return 0;
		if (rmap[r] >= 0)
			out->req[rmap[r]] = o->req[r];
	}
	return 1;
}

/* Reports every option no flavor can ever hold, each with its row and number. With
 * fmap and rmap (a trace left unbound because some name is missing) options are
 * mapped through them and those naming a missing flavor or resource are skipped;
 * without (NULL), the trace is bound already. */
static int report_misfits(const struct sim_trace *t, const struct sim_cluster *c, const int32_t *fmap,
			  const int *rmap, struct sim_diag *diag)
{
	int errors = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		for (int k = 0; k < j->n_opts; k++) {
			struct sim_job_option mapped;
			const struct sim_job_option *o = sim_job_opt(t, j, k);
			if (fmap && !map_option(t, o, fmap, rmap, &mapped))
				continue;
			if (fmap)
				o = &mapped;
			if (option_could_fit(c, o))
				continue;
			report_misfit(t, c, j, k, o, diag);
			errors++;
		}
	}
	return errors;
}

/* Largest scaled time of one base time (duration or estimate) of option k over the
 * flavors it may land on. */
static double worst_scaled_ns(const struct sim_trace *t, const struct sim_cluster *c, const struct sim_job *j,
			      sim_time_t base, int k, int *flavor_out)
{
	const struct sim_job_option *o = sim_job_opt(t, j, k);
	double worst = 0;
	for (size_t f = 0; f < sim_cluster_n_flavors(c); f++) {
		if (o->flavor_id != SIM_FLAVOR_ANY && o->flavor_id != (int32_t)f)
			continue;
		double ns = sim_scaled_time_ns(t, c, j, base, k, (int)f);
		if (ns > worst) {
			worst = ns;
			*flavor_out = (int)f;
		}
	}
	return worst;
}

/* Refuses run times that scaling by a slow flavor (or a smaller option) pushes past
 * SIM_RUNTIME_MAX_NS, where sim_time_t arithmetic would overflow. Only options that
 * scale need a look: a named option 0 runs its trace duration, which readers bound
 * already, and a "*" option 0 only grows on flavors slower than 1.0. */
static int check_scaled_times(const struct sim_trace *t, const struct sim_cluster *c, struct sim_diag *diag)
{
	double min_speed = 1.0;
	for (size_t f = 0; f < sim_cluster_n_flavors(c); f++)
		if (sim_cluster_flavor(c, (int)f)->speed < min_speed)
			min_speed = sim_cluster_flavor(c, (int)f)->speed;
	int errors = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		if (j->n_opts == 1 && (sim_job_opt(t, j, 0)->flavor_id != SIM_FLAVOR_ANY || min_speed >= 1.0))
			continue;
		for (int k = 0; k < j->n_opts; k++) {
			int f = -1;
			double d = worst_scaled_ns(t, c, j, j->duration_ns, k, &f);
			double e = worst_scaled_ns(t, c, j, j->estimate_ns, k, &f);
			if (d <= (double)SIM_RUNTIME_MAX_NS && e <= (double)SIM_RUNTIME_MAX_NS)
				continue;
			char w[512];
			where_of(t, j, w, sizeof w);
			sim_diag_add(diag, w,
				     "column %s: expected a run time of at most 1e9 s on every flavor the job "
				     "may use, found %.4g s on flavor %s (option %d, speed %g)",
				     d >= e ? "duration_s" : "estimate_s", (d >= e ? d : e) / 1e9,
				     sim_cluster_flavor(c, f)->name, k + 1, sim_cluster_flavor(c, f)->speed);
			errors++;
			break;
		}
	}
	return errors;
}

int sim_trace_bind(struct sim_trace *t, const struct sim_cluster *c, struct sim_diag *diag)
{
	unbind(t, NULL);
	int32_t *fmap = malloc((t->n_flavors + 1) * sizeof *fmap);
	if (!fmap)
		return -SIM_ENOMEM;
	int rmap[SIM_MAX_RES] = { 0 };
	if (map_names(t, c, fmap, rmap, diag)) {
		/* The rows that name what the cluster has are still judged, so one pass
		 * reports every kind of bad row. */
		report_misfits(t, c, fmap, rmap, diag);
		free(fmap);
		return -SIM_EPARSE;
	}
	int identity = 1;
	for (size_t i = 0; i < t->n_flavors; i++)
		identity &= fmap[i] == (int32_t)i;
	for (int r = 0; r < t->res.n; r++)
		identity &= rmap[r] == r;
	/* Remap each option in place and check that it could ever fit, in one pass. A
	 * run of equal options (same flavor and request) is checked once. */
	size_t misfits = 0;
	const struct sim_job_option *last = NULL;
	int last_fits = 0;
	for (size_t k = 0; k < t->n_opts; k++) {
		struct sim_job_option *o = &t->opts[k];
		if (identity) {
			for (int r = t->res.n; r < SIM_MAX_RES; r++)
				if (o->req[r]) /* readers leave them 0: no store, no dirty line */
					o->req[r] = 0;
		} else {
			if (o->flavor_id != SIM_FLAVOR_ANY)
				o->flavor_id = fmap[o->flavor_id];
			sim_qty_t q[SIM_MAX_RES] = { 0 };
			for (int r = 0; r < t->res.n; r++)
				q[rmap[r]] = o->req[r];
			memcpy(o->req, q, sizeof q);
		}
		if (!last || last->flavor_id != o->flavor_id || memcmp(last->req, o->req, sizeof o->req) != 0)
			last_fits = option_could_fit(c, o);
		last = o;
		misfits += !last_fits;
	}
	free(t->bind_flavor);
	t->bind_flavor = fmap;
	memcpy(t->bind_res, rmap, sizeof rmap);
	t->bound = 1;
	int errors = misfits ? report_misfits(t, c, NULL, NULL, diag) : 0;
	errors += check_scaled_times(t, c, diag);
	return errors ? -SIM_EPARSE : 0;
}
