/* experiments/parallel.h: a sweep's runs in several processes, resumable.
 *
 * Every finished run is one part file OUTPUT.parts/NNNNNN.h5 (NNNNNN = run index
 * i = variant * n_seeds + seed index), written as .h5.tmp and renamed when complete,
 * so a part that exists is whole whatever killed the sweep. The folder's STAMP file
 * says which config, trace and options the parts belong to; --resume keeps parts
 * only under the same STAMP. The runs of a sweep go to N forked workers (-j N) or
 * to MPI ranks; the parent (rank 0) then merges the parts in run order into OUTPUT
 * (h5out_copy_run) and removes the folder. With --log, each run's event log is the
 * part's NNNNNN.log, renamed before its .h5, and the logs are joined in run order.
 * A config of one run writes no part: it goes straight into the merge's temporary
 * (exp_merge_output, runner.c).
 */
#ifndef EXPERIMENTS_PARALLEL_H
#define EXPERIMENTS_PARALLEL_H

#include <stddef.h>

#include "../sim/h5out.h"
#include "config.h"

struct exp_parts {
	char *dir;           /* OUTPUT.parts; owned */
	size_t n;            /* runs of the sweep */
	unsigned char *done; /* n flags: 1 when the run's part is complete (owned) */
	int with_log;        /* parts carry event logs */
	int lock_fd;         /* the folder, flock'd while this sweep writes it; -1: none */
};

/* Opens (creates) OUTPUT.parts for cfg's runs. resume: keeps complete parts, after
 * checking the STAMP (-SIM_EPARSE with a message when the parts belong to another
 * config, trace or log setting); otherwise any old parts are removed first.
 * Returns 0 or -SIM_E* with diag. */
int exp_parts_open(struct exp_parts *p, const struct exp_config *cfg, const char *output, int resume,
		   int with_log, struct sim_diag *diag);
/* A fresh private folder under $TMPDIR (an MPI rank other than 0: its parts go to
 * rank 0 and are removed here), no STAMP, nothing done. */
int exp_parts_open_private(struct exp_parts *p, const struct exp_config *cfg, int with_log,
			   struct sim_diag *diag);
/* Path of run i's part file (ext "h5" or "log"), complete name (no .tmp). */
void exp_parts_path(const struct exp_parts *p, size_t i, const char *ext, char *buf, size_t n);
size_t exp_parts_pending(const struct exp_parts *p); /* runs without a complete part */
size_t exp_parts_any_done(const struct exp_parts *p); /* runs with one */
/* Writes OUTPUT from every part, in run order (names[i] is run i's group name), and
 * the event log to log_path (when non-NULL). Nothing is left half-written. */
int exp_parts_merge(const struct exp_parts *p, const char *output, const struct h5out_meta *meta,
		    char *const *names, const char *log_path, struct sim_diag *diag);

/* The same merge in steps, so that the parent of worker processes copies each part
 * (in run order) as soon as it is written: begin only records the names; ready
 * creates the output's temporary (a new name beside OUTPUT, guarded against signals
 * and known to the cleaner) at its first copy, and copies every consecutive part
 * that exists from `next` on; finish copies the rest (all must exist), joins the
 * logs into a temporary beside LOG and renames both; abort removes the temporary.
 * After a failed copy ready and finish copy nothing more. */
struct exp_merge {
	const struct exp_parts *p;
	char *const *names;   /* borrowed: run i's name */
	const struct h5out_meta *meta; /* borrowed */
	struct h5out *out;    /* NULL until the first copy */
	size_t next;          /* the next run to copy */
	int failed;           /* 1 after a failed copy */
	char output[4096];
};
int exp_merge_begin(struct exp_merge *m, const struct exp_parts *p, const char *output,
		    const struct h5out_meta *meta, char *const *names, struct sim_diag *diag);
