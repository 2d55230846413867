/* tests/fuzz/fuzz_config.c: the experiment config loader (experiments/config.c),
 * sweeps, seeds, cluster, capacity and policy parameter checks included. The config
 * is named as if it lay in the scratch folder, so relative paths in it (trace.path,
 * capacity_events) resolve there and find nothing; inputs naming /dev, /proc or /sys
 * are skipped (fuzz_util.h). */
#include <stdlib.h>

#include "experiments/config.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_names_device(data, size))
		return 0;
	char path[512];
	char *text = fuzz_text(data, size);
	struct sim_diag d;
	struct exp_config *cfg = NULL;
	sim_diag_init(&d, 20);
	fuzz_path("config.json", path, sizeof path);
	if (exp_config_parse(path, text, size, &cfg, &d) == 0)
		exp_config_destroy(cfg);
	sim_diag_fini(&d);
	free(text);
	return 0;
}
