/* experiments/parallel.c: part files, their STAMP, the merge, and the worker pool
 * (design in parallel.h).
 *
 * Workers are forked after the trace is read and every variant checked, so they
 * share the parent's trace copy-on-write and bad input never reaches them. They
 * take run indices from a counter in shared memory (each takes the next run left,
 * so runs of unequal length balance), and count finished runs there for the
 * parent's progress line. No HDF5 file is open across a fork.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "parallel.h"

#include "../sim/outpath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STAMP_NAME "STAMP"
#define MERGED_NAME "merged.h5" /* the merge's temporary is MERGED_NAME.XXXXXX.tmp, in the parts folder */
#define STAMP_MAGIC "gpusched parts 1"
#define POLL_NS 50000000L /* parent's wait between looks at the workers: 50 ms */
#define PROGRESS_S 0.25   /* least time between two progress lines */
#define LOCK_WAIT_S 20.0  /* how long a run waits for the processes of a killed one to end */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- signals: no .tmp left behind, no worker left running ---- */

/* File scope because a signal handler reaches nothing else. guard_tmp_paths: this
 * process's files being written (slot 0 the HDF5 file, slot 1 the event log; set
 * before they exist, cleared once renamed or removed); guard_pids: a pool parent's
 * live workers. */
static char guard_tmp_paths[2][4096];
static pid_t guard_pids[256];
static volatile sig_atomic_t guard_n_pids;

/* Removes this process's temporaries, stops its workers and waits for them (each
 * removes its own in its handler), so that once a stopped sweep's parent is gone,
 * so are its workers and every temporary they were writing; then dies of sig.
 * Only async-signal-safe calls. */
static void guard_handler(int sig)
{
	for (int k = 0; k < 2; k++)
		if (guard_tmp_paths[k][0])
			unlink(guard_tmp_paths[k]);
	for (int k = 0; k < guard_n_pids; k++)
		if (guard_pids[k] > 0)
			kill(guard_pids[k], SIGTERM);
	for (int k = 0; k < guard_n_pids; k++)
		if (guard_pids[k] > 0)
			while (waitpid(guard_pids[k], NULL, 0) < 0 && errno == EINTR)
				;
	signal(sig, SIG_DFL);
	raise(sig);
}

void exp_guard_install(void)
{
	signal(SIGINT, guard_handler);
	signal(SIGTERM, guard_handler);
}

static void guard_set(int slot, const char *tmp_path)
{
	char *dst = guard_tmp_paths[slot];
	if (!tmp_path || snprintf(dst, sizeof guard_tmp_paths[slot], "%s", tmp_path) >=
			 (int)sizeof guard_tmp_paths[slot])
		dst[0] = 0;
}

void exp_guard_tmp(const char *tmp_path)
{
	guard_set(0, tmp_path);
}

void exp_guard_tmp_log(const char *tmp_path)
{
	guard_set(1, tmp_path);
}

static sigset_t guard_held_old; /* the mask before exp_guard_hold */

void exp_guard_hold(void)
{
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, &guard_held_old);
}

void exp_guard_release(void)
{
	pthread_sigmask(SIG_SETMASK, &guard_held_old, NULL);
}

void exp_guard_uninstall(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	guard_tmp_paths[0][0] = guard_tmp_paths[1][0] = 0;
	guard_n_pids = 0;
}

/* ---- the merge's temporaries, known to the cleaner ---- */

/* The names of the merge's temporaries (results, joined log) are random, made
 * after the cleaner is forked: the sweep's parent writes them here, a mapping
 * shared with the cleaner, as soon as each exists, so a kill never leaves one the
 * cleaner cannot name. Only the parent writes (workers merge nothing); the cleaner
 * reads once every writer is gone. NULL without a cleaner. */
struct cleaner_names {
	char path[2][4096 + 16]; /* slot 0 the results file, 1 the log; "" none */
};
static struct cleaner_names *cleaner_names;

