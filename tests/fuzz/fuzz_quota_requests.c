/* tests/fuzz/fuzz_quota_requests.c: the AWS Batch and SageMaker HyperPod importers
 * (experiments/cfgimport_aws.c, cfgimport_hyperpod.c) on one input, read by both,
 * for a fixed cluster of two instance types (gpu, cpu and memory a node). An import
 * that succeeds must print (cfgimp_write's JSON) and parse back as the same tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/cfgimport.h"
#include "fuzz_util.h"

static const struct sim_flavor_spec flavors[] = {
	{ .name = "ml.p5.48xlarge", .nodes = 4, .node_cap = { 8000, 192000, 2048000 }, .speed = 1 },
	{ .name = "ml.g5.12xlarge", .nodes = 4, .node_cap = { 4000, 48000, 192000 }, .speed = 1 },
};
static const struct cfgimp_cluster cluster = { flavors, 2, 0, 1, 2 };

static void import_as(const char *format, const char *in)
{
	struct sim_diag d;
	sim_diag_init(&d, 20);
	cJSON *tree = NULL;
	FILE *quiet = fopen("/dev/null", "w");
	if (cfgimp_import(format, &in, 1, &cluster, &tree, quiet, &d) == 0) {
		char *json = cJSON_Print(tree);
		cJSON *back = json ? cJSON_Parse(json) : NULL;
		if (json && !cJSON_Compare(tree, back, 1))
			abort();
		cJSON_Delete(back);
		cJSON_free(json);
	}
	if (quiet)
		fclose(quiet);
	cJSON_Delete(tree);
	sim_diag_fini(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fuzz_write("requests.json", data, size);
	char path[512];
	snprintf(path, sizeof path, "%s", in); /* fuzz_write's buffer is static */
	import_as("aws-batch", path);
	import_as("hyperpod", path);
	return 0;
}
