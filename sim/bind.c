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
			/* Name the first job using it, so the user can find the row. */
			for (size_t k = 0; k < t->n_jobs; k++) {
				const struct sim_job *j = &t->jobs[k];
				int uses = 0;
				for (int o = 0; o < j->n_opts; o++)
					uses |= sim_job_opt(t, j, o)->flavor_id == (int32_t)i;
				if (uses) {
					char w[512];
					where_of(t, j, w, sizeof w);
					sim_diag_add(diag, w,
						     "column %s: expected a flavor of the cluster, found '%s'",
						     column_of(j), t->flavors[i]);
					break;
				}
			}
			errors++;
		}
	}
	for (int r = 0; r < t->res.n; r++) {
		rmap[r] = sim_resources_find(cres, t->res.names[r]);
		if (rmap[r] < 0) {
			sim_diag_add(diag, where,
				     "expected resources declared by the cluster, found '%s' in a request",
				     t->res.names[r]);
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

/* Reports every job with an option no flavor can ever hold (first such option a job). */
static int report_misfits(const struct sim_trace *t, const struct sim_cluster *c, struct sim_diag *diag)
{
	int errors = 0;
	for (size_t i = 0; i < t->n_jobs; i++) {
		const struct sim_job *j = &t->jobs[i];
		for (int k = 0; k < j->n_opts; k++) {
			const struct sim_job_option *o = sim_job_opt(t, j, k);
			if (option_could_fit(c, o))
				continue;
			char w[512], q[32];
			where_of(t, j, w, sizeof w);
			sim_qty_format(o->req[SIM_RES_GPU], q, sizeof q);
			const char *fl = o->flavor_id == SIM_FLAVOR_ANY
						 ? "*" : sim_cluster_flavor(c, o->flavor_id)->name;
			sim_diag_add(diag, w,
				     "column %s: expected a request that fits some node shape and node count "
				     "of the cluster, found %s:gpu=%s (option %d) which no flavor can ever hold",
				     column_of(j), fl, q, k + 1);
			errors++;
			break;
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
	int errors = misfits ? report_misfits(t, c, diag) : 0;
	errors += check_scaled_times(t, c, diag);
	return errors ? -SIM_EPARSE : 0;
}
