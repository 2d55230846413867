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
 * folder, a device node or another existing non-regular file; and the same for its
 * temporary OUT.tmp. Creates nothing. Returns 0 when out may be written. */
int sim_out_check(const char *out, const struct sim_out_input *in, size_t n_in, struct sim_diag *diag);

/* The same for an output folder (plot -o DIR): an existing DIR must be a folder;
 * DIR must not be an input. */
int sim_out_check_dir(const char *dir, const struct sim_out_input *in, size_t n_in, struct sim_diag *diag);

/* Refuses two outputs of one command that name the same file (by name or inode):
 * the second would overwrite the first. what_a, what_b: "-o", "--log". */
int sim_out_check_distinct(const char *a, const char *what_a, const char *b, const char *what_b,
			   struct sim_diag *diag);

#endif
