/* tests/run.c: the one CUnit runner. `sim_tests` runs every suite;
 * `sim_tests NAME...` runs the named suites (CTest runs one suite a test). */
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"

int main(int argc, char **argv)
{
	CU_SuiteInfo all[] = { SIM_TEST_SUITES CU_SUITE_INFO_NULL };
	CU_SuiteInfo chosen[sizeof all / sizeof all[0]];
	size_t n = 0;

	if (argc <= 1) {
		memcpy(chosen, all, sizeof all);
	} else {
		for (int a = 1; a < argc; a++) {
			size_t i;
			for (i = 0; all[i].pName; i++)
				if (strcmp(all[i].pName, argv[a]) == 0)
					break;
			if (!all[i].pName) {
				fprintf(stderr, "sim_tests: no suite named '%s'\n", argv[a]);
				return 2;
			}
			chosen[n++] = all[i];
		}
		chosen[n] = (CU_SuiteInfo)CU_SUITE_INFO_NULL;
	}
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	if (CU_register_suites(chosen) != CUE_SUCCESS) {
		fprintf(stderr, "sim_tests: %s\n", CU_get_error_msg());
		CU_cleanup_registry();
		return 1;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
