/* sim/outpath.c: see outpath.h. */
#include "outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What kind of thing a non-regular file is, for messages. */
static const char *kind_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a folder";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a named pipe";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* 1 when st is the file at path (same device and inode). */
static int is_same(const struct stat *st, const char *path)
{
	struct stat other;
	return path && stat(path, &other) == 0 && other.st_dev == st->st_dev && other.st_ino == st->st_ino;
}

/* Refuses an existing `path` (the output, or its temporary, per `role`) that is
 * one of the inputs; `st` is its stat. */
static int check_inputs(const char *out, const char *role, const struct stat *st, const struct sim_out_input *in,
			size_t n_in, struct sim_diag *diag)
{
	for (size_t i = 0; i < n_in; i++)
		if (is_same(st, in[i].path))
			return sim_diag_add(diag, out, "%s would overwrite input %s '%s'", role, in[i].what, in[i].path);
	return 0;
}

/* The checks of one path that will be replaced by a regular file. */
static int check_file_path(const char *out, const char *path, const char *role, const struct sim_out_input *in,
			   size_t n_in, struct sim_diag *diag)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0; /* nothing there to lose */
	if (S_ISLNK(st.st_mode) && stat(path, &st) != 0)
		return 0; /* a dangling link: the rename replaces the link only */
	if (!S_ISREG(st.st_mode))
		return sim_diag_add(diag, out, "%s: expected a regular file or a new name, got %s (writing would "
				    "replace it)", role, kind_of(st.st_mode));
	return check_inputs(out, role, &st, in, n_in, diag);
}

int sim_out_check(const char *out, const struct sim_out_input *in, size_t n_in, struct sim_diag *diag)
{
	size_t len = strlen(out);
	if (len == 0 || out[len - 1] == '/')
		return sim_diag_add(diag, out[0] ? out : "(empty)", "output: expected a file name, got a folder");
	return check_file_path(out, out, "output", in, n_in, diag);
}

int sim_out_check_dir(const char *dir, const struct sim_out_input *in, size_t n_in, struct sim_diag *diag)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return 0; /* made by the command */
	if (!S_ISDIR(st.st_mode))
		return sim_diag_add(diag, dir, "output folder: expected a folder or a new name, got %s",
				    S_ISREG(st.st_mode) ? "a file" : kind_of(st.st_mode));
	return check_inputs(dir, "output folder", &st, in, n_in, diag);
}

int sim_out_check_distinct(const char *a, const char *what_a, const char *b, const char *what_b,
			   struct sim_diag *diag)
{
	struct stat st;
	if (strcmp(a, b) == 0 || (stat(a, &st) == 0 && is_same(&st, b)))
		return sim_diag_add(diag, b, "%s would overwrite the %s output '%s'; expected another file", what_b,
				    what_a, a);
	return 0;
}

/* ---- temporaries ---- */

#define TMP_RAND_LEN 6
#define TMP_SUFFIX ".tmp"
#define TMP_TRIES 100 /* names tried before giving up (EEXIST each time) */

/* Six letters or digits, different per call, per process and per moment (a
 * forked worker has the parent's counter but not its pid). */
static void random_part(char out[TMP_RAND_LEN])
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static uint64_t counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = ((uint64_t)getpid() << 40) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ++counter;
	x *= 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < TMP_RAND_LEN; i++) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ull;
		out[i] = alphabet[(x >> 32) % (sizeof alphabet - 1)];
	}
}

/* Not mkstemp(3)/mkstemps(3): they create the file 0600, and the output renamed from
 * it must get the mode any new file gets (0666 less the umask), as before; the umask
 * cannot be read without being set, which is not safe beside other threads. */
int sim_out_tmp_create(const char *path, char **tmp)
{
	size_t len = strlen(path);
	char *name = malloc(len + 1 + TMP_RAND_LEN + sizeof TMP_SUFFIX);
	*tmp = NULL;
	if (!name) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(name, path, len);
	name[len] = '.';
	memcpy(name + len + 1 + TMP_RAND_LEN, TMP_SUFFIX, sizeof TMP_SUFFIX);
	for (int k = 0; k < TMP_TRIES; k++) {
		random_part(name + len + 1);
		int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			*tmp = name;
			return fd;
		}
		if (errno != EEXIST)
			break;
	}
	int err = errno;
	free(name);
	errno = err;
	return -1;
}

