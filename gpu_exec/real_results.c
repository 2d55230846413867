/* gpu_exec/real_results.c: what a real run measured, as summary metrics and as the
 * group /runs/<run>/real of the results file (analysis/SCHEMA.md, "Real mode"). */
#include "real_results.h"

#include "../sim/h5out.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void real_summarize(const struct real_results *res, struct sim_summary *sum)
{
	double err = 0;
	size_t n = 0;
	for (size_t i = 0; i < res->n_segs; i++) {
		const struct real_segment *s = &res->segs[i];
		if (s->outcome != REAL_COMPLETED || !(s->predicted_s > 0))
			continue;
		err += fabs((s->end_s - s->start_s) - s->predicted_s) / s->predicted_s;
		n++;
	}
	sum->v[SIM_SUM_runtime_error] = n ? err / (double)n : NAN;
	sum->v[SIM_SUM_decision_latency_p50_s] = NAN;
	sum->v[SIM_SUM_decision_latency_p99_s] = NAN;
	double *lat = res->n_latencies ? malloc(res->n_latencies * sizeof *lat) : NULL;
	if (!lat)
		return; /* no starts (or no memory for the copy): the quantiles stay NaN */
	memcpy(lat, res->latencies, res->n_latencies * sizeof *lat);
	gsl_sort(lat, 1, res->n_latencies);
	sum->v[SIM_SUM_decision_latency_p50_s] = gsl_stats_quantile_from_sorted_data(lat, 1, res->n_latencies, 0.5);
	sum->v[SIM_SUM_decision_latency_p99_s] = gsl_stats_quantile_from_sorted_data(lat, 1, res->n_latencies, 0.99);
	free(lat);
}

/* ---- HDF5 ---- */

/* A dataset's attributes, in the form of every table of the file (sim/h5out.c):
 * "units" and "field_descriptions", one a field, and "description". */
static int describe(hid_t d, const char *const *units, const char *const *descs, size_t n_fields,
		    const char *desc)
{
	return h5out_attr_str_array(d, "units", units, n_fields) < 0 ||
			       h5out_attr_str_array(d, "field_descriptions", descs, n_fields) < 0 ||
			       h5out_attr_str(d, "description", desc) < 0
		       ? -1
		       : 0;
}

/* Field units and descriptions of a table, n_fields of each. */
struct fields_doc {
	const char *const *units, *const *descs;
	size_t n;
};

