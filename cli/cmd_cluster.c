/* cli/cmd_cluster.c: gpusched cluster import --format openb|philly-vc IN [-o OUT.json]
 *
 * Turns a public trace's node list into the "cluster" object of an experiment config
 * (experiments/README.md), so a real trace runs on its real cluster. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../sim/outpath.h"
#include "../traces/alibaba.h"
#include "../traces/helios_cluster.h"
#include "../traces/pai.h"
#include "../traces/philly.h"
#include "cmd.h"

static const char cluster_usage[] =
	"usage: gpusched cluster import --format openb|pai|helios|philly-vc IN [--id NAME] [-o OUT.json]\n"
	"       (options may come before or after IN; -oOUT.json, --output OUT.json,\n"
	"       --output=OUT.json, --format=F and --id=NAME work too; -- ends the options)\n"
	"\n"
	"Writes the \"cluster\" object of an experiment config for a public trace's cluster\n"
	"(to OUT.json, written under OUT.json.tmp and renamed, or to standard output):\n"
	"  --format openb      Alibaba openb node list (openb_node_list_gpu_node.csv): one\n"
	"                      flavor a GPU model, with the model's most common node shape and\n"
	"                      the nodes of that shape (traces/README.md, Alibaba openb 2023)\n"
	"  --format pai        Alibaba PAI 2020 machine spec (pai_machine_spec.csv): one flavor a\n"
	"                      GPU type, its most common machine size and the machines of it\n"
	"  --format helios     Helios cluster summary (helios_cluster_summary.csv) with --id\n"
	"                      Venus|Earth|Saturn|Uranus: gpu_num / 8 nodes of 8 GPUs\n"
	"  --format philly-vc  Philly's virtual-cluster sizes (philly_vc.csv: vc,node num): one\n"
	"                      flavor \"philly\" of the summed nodes, 8 GPUs a node (as Helios'\n"
	"                      simulator sizes them); the VCs' quotas come from queues_csv\n"
	"  --id NAME           helios: the cluster of the summary\n"
	"  -o, --output OUT.json  output file (default: standard output)\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input (errors listed)\n";

/* {"flavors": [{"name": "philly", "nodes": SUM, "node": {"gpu": 8}}]} */
static int philly_vc_cluster(const char *path, char **json, struct sim_diag *diag)
{
	struct trace_philly_vc *vcs = NULL;
	size_t n = 0;
	int rc = trace_philly_read_vc(path, &vcs, &n, diag);
	if (rc)
		return rc;
	long long nodes = 0;
	for (size_t i = 0; i < n; i++)
		nodes += vcs[i].nodes;
	free(vcs);
	size_t cap = 160;
	*json = malloc(cap);
	if (!*json)
		return -SIM_ENOMEM;
	snprintf(*json, cap, "{\"flavors\": [{\"name\": \"philly\", \"nodes\": %lld, \"node\": {\"gpu\": 8}}]}", nodes);
	return 0;
}

/* Writes text (plus a newline) to path through a new temporary beside it and a
 * rename. */
static int write_file(const char *path, const char *text, struct sim_diag *diag)
{
	char *tmp = NULL;
	FILE *f = sim_out_tmp_fopen(path, &tmp, diag);
	if (!f)
		return -SIM_EIO;
	int bad = fputs(text, f) < 0 || fputc('\n', f) == EOF;
	int err = sim_out_close(f);
	if (bad && !err)
		err = EIO;
	if (err)
		sim_diag_add(diag, path, "cannot write the cluster file: %s", sim_out_write_error(err));
	else if (rename(tmp, path) != 0)
		sim_diag_add(diag, path, "cannot rename %s: %s", tmp, strerror(err = errno));
	if (err)
		unlink(tmp);
	free(tmp);
	return err ? -SIM_EIO : 0;
}

int cmd_cluster(int argc, char **argv)
{
	const char *format = NULL, *in = NULL, *out = NULL, *id = NULL;
	if (argc < 2 || strcmp(argv[1], "import") != 0) {
		if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
			fputs(cluster_usage, stdout);
			return GPUSCHED_EXIT_OK;
		}
		if (argc < 2)
			return cmd_usage_error("cluster", cluster_usage, "expected the sub-verb 'import'");
		return cmd_usage_error("cluster", cluster_usage, "unknown sub-verb '%s' (expected 'import')", argv[1]);
	}
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },	    { "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' }, { "id", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	/* argv[1] is "import": the scan starts after it */
	argc--;
	argv++;
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(cluster_usage, stdout);
			return GPUSCHED_EXIT_OK;
		case 'f':
			format = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'i':
			id = optarg;
			break;
		default:
			return cmd_getopt_error("cluster import", cluster_usage, c, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (in)
			return cmd_usage_error("cluster import", cluster_usage, "unexpected argument '%s'", argv[i]);
		in = argv[i];
	}
	if (!format || !in)
		return cmd_usage_error("cluster import", cluster_usage, "expected --format and IN");
	if (out && cmd_check_output(out, "node list", in))
		return GPUSCHED_EXIT_BADINPUT;
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	char *json = NULL;
	int rc;
	if (strcmp(format, "openb") == 0) {
		rc = trace_openb_cluster(in, &json, &diag);
	} else if (strcmp(format, "pai") == 0) {
		rc = trace_pai_cluster(in, &json, &diag);
	} else if (strcmp(format, "helios") == 0 && id) {
		rc = trace_helios_cluster(in, id, &json, &diag);
	} else if (strcmp(format, "philly-vc") == 0) {
		rc = philly_vc_cluster(in, &json, &diag);
	} else {
		sim_diag_fini(&diag);
		if (strcmp(format, "helios") == 0)
			return cmd_usage_error("cluster import", cluster_usage,
					       "--format helios: expected --id NAME (a cluster of the "
					       "summary: Venus, Earth, Saturn or Uranus)");
		return cmd_usage_error("cluster import", cluster_usage,
				       "--format: expected openb, pai, helios or philly-vc, found '%s'", format);
	}
	if (!rc) {
		/* Printed as the config keys would be written (cJSON's layout). */
		cJSON *o = cJSON_Parse(json);
		char *pretty = o ? cJSON_Print(o) : NULL;
		cJSON_Delete(o);
		if (!pretty)
			rc = -SIM_ENOMEM;
		else if (out)
			rc = write_file(out, pretty, &diag);
		else
			printf("%s\n", pretty);
		free(pretty);
	}
	free(json);
	if (rc) {
		sim_diag_print(&diag, stderr);
		if (!diag.count)
			fprintf(stderr, "gpusched cluster import: %s\n", sim_strerror(rc));
	}
	sim_diag_fini(&diag);
	return cmd_exit_code(rc);
}
