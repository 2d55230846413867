/* tests/fuzz/fuzz_yaml_config.c: an experiment config read as YAML
 * (experiments/config.c through sim/yamltree.c): the YAML tree, the positions of
 * its values in every message, then every check of a JSON config. Named as if it
 * lay in the scratch folder, as fuzz_config.c does. */
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
	fuzz_path("config.yaml", path, sizeof path);
	if (exp_config_parse(path, text, size, &cfg, &d) == 0)
		exp_config_destroy(cfg);
	sim_diag_fini(&d);
	free(text);
	return 0;
}
