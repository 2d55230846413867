/* tests/testutil.h: helpers shared by the test suites. */
#ifndef TESTS_TESTUTIL_H
#define TESTS_TESTUTIL_H

#include <stddef.h>
#include <stdio.h>

/* Writes text to a fresh file under a per-process temporary folder and returns its
 * path (static storage, valid until the next call with the same name). */
const char *tu_write_file(const char *name, const char *text);
/* A fresh temporary folder path for this process (created once). */
const char *tu_tmpdir(void);
/* Runs the gpusched binary with a shell command line suffix ("run x.json -o y"),
 * capturing stdout+stderr into *out (malloc'd, caller frees). Returns the exit code. */
int tu_run_gpusched(const char *args, char **out);
/* 1 if path exists. */
int tu_exists(const char *path);
/* Reads a whole file (malloc'd, NUL-terminated) or NULL. */
char *tu_read_file(const char *path, size_t *len);

/* NAME under tu_tmpdir(), in one of 4 rotating static buffers (each valid for the next
 * 3 calls), so a test can hold an input and an output path at once. */
const char *tu_tmp_path(const char *name);
struct trace_import_result;
/* Dropped rows of reason NAME in R, or (size_t)-1 when R has no such reason. */
size_t tu_reason_count(const struct trace_import_result *r, const char *name);

#endif

#include "../sim/cluster.h"
#include "../sim/engine.h"
#include "../sim/job.h"

/* Appends a job to a hand-built trace (one option: flavor name or "*", gpus in
 * milli-units). Line numbers are the append order + 2. Returns the job's row. */
size_t tu_trace_add(struct sim_trace *t, const char *id, double submit_s, double duration_s,
		    sim_qty_t gpu_milli, const char *flavor, int priority);
/* Sorts the trace (as a reader would). */
void tu_trace_finish(struct sim_trace *t);

/* A GPU-only cluster of one flavor "f": `nodes` nodes of `node_gpus` GPUs. */
struct sim_cluster *tu_cluster(uint32_t nodes, int node_gpus, double speed, enum sim_placement placement);

/* One simulated run of a bound trace with one order policy (params may be NULL) on
 * a cluster of one flavor "f" with `nodes` nodes of `node_gpus` GPUs. Returns the
 * engine's result code. The trace keeps the run state. */
int tu_simulate(struct sim_trace *t, uint32_t nodes, int node_gpus, const char *order,
		const char *params_json, enum sim_placement placement);
/* Same, writing the engine's event log to `log` (may be NULL). */
int tu_simulate_logged(struct sim_trace *t, uint32_t nodes, int node_gpus, const char *order,
		       const char *params_json, enum sim_placement placement, FILE *log);
/* Start time of job by id, in seconds (NaN if it never started). */
double tu_start_s(const struct sim_trace *t, const char *id);

struct real_opts;
/* Runs every run of the config at CONFIG_PATH into OUT in this process, quietly:
 * simulated (real NULL) or in real mode (gpu_exec/drv_real.h). Errors are printed.
 * Returns exp_run_config's result. */
int tu_run_config(const char *config_path, const char *out, const struct real_opts *real);

/* An executor's done callback for tests (gpu_exec/exec.h gx_done_fn): counts the
 * segments that ended by themselves and keeps the last one's job, seq and time.
 * Initialise with TU_DONE_LOG_INIT. */
#include <pthread.h>
struct tu_done_log {
	pthread_mutex_t mu;
	int n;
	uint32_t job;
	uint64_t seq;
	int64_t wall_ns;
};
#define TU_DONE_LOG_INIT { .mu = PTHREAD_MUTEX_INITIALIZER }
void tu_done_cb(void *arg, uint32_t job, uint64_t seq, int64_t wall_ns);
int tu_done_count(struct tu_done_log *d);
/* Waits up to limit_ms for the callback to have fired n times; 1 if it has. */
int tu_done_wait(struct tu_done_log *d, int n, int limit_ms);
void tu_sleep_ms(double ms);