/* Sets (tmp) or clears (NULL) the signal guard and the cleaner's name of slot. */
static void merge_guard(int slot, const char *tmp)
{
	guard_set(slot, tmp);
	if (!cleaner_names)
		return;
	char *dst = cleaner_names->path[slot];
	if (!tmp || snprintf(dst, sizeof cleaner_names->path[slot], "%s", tmp) >= (int)sizeof cleaner_names->path[slot])
		dst[0] = 0;
}

/* ---- the parts folder ---- */

/* What the parts belong to: the config text, the trace file (size and mtime, so an
 * edited trace is noticed without reading it again), the number of runs and whether
 * parts carry logs. */
static int stamp_text(const struct exp_config *cfg, size_t n_runs, int with_log, char *buf, size_t n,
		      struct sim_diag *diag)
{
	struct stat st;
	if (stat(cfg->trace_path, &st)) {
		sim_diag_add(diag, cfg->trace_path, "cannot stat the trace: %s", strerror(errno));
		return -SIM_EIO;
	}
	snprintf(buf, n,
		 STAMP_MAGIC "\nconfig_fnv1a=%016llx\ntrace=%s\ntrace_bytes=%lld\ntrace_mtime_ns=%lld\n"
		 "runs=%zu\nlog=%d\n",
		 (unsigned long long)sim_fnv1a64(cfg->text, strlen(cfg->text)), cfg->trace_path, (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec, n_runs, with_log);
	return 0;
}

static int write_atomic_held(const char *path, const char *text)
{
	char *tmp = NULL;
	int fd = sim_out_tmp_create(path, &tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd), unlink(tmp);
		free(tmp);
		return -1;
	}
	int bad = fputs(text, f) < 0;
	bad = sim_out_close(f) || bad || rename(tmp, path);
	if (bad)
		unlink(tmp);
	free(tmp);
	return bad ? -1 : 0;
}

/* Writes path atomically (a new temporary beside it, then rename; signals held off
 * meanwhile, so a stop never leaves the temporary). */
static int write_atomic(const char *path, const char *text)
{
	exp_guard_hold();
	int rc = write_atomic_held(path, text);
	exp_guard_release();
	return rc;
}

/* 1 for a name this code writes in a parts folder: STAMP, NNNNNN.h5, NNNNNN.log,
 * the merge's temporary (MERGED_NAME.XXXXXX.tmp), and their temporaries (sim_out_tmp_create's NAME.XXXXXX.tmp, or an older
 * version's NAME.tmp). Only these are removed. */
static int is_part_name(const char *name)
{
	size_t len = strlen(name);
	if (!sim_out_tmp_name(name, &len) && len > 4 && strcmp(name + len - 4, ".tmp") == 0)
		len -= 4;
	if ((len == strlen(STAMP_NAME) && strncmp(name, STAMP_NAME, len) == 0) ||
	    (len == strlen(MERGED_NAME) && strncmp(name, MERGED_NAME, len) == 0))
		return 1;
	size_t digits = strspn(name, "0123456789");
	if (digits < 6)
		return 0;
	return (len == digits + 3 && strncmp(name + digits, ".h5", 3) == 0) ||
	       (len == digits + 4 && strncmp(name + digits, ".log", 4) == 0);
}

/* Removes our files from dir; keep_complete: only the .tmp ones (a resume). */
static void clear_dir(const char *dir, int keep_complete)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char path[4096 + 300];
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		int tmp = len > 4 && strcmp(e->d_name + len - 4, ".tmp") == 0;
		if (!is_part_name(e->d_name) || (keep_complete && !tmp))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
}

