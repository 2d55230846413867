/* tests/fuzz/fuzz_gavel.c: `trace import --format gavel`, Gavel's tab-separated traces in
 * both layouts (traces/gavel.c).
 * The input is written to vc1.trace in the scratch folder (fuzz_import.h). */
#include "fuzz_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import_one("gavel", "vc1.trace", data, size);
	return 0;
}
