/* sim/outpath.h: the one check every output path of the CLI passes (run -o and --log,
 * plan -o and --plot, trace gen/import -o, cluster import -o, plot -o DIR, real).
 *
 * Outputs are written under a temporary name beside them and renamed, so an output
 * replaces whatever its name pointed at: an input of the same command, or a device
 * node (as root, `-o /dev/null` would become a regular file). Such paths are refused
 * before anything is read or written. Inputs are compared by device and inode
 * (stat), so another spelling, a hard link or a symbolic link is caught too.
 */
#ifndef SIM_OUTPATH_H
#define SIM_OUTPATH_H

#include <stddef.h>
#include <stdio.h>

#include "sim.h"

/* An input of the command: what it is, for the message ("trace", "config",
 * "$.cluster.capacity_events") and its path. A path that does not exist is no
 * input to protect and is skipped. */
struct sim_out_input {
	const char *what;
	const char *path;
};

/* Refuses, with -SIM_EPARSE (exit 2) and a message located at out, a file output
 * that names an input ("OUT: output would overwrite input trace 'x.csv'"), a
 * folder, a device node or another existing non-regular file. Creates nothing.
 * Returns 0 when out may be written. */
int sim_out_check(const char *out, const struct sim_out_input *in, size_t n_in, struct sim_diag *diag);

/* The same for an output folder (plot -o DIR): an existing DIR must be a folder;
 * DIR must not be an input. */
int sim_out_check_dir(const char *dir, const struct sim_out_input *in, size_t n_in, struct sim_diag *diag);

/* Refuses two outputs of one command that name the same file (by name or inode):
 * the second would overwrite the first. what_a, what_b: "-o", "--log". */
int sim_out_check_distinct(const char *a, const char *what_a, const char *b, const char *what_b,
			   struct sim_diag *diag);

/* ---- temporaries: how every output is written ---- */

/* Creates a new, empty file beside path, exclusively (O_CREAT | O_EXCL, mode 0666
 * less the umask, as fopen "w" would): "PATH.XXXXXX.tmp", six random letters or
 * digits, another name tried while one is taken. So an existing file of the user
 * (OUT.tmp or any other) is never opened, truncated or removed. *tmp gets the name
 * (malloc'd, the caller's to free; the file the caller's to rename or unlink).
 * Returns the open descriptor, or -1 with errno set and *tmp NULL. */
int sim_out_tmp_create(const char *path, char **tmp);

/* The same, as a stdio stream open for writing; NULL with a message at path in
 * diag when it cannot be created. */
FILE *sim_out_tmp_fopen(const char *path, char **tmp, struct sim_diag *diag);

/* 1 when name (a file name, no folder) is a temporary of sim_out_tmp_create:
 * "BASE.XXXXXX.tmp"; *base_len gets the length of BASE. */
int sim_out_tmp_name(const char *name, size_t *base_len);

/* The words for an errno that says the disk (or the file-size limit) is full: "no
 * space left on device", "disk quota exceeded", "file too large (over the file-size
 * limit)"; NULL for any other. */
const char *sim_out_full_disk(int err);
/* The cause of a failed write, flush or close (errno) in words: "no space left on
 * device", "disk quota exceeded", "file too large (over the file-size limit)", or
 * strerror's text for any other. */
const char *sim_out_write_error(int err);

/* Closes a stream written to a temporary: flushes, closes, and returns 0, or the
 * errno of the first failure (ferror before the close keeps the errno of the
 * failed write when the close itself succeeds; EIO when none is known). */
int sim_out_close(FILE *f);

/* Outputs of one command, each written under its temporary and renamed only once
 * all are written (commit), so a failure while writing leaves every old file as it
 * was; abort removes the temporaries (only those this process created, never a
 * file that was there before). The renames themselves are one after the other: a
 * rename that fails part-way (rare: the folder changed under us) leaves the outputs
 * renamed before it new and the rest old. */
struct sim_out_stage {
	size_t n, cap;
	char **tmp, **final;
};

/* Creates the temporary of final (sim_out_tmp_create) and records the pair; returns
 * the descriptor (or -1, with a message at final in diag); *tmp points at the
 * stage's copy of its name (valid until commit or abort). */
int sim_out_stage_add(struct sim_out_stage *st, const char *final, const char **tmp, struct sim_diag *diag);
/* The same, as a stdio stream. */
FILE *sim_out_stage_fopen(struct sim_out_stage *st, const char *final, const char **tmp, struct sim_diag *diag);
/* The temporary's name of a staged output (final as given to add), or NULL. */
const char *sim_out_stage_tmp_of(const struct sim_out_stage *st, const char *final);
/* Renames every temporary to its output, in order; on a failure removes those not
 * yet renamed and returns -SIM_EIO with the message. Frees the stage. */
int sim_out_stage_commit(struct sim_out_stage *st, struct sim_diag *diag);
/* Removes every temporary and frees the stage. */
void sim_out_stage_abort(struct sim_out_stage *st);

#endif
