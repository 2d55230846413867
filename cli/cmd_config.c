/* cli/cmd_config.c: gpusched config import --format kueue|aws-batch|hyperpod FILE... [-o OUT]
 *
 * Turns another scheduler's quota definitions into the `cohort` quota section of an
 * experiment config ($.policies.quota); the rules are docs/config-import.md, the
 * code experiments/cfgimport*.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../experiments/cfgimport.h"
#include "../experiments/config.h"
#include "../sim/outpath.h"
#include "cmd.h"

static const char config_usage[] =
	"usage: gpusched config import --format kueue|aws-batch|hyperpod FILE... [-o OUT.json|OUT.yaml]\n"
	"                              [--cluster CONFIG]\n"
	"       (options may come before or after the files; -oOUT, --output=OUT,\n"
	"       --format=F and --cluster=CONFIG work too; -- ends the options)\n"
	"\n"
	"Writes the \"cohort\" quota section of an experiment config ($.policies.quota) from\n"
	"another scheduler's quota definitions (docs/config-import.md has every rule):\n"
	"  --format kueue      Kueue manifests, YAML or JSON, many documents a file or a\n"
	"                      kind: List (kubectl get -o yaml): ClusterQueue, Cohort,\n"
	"                      ResourceFlavor, LocalQueue, WorkloadPriorityClass\n"
	"                      (kueue.x-k8s.io/v1beta1 and v1beta2)\n"
	"  --format aws-batch  AWS Batch request bodies as `aws batch ... --cli-input-json`\n"
	"                      takes them: CreateQuotaShare, CreateSchedulingPolicy,\n"
	"                      SubmitServiceJob; needs --cluster\n"
	"  --format hyperpod   SageMaker HyperPod task governance request bodies (aws\n"
	"                      sagemaker ... --cli-input-json): CreateComputeQuota,\n"
	"                      CreateClusterSchedulerConfig; needs --cluster\n"
	"  --cluster CONFIG    an experiment config (JSON or YAML) whose cluster flavors are\n"
	"                      the instance types: maxCapacity instances x the flavor's GPUs a\n"
	"                      node is a share's GPU quota (kueue: the quotas' flavors must\n"
	"                      be the cluster's)\n"
	"  -o, --output OUT    OUT.json, or OUT.yaml / OUT.yml for YAML; written under a\n"
	"                      temporary and renamed, so an error leaves no partial file;\n"
	"                      default: JSON on standard output\n"
	"\n"
	"What the simulator does not model is named in a warning on standard error\n"
	"(FILE:LINE:COL: warning: ...); what the config must match is a note.\n"
	"\n"
	"exit codes: 0 ok, 1 runtime failure, 2 bad input (FILE:LINE:COL: errors listed)\n";

struct import_args {
	const char *format, *out, *cluster;
	const char **files;
	size_t n_files;
};

/* Returns 0, 1 for --help, or -1 on a usage error (printed: the message, the synopsis
 * and a pointer to --help). */
static int parse_args(int argc, char **argv, struct import_args *a)
{
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },	    { "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' }, { "cluster", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 0; /* glibc: a full restart of getopt's scan */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			return 1;
		case 'f':
			a->format = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'c':
			a->cluster = optarg;
			break;
		default:
			cmd_getopt_error("config import", config_usage, c, argv);
			return -1;
		}
	}
	for (int i = optind; i < argc; i++)
		a->files[a->n_files++] = argv[i];
	if (!a->format || a->n_files == 0) {
		cmd_usage_error("config import", config_usage, "expected --format and at least one FILE");
		return -1;
	}
	if (strcmp(a->format, "kueue") && strcmp(a->format, "aws-batch") && strcmp(a->format, "hyperpod")) {
		cmd_usage_error("config import", config_usage,
				"unknown format '%s'; expected kueue, aws-batch or hyperpod", a->format);
		return -1;
	}
	return 0;
}

/* The cluster flavors of an experiment config, for instance types' GPUs. */
static int load_cluster(const char *path, struct exp_config **cfg, struct cfgimp_cluster *cl, struct sim_diag *diag)
{
	int rc = exp_config_load(path, cfg, diag);
	if (rc)
		return rc;
	const struct exp_variant *v = &(*cfg)->variants[0];
	cl->flavors = v->flavors;
	cl->n_flavors = v->n_flavors;
	cl->gpu_res = cl->cpu_res = cl->mem_res = -1;
	for (int r = 0; r < v->res.n; r++) {
		if (strcmp(v->res.names[r], "gpu") == 0)
			cl->gpu_res = r;
		if (strcmp(v->res.names[r], "cpu") == 0)
			cl->cpu_res = r;
		if (strcmp(v->res.names[r], "memory") == 0)
			cl->mem_res = r;
	}
	return 0;
}

/* No output may replace an input: the manifests or the cluster config. */
static int check_output(const struct import_args *a, struct sim_diag *diag)
{
	if (!a->out || strcmp(a->out, "-") == 0)
		return 0;
	struct sim_out_input *in = calloc(a->n_files + 1, sizeof *in);
	if (!in)
		return -SIM_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < a->n_files; i++)
		in[n++] = (struct sim_out_input){ .what = "input", .path = a->files[i] };
	if (a->cluster)
		in[n++] = (struct sim_out_input){ .what = "cluster config", .path = a->cluster };
	int rc = sim_out_check(a->out, in, n, diag);
	free(in);
	return rc;
}

static int cmd_config_import(int argc, char **argv)
{
	struct import_args a = { .files = calloc((size_t)argc, sizeof(char *)) };
	if (!a.files)
		return GPUSCHED_EXIT_RUNTIME;
	int p = parse_args(argc, argv, &a);
	if (p) {
		if (p > 0)
			fputs(config_usage, stdout);
		free(a.files);
		return p > 0 ? GPUSCHED_EXIT_OK : GPUSCHED_EXIT_BADINPUT;
	}
	struct sim_diag diag;
	sim_diag_init(&diag, 20);
	struct exp_config *cfg = NULL;
	struct cfgimp_cluster cl = { 0 };
	cJSON *tree = NULL;
	int rc = check_output(&a, &diag);
	if (!rc && a.cluster)
		rc = load_cluster(a.cluster, &cfg, &cl, &diag);
	if (!rc)
		rc = cfgimp_import(a.format, a.files, a.n_files, a.cluster ? &cl : NULL, &tree, stderr, &diag);
	if (!rc)
		rc = cfgimp_write(a.out, tree, &diag);
	if (rc) {
		sim_diag_print(&diag, stderr);
		if (!diag.count)
			fprintf(stderr, "gpusched config import: %s\n", sim_strerror(rc));
	} else if (a.out && strcmp(a.out, "-") != 0) {
		fprintf(stderr, "wrote %s\n", a.out);
	}
	cJSON_Delete(tree);
	exp_config_destroy(cfg);
	sim_diag_fini(&diag);
	free(a.files);
	return cmd_exit_code(rc);
}

int cmd_config(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "import") == 0)
		return cmd_config_import(argc - 1, argv + 1);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(config_usage, stdout);
		return GPUSCHED_EXIT_OK;
	}
	if (argc < 2)
		return cmd_usage_error("config", config_usage, "expected the sub-verb 'import'");
	return cmd_usage_error("config", config_usage, "unknown sub-verb '%s' (expected 'import')", argv[1]);
}