FILE *sim_out_tmp_fopen(const char *path, char **tmp, struct sim_diag *diag)
{
	int fd = sim_out_tmp_create(path, tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f)
		return f;
	sim_diag_add(diag, path, "cannot create a temporary file beside it: %s", strerror(errno));
	if (fd >= 0) {
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return NULL;
}

int sim_out_tmp_name(const char *name, size_t *base_len)
{
	size_t len = strlen(name), tail = 1 + TMP_RAND_LEN + strlen(TMP_SUFFIX);
	if (len <= tail || strcmp(name + len - strlen(TMP_SUFFIX), TMP_SUFFIX) != 0 || name[len - tail] != '.')
		return 0;
	for (size_t i = len - tail + 1; i < len - strlen(TMP_SUFFIX); i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9')))
			return 0;
	*base_len = len - tail;
	return 1;
}

const char *sim_out_full_disk(int err)
{
	switch (err) {
	case ENOSPC:
		return "no space left on device";
	case EDQUOT:
		return "disk quota exceeded";
	case EFBIG:
		return "file too large (over the file-size limit)";
	default:
		return NULL;
	}
}

const char *sim_out_write_error(int err)
{
	const char *full = sim_out_full_disk(err);
	return full ? full : strerror(err);
}

int sim_out_close(FILE *f)
{
	int err = ferror(f) ? (errno ? errno : EIO) : 0;
	if (fflush(f) != 0 && !err)
		err = errno ? errno : EIO;
	if (fclose(f) != 0 && !err)
		err = errno ? errno : EIO;
	return err;
}

/* ---- a stage of outputs ---- */

static int stage_grow(struct sim_out_stage *st)
{
	if (st->n < st->cap)
		return 0;
	size_t cap = st->cap ? 2 * st->cap : 8;
	char **t = realloc(st->tmp, cap * sizeof *t);
	if (t)
		st->tmp = t;
	char **f = t ? realloc(st->final, cap * sizeof *f) : NULL;
	if (f)
		st->final = f;
	if (!t || !f)
		return -1;
	st->cap = cap;
	return 0;
}

int sim_out_stage_add(struct sim_out_stage *st, const char *final, const char **tmp, struct sim_diag *diag)
{
	char *name = NULL, *copy = NULL;
	int fd = -1;
	if (stage_grow(st) || !(copy = strdup(final))) {
		free(copy);
		sim_diag_add(diag, final, "out of memory");
		return -1;
	}
	if ((fd = sim_out_tmp_create(final, &name)) < 0) {
		sim_diag_add(diag, final, "cannot create a temporary file beside it: %s", strerror(errno));
		free(copy);
		return -1;
	}
	st->tmp[st->n] = name;
	st->final[st->n] = copy;
	st->n++;
	*tmp = name;
	return fd;
}

FILE *sim_out_stage_fopen(struct sim_out_stage *st, const char *final, const char **tmp, struct sim_diag *diag)
{
	int fd = sim_out_stage_add(st, final, tmp, diag);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		sim_diag_add(diag, final, "cannot open %s: %s", *tmp, strerror(errno));
		close(fd);
	}
	return f;
}

const char *sim_out_stage_tmp_of(const struct sim_out_stage *st, const char *final)
{
	for (size_t i = st->n; i-- > 0;)
		if (strcmp(st->final[i], final) == 0)
			return st->tmp[i];
	return NULL;
}

/* Frees the names; removes the temporaries from index `from` on. */
static void stage_free(struct sim_out_stage *st, size_t from)
{
	for (size_t i = 0; i < st->n; i++) {
		if (i >= from)
			unlink(st->tmp[i]);
		free(st->tmp[i]);
		free(st->final[i]);
	}
	free(st->tmp);
	free(st->final);
	memset(st, 0, sizeof *st);
}

int sim_out_stage_commit(struct sim_out_stage *st, struct sim_diag *diag)
{
	for (size_t i = 0; i < st->n; i++)
		if (rename(st->tmp[i], st->final[i]) != 0) {
			sim_diag_add(diag, st->final[i], "cannot rename %s: %s", st->tmp[i], strerror(errno));
			stage_free(st, i);
			return -SIM_EIO;
		}
	stage_free(st, st->n);
	return 0;
}

void sim_out_stage_abort(struct sim_out_stage *st)
{
	stage_free(st, 0);
}