void exp_parts_path(const struct exp_parts *p, size_t i, const char *ext, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%06zu.%s", p->dir, i, ext);
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Marks the runs whose part (and log, with logs) is complete. */
static void scan_done(struct exp_parts *p)
{
	char path[4096];
	for (size_t i = 0; i < p->n; i++) {
		exp_parts_path(p, i, "h5", path, sizeof path);
		int ok = exists(path);
		if (ok && p->with_log) {
			exp_parts_path(p, i, "log", path, sizeof path);
			ok = exists(path);
		}
		p->done[i] = (unsigned char)ok;
	}
}

/* --resume: the folder's STAMP must be this one. */
static int check_stamp(const struct exp_parts *p, const char *want, struct sim_diag *diag)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/" STAMP_NAME, p->dir);
	FILE *f = fopen(path, "r");
	char have[8192] = "";
	size_t got = f ? fread(have, 1, sizeof have - 1, f) : 0;
	if (f)
		fclose(f);
	have[got] = 0;
	if (strcmp(have, want) == 0)
		return 0;
	if (!f)
		return sim_diag_add(diag, p->dir, "--resume: expected a parts folder with a STAMP file, found "
				    "none (remove the folder, or run without --resume)");
	return sim_diag_add(diag, p->dir, "--resume: these parts belong to a different config, trace or --log "
			    "setting (the STAMP differs); run without --resume to start over");
}

/* Takes the parts folder's lock (flock on the folder itself, held until
 * exp_parts_fini and inherited by forked workers): one sweep at a time writes
 * OUTPUT's parts. The processes of a killed sweep (its workers, its cleaner) hold
 * it until they have ended and removed their temporaries, so a run started right
 * after a kill waits for them, a bounded time. */
static int lock_parts_dir(struct exp_parts *p, struct sim_diag *diag)
{
	p->lock_fd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->lock_fd < 0) {
		sim_diag_add(diag, p->dir, "cannot open the parts folder: %s", strerror(errno));
		return -SIM_EIO;
	}
	double t0 = now_s();
	while (flock(p->lock_fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			sim_diag_add(diag, p->dir, "cannot lock the parts folder: %s", strerror(errno));
			return -SIM_EIO;
		}
		if (now_s() - t0 > LOCK_WAIT_S) {
			sim_diag_add(diag, p->dir, "in use by another gpusched run of this output (it holds the "
				     "folder's lock); expected one run of an output at a time");
			return -SIM_EIO;
		}
		struct timespec ts = { 0, POLL_NS };
		nanosleep(&ts, NULL);
	}
	return 0;
}

int exp_parts_open(struct exp_parts *p, const struct exp_config *cfg, const char *output, int resume,
		   int with_log, struct sim_diag *diag)
{
	memset(p, 0, sizeof *p);
	p->lock_fd = -1;
	p->n = cfg->n_variants * cfg->n_seeds;
	p->with_log = with_log;
	p->dir = malloc(strlen(output) + 7);
	p->done = calloc(p->n ? p->n : 1, 1);
	if (!p->dir || !p->done) {
		exp_parts_fini(p);
		return -SIM_ENOMEM;
	}
	sprintf(p->dir, "%s.parts", output);
	char stamp[8192];
	int rc = stamp_text(cfg, p->n, with_log, stamp, sizeof stamp, diag);
	if (rc)
		goto fail;
	struct stat st;
	int have_dir = stat(p->dir, &st) == 0;
	if (have_dir && !S_ISDIR(st.st_mode)) {
		rc = sim_diag_add(diag, p->dir, "expected a folder for the run's parts, found a file");
		goto fail;
	}
	if (!have_dir && mkdir(p->dir, 0777) && errno != EEXIST) {
		sim_diag_add(diag, p->dir, "cannot create the parts folder: %s", strerror(errno));
		rc = -SIM_EIO;
		goto fail;
	}
	if ((rc = lock_parts_dir(p, diag)))
		goto fail;
	if (have_dir && resume) {
		if ((rc = check_stamp(p, stamp, diag)))
			goto fail;
		clear_dir(p->dir, 1); /* leftovers of runs killed mid-write */
		scan_done(p);
		return 0;
	}
	if (have_dir)
		clear_dir(p->dir, 0);
	char path[4096];
	snprintf(path, sizeof path, "%s/" STAMP_NAME, p->dir);
	if (write_atomic(path, stamp)) {
		sim_diag_add(diag, path, "cannot write: %s", strerror(errno));
		rc = -SIM_EIO;
		goto fail;
	}
	return 0;
fail:
	exp_parts_fini(p);
	return rc;
}

