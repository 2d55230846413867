/* tests/fuzz/fuzz_pai.c: `trace import --format pai`, the PAI 2020 task table (traces/pai.c).
 * The input is written to pai_task_table.csv in the scratch folder (fuzz_import.h). */
#include "fuzz_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import_one("pai", "pai_task_table.csv", data, size);
	return 0;
}