int exp_merge_ready(struct exp_merge *m, struct sim_diag *diag);
int exp_merge_finish(struct exp_merge *m, const char *log_path, struct sim_diag *diag);
void exp_merge_abort(struct exp_merge *m);
/* Instead of copies: the output's temporary itself (created as at a first copy:
 * guarded, known to the cleaner; owned by m), for a writer that puts every run
 * there (a config of one run writes it in place, without a part: runner.c); NULL
 * with diag on failure, or once a part was copied. After the runs are written,
 * exp_merge_written says so and exp_merge_finish commits the file (with the log
 * joined from the parts' logs as usual); on failure exp_merge_abort removes it. */
struct h5out *exp_merge_output(struct exp_merge *m, struct sim_diag *diag);
void exp_merge_written(struct exp_merge *m);
/* Removes the part files, STAMP and the folder (after a merge). */
void exp_parts_remove(const struct exp_parts *p);
void exp_parts_fini(struct exp_parts *p);

/* Runs run i: writes its part. Returns 0 or -SIM_E* with diag. */
typedef int (*exp_run_fn)(void *arg, size_t i, struct sim_diag *diag);
/* Run i's name, for messages. */
typedef void (*exp_name_fn)(void *arg, size_t i, char *buf, size_t n);

struct exp_pool {
	int workers;      /* processes; 1: runs here, in this process */
	int progress;     /* 1: a progress line on stderr (runs done, elapsed, ETA) */
	exp_run_fn run;
	exp_name_fn name;
	void *arg;
	struct exp_merge *merge; /* optional: copied into while workers run */
};

/* Runs every pending run of p (the ones not done) in pool->workers forked
 * processes, each taking the next run left. Fails (-SIM_EEXTERNAL, the failing run
 * named in diag; its own messages went to stderr) as soon as one run fails; the
 * other workers are stopped. Returns 0 when every part is complete. */
int exp_pool_run(const struct exp_pool *pool, struct exp_parts *p, struct sim_diag *diag);

/* Progress line "[k/n runs] elapsed E, about T left" (ETA from the runs done in this
 * invocation). */
void exp_progress_prefix(char *buf, size_t n, size_t done, size_t total, size_t done_here,
			 double elapsed_s);

/* The temporary file of this process that SIGINT/SIGTERM must remove (NULL: none),
 * and, in a pool's parent, the workers they must stop. exp_guard_install sets the
 * handlers; exp_guard_uninstall restores the defaults. */
void exp_guard_install(void);
void exp_guard_tmp(const char *tmp_path);
void exp_guard_tmp_log(const char *tmp_path); /* a second one: the event log being written */
void exp_guard_uninstall(void);
/* SIGINT and SIGTERM held off from exp_guard_hold to exp_guard_release (nested
 * holds are not supported): around the creation of a temporary and the handing of
 * its name to the guard, so a signal between the two cannot leave the file behind;
 * a signal that came meanwhile is handled at the release, with the name known. */
void exp_guard_hold(void);
void exp_guard_release(void);

/* A killed sweep's cleaner (a forked process; design in parallel.c): once every
 * process of the sweep is gone without exp_cleaner_stop, it removes the merge's
 * temporaries (of the output and the log; the merge tells it their names) and the
 * temporaries of p's folder. Start it after exp_parts_open, before any of them
 * exists; stop it when the sweep has ended by itself. Returns 0 or -SIM_EIO (no
 * cleaner: the sweep may go on without). */
int exp_cleaner_start(const struct exp_parts *p);
void exp_cleaner_stop(void);

/* MPI (built with GPUSCHED_MPI): 1 when this process was started by mpirun with
 * more than one rank; then exp_mpi_* apply. Without MPI always 0. */
int exp_mpi_active(void);
int exp_mpi_rank(void);
/* Rank r runs the pending runs i with i % size == r; ranks other than 0 send each
 * finished part's bytes to rank 0, which writes them into its parts folder. Every
 * rank returns the same result (0 when rank 0 holds every part). */
int exp_mpi_run(const struct exp_pool *pool, struct exp_parts *p, struct sim_diag *diag);
/* Combines a per-rank result: returns 0 only when every rank passed 0. */
int exp_mpi_all_ok(int rc);
void exp_mpi_finalize(void);

#endif