int exp_parts_open_private(struct exp_parts *p, const struct exp_config *cfg, int with_log,
			   struct sim_diag *diag)
{
	memset(p, 0, sizeof *p);
	p->lock_fd = -1;
	p->n = cfg->n_variants * cfg->n_seeds;
	p->with_log = with_log;
	const char *base = getenv("TMPDIR");
	if (!base || !base[0])
		base = "/tmp";
	p->dir = malloc(strlen(base) + 32);
	p->done = calloc(p->n ? p->n : 1, 1);
	if (!p->dir || !p->done) {
		exp_parts_fini(p);
		return -SIM_ENOMEM;
	}
	sprintf(p->dir, "%s/gpusched-parts-XXXXXX", base);
	if (!mkdtemp(p->dir)) {
		sim_diag_add(diag, p->dir, "cannot create a private parts folder: %s", strerror(errno));
		exp_parts_fini(p);
		return -SIM_EIO;
	}
	return 0;
}

size_t exp_parts_any_done(const struct exp_parts *p)
{
	return p->n - exp_parts_pending(p);
}

size_t exp_parts_pending(const struct exp_parts *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++)
		n += !p->done[i];
	return n;
}

/* Appends file src to out. */
static int append_file(FILE *out, const char *src)
{
	FILE *in = fopen(src, "rb");
	if (!in)
		return -1;
	char buf[65536];
	size_t got;
	int bad = 0;
	while (!bad && (got = fread(buf, 1, sizeof buf, in)) > 0)
		bad = fwrite(buf, 1, got, out) != got;
	bad |= ferror(in);
	fclose(in);
	return bad ? -1 : 0;
}

/* Joins the parts' logs, in run order, into a new temporary beside LOG_PATH
 * (*log_tmp, guarded; renamed by the caller once the results file is in place, so a
 * failed merge leaves the old log alone). */
static int merge_logs(const struct exp_parts *p, const char *log_path, char **log_tmp, struct sim_diag *diag)
{
	exp_guard_hold();
	FILE *out = sim_out_tmp_fopen(log_path, log_tmp, diag);
	if (out)
		merge_guard(1, *log_tmp);
	exp_guard_release();
	if (!out)
		return -SIM_EIO;
	char path[4096];
	int bad = 0;
	for (size_t i = 0; i < p->n && !bad; i++) {
		exp_parts_path(p, i, "log", path, sizeof path);
		bad = append_file(out, path);
	}
	int err = bad ? errno : 0, close_err = sim_out_close(out);
	if (bad || close_err) {
		sim_diag_add(diag, log_path, "cannot write the event log: %s",
			     sim_out_write_error(close_err ? close_err : err ? err : EIO));
		unlink(*log_tmp);
		merge_guard(1, NULL);
		free(*log_tmp);
		*log_tmp = NULL;
		return -SIM_EIO;
	}
	return 0;
}

int exp_merge_begin(struct exp_merge *m, const struct exp_parts *p, const char *output,
		    const struct h5out_meta *meta, char *const *names, struct sim_diag *diag)
{
	*m = (struct exp_merge){ .p = p, .names = names, .meta = meta };
	if (snprintf(m->output, sizeof m->output, "%s", output) >= (int)sizeof m->output)
		return sim_diag_add(diag, output, "expected an output path under %zu bytes", sizeof m->output);
	return 0;
}

/* Creates the output's temporary on the first copy: after the workers are forked,
 * so that none of them holds it open (and HDF5's lock on it) should it outlive this
 * process. */
