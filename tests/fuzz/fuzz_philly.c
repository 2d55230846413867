/* tests/fuzz/fuzz_philly.c: `trace import --format philly`, the Philly job table (traces/philly.c).
 * The input is written to philly.csv in the scratch folder (fuzz_import.h). */
#include "fuzz_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import_one("philly", "philly.csv", data, size);
	return 0;
}
