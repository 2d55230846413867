/* tests/fuzz/fuzz_kueue.c: the YAML reader (sim/yamltree.c) and the Kueue importer
 * (experiments/cfgimport_kueue.c) on one manifest. An import that succeeds is
 * written as YAML (sim_yaml_write) and must read back as the same tree: the writer
 * quotes every string the reader would otherwise type as something else. */
#include <stdio.h>
#include <stdlib.h>

#include "experiments/cfgimport.h"
#include "fuzz_util.h"
#include "sim/jsonmsg.h"
#include "sim/yamltree.h"

/* The imported tree, written as YAML and read again, is the same tree. */
static void check_round_trip(const cJSON *tree)
{
	char path[512];
	fuzz_path("quota.yaml", path, sizeof path);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	int rc = sim_yaml_write(f, tree);
	fclose(f);
	if (rc)
		abort();
	char *text;
	size_t len;
	struct sim_diag d;
	sim_diag_init(&d, 4);
	if (sim_read_file(path, &text, &len, &d))
		abort();
	cJSON **docs;
	size_t n;
	if (sim_yaml_parse(path, text, len, &docs, &n, NULL, &d) || n != 1 || !cJSON_Compare(docs[0], tree, 1))
		abort();
	cJSON_Delete(docs[0]);
	free(docs);
	free(text);
	sim_diag_fini(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = fuzz_write("kueue.yaml", data, size);
	if (!in)
		return 0;
	struct sim_diag d;
	sim_diag_init(&d, 20);
	cJSON *tree = NULL;
	FILE *quiet = fopen("/dev/null", "w");
	if (cfgimp_import("kueue", &in, 1, NULL, &tree, quiet, &d) == 0)
		check_round_trip(tree);
	if (quiet)
		fclose(quiet);
	cJSON_Delete(tree);
	sim_diag_fini(&d);
	return 0;
}