static int merge_open(struct exp_merge *m, struct sim_diag *diag)
{
	if (m->out)
		return 0;
	/* The temporary goes in the parts folder (same filesystem as the output, renamed
	 * there by commit): a SIGKILL between its creation and the cleaner learning its
	 * name (SIGKILL cannot be held off) then leaves it where the cleaner and a
	 * --resume remove what is ours, not beside the output under a name nobody knows. */
	char beside[4096 + 16];
	snprintf(beside, sizeof beside, "%s/" MERGED_NAME, m->p->dir);
	exp_guard_hold();
	m->out = h5out_create_at(m->output, beside, m->meta, diag);
	if (m->out)
		merge_guard(0, h5out_tmp_path(m->out));
	exp_guard_release();
	return m->out ? 0 : -SIM_EIO;
}

int exp_merge_ready(struct exp_merge *m, struct sim_diag *diag)
{
	if (m->failed)
		return -SIM_ESTATE; /* a failed copy may have left the file broken: copy nothing more */
	char path[4096];
	while (m->next < m->p->n) {
		exp_parts_path(m->p, m->next, "h5", path, sizeof path);
		if (!exists(path))
			return 0; /* not written yet: its turn comes later */
		int rc = merge_open(m, diag);
		if (!rc)
			rc = h5out_copy_run(m->out, path, m->names[m->next], diag);
		if (rc) {
			m->failed = 1;
			return rc;
		}
		m->next++;
	}
	return 0;
}

struct h5out *exp_merge_output(struct exp_merge *m, struct sim_diag *diag)
{
	if (m->next != 0) {
		sim_diag_add(diag, m->output, "expected no part copied before a run written in place, got %zu", m->next);
		return NULL;
	}
	if (merge_open(m, diag))
		return NULL;
	return m->out;
}

void exp_merge_written(struct exp_merge *m)
{
	m->next = m->p->n;
}

void exp_merge_abort(struct exp_merge *m)
{
	merge_guard(0, NULL);
	if (m->out)
		h5out_abort(m->out);
	m->out = NULL;
}

/* Puts the joined log in place, after the results file (a failed merge renames
 * neither; only a failed rename of the log itself leaves the results new and the
 * log old). */
static int commit_log(const char *log_tmp, const char *log_path, struct sim_diag *diag)
{
	int rc = 0;
	if (rename(log_tmp, log_path)) {
		sim_diag_add(diag, log_path, "cannot rename %s: %s", log_tmp, strerror(errno));
		unlink(log_tmp);
		rc = -SIM_EIO;
	}
	merge_guard(1, NULL);
	return rc;
}

int exp_merge_finish(struct exp_merge *m, const char *log_path, struct sim_diag *diag)
{
	char *log_tmp = NULL;
	int rc = merge_open(m, diag);
	if (!rc)
		rc = exp_merge_ready(m, diag);
	if (!rc && m->next < m->p->n) {
		sim_diag_add(diag, m->p->dir, "expected every run's part before the merge; run %zu is missing", m->next);
		rc = -SIM_EIO;
	}
	if (!rc && log_path)
		rc = merge_logs(m->p, log_path, &log_tmp, diag);
	if (rc) {
		exp_merge_abort(m);
		return rc;
	}
	rc = h5out_commit(m->out, diag);
	h5out_destroy(m->out);
	m->out = NULL;
	merge_guard(0, NULL); /* renamed or removed by the commit */
	if (log_path && rc) {
		unlink(log_tmp);
		merge_guard(1, NULL);
	} else if (log_path) {
		rc = commit_log(log_tmp, log_path, diag);
	}
	free(log_tmp);
	return rc;
}

int exp_parts_merge(const struct exp_parts *p, const char *output, const struct h5out_meta *meta,
		    char *const *names, const char *log_path, struct sim_diag *diag)
{
	struct exp_merge m;
	int rc = exp_merge_begin(&m, p, output, meta, names, diag);
	return rc ? rc : exp_merge_finish(&m, log_path, diag);
}

void exp_parts_remove(const struct exp_parts *p)
{
	clear_dir(p->dir, 0);
	rmdir(p->dir);
}

