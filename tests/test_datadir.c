/* tests/test_datadir.c: an installed binary finds its templates in ../share/gpusched
 * (cli/datadir.h), through links to it, and nowhere else. */
#define _DEFAULT_SOURCE
#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cli/datadir.h"
#include "testutil.h"

static int init_datadir(void) { return 0; }
static int clean_datadir(void) { return 0; }

static void mkdirs(const char *rel)
{
	char path[PATH_MAX], *p;
	snprintf(path, sizeof path, "%s/%s", tu_tmpdir(), rel);
	for (p = path + strlen(tu_tmpdir()) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	mkdir(path, 0755);
}

static void test_datadir_installed_layout(void)
{
	mkdirs("dd_prefix/bin");
	mkdirs("dd_prefix/share/gpusched");
	tu_write_file("dd_prefix/bin/gpusched", "#!/bin/sh\n");
	char exe[PATH_MAX], want[PATH_MAX], got[PATH_MAX];
	snprintf(exe, sizeof exe, "%s/dd_prefix/bin/gpusched", tu_tmpdir());

	/* No common.gp yet: not an installed layout. */
	CU_ASSERT_EQUAL(datadir_installed(exe, got, sizeof got), -1);
	CU_ASSERT_STRING_EQUAL(got, "");

	tu_write_file("dd_prefix/share/gpusched/common.gp", "# templates\n");
	CU_ASSERT_EQUAL_FATAL(datadir_installed(exe, got, sizeof got), 0);
	snprintf(want, sizeof want, "%s/dd_prefix/share/gpusched", tu_tmpdir());
	char want_real[PATH_MAX];
	CU_ASSERT_FATAL(realpath(want, want_real) != NULL);
	CU_ASSERT_STRING_EQUAL(got, want_real);

	/* A link to the binary elsewhere (~/bin/gpusched -> PREFIX/bin/gpusched) still
	 * finds the prefix of the real file. */
	mkdirs("dd_links");
	char link[PATH_MAX];
	snprintf(link, sizeof link, "%s/dd_links/gpusched", tu_tmpdir());
	unlink(link);
	CU_ASSERT_EQUAL_FATAL(symlink(exe, link), 0);
	CU_ASSERT_EQUAL(datadir_installed(link, got, sizeof got), 0);
	CU_ASSERT_STRING_EQUAL(got, want_real);

	/* A buffer too small: refused, buf empty. */
	char tiny[4];
	CU_ASSERT_EQUAL(datadir_installed(exe, tiny, sizeof tiny), -1);
	CU_ASSERT_STRING_EQUAL(tiny, "");
}

static void test_datadir_bad_paths(void)
{
	char got[PATH_MAX];
	CU_ASSERT_EQUAL(datadir_installed(NULL, got, sizeof got), -1);
	CU_ASSERT_EQUAL(datadir_installed("", got, sizeof got), -1);
	CU_ASSERT_EQUAL(datadir_installed("/no/such/dir/gpusched", got, sizeof got), -1);
	CU_ASSERT_STRING_EQUAL(got, "");
}

static void test_datadir_env_wins(void)
{
	const char *orig = getenv("GPUSCHED_ANALYSIS_DIR");
	char *saved = orig ? strdup(orig) : NULL;
	/* An explicit GPUSCHED_ANALYSIS_DIR is left as it is. */
	setenv("GPUSCHED_ANALYSIS_DIR", "/explicit/dir", 1);
	datadir_setup();
	CU_ASSERT_STRING_EQUAL(getenv("GPUSCHED_ANALYSIS_DIR"), "/explicit/dir");
	unsetenv("GPUSCHED_ANALYSIS_DIR");
	/* The test binary is in a build tree, not a prefix: nothing is set. */
	datadir_setup();
	CU_ASSERT_PTR_NULL(getenv("GPUSCHED_ANALYSIS_DIR"));
	if (saved)
		setenv("GPUSCHED_ANALYSIS_DIR", saved, 1);
	free(saved);
}

static CU_TestInfo datadir_tests[] = {
	{ "test_datadir_installed_layout", test_datadir_installed_layout },
	{ "test_datadir_bad_paths", test_datadir_bad_paths },
	{ "test_datadir_env_wins", test_datadir_env_wins },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo datadir_suite = { "datadir", init_datadir, clean_datadir, NULL, NULL, datadir_tests };
