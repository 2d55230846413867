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
/* 1 when the n bytes at buf (which may hold NULs) contain the string what. */
int tu_has_bytes(const void *buf, size_t n, const char *what);
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
/* The same with the caller's run options (output, log, the one-run path, ...). */
struct exp_run_opts;
int tu_run_config_opts(const char *config_path, const struct exp_run_opts *opts);

/* The real-mode fixture of the real and report_real suites: tests/data/real/preempt.json
 * (4 jobs on 2 GPUs, j1 preempted at 50 s) simulated into SIM_OUT, then run for real
 * on the cpu backend into REAL_OUT at time scale TU_REAL_SCALE. A busy machine runs
 * threads late, by a wall-clock delay that does not shrink with the time scale, so
 * when the run misses its timing relations (tu_real_timing_holds) it is run again
 * with twice the wall time a trace second, up to TU_REAL_ATTEMPTS runs (100, 50, 25,
 * 12.5: 1.7 to 13.5 s of wall time); the structure of the schedule must match the
 * simulation's in every attempt that is kept. Returns the time scale of the kept run
 * (whose timing the suites then assert), or 0 when a run could not be made. */
#define TU_REAL_SCALE 100.0
#define TU_REAL_ATTEMPTS 4
double tu_real_fixture(const char *sim_out, const char *real_out);
/* 1 if the real run keeps the simulated schedule (states, preemptions) and its
 * timing: JCTs within 5%, j1 stopped at 47 +- 2% done and resumed for 79 s +- 2%,
 * measured run times within 3% of the model's, run time error under 1%. Prints what
 * missed. */
int tu_real_timing_holds(const char *sim_h5, const char *real_h5);

/* A result file opened for checks: the jobs of one run and the summary (fatal
 * CUnit assertions when it cannot be read). run NULL: the summary's first run.
 * tu_result_close frees all of it. */
#include "../analysis/h5read.h"
struct tu_result {
	struct sim_diag diag;
	struct h5read_file *f;
	struct h5read_jobs jobs;
	struct h5read_summary sum;
};
void tu_result_open(struct tu_result *r, const char *h5, const char *run);
void tu_result_close(struct tu_result *r);
/* The row of job `id` in j, or -1. */
int tu_job_row(const struct h5read_jobs *j, const char *id);

/* Runs attempt(arg, slow) with slow = 1, 2, 4, 8 until it returns 1, and returns the
 * slowdown that held, or 0 when none did. For executor tests on the wall clock:
 * the attempt scales every duration it asks for by `slow` and returns whether its
 * timing relations held (asserting, with CUnit, only what holds however late its
 * threads run), so a fixed scheduling delay of a busy machine weighs less each time. */
int tu_retry_slower(int (*attempt)(void *arg, int slow), void *arg);

/* One attempt of the hang test (tests/data/real/hang.csv, by hand): the config with
 * detection (hang.json) or without (hang_undetected.json) simulated, then run in real
 * mode on `backend` (`sms` for cuda, else NULL) at time scale 100 / slow. Asserts the
 * hand-computed simulation exactly and, on the real run, what holds however late
 * its threads run; returns whether its timing held too (ends within 1%, lost work
 * within 2 GPU-s and the time hung within 1 s, against 20 more for a workload that
 * did not freeze; the hung segments' work done within 1% and saved within 0.1%;
 * cuda: plus 2.5% of the work for its calibration), for tu_retry_slower. */
struct tu_hang_case {
	const char *backend, *sms;
	int detect;
};
int tu_hang_attempt(const struct tu_hang_case *c, int slow);

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

/* One in-memory run of variant 0 of a config, kept to inspect: its trace's run
 * state, its engine and its policies. The config text may use single quotes for
 * JSON's double quotes and the word TRACE for the path of `trace` (a CSV written
 * next to it). Fails the test (fatal) on a config or trace error. */
struct tu_crun {
	struct exp_config *cfg;
	struct sim_trace *t;
	struct sim_cluster *c;
	struct sim_engine *e;
	struct sim_driver drv;
	const struct sim_driver_ops *virtual_ops; /* drv's own, restored before it is freed */
	struct sim_policy pol[SIM_FAM_COUNT_];
	int rc; /* sim_engine_run's */
};
void tu_crun(struct tu_crun *r, const char *config, const char *trace);
/* The same with a seed (tu_crun: 1), an event log (NULL: none) and a driver's ops in
 * place of the virtual driver's (NULL: the virtual driver; the replacement gets the
 * virtual driver's state, so it may wrap its hooks). */
struct tu_crun_opts {
	uint64_t seed;
	FILE *log;
	const struct sim_driver_ops *driver;
};
void tu_crun_with(struct tu_crun *r, const char *config, const char *trace, const struct tu_crun_opts *o);
/* Loads config (single quotes read as double, written as tu_tmpdir()/NAME) and
 * expects it refused as bad input with a message containing want (the messages are
 * printed when none does). */
void tu_expect_config_error(const char *name, const char *config, const char *want);
void tu_crun_free(struct tu_crun *r);
/* tu_crun_with (seed 1) with the run's event log kept in *log_text (NUL-ended,
 * owned by the caller). */
void tu_crun_logged(struct tu_crun *r, const char *config, const char *trace, char **log_text);
/* Fails (printing the log) unless log holds line. */
void tu_expect_line(const char *log, const char *line);
/* The job of that id (fatal when there is none). */
const struct sim_job *tu_crun_job(const struct tu_crun *r, const char *id);

