/* sim/outpath.c: see outpath.h. */
#include "outpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
		return sim_diag_add(diag, out, "%s: expected a regular file or a new name, got %s%s (writing would "
				    "replace it)", role, kind_of(st.st_mode), path == out ? "" : " at the temporary name");
	return check_inputs(out, role, &st, in, n_in, diag);
}

int sim_out_check(const char *out, const struct sim_out_input *in, size_t n_in, struct sim_diag *diag)
{
	size_t len = strlen(out);
	if (len == 0 || out[len - 1] == '/')
		return sim_diag_add(diag, out[0] ? out : "(empty)", "output: expected a file name, got a folder");
	int rc = check_file_path(out, out, "output", in, n_in, diag);
	if (rc)
		return rc;
	char *tmp = malloc(len + 5);
	if (!tmp)
		return -SIM_ENOMEM;
	sprintf(tmp, "%s.tmp", out);
	rc = check_file_path(out, tmp, "output's temporary file", in, n_in, diag);
	free(tmp);
	return rc;
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
