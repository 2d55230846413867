/* tests/test_sidecsv.c: the side CSV reader of configs (sim/sidecsv.h) on what the
 * old fixed-buffer reader got wrong: a comment longer than its 4,095 bytes (the tail
 * was read as a row), a NUL byte (the row was cut), /dev/zero (read forever), and
 * what it now shares with the trace readers: a BOM, quoted fields, long lines. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sidecsv.h"
#include "testutil.h"

static int init_sidecsv(void) { return 0; }
static int clean_sidecsv(void) { return 0; }

/* Reads every row of PATH; returns the last sim_csv_next result, the rows in *rows
 * and, in last (size n), the first field of the last row. */
static int read_rows(const char *path, struct sim_diag *d, size_t *rows, char *last, size_t n)
{
	struct sim_csv c;
	int got;
	*rows = 0;
	last[0] = '\0';
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&c, path, d), 0);
	while ((got = sim_csv_next(&c)) > 0) {
		(*rows)++;
		snprintf(last, n, "%s", c.fields[0]);
	}
	sim_csv_close(&c);
	return got;
}

/* A comment of 6,000 bytes is one skipped line, its tail no event. */
static void test_sidecsv_long_comment(void)
{
	size_t n = 6000;
	char *text = malloc(n + 64);
	CU_ASSERT_FATAL(text != NULL);
	strcpy(text, "time_s,flavor,nodes\n#");
	memset(text + strlen(text), 'c', n);
	strcpy(text + 21 + n, ",99,f,1\n5,f,2\n");
	const char *path = tu_write_file("sc_long.csv", text);
	free(text);
	struct sim_diag d;
	sim_diag_init(&d, 10);
	size_t rows;
	char last[64];
	CU_ASSERT_EQUAL(read_rows(path, &d, &rows, last, sizeof last), 0);
	CU_ASSERT_EQUAL(rows, 2); /* the header and 5,f,2 */
	CU_ASSERT_STRING_EQUAL(last, "5");
	CU_ASSERT_EQUAL(d.count, 0);
	sim_diag_fini(&d);
}

/* A NUL byte in a row and /dev/zero are located errors, not a cut row or a hang. */
static void test_sidecsv_nul_and_dev_zero(void)
{
	static const char bytes[] = "time_s,flavor,nodes\n5,f\0,2\n";
	const char *path = tu_tmp_path("sc_nul.csv");
	FILE *f = fopen(path, "wb");
	CU_ASSERT_FATAL(f != NULL);
	fwrite(bytes, 1, sizeof bytes - 1, f);
	fclose(f);
	struct sim_diag d;
	sim_diag_init(&d, 10);
	size_t rows;
	char last[64], want[4200];
	CU_ASSERT_EQUAL(read_rows(path, &d, &rows, last, sizeof last), -SIM_EPARSE);
	CU_ASSERT_EQUAL(rows, 1);
	snprintf(want, sizeof want, "%s:2: NUL byte in line at byte 4", path);
	CU_ASSERT(sim_diag_contains(&d, want));
	CU_ASSERT_EQUAL(read_rows("/dev/zero", &d, &rows, last, sizeof last), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "/dev/zero:1: NUL byte in line at byte 1"));
	sim_diag_fini(&d);
}

/* A BOM before the header, quoted fields with commas and quotes, more than 16
 * fields, and a quote left open (an error at its row and field). */
static void test_sidecsv_bom_and_quotes(void)
{
	const char *path = tu_write_file("sc_quote.csv", "\xEF\xBB\xBFname,nominal\n"
							 "\"a,b\",\"1\"\n"
							 "\"say \"\"hi\"\"\",2\n"
							 "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18\n"
							 "\"open,3\n");
	struct sim_diag d;
	sim_diag_init(&d, 10);
	struct sim_csv c;
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&c, path, &d), 0);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(&c), 1);
	CU_ASSERT_EQUAL(sim_csv_col(&c, "name"), 0);
	CU_ASSERT_EQUAL(sim_csv_col(&c, "nominal"), 1);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(&c), 1);
	CU_ASSERT_EQUAL_FATAL(c.n, 2);
	CU_ASSERT_STRING_EQUAL(c.fields[0], "a,b");
	CU_ASSERT_STRING_EQUAL(c.fields[1], "1");
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(&c), 1);
	CU_ASSERT_STRING_EQUAL(c.fields[0], "say \"hi\"");
	CU_ASSERT_STRING_EQUAL(c.fields[1], "2");
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(&c), 1);
	CU_ASSERT_EQUAL_FATAL(c.n, 18);
	CU_ASSERT_STRING_EQUAL(c.fields[17], "18");
	CU_ASSERT_EQUAL(sim_csv_next(&c), -SIM_EPARSE);
	char want[4200];
	snprintf(want, sizeof want, "%s:5: column 1: expected a closing quote", path);
	CU_ASSERT(sim_diag_contains(&d, want));
	sim_csv_close(&c);
	sim_diag_fini(&d);
}

/* Valid rows read as before: fields as written (blanks kept), CRLF, blank lines and
 * comments skipped, line numbers of the file. */
static void test_sidecsv_valid_unchanged(void)
{
	const char *path = tu_write_file("sc_ok.csv", "time_s,flavor,delta\r\n\r\n# c\n10, f ,-1\r\n\n20,f,");
	struct sim_diag d;
	sim_diag_init(&d, 10);
	struct sim_csv c;
	CU_ASSERT_EQUAL_FATAL(sim_csv_open(&c, path, &d), 0);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(&c), 1);
	CU_ASSERT_EQUAL(c.lineno, 1);
	CU_ASSERT_EQUAL(sim_csv_col(&c, "delta"), 2);
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(&c), 1);
	CU_ASSERT_EQUAL(c.lineno, 4);
	CU_ASSERT_STRING_EQUAL(c.fields[1], " f ");
	CU_ASSERT_STRING_EQUAL(c.fields[2], "-1");
	CU_ASSERT_EQUAL_FATAL(sim_csv_next(&c), 1);
	CU_ASSERT_EQUAL(c.lineno, 6);
	CU_ASSERT_EQUAL(c.n, 3);
	CU_ASSERT_STRING_EQUAL(c.fields[2], "");
	CU_ASSERT_EQUAL(sim_csv_next(&c), 0);
	CU_ASSERT_EQUAL(d.count, 0);
	sim_csv_close(&c);
	sim_diag_fini(&d);
}

static CU_TestInfo sidecsv_tests[] = {
	{ "test_sidecsv_long_comment", test_sidecsv_long_comment },
	{ "test_sidecsv_nul_and_dev_zero", test_sidecsv_nul_and_dev_zero },
	{ "test_sidecsv_bom_and_quotes", test_sidecsv_bom_and_quotes },
	{ "test_sidecsv_valid_unchanged", test_sidecsv_valid_unchanged },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo sidecsv_suite = { "sidecsv", init_sidecsv, clean_sidecsv, NULL, NULL, sidecsv_tests };
