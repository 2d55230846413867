/* traces/helios_cluster.c: one Helios cluster of helios_cluster_summary.csv -> cluster
 * object (helios_cluster.h). */
#include "helios_cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"

#define MAX_FIELDS 64
#define SHOW_MAX 60
#define SHOW(p, len) (int)((len) > SHOW_MAX ? SHOW_MAX : (len)), (p), ((len) > SHOW_MAX ? "..." : "")

enum { C_ID, C_GPUS, C_COUNT };
static const char *const col_names[C_COUNT] = { "id", "gpu_num" };

/* The cluster's flavor JSON for GPUS GPUs into *json_out. */
static int helios_json(const char *id, int64_t gpus, char **json_out)
{
	size_t size = strlen(id) + 96;
	*json_out = malloc(size);
	if (!*json_out)
		return -SIM_ENOMEM;
	snprintf(*json_out, size, "{\"flavors\": [\n  {\"name\": \"%s\", \"nodes\": %lld, \"node\": {\"gpu\": %d}}\n]}\n",
		 id, (long long)(gpus / HELIOS_NODE_GPUS), HELIOS_NODE_GPUS);
	return 0;
}

/* Scans the rows for ID. Returns 0 (found, json set), -SIM_EPARSE (located error) or a
 * reader error. */
static int helios_find(struct sim_lines *r, const char *path, const char *id, int n_hdr, const int *col,
		       char **json_out, struct sim_diag *d)
{
	struct trace_span f[MAX_FIELDS];
	int err;
	while ((err = sim_lines_next(r)) > 0) {
		if (trace_blank_line(r))
			continue;
		int n = trace_split(r->buf, r->buf + r->len, f, ',', MAX_FIELDS);
		if (n != n_hdr || !trace_span_is(f[col[C_ID]], id))
			continue;
		int64_t gpus = trace_parse_whole(f[col[C_GPUS]], 10000000);
		if (gpus < HELIOS_NODE_GPUS) {
			trace_import_err(d, path, r->line, "gpu_num", "expected a whole GPU count >= %d, found '%.*s%s'",
					 HELIOS_NODE_GPUS, SHOW(f[col[C_GPUS]].p, f[col[C_GPUS]].len));
			return -SIM_EPARSE;
		}
		return helios_json(id, gpus, json_out);
	}
	if (err < 0)
		return err; /* located by the reader */
	return sim_diag_add(d, path, "expected a row with id '%s' (Venus, Earth, Saturn, Uranus), found none", id);
}

int trace_helios_cluster(const char *summary_csv, const char *cluster_id, char **json_out, struct sim_diag *diag)
{
	struct trace_span f[MAX_FIELDS];
	struct sim_lines r;
	int col[C_COUNT], err;

	*json_out = NULL;
	if (!trace_id_ok((struct trace_span){ cluster_id, strlen(cluster_id) }) || strcmp(cluster_id, "total") == 0)
		return sim_diag_add(diag, summary_csv, "expected a cluster id (Venus, Earth, Saturn, Uranus), found '%s'",
				    cluster_id);
	if ((err = sim_lines_open(&r, summary_csv, diag)) < 0)
		return err;
	int n_hdr = trace_read_header(&r, ',', f, MAX_FIELDS);
	if (n_hdr <= 0) {
		err = n_hdr < 0 ? n_hdr : sim_diag_add(diag, summary_csv, "expected a header line (id,gpu_num,...), found an empty file");
		goto out;
	}
	int k = trace_find_columns(f, n_hdr, MAX_FIELDS, col_names, C_COUNT, col);
	if (k >= 0) {
		trace_import_err(diag, summary_csv, r.line, col_names[k],
				 "expected a header naming id and gpu_num, found no '%s'", col_names[k]);
		err = -SIM_EPARSE;
		goto out;
	}
	err = helios_find(&r, summary_csv, cluster_id, n_hdr, col, json_out, diag);
out:
	sim_lines_close(&r);
	return err;
}
