/* sim/jsonmsg.h: reading a JSON input file and naming its values in messages.
 *
 * Shared by every JSON reader (experiments/config.c, policies/scenario.c) so that
 * their errors look alike: "FILE: $.path[\"key\"][2]: expected ..., got <value>".
 */
#ifndef SIM_JSONMSG_H
#define SIM_JSONMSG_H

#include <cjson/cJSON.h>

#include "sim.h"

/* Largest JSON input file (config, scenario, generator config), in bytes: far
 * above any real one (a 100,000-queue scenario is about 9 MB), so /dev/zero or a
 * wrong path stops at once instead of filling memory. */
#define SIM_JSON_FILE_MAX (64 << 20)

/* Reads a whole file into *text (malloc'd, NUL-terminated; the caller frees it) and
 * its length (without the NUL). Returns 0, or -SIM_ENOENT / -SIM_EIO / -SIM_ENOMEM
 * with "PATH: cannot open|read: reason" in diag, or -SIM_EPARSE for a file over
 * SIM_JSON_FILE_MAX or holding a NUL byte ("PATH:LINE: NUL byte ..."). */
int sim_read_file(const char *path, char **text, size_t *len, struct sim_diag *diag);

/* Shortest decimal text that reads back as v ("0.0001", not "0.00010000000000000001"). */
void sim_json_fmt_double(double v, char *buf, size_t n);
/* "got ..." text for a JSON value: numbers and strings verbatim (strings quoted,
 * escaped, cut after about 40 characters), containers by kind, "nothing" for NULL. */
void sim_json_describe(const cJSON *v, char *buf, size_t n);
/* parent.key, or parent["key"] when key is not an identifier ("a100-80g"). Cut at
 * n bytes, never overrun. */
void sim_json_path_key(char *out, size_t n, const char *parent, const char *key);
/* parent[i], cut at n bytes. */
void sim_json_path_idx(char *out, size_t n, const char *parent, size_t i);

/* Calls dup(arg, path_of_key) for every key that repeats an earlier key of the same
 * object, anywhere under node (cJSON keeps both; GetObjectItem would see the first).
 * Paths start at `path` and are cut at 512 bytes. */
void sim_json_duplicate_keys(const cJSON *node, const char *path, void (*dup)(void *arg, const char *path),
			     void *arg);

#endif
