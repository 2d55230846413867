/* experiments/parallel_mpi.c: a sweep's runs on MPI ranks (built with GPUSCHED_MPI).
 *
 * Under mpirun -np N, rank r runs the pending runs i with i % N == r. Debian's
 * HDF5 is serial and ranks may sit on machines without a shared filesystem, so
 * the gather is by message: a rank other than 0 writes each finished run as a part
 * file in a private temporary folder, sends its bytes (and its event log's) to
 * rank 0 and deletes it; rank 0 writes them into its parts folder (tmp + rename,
 * as its own parts) between its own runs, then merges as a -j 1 run would. Rank 0
 * alone reads and writes the parts folder; it tells the others which runs a
 * --resume already has. A failed run aborts the job (MPI_Abort): every complete
 * part stays for --resume.
 *
 * Messages from rank r to 0: a header of 3 uint64 (run, h5 bytes, log bytes;
 * run = DONE_RUN when r has no more), then the h5 bytes and the log bytes.
 */
#ifdef GPUSCHED_MPI
#include "parallel.h"

#include "../sim/outpath.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_HEAD 1
#define TAG_H5 2
#define TAG_LOG 3
#define DONE_RUN UINT64_MAX

/* Set once by mpi_setup: whether this process called MPI_Init, and its place. */
static int mpi_inited, mpi_rank_, mpi_size_ = 1;

/* Initializes MPI only when started by a launcher (mpirun sets these), so a plain
 * gpusched never touches MPI. */
static void mpi_setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK"))
		return;
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
		return;
	mpi_inited = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank_);
	MPI_Comm_size(MPI_COMM_WORLD, &mpi_size_);
}

int exp_mpi_active(void)
{
	mpi_setup();
	return mpi_size_ > 1;
}

int exp_mpi_rank(void)
{
	mpi_setup();
	return mpi_size_ > 1 ? mpi_rank_ : 0;
}

int exp_mpi_all_ok(int rc)
{
	if (!exp_mpi_active())
		return rc;
	int bad = rc != 0, any = 0;
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return rc ? rc : any ? -SIM_EEXTERNAL : 0;
}

void exp_mpi_finalize(void)
{
	if (mpi_inited)
		MPI_Finalize();
	mpi_inited = 0;
}

/* A whole file into memory (*len bytes); NULL on failure. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n > 0 ? (size_t)n : 0;
	return buf;
}

/* Writes len bytes to path atomically (a new temporary beside it, renamed). */
static int spill(const char *path, const char *buf, size_t len, struct sim_diag *diag)
{
	char *tmp = NULL;
	exp_guard_hold(); /* created and guarded with no stop in between */
	FILE *f = sim_out_tmp_fopen(path, &tmp, diag);
	if (f)
		exp_guard_tmp(tmp);
	exp_guard_release();
	if (!f)
		return -SIM_EIO;
	int err = fwrite(buf, 1, len, f) != len ? errno : 0, close_err = sim_out_close(f);
	err = close_err ? close_err : err;
	if (!err && rename(tmp, path))
		err = errno;
	if (err) {
		sim_diag_add(diag, path, "cannot write a part received from another rank: %s",
			     sim_out_write_error(err));
		unlink(tmp);
	}
	exp_guard_tmp(NULL);
	free(tmp);
	return err ? -SIM_EIO : 0;
}

/* Rank > 0: sends run i's part (and log) to rank 0, then deletes them here. */
static int send_part(const struct exp_parts *p, size_t i, struct sim_diag *diag)
{
	char h5[4096], log[4096];
	exp_parts_path(p, i, "h5", h5, sizeof h5);
	exp_parts_path(p, i, "log", log, sizeof log);
	size_t n_h5 = 0, n_log = 0;
	char *b_h5 = slurp(h5, &n_h5), *b_log = p->with_log ? slurp(log, &n_log) : NULL;
	int rc = 0;
	if (!b_h5 || (p->with_log && !b_log)) {
		rc = sim_diag_add(diag, h5, "cannot read the finished part to send it to rank 0");
		rc = -SIM_EIO;
	} else if (n_h5 > INT_MAX || n_log > INT_MAX) {
		sim_diag_add(diag, h5, "part of %zu bytes: expected under 2 GiB to send it to rank 0", n_h5);
		rc = -SIM_ERANGE;
	} else {
		uint64_t head[3] = { i, n_h5, n_log };
		MPI_Send(head, 3, MPI_UINT64_T, 0, TAG_HEAD, MPI_COMM_WORLD);
		MPI_Send(b_h5, (int)n_h5, MPI_BYTE, 0, TAG_H5, MPI_COMM_WORLD);
		if (p->with_log)
			MPI_Send(b_log, (int)n_log, MPI_BYTE, 0, TAG_LOG, MPI_COMM_WORLD);
	}
	free(b_h5);
	free(b_log);
	unlink(h5);
	unlink(log);
	return rc;
}

