/* tests/fuzz/fuzz_swf.c: `trace import --format swf`, the Standard Workload Format (traces/swf.c).
 * The input is written to log.swf in the scratch folder (fuzz_import.h). */
#include "fuzz_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import_one("swf", "log.swf", data, size);
	return 0;
}
