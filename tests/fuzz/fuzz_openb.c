/* tests/fuzz/fuzz_openb.c: `trace import --format openb`, the Alibaba openb 2023 pod list (traces/alibaba.c).
 * The input is written to openb_pod_list.csv in the scratch folder (fuzz_import.h). */
#include "fuzz_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import_one("openb", "openb_pod_list.csv", data, size);
	return 0;
}
