/* traces/gen.h: a configurable synthetic workload generator (`gpusched trace gen`).
 *
 * A JSON generator config (every key: experiments/gen/README.md) describes the laws:
 * arrivals (Poisson, with an optional diurnal swing and periodic bursts, by thinning),
 * durations (lognormal, Weibull, or resampled from a native trace), and discrete mixes of
 * GPU counts, queues, priorities and preference-list templates. The output is a native
 * CSV trace (traces/README.md).
 *
 * Reproducibility: one gsl_rng_mt19937 stream per purpose (enum gen_stream), each seeded
 * from (seed, purpose) through splitmix64 as bench/gen_workload.c does, so changing one
 * law never shifts the draws of the others; the same config and seed give the same bytes.
 */
#ifndef TRACES_GEN_H
#define TRACES_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../sim/sim.h"

enum gen_stream {
	GEN_ST_ARRIVALS,
	GEN_ST_DURATIONS,
	GEN_ST_GPUS,
	GEN_ST_QUEUES,
	GEN_ST_PRIORITIES,
	GEN_ST_PREFS,
	GEN_ST_EMPIRICAL,
	GEN_ST_COUNT_
};

enum gen_law { GEN_LAW_LOGNORMAL, GEN_LAW_WEIBULL, GEN_LAW_EMPIRICAL };

#define GEN_MAX_PREFS 5 /* options in a preference list (traces/README.md) */
#define GEN_MAX_SUBMIT_S 1e9 /* the native format's largest time */
/* Most jobs one generator config may ask for (about 5 GB of CSV): `jobs`, or with
 * `span_s` the expected count at the peak rate (experiments/gen/README.md). */
#define GEN_MAX_JOBS 1e8

/* A checked generator config. Owned by gen_config_destroy; every pointer is owned. */
struct gen_config {
	char *name;           /* the config's path as given, for the output's header */
	uint64_t seed;
	uint64_t jobs;        /* jobs to draw; 0 = until span_s */
	double span_s;        /* submit times < span_s; used when jobs == 0 */
	/* arrivals: rate(t) = rate x (1 + A cos(2 pi (t_h - peak_h) / 24)) x (F in a burst) */
	double rate_per_h;
	double diurnal_amp;   /* A in [0, 1]; 0 = no swing */
	double peak_hour;     /* hour of day [0, 24) of the largest rate */
	double burst_every_h; /* 0 = no bursts; a burst starts at every multiple of it */
	double burst_length_s;
	double burst_factor;  /* rate multiplier during a burst, >= 0 */
	/* durations */
	enum gen_law law;
	double median_s, sigma;  /* lognormal */
	double shape, scale_s;   /* Weibull */
	double *emp_s;           /* empirical: the source's durations, s */
	char *emp_path;          /* empirical: the source trace's path (an input of `trace gen`) */
	size_t n_emp;
	double cap_s;            /* 0 = no cap */
	/* mixes: values with weights (equal when the config gives none) */
	unsigned *gpu_values;
	double *gpu_weights;
	size_t n_gpus;
	char **queue_names;
	double *queue_weights;
	size_t n_queues;
	int *prio_values;
	double *prio_weights;
	size_t n_prios;
	char ***templates;       /* templates[i][k]: flavor names, template_len[i] of them */
	size_t *template_len;
	double *template_weights;
	size_t n_templates;      /* 0 = a plain request on `flavor` */
	char *flavor;            /* "*" by default */
	uint64_t checkpoint_ms;  /* 0 = no checkpoint_s column */
};

/* One drawn job. Times are rounded as written: submit to ms, duration up to ms (>= 1 ms). */
struct gen_job {
	uint64_t index;      /* 0-based; the id is "g<index+1>" */
	uint64_t submit_ms;  /* as written */
	uint64_t duration_ms;
	double submit_s;     /* submit_ms / 1000 */
	double duration_s;   /* duration_ms / 1000 */
	unsigned gpus;
	size_t queue;        /* index into queue_names */
	int priority;
	size_t template_idx; /* index into templates; meaningless without templates */
};

/* Parses and checks a generator config held in text[0..len), with text[len] == 0. `name` names the file in
 * messages ("NAME: $.durations.sigma: expected ..., got ..."); `dir` is the folder that
 * relative paths (durations.trace) are read from ("" or NULL: the current one). Returns
 * 0 and *out, or -SIM_EPARSE with every error (unknown keys included) in diag,
 * -SIM_ENOMEM. Caller must gen_config_destroy(*out). */
int gen_config_parse(const char *name, const char *dir, const char *text, size_t len,
		     struct gen_config **out, struct sim_diag *diag);
/* Same, reading PATH; relative paths in it are relative to PATH's folder. A PATH
 * ending in .yaml or .yml is read as YAML (docs/yaml.md), its errors then
 * "FILE:LINE:COL: $.path: ...". Adds -SIM_ENOENT/-SIM_EIO. */
int gen_config_load(const char *path, struct gen_config **out, struct sim_diag *diag);
void gen_config_destroy(struct gen_config *c);

/* The drawing state; borrows cfg, which must outlive it. */
struct gen;
int gen_create(const struct gen_config *cfg, struct gen **out);
void gen_destroy(struct gen *g);
/* Draws the next job: returns 1 and *job, 0 when the config's jobs or span are done,
 * -SIM_ERANGE when a submit time would pass GEN_MAX_SUBMIT_S. */
int gen_next(struct gen *g, struct gen_job *job);

/* Writes the whole trace as native CSV to f: '#' lines naming the config and seed, the
 * header, one row a job. Returns 0, -SIM_ERANGE (message in diag), -SIM_EIO, -SIM_ENOMEM. */
int gen_write(const struct gen_config *cfg, FILE *f, uint64_t *n_jobs, struct sim_diag *diag);
/* gen_write into OUT.tmp, then rename to OUT; nothing is left behind on failure.
 * *n_jobs (may be NULL) gets the number of rows written. */
int gen_write_file(const struct gen_config *cfg, const char *out_path, uint64_t *n_jobs,
		   struct sim_diag *diag);

/* The seed of stream `purpose` (32 bits, never 0: mt19937 would pick GSL's default). */
unsigned long gen_stream_seed(uint64_t seed, enum gen_stream purpose);

#endif
