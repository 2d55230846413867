/* sim/yamltree.h: YAML input read into the same cJSON trees the JSON readers check,
 * plus a side table saying where in the file each value was written.
 *
 * Why a cJSON tree: every reader (experiments/config.c, the config importers)
 * already validates a cJSON tree and names values by their JSON path
 * ("$.cluster.flavors[0].nodes"). Turning YAML into that tree keeps one schema and
 * one set of checks; the side table (struct sim_srcmap) turns such a path back into
 * the FILE:LINE:COL the user wrote, so an error in a YAML file points at its line.
 *
 * The YAML rules (docs/yaml.md states them for users):
 * - Plain scalars are typed as YAML 1.2's core schema does: null, ~ and an empty
 *   value are null; true/false (any case of the first letter, or all upper) are
 *   booleans; decimal, 0x and 0o integers and decimal floats are numbers; anything
 *   else is a string. Quoted and block scalars are always strings. yes/no/on/off
 *   are strings (YAML 1.1's booleans are not), and so are .inf and .nan.
 * - The tags !!str, !!int, !!float, !!bool, !!null force a type; other tags are
 *   refused.
 * - Aliases (*name) are refused: a reader should see every value written out.
 * - Mapping keys must be scalars. A duplicate key is kept twice in the tree, as
 *   cJSON does for JSON, so the readers' duplicate-key checks apply unchanged.
 */
#ifndef SIM_YAMLTREE_H
#define SIM_YAMLTREE_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "sim.h"

/* Where one value was written: document index (0-based), 1-based line and column
 * (columns count characters). For a mapping member the position is its key's. */
struct sim_srcpos {
	const cJSON *node; /* the value in the tree (borrowed) */
	char *path;        /* "$.a.b[2]" as sim_json_path_key/idx spell it; owned */
	uint32_t doc, line, col;
};

struct sim_srcmap {
	struct sim_srcpos *v; /* owned, in file order */
	size_t n, cap;
};

void sim_srcmap_fini(struct sim_srcmap *m);
/* The position of `path` in document doc, or of its nearest ancestor the file
 * writes (an error about a missing key points at the object that lacks it); of a
 * key written twice, the later one. NULL when the map has nothing for that
 * document. */
const struct sim_srcpos *sim_srcmap_find_path(const struct sim_srcmap *m, uint32_t doc, const char *path);
/* The position of a node of the tree, or NULL. */
const struct sim_srcpos *sim_srcmap_find_node(const struct sim_srcmap *m, const cJSON *node);

/* 1 when the file name ends in .yaml or .yml (any case): such files are read as
 * YAML, every other as JSON (JSON messages stay exactly what they were). */
int sim_yaml_is_path(const char *path);

/* Parses text (len bytes) into one tree per YAML document: *docs (malloc'd array
 * of *n_docs trees, each the caller's to cJSON_Delete, the array to free). map,
 * when non-NULL, receives every value's position (paths start at "$" in each
 * document). Errors are "FILE:LINE:COL: YAML syntax error: ..." or
 * "FILE:LINE:COL: ... not supported; expected ...". Returns 0, -SIM_EPARSE or
 * -SIM_ENOMEM; on failure nothing is returned. An empty file is zero documents. */
int sim_yaml_parse(const char *file, const char *text, size_t len, cJSON ***docs, size_t *n_docs,
		   struct sim_srcmap *map, struct sim_diag *diag);

/* For a reader that takes JSON text: a YAML file of exactly one document (what
 * names it in the message otherwise: "the scenario") as the JSON text of its tree
 * (*json, the caller's to cJSON_free), with the positions in map (the caller's to
 * sim_srcmap_fini). Returns 0, -SIM_EPARSE (located errors in diag) or -SIM_ENOMEM.
 * The reader's "FILE: $.path" errors are then located by sim_srcmap_locate_diag. */
int sim_yaml_to_json(const char *file, const char *text, size_t len, const char *what, char **json,
		     struct sim_srcmap *map, struct sim_diag *diag);

/* Writes root as one YAML document in block style, strings quoted wherever the
 * reader above would otherwise type them as something else, so the output reads
 * back as the same tree. Returns 0, or -SIM_EIO / -SIM_ENOMEM. */
int sim_yaml_write(FILE *f, const cJSON *root);

/* Rewrites the lines of diag that start "FILE: $.path" (FILE exactly as given) to
 * "FILE:LINE:COL: $.path" from map (document 0), for errors found after the tree
 * was read (by code that knows only JSON paths). Lines already located, or whose
 * path the map does not know, are left as they are. */
void sim_srcmap_locate_diag(const struct sim_srcmap *m, const char *file, struct sim_diag *diag);

#endif
