/* tests/fuzz/fuzz_tiresias.c: `trace import --format tiresias`, the Tiresias job table (traces/tiresias.c).
 * The input is written to tiresias.csv in the scratch folder (fuzz_import.h). */
#include "fuzz_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import_one("tiresias", "tiresias.csv", data, size);
	return 0;
}
