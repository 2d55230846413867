/* tests/fuzz/fuzz_sacct.c: `trace import --format sacct`, Slurm sacct --parsable2 output (traces/sacct.c).
 * The input is written to sacct.txt in the scratch folder (fuzz_import.h). */
#include "fuzz_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import_one("sacct", "sacct.txt", data, size);
	return 0;
}