static int write_table(hid_t grp, const char *name, hid_t type, size_t n, const void *rows,
		       const struct fields_doc *doc, const char *desc)
{
	hsize_t dim = n;
	hid_t sp = H5Screate_simple(1, &dim, NULL);
	if (sp < 0)
		return -1;
	hid_t d = H5Dcreate2(grp, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	int r = d >= 0 && (n == 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0) &&
			describe(d, doc->units, doc->descs, doc->n, desc) == 0
		? 0
		: -1;
	if (d >= 0)
		H5Dclose(d);
	H5Sclose(sp);
	return r;
}

struct job_row {
	char id[64];
	double measured_s, predicted_s, latency_s;
};

static int write_jobs(hid_t g, const struct real_results *res, const struct sim_trace *t)
{
	struct job_row *rows = calloc(res->n_jobs ? res->n_jobs : 1, sizeof *rows);
	hid_t s = H5Tcopy(H5T_C_S1), c = H5Tcreate(H5T_COMPOUND, sizeof *rows);
	int r = -1;
	if (!rows || s < 0 || c < 0 || H5Tset_size(s, sizeof rows->id) < 0)
		goto out;
	for (size_t j = 0; j < res->n_jobs; j++) {
		snprintf(rows[j].id, sizeof rows[j].id, "%s", sim_job_id(t, &t->jobs[j]));
		rows[j].measured_s = res->measured_run_s[j];
		rows[j].predicted_s = res->predicted_run_s[j];
		rows[j].latency_s = res->latency_s[j];
	}
	if (H5Tinsert(c, "id", offsetof(struct job_row, id), s) < 0 ||
	    H5Tinsert(c, "measured_runtime_s", offsetof(struct job_row, measured_s), H5T_NATIVE_DOUBLE) < 0 ||
	    H5Tinsert(c, "predicted_runtime_s", offsetof(struct job_row, predicted_s), H5T_NATIVE_DOUBLE) < 0 ||
	    H5Tinsert(c, "decision_latency_s", offsetof(struct job_row, latency_s), H5T_NATIVE_DOUBLE) < 0)
		goto out;
	static const char *const units[] = { "", "s", "s", "s" };
	static const char *const descs[] = {
		"job id", "measured run time over all its segments (trace s); NaN: never ran",
		"the model's run time of the same segments (trace s)",
		"decision latency of its first start (wall s); NaN: never started",
	};
	struct fields_doc doc = { units, descs, 4 };
	r = write_table(g, "jobs", c, res->n_jobs, rows, &doc,
			"one row a job, in the order of /runs/<run>/jobs: run time measured over all its segments "
			"and the model's prediction of the same segments (trace seconds), and the decision latency "
			"of its first start (wall seconds); NaN when it never ran");
out:
	if (c >= 0)
		H5Tclose(c);
	if (s >= 0)
		H5Tclose(s);
	free(rows);
	return r;
}

struct seg_row {
	char id[64];
	uint32_t gpu0, n_gpus;
	double start_s, end_s, predicted_s, from, done, saved;
	uint32_t ckpts;
	char outcome[12];
};

static const char *outcome_name(uint8_t o)
{
	return o == REAL_COMPLETED ? "completed" : o == REAL_PREEMPTED ? "preempted" : "failed";
}

static int write_segments(hid_t g, const struct real_results *res, const struct sim_trace *t)
{
	struct seg_row *rows = calloc(res->n_segs ? res->n_segs : 1, sizeof *rows);
	hid_t s = H5Tcopy(H5T_C_S1), so = H5Tcopy(H5T_C_S1), c = H5Tcreate(H5T_COMPOUND, sizeof *rows);
	int r = -1;
	if (!rows || s < 0 || so < 0 || c < 0 || H5Tset_size(s, sizeof rows->id) < 0 ||
	    H5Tset_size(so, sizeof rows->outcome) < 0)
		goto out;
	for (size_t i = 0; i < res->n_segs; i++) {
		const struct real_segment *sg = &res->segs[i];
		struct seg_row *w = &rows[i];
		snprintf(w->id, sizeof w->id, "%s", sim_job_id(t, &t->jobs[sg->job]));
		w->gpu0 = sg->gpu0;
		w->n_gpus = sg->n_gpus;
		w->start_s = sg->start_s;
		w->end_s = sg->end_s;
		w->predicted_s = sg->predicted_s;
		w->from = sg->from;
		w->done = sg->done;
		w->saved = sg->saved;
		w->ckpts = sg->ckpts;
		snprintf(w->outcome, sizeof w->outcome, "%s", outcome_name(sg->outcome));
	}
#define F(name, member, type) H5Tinsert(c, name, offsetof(struct seg_row, member), type) < 0
	if (F("id", id, s) || F("gpu0", gpu0, H5T_NATIVE_UINT32) || F("n_gpus", n_gpus, H5T_NATIVE_UINT32) ||
	    F("start_s", start_s, H5T_NATIVE_DOUBLE) || F("end_s", end_s, H5T_NATIVE_DOUBLE) ||
	    F("predicted_s", predicted_s, H5T_NATIVE_DOUBLE) || F("from", from, H5T_NATIVE_DOUBLE) ||
	    F("done", done, H5T_NATIVE_DOUBLE) || F("saved", saved, H5T_NATIVE_DOUBLE) ||
	    F("ckpts", ckpts, H5T_NATIVE_UINT32) || F("outcome", outcome, so))
		goto out;
#undef F
	static const char *const units[] = { "", "1", "1", "s", "s", "s", "1", "1", "1", "1", "" };
	static const char *const descs[] = {
		"job id", "first virtual GPU (flavor by flavor, node by node)", "virtual GPUs",
		"the workload's measured start (trace s)", "its measured end (trace s)",
		"the model's run time of the segment (trace s; preempted: start to the engine's stop)",
		"work at launch (fraction of the job's whole work)", "work at the end", "work at its last checkpoint",
		"checkpoints completed in the segment", "completed, preempted or failed",
	};
	struct fields_doc doc = { units, descs, 11 };
	r = write_table(g, "segments", c, res->n_segs, rows, &doc,
			"one row a run segment (a start to its completion, preemption or failure), in the order "
			"they ended: first virtual GPU and count, the workload's measured start and end and the "
			"model's run time (trace seconds), work at launch, at the end and at its last checkpoint "
			"(fractions of the job's whole work), checkpoints completed, outcome");
out:
	if (c >= 0)
		H5Tclose(c);
	if (so >= 0)
		H5Tclose(so);
	if (s >= 0)
		H5Tclose(s);
	free(rows);
	return r;
}

static int write_latencies(hid_t g, const struct real_results *res)
{
	static const char *const units[] = { "s" };
	static const char *const descs[] = { "decision latency of a start (wall s)" };
	struct fields_doc doc = { units, descs, 1 };
	return write_table(g, "decision_latency_s", H5T_NATIVE_DOUBLE, res->n_latencies, res->latencies, &doc,
			   "every start's decision latency, in start order: wall time from the event its pass "
			   "followed (a submit or timed event falling due, a workload ending) to the launch's return");
}

static int write_calibration(hid_t g, const struct real_results *res, const struct sim_cluster *c)
{
	struct cal_row {
		char flavor[SIM_NAME_MAX];
		double iter_ns;
	} *rows = calloc(res->n_flavors ? res->n_flavors : 1, sizeof *rows);
	hid_t s = H5Tcopy(H5T_C_S1), t = H5Tcreate(H5T_COMPOUND, sizeof *rows);
	int r = -1;
	if (!rows || s < 0 || t < 0 || H5Tset_size(s, SIM_NAME_MAX) < 0 ||
	    H5Tinsert(t, "flavor", offsetof(struct cal_row, flavor), s) < 0 ||
	    H5Tinsert(t, "iter_ns", offsetof(struct cal_row, iter_ns), H5T_NATIVE_DOUBLE) < 0)
		goto out;
	for (size_t f = 0; f < res->n_flavors; f++) {
		snprintf(rows[f].flavor, sizeof rows[f].flavor, "%s", sim_cluster_flavor(c, (int)f)->name);
		rows[f].iter_ns = res->iter_ns[f];
	}
	static const char *const units[] = { "", "ns" };
	static const char *const descs[] = { "flavor", "wall time of one workload iteration on its virtual GPUs" };
	struct fields_doc doc = { units, descs, 2 };
	r = write_table(g, "calibration", t, res->n_flavors, rows, &doc,
			"one row a flavor: the wall time of one workload iteration on its virtual GPUs, measured "
			"at start-up (cpu: the pacing tick)");
out:
	if (t >= 0)
		H5Tclose(t);
	if (s >= 0)
		H5Tclose(s);
	free(rows);
	return r;
}

/* cuda: one row a virtual GPU, what its calibration measured. Absent for cpu. */
static int write_calibration_vgpus(hid_t g, const struct real_results *res, const struct sim_cluster *c)
{
	if (!res->n_vgpus)
		return 0;
	struct vcal_row {
		uint32_t vgpu;
		char flavor[SIM_NAME_MAX];
		uint32_t sms;
		double iter_ns, spread;
	} *rows = calloc(res->n_vgpus, sizeof *rows);
	hid_t s = H5Tcopy(H5T_C_S1), t = H5Tcreate(H5T_COMPOUND, sizeof *rows);
	int r = -1;
	if (!rows || s < 0 || t < 0 || H5Tset_size(s, SIM_NAME_MAX) < 0 ||
	    H5Tinsert(t, "vgpu", offsetof(struct vcal_row, vgpu), H5T_NATIVE_UINT32) < 0 ||
	    H5Tinsert(t, "flavor", offsetof(struct vcal_row, flavor), s) < 0 ||
	    H5Tinsert(t, "sms", offsetof(struct vcal_row, sms), H5T_NATIVE_UINT32) < 0 ||
	    H5Tinsert(t, "iter_ns", offsetof(struct vcal_row, iter_ns), H5T_NATIVE_DOUBLE) < 0 ||
	    H5Tinsert(t, "spread", offsetof(struct vcal_row, spread), H5T_NATIVE_DOUBLE) < 0)
		goto out;
	for (size_t v = 0; v < res->n_vgpus; v++) {
		uint32_t f = res->vgpu_flavor[v];
		rows[v].vgpu = (uint32_t)v;
		snprintf(rows[v].flavor, sizeof rows[v].flavor, "%s",
			 f < res->n_flavors ? sim_cluster_flavor(c, (int)f)->name : "");
		rows[v].sms = res->vgpu_sms[v];
		rows[v].iter_ns = res->vgpu_iter_ns[v];
		rows[v].spread = res->vgpu_spread[v];
	}
	static const char *const units[] = { "", "", "1", "ns", "1" };
	static const char *const descs[] = {
		"virtual GPU (numbered flavor by flavor, node by node)", "its flavor", "its SMs (blocks of its kernels)",
		"its measured wall time of one workload iteration: the mean of its last two passes",
		"|a - b| / mean of those two passes (at most 0.02)" };
	struct fields_doc doc = { units, descs, 5 };
	r = write_table(g, "calibration_vgpus", t, res->n_vgpus, rows, &doc,
			"cuda: one row a virtual GPU, its calibration at start-up (warm-up, then N against 5N "
			"iterations until two passes agree within 2%)");
	/* On the table, not the group: the group's attributes stay under HDF5's 8 of
	 * compact storage (copying dense string attributes crashes HDF5 1.10). */
	hid_t d = r < 0 ? -1 : H5Dopen2(g, "calibration_vgpus", H5P_DEFAULT);
	if (d < 0 || h5out_attr_f64(d, "passes", (double)res->cal_passes) < 0 ||
	    h5out_attr_f64(d, "warmup_s", res->cal_warmup_s) < 0)
		r = -1;
	if (d >= 0)
		H5Dclose(d);
out:
	if (t >= 0)
		H5Tclose(t);
	if (s >= 0)
		H5Tclose(s);
	free(rows);
	return r;
}

int real_h5_write(void *arg, hid_t run_group)
{
	const struct real_h5 *w = arg;
	const struct real_results *res = w->res;
	hid_t g = H5Gcreate2(run_group, "real", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0)
		return -1;
	double gpus = (double)sim_cluster_gpu_total(w->cluster, -1) / (double)SIM_MILLI;
	double util = res->wall_s > 0 && gpus > 0 ? res->busy_gpu_wall_s / (gpus * res->wall_s) : NAN;
	double failed = (double)res->failed;
	int r = h5out_attr_str(g, "backend", res->backend) < 0 || h5out_attr_str(g, "device", res->device) < 0 ||
			h5out_attr_f64(g, "time_scale", res->time_scale) < 0 || h5out_attr_f64(g, "wall_s", res->wall_s) < 0 ||
			h5out_attr_f64(g, "busy_gpu_wall_s", res->busy_gpu_wall_s) < 0 ||
			h5out_attr_f64(g, "gpu_utilization", util) < 0 || h5out_attr_f64(g, "failed_segments", failed) < 0 ||
			write_jobs(g, res, w->trace) < 0 || write_segments(g, res, w->trace) < 0 ||
			write_latencies(g, res) < 0 || write_calibration(g, res, w->cluster) < 0 ||
			write_calibration_vgpus(g, res, w->cluster) < 0
		? -1
		: 0;
	if (H5Gclose(g) < 0)
		r = -1;
	return r;
}