/* Rank 0: receives one message set from src and stores the part. Returns 0, 1 when
 * it was src's last (DONE_RUN), or -SIM_E*. */
static int recv_part(struct exp_parts *p, int src, struct sim_diag *diag)
{
	uint64_t head[3];
	MPI_Recv(head, 3, MPI_UINT64_T, src, TAG_HEAD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (head[0] == DONE_RUN)
		return 1;
	char *b_h5 = malloc(head[1] ? head[1] : 1), *b_log = malloc(head[2] ? head[2] : 1);
	if (!b_h5 || !b_log) {
		free(b_h5);
		free(b_log);
		return -SIM_ENOMEM;
	}
	MPI_Recv(b_h5, (int)head[1], MPI_BYTE, src, TAG_H5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (p->with_log)
		MPI_Recv(b_log, (int)head[2], MPI_BYTE, src, TAG_LOG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	int rc = head[0] < p->n ? 0 : sim_diag_add(diag, p->dir, "received run %llu of %zu from rank %d",
						   (unsigned long long)head[0], p->n, src);
	char path[4096];
	if (!rc && p->with_log) {
		exp_parts_path(p, (size_t)head[0], "log", path, sizeof path);
		rc = spill(path, b_log, head[2], diag);
	}
	if (!rc) {
		exp_parts_path(p, (size_t)head[0], "h5", path, sizeof path);
		rc = spill(path, b_h5, head[1], diag);
	}
	if (!rc)
		p->done[head[0]] = 1;
	free(b_h5);
	free(b_log);
	return rc;
}

/* Rank 0: stores every part waiting (block: until all other ranks said done). */
static int drain(struct exp_parts *p, int *ranks_left, int block, struct sim_diag *diag)
{
	while (*ranks_left > 0) {
		MPI_Status st;
		int flag = 1;
		if (block)
			MPI_Probe(MPI_ANY_SOURCE, TAG_HEAD, MPI_COMM_WORLD, &st);
		else
			MPI_Iprobe(MPI_ANY_SOURCE, TAG_HEAD, MPI_COMM_WORLD, &flag, &st);
		if (!flag)
			return 0;
		int rc = recv_part(p, st.MPI_SOURCE, diag);
		if (rc < 0)
			return rc;
		*ranks_left -= rc;
	}
	return 0;
}

static void fail_all(struct sim_diag *diag)
{
	sim_diag_print(diag, stderr);
	fprintf(stderr, "gpusched run: rank %d failed; stopping every rank (complete parts are kept for "
		"--resume)\n", mpi_rank_);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

int exp_mpi_run(const struct exp_pool *pool, struct exp_parts *p, struct sim_diag *diag)
{
	if (!exp_mpi_active())
		return exp_pool_run(pool, p, diag);
	/* Rank 0's folder says which runs are done already. */
	MPI_Bcast(p->done, (int)p->n, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
	int ranks_left = mpi_size_ - 1;
	int rc = 0;
	for (size_t i = (size_t)mpi_rank_; i < p->n && !rc; i += (size_t)mpi_size_) {
		if (p->done[i])
			continue;
		if (mpi_rank_ == 0 && (rc = drain(p, &ranks_left, 0, diag)))
			break;
		if ((rc = pool->run(pool->arg, i, diag)))
			break;
		if (mpi_rank_ != 0)
			rc = send_part(p, i, diag);
		else
			p->done[i] = 1;
	}
	if (rc)
		fail_all(diag);
	if (mpi_rank_ != 0) {
		uint64_t head[3] = { DONE_RUN, 0, 0 };
		MPI_Send(head, 3, MPI_UINT64_T, 0, TAG_HEAD, MPI_COMM_WORLD);
	} else if ((rc = drain(p, &ranks_left, 1, diag))) {
		fail_all(diag);
	}
	if (mpi_rank_ == 0 && exp_parts_pending(p)) {
		sim_diag_add(diag, p->dir, "expected every run's part from the ranks; some are missing");
		rc = -SIM_EIO;
	}
	return exp_mpi_all_ok(rc);
}
#else
/* Without MPI, parallel.c provides the exp_mpi_* stand-ins; ISO C wants a
 * declaration in every translation unit. */
typedef int exp_parallel_mpi_unused;
#endif
