/* tests/fuzz/fuzz_helios.c: `trace import --format helios`, the Helios cluster_log.csv (traces/helios.c).
 * The input is written to cluster_log.csv in the scratch folder (fuzz_import.h). */
#include "fuzz_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import_one("helios", "cluster_log.csv", data, size);
	return 0;
}