void exp_parts_fini(struct exp_parts *p)
{
	if (p->lock_fd >= 0)
		close(p->lock_fd);
	free(p->dir);
	free(p->done);
	memset(p, 0, sizeof *p);
}

/* ---- the cleaner: what a sweep killed outright leaves ---- */

/* A SIGKILL'd process removes nothing. So a sweep forks a cleaner first, which
 * waits on a pipe whose write end the sweep's processes hold: a byte means the
 * sweep ended by itself (nothing to do); end-of-file, that every one of them died,
 * and it then removes the merge's temporaries (named in cleaner_names) and the
 * parts' temporaries. It holds the
 * parts folder's lock (inherited) until done, so a run started after the kill
 * waits for it. */
static pid_t cleaner_pid = -1;
static int cleaner_fd = -1; /* the write end, in the sweep's processes */

static void cleaner_main(int fd, const struct exp_parts *p)
{
	signal(SIGINT, SIG_IGN); /* a ^C to the sweep's process group is the sweep's to handle */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	char c;
	ssize_t got;
	while ((got = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (got == 0) {
		for (int k = 0; k < 2; k++)
			if (cleaner_names->path[k][0])
				unlink(cleaner_names->path[k]);
		clear_dir(p->dir, 1);
	}
	_exit(0);
}

int exp_cleaner_start(const struct exp_parts *p)
{
	void *names = mmap(NULL, sizeof *cleaner_names, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (names == MAP_FAILED)
		return -SIM_EIO;
	int fds[2];
	if (pipe(fds)) {
		munmap(names, sizeof *cleaner_names);
		return -SIM_EIO;
	}
	cleaner_names = names; /* zero-filled: no temporary yet */
	fflush(NULL); /* nothing buffered is written twice */
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		munmap(names, sizeof *cleaner_names);
		cleaner_names = NULL;
		return -SIM_EIO;
	}
	if (pid == 0) {
		close(fds[1]);
		cleaner_main(fds[0], p);
	}
	close(fds[0]);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	cleaner_pid = pid;
	cleaner_fd = fds[1];
	return 0;
}

void exp_cleaner_stop(void)
{
	if (cleaner_pid <= 0)
		return;
	/* A cleaner that is gone (killed, or reaped by the watch loop's waitpid) left no
	 * reader: the write then fails with EPIPE, and the SIGPIPE it raises, held off
	 * here, is taken back rather than ending a sweep that succeeded. */
	sigset_t pipe_set, old;
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	ssize_t put;
	while ((put = write(cleaner_fd, "x", 1)) < 0 && errno == EINTR)
		;
	if (put < 0 && errno == EPIPE) {
		const struct timespec none = { 0, 0 };
		while (sigtimedwait(&pipe_set, NULL, &none) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(cleaner_fd);
	waitpid(cleaner_pid, NULL, 0);
	cleaner_pid = -1;
	cleaner_fd = -1;
	munmap(cleaner_names, sizeof *cleaner_names);
	cleaner_names = NULL;
}

/* ---- progress ---- */

static void fmt_duration(char *buf, size_t n, double s)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

void exp_progress_prefix(char *buf, size_t n, size_t done, size_t total, size_t done_here, double elapsed_s)
{
	char el[32], left[32];
	fmt_duration(el, sizeof el, elapsed_s);
	if (done_here == 0 || done >= total) {
		snprintf(buf, n, "[%zu/%zu runs, %s elapsed]", done, total, el);
		return;
	}
	fmt_duration(left, sizeof left, elapsed_s / (double)done_here * (double)(total - done));
	snprintf(buf, n, "[%zu/%zu runs, %s elapsed, about %s left]", done, total, el, left);
}

/* ---- the pool ---- */

/* Shared between the parent and its workers (an anonymous shared mapping). */
struct pool_shm {
	atomic_size_t next;     /* index into the pending list: the next run to take */
	atomic_size_t finished; /* runs finished in this invocation */
	atomic_long running[];  /* per worker: the run it is on, or -1 */
};

/* A worker: takes runs until none is left. Never returns. parent: the pid that
 * forked it. */
static void worker_main(const struct exp_pool *pool, struct pool_shm *shm, int w, const size_t *pending,
			size_t n_pending, pid_t parent)
{
	/* A parent killed outright (SIGKILL) runs no handler: the kernel sends us SIGTERM
	 * then (its handler removes our temporaries). A parent that died before prctl
	 * took effect is no longer our parent. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(1);
	guard_n_pids = 0; /* the parent's list is not ours to signal */
	exp_guard_tmp(NULL);
	exp_guard_tmp_log(NULL);
	/* The workers share the CPUs: each deflates its results on its share of them. */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	h5out_set_zip_threads(cpus > pool->workers ? (size_t)(cpus / pool->workers) : 1);
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	for (;;) {
		size_t k = atomic_fetch_add(&shm->next, 1);
		if (k >= n_pending)
			break;
		atomic_store(&shm->running[w], (long)pending[k]);
		int rc = pool->run(pool->arg, pending[k], &diag);
		if (rc) {
			sim_diag_print(&diag, stderr);
			_exit(1);
		}
		atomic_store(&shm->running[w], -1L);
		atomic_fetch_add(&shm->finished, 1);
	}
	sim_diag_fini(&diag);
	/* _exit: the worker shares the parent's stdio buffers and heap; the parent
	 * flushes and frees them, once. */
	_exit(0);
}

/* Stops and reaps the workers still alive. */
static void stop_workers(pid_t *pids, int n)
{
	for (int w = 0; w < n; w++)
		if (pids[w] > 0)
			kill(pids[w], SIGTERM);
	for (int w = 0; w < n; w++)
		if (pids[w] > 0)
			waitpid(pids[w], NULL, 0);
	guard_n_pids = 0;
}

static void show_progress(const struct exp_pool *pool, const struct exp_parts *p, size_t done_before,
			  size_t finished, double t0, double *last)
{
	double t = now_s();
	if (!pool->progress || t - *last < PROGRESS_S)
		return;
	*last = t;
	char line[256];
	exp_progress_prefix(line, sizeof line, done_before + finished, p->n, finished, t - t0);
	fprintf(stderr, "\r%s   ", line);
	fflush(stderr);
}

/* -j 1: every pending run here, in order. */
static int run_here(const struct exp_pool *pool, struct exp_parts *p, struct sim_diag *diag)
{
	for (size_t i = 0; i < p->n; i++) {
		if (p->done[i])
			continue;
		int rc = pool->run(pool->arg, i, diag);
		if (rc)
			return rc;
		p->done[i] = 1;
	}
	return 0;
}

/* Waits for the workers; on the first failure stops the rest. Returns 0, or the
 * failing run in *failed_run (-1: a worker died outside a run) with -SIM_EEXTERNAL. */
static int watch_workers(const struct exp_pool *pool, struct exp_parts *p, struct pool_shm *shm, pid_t *pids,
			 int n, size_t done_before, long *failed_run, int *status_out, struct sim_diag *merge_diag)
{
	int alive = n;
	double t0 = now_s(), last = 0;
	while (alive > 0) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		if (pid < 0 && errno != EINTR)
			break;
		if (pid <= 0) {
			show_progress(pool, p, done_before, atomic_load(&shm->finished), t0, &last);
			/* Copy the parts already written while the workers go on: the merge then
			 * costs the sweep only its last few runs, not all of them. */
			int mrc = pool->merge ? exp_merge_ready(pool->merge, merge_diag) : 0;
			if (mrc) {
				stop_workers(pids, n);
				return mrc;
			}
			struct timespec ts = { 0, POLL_NS };
			nanosleep(&ts, NULL);
			continue;
		}
		int w = 0;
		while (w < n && pids[w] != pid)
			w++;
		if (w == n)
			continue; /* not ours */
		pids[w] = 0;
		guard_pids[w] = 0; /* reaped: its pid may be reused, the handler must not signal it */
		alive--;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		*failed_run = atomic_load(&shm->running[w]);
		*status_out = status;
		stop_workers(pids, n);
		return -SIM_EEXTERNAL;
	}
	if (pool->progress) {
		last = 0;
		show_progress(pool, p, done_before, atomic_load(&shm->finished), t0, &last);
		fputc('\n', stderr);
	}
	return 0;
}

static void describe_failure(const struct exp_pool *pool, long run, int status, struct sim_diag *diag)
{
	char name[256] = "";
	if (run >= 0)
		pool->name(pool->arg, (size_t)run, name, sizeof name);
	char how[64];
	if (WIFSIGNALED(status))
		snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(how, sizeof how, "exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (run >= 0)
		sim_diag_add(diag, name, "run failed in a worker process (%s); the sweep stopped", how);
	else
		sim_diag_add(diag, "gpusched run", "a worker process failed (%s); the sweep stopped", how);
}

int exp_pool_run(const struct exp_pool *pool, struct exp_parts *p, struct sim_diag *diag)
{
	size_t n_pending = exp_parts_pending(p);
	int n = pool->workers;
	if ((size_t)n > n_pending)
		n = (int)n_pending;
	if (n > (int)(sizeof guard_pids / sizeof guard_pids[0]))
		n = (int)(sizeof guard_pids / sizeof guard_pids[0]);
	if (n <= 1)
		return run_here(pool, p, diag);
	size_t *pending = malloc(n_pending * sizeof *pending);
	size_t shm_size = sizeof(struct pool_shm) + (size_t)n * sizeof(atomic_long);
	struct pool_shm *shm = mmap(NULL, shm_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t *pids = calloc((size_t)n, sizeof *pids);
	if (!pending || shm == MAP_FAILED || !pids) {
		free(pending);
		free(pids);
		if (shm != MAP_FAILED)
			munmap(shm, shm_size);
		return -SIM_ENOMEM;
	}
	for (size_t i = 0, k = 0; i < p->n; i++)
		if (!p->done[i])
			pending[k++] = i;
	atomic_init(&shm->next, 0);
	atomic_init(&shm->finished, 0);
	for (int w = 0; w < n; w++)
		atomic_init(&shm->running[w], -1L);
	fflush(NULL); /* nothing buffered is written twice */
	int rc = 0;
	pid_t self = getpid();
	for (int w = 0; w < n && !rc; w++) {
		pid_t pid = fork();
		if (pid == 0)
			worker_main(pool, shm, w, pending, n_pending, self);
		if (pid < 0) {
			sim_diag_add(diag, "gpusched run", "cannot start a worker process: %s", strerror(errno));
			stop_workers(pids, w);
			rc = -SIM_EEXTERNAL;
			break;
		}
		pids[w] = pid;
		guard_pids[w] = pid;
		guard_n_pids = w + 1;
	}
	if (!rc) {
		long failed = -1;
		int status = 0;
		rc = watch_workers(pool, p, shm, pids, n, p->n - n_pending, &failed, &status, diag);
		if (rc == -SIM_EEXTERNAL)
			describe_failure(pool, failed, status, diag);
	}
	guard_n_pids = 0;
	scan_done(p);
	if (!rc && exp_parts_pending(p)) {
		sim_diag_add(diag, p->dir, "expected every run's part after the workers finished; some are missing");
		rc = -SIM_EIO;
	}
	munmap(shm, shm_size);
	free(pending);
	free(pids);
	return rc;
}

#ifndef GPUSCHED_MPI
int exp_mpi_active(void)
{
	return 0;
}

int exp_mpi_rank(void)
{
	return 0;
}

int exp_mpi_run(const struct exp_pool *pool, struct exp_parts *p, struct sim_diag *diag)
{
	return exp_pool_run(pool, p, diag);
}

int exp_mpi_all_ok(int rc)
{
	return rc;
}

void exp_mpi_finalize(void)
{
}
#endif
