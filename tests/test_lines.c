/* tests/test_lines.c: the shared line reader (sim/lines.h) and what every reader
 * built on it does with input that is not whole text: a NUL byte, /dev/zero, a line
 * without end, a cut or a corrupt gzip stream. Each importer, the native trace
 * reader and the command line are checked per class, not only the reader. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sim/lines.h"
#include "testutil.h"
#include "traces/import.h"
#include "traces/native.h"

static int init_lines(void) { return 0; }
static int clean_lines(void) { return 0; }

/* Writes len bytes (NULs allowed) to NAME under the temporary folder. */
static const char *write_bytes(const char *name, const char *bytes, size_t len)
{
	const char *path = tu_tmp_path(name);
	FILE *f = fopen(path, "wb");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fwrite(bytes, 1, len, f), len);
	fclose(f);
	return path;
}

/* Gzip of TEXT at NAME; returns the compressed bytes (malloc'd) and their count. */
static char *write_gzip(const char *name, const char *text, size_t *len)
{
	const char *path = tu_tmp_path(name);
	gzFile g = gzopen(path, "wb");
	CU_ASSERT_FATAL(g != NULL);
	CU_ASSERT_EQUAL(gzwrite(g, text, (unsigned)strlen(text)), (int)strlen(text));
	CU_ASSERT_EQUAL(gzclose(g), Z_OK);
	char *bytes = tu_read_file(path, len);
	CU_ASSERT_FATAL(bytes != NULL);
	return bytes;
}

/* Reads every line of PATH; returns the last sim_lines_next result (0 or < 0) and
 * the lines read in *n. */
static int read_all_lines(const char *path, struct sim_diag *d, size_t *n)
{
	struct sim_lines r;
	int got;
	*n = 0;
	CU_ASSERT_EQUAL_FATAL(sim_lines_open(&r, path, d), 0);
	while ((got = sim_lines_next(&r)) > 0)
		(*n)++;
	sim_lines_close(&r);
	return got;
}

/* Valid text: CRLF and bare last lines, empty lines, lines across the reader's
 * 128 KiB chunks, all exactly as written. */
static void test_lines_valid(void)
{
	size_t n = 3000, total = 0;
	char *text = malloc(n * 200 + 64);
	CU_ASSERT_FATAL(text != NULL);
	char xs[200];
	memset(xs, 'x', sizeof xs);
	for (size_t i = 0; i < n; i++) /* line i: i % 190 'x's then its number */
		total += (size_t)sprintf(text + total, "%.*s%zu%s", (int)(i % 190), xs, i, i % 7 == 0 ? "\r\n" : "\n");
	total += (size_t)sprintf(text + total, "\nlast");
	const char *path = write_bytes("lines_valid.txt", text, total);
	struct sim_diag d;
	sim_diag_init(&d, 10);
	struct sim_lines r;
	CU_ASSERT_EQUAL_FATAL(sim_lines_open(&r, path, &d), 0);
	for (size_t i = 0; i < n; i++) {
		char want[256];
		sprintf(want, "%.*s%zu", (int)(i % 190), xs, i);
		CU_ASSERT_EQUAL_FATAL(sim_lines_next(&r), 1);
		CU_ASSERT_EQUAL(r.line, i + 1);
		CU_ASSERT_STRING_EQUAL(r.buf, want);
		CU_ASSERT_EQUAL(r.len, strlen(want));
	}
	CU_ASSERT_EQUAL(sim_lines_next(&r), 1);
	CU_ASSERT_EQUAL(r.len, 0);
	CU_ASSERT_EQUAL(sim_lines_next(&r), 1);
	CU_ASSERT_STRING_EQUAL(r.buf, "last");
	CU_ASSERT_EQUAL(sim_lines_next(&r), 0);
	CU_ASSERT_EQUAL(sim_lines_rewind(&r), 0);
	CU_ASSERT_EQUAL(sim_lines_next(&r), 1);
	CU_ASSERT_STRING_EQUAL(r.buf, "0");
	CU_ASSERT_EQUAL(d.count, 0);
	sim_lines_close(&r);
	sim_diag_fini(&d);
	free(text);
}

/* A NUL byte ends nothing silently: line 2 is refused with its place. */
static void test_lines_nul(void)
{
	static const char bytes[] = "a,b\nc,\0d\ne,f\n";
	const char *path = write_bytes("lines_nul.txt", bytes, sizeof bytes - 1);
	struct sim_diag d;
	sim_diag_init(&d, 10);
	size_t n;
	CU_ASSERT_EQUAL(read_all_lines(path, &d, &n), -SIM_EPARSE);
	CU_ASSERT_EQUAL(n, 1);
	char want[4200];
	snprintf(want, sizeof want, "%s:2: NUL byte in line at byte 3", path);
	CU_ASSERT(sim_diag_contains(&d, want));
	sim_diag_fini(&d);
}

/* /dev/zero is refused at its first byte, not read as an empty file or forever. */
static void test_lines_dev_zero(void)
{
	struct sim_diag d;
	sim_diag_init(&d, 10);
	size_t n;
	CU_ASSERT_EQUAL(read_all_lines("/dev/zero", &d, &n), -SIM_EPARSE);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT(sim_diag_contains(&d, "/dev/zero:1: NUL byte in line at byte 1"));
	sim_diag_fini(&d);
}

/* A line over the limit is an error at its line (the default limit and a lowered one). */
static void test_lines_too_long(void)
{
	size_t big = SIM_LINES_MAX + 10;
	char *text = malloc(big + 8);
	CU_ASSERT_FATAL(text != NULL);
	memcpy(text, "ok\n", 3);
	memset(text + 3, 'y', big);
	text[3 + big] = '\n';
	const char *path = write_bytes("lines_long.txt", text, big + 4);
	free(text);
	struct sim_diag d;
	sim_diag_init(&d, 10);
	size_t n;
	CU_ASSERT_EQUAL(read_all_lines(path, &d, &n), -SIM_EPARSE);
	CU_ASSERT_EQUAL(n, 1);
	char want[4200];
	snprintf(want, sizeof want, "%s:2: line longer than %zu bytes", path, SIM_LINES_MAX);
	CU_ASSERT(sim_diag_contains(&d, want));

	struct sim_lines r;
	path = write_bytes("lines_long2.txt", "0123456789\n0123456789abcdef\n", 28);
	CU_ASSERT_EQUAL_FATAL(sim_lines_open(&r, path, &d), 0);
	r.max_line = 10;
	CU_ASSERT_EQUAL(sim_lines_next(&r), 1); /* exactly at the limit */
	CU_ASSERT_EQUAL(sim_lines_next(&r), -SIM_EPARSE);
	snprintf(want, sizeof want, "%s:2: line longer than 10 bytes", path);
	CU_ASSERT(sim_diag_contains(&d, want));
	sim_lines_close(&r);
	sim_diag_fini(&d);
}

/* Text of n numbered lines that compress poorly enough to span several deflate blocks. */
static char *numbered_text(size_t n)
{
	char *text = malloc(n * 48 + 1);
	size_t used = 0;
	CU_ASSERT_FATAL(text != NULL);
	unsigned x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		used += (size_t)sprintf(text + used, "%zu %u %u\n", i + 1, x, x ^ 0x5a5a5a5au);
	}
	return text;
}

/* A gzip stream cut in the middle, or cut in its trailer, is "truncated", not a
 * shorter file read successfully. */
static void test_lines_gzip_truncated(void)
{
	char *text = numbered_text(20000);
	size_t len;
	char *gz = write_gzip("lines_full.gz", text, &len);
	free(text);
	const size_t cuts[] = { len / 2, len - 4 };
	for (size_t k = 0; k < 2; k++) {
		const char *path = write_bytes("lines_cut.gz", gz, cuts[k]);
		struct sim_diag d;
		sim_diag_init(&d, 10);
		size_t n;
		CU_ASSERT_EQUAL(read_all_lines(path, &d, &n), -SIM_EPARSE);
		CU_ASSERT(n < 20000 || k == 1);
		char want[4200];
		snprintf(want, sizeof want, "%s: truncated compressed stream (after line %zu)", path, n);
		CU_ASSERT(sim_diag_contains(&d, want));
		sim_diag_fini(&d);
	}
	struct sim_diag d;
	sim_diag_init(&d, 10);
	size_t n;
	CU_ASSERT_EQUAL(read_all_lines(tu_tmp_path("lines_full.gz"), &d, &n), 0);
	CU_ASSERT_EQUAL(n, 20000);
	sim_diag_fini(&d);
	free(gz);
}

/* A gzip stream whose check value is wrong is "corrupt", an input error. */
static void test_lines_gzip_corrupt(void)
{
	char *text = numbered_text(2000);
	size_t len;
	char *gz = write_gzip("lines_ok.gz", text, &len);
	free(text);
	gz[len - 8] ^= 0x55; /* the CRC-32 of the trailer (RFC 1952) */
	const char *path = write_bytes("lines_corrupt.gz", gz, len);
	free(gz);
	struct sim_diag d;
	sim_diag_init(&d, 10);
	size_t n;
	CU_ASSERT_EQUAL(read_all_lines(path, &d, &n), -SIM_EPARSE);
	char want[4200];
	snprintf(want, sizeof want, "%s: corrupt compressed stream after line", path);
	CU_ASSERT(sim_diag_contains(&d, want));
	sim_diag_fini(&d);
}

/* Every importer refuses a NUL byte and /dev/zero with a located error (-SIM_EPARSE)
 * and writes nothing. */
static void test_lines_every_importer(void)
{
	static const char bytes[] = "ab\0cd\n";
	char in[4096], out[4096]; /* copies: tu_tmp_path's buffers rotate */
	snprintf(in, sizeof in, "%s", write_bytes("imp_nul.txt", bytes, sizeof bytes - 1));
	snprintf(out, sizeof out, "%s", tu_tmp_path("imp_nul_out.csv"));
	size_t n;
	const struct trace_importer *all = trace_importers(&n);
	for (size_t i = 0; i < n; i++) {
		const char *srcs[] = { in, "/dev/zero" };
		for (int k = 0; k < 2; k++) {
			remove(out);
			struct trace_import_opts opts = { 0 };
			struct trace_import_result res;
			memset(&res, 0, sizeof res);
			struct sim_diag d;
			sim_diag_init(&d, 10);
			int rc = trace_import(all[i].name, srcs[k], out, &opts, &res, &d);
			char want[4200];
			snprintf(want, sizeof want, "%s:1: NUL byte in line at byte %d", srcs[k], k ? 1 : 3);
			if (rc != -SIM_EPARSE || !sim_diag_contains(&d, want))
				fprintf(stderr, "\n%s on %s: rc %d, %s\n", all[i].name, srcs[k], rc, sim_diag_last(&d));
			CU_ASSERT_EQUAL(rc, -SIM_EPARSE);
			CU_ASSERT(sim_diag_contains(&d, want));
			CU_ASSERT(!tu_exists(out));
			sim_diag_fini(&d);
		}
	}
}

/* The native reader: a NUL byte in a mapped file, /dev/zero, a gzip trace (read
 * like the importers read gzip) and a cut one. */
static void test_lines_native(void)
{
	static const char good[] = "id,submit_s,duration_s\na,0,10\nb,5,20\n";
	static const char nul[] = "id,submit_s,duration_s\na,0,10\nb\0x,5,20\n";
	const char *path = write_bytes("native_nul.csv", nul, sizeof nul - 1);
	struct sim_trace *t = NULL;
	struct sim_diag d;
	sim_diag_init(&d, 10);
	CU_ASSERT_EQUAL(trace_native_read(path, &t, &d), -SIM_EPARSE);
	char want[4200];
	snprintf(want, sizeof want, "%s:3: NUL byte in line at byte 2", path);
	CU_ASSERT(sim_diag_contains(&d, want));
	CU_ASSERT_EQUAL(trace_native_read("/dev/zero", &t, &d), -SIM_EPARSE);
	CU_ASSERT(sim_diag_contains(&d, "/dev/zero:1: NUL byte in line at byte 1"));
	sim_diag_fini(&d);

	size_t len;
	char *gz = write_gzip("native.csv.gz", good, &len);
	sim_diag_init(&d, 10);
	CU_ASSERT_EQUAL(trace_native_read(tu_tmp_path("native.csv.gz"), &t, &d), 0);
	CU_ASSERT_FATAL(t != NULL);
	CU_ASSERT_EQUAL(t->n_jobs, 2);
	sim_trace_destroy(t);
	t = NULL;
	path = write_bytes("native_cut.csv.gz", gz, len - 6);
	CU_ASSERT_EQUAL(trace_native_read(path, &t, &d), -SIM_EPARSE);
	snprintf(want, sizeof want, "%s: truncated compressed stream", path);
	CU_ASSERT(sim_diag_contains(&d, want));
	sim_diag_fini(&d);
	free(gz);
}

/* The command line: a cut and a corrupt gzip both exit 2 with their message and
 * leave no output; so does a NUL byte. */
static void test_lines_cli(void)
{
	char *text = numbered_text(5000), *gz, *out_txt;
	size_t len;
	/* SWF: 18 fields a line; the numbers make valid-looking but short rows, which do
	 * not matter: the stream error comes first or is reported beside them. */
	gz = write_gzip("cli_full.swf.gz", text, &len);
	free(text);
	const char *cut = write_bytes("cli_cut.swf.gz", gz, len / 2);
	gz[len - 8] ^= 0x55;
	const char *bad = write_bytes("cli_corrupt.swf.gz", gz, len);
	free(gz);
	const char *out = tu_tmp_path("cli_out.csv");
	char args[9000];
	const char *ins[] = { cut, bad };
	const char *msgs[] = { "truncated compressed stream", "corrupt compressed stream" };
	for (int k = 0; k < 2; k++) {
		remove(out);
		snprintf(args, sizeof args, "trace import --format swf --skip-bad '%s' -o '%s'", ins[k], out);
		CU_ASSERT_EQUAL(tu_run_gpusched(args, &out_txt), 2);
		CU_ASSERT(strstr(out_txt, msgs[k]) != NULL);
		CU_ASSERT(!tu_exists(out));
		free(out_txt);
	}
	snprintf(args, sizeof args, "trace import --format swf /dev/zero -o '%s'", out);
	CU_ASSERT_EQUAL(tu_run_gpusched(args, &out_txt), 2);
	CU_ASSERT(strstr(out_txt, "/dev/zero:1: NUL byte in line") != NULL);
	CU_ASSERT(!tu_exists(out));
	free(out_txt);
}

static CU_TestInfo lines_tests[] = {
	{ "test_lines_valid", test_lines_valid },
	{ "test_lines_nul", test_lines_nul },
	{ "test_lines_dev_zero", test_lines_dev_zero },
	{ "test_lines_too_long", test_lines_too_long },
	{ "test_lines_gzip_truncated", test_lines_gzip_truncated },
	{ "test_lines_gzip_corrupt", test_lines_gzip_corrupt },
	{ "test_lines_every_importer", test_lines_every_importer },
	{ "test_lines_native", test_lines_native },
	{ "test_lines_cli", test_lines_cli },
	CU_TEST_INFO_NULL,
};

CU_SuiteInfo lines_suite = { "lines", init_lines, clean_lines, NULL, NULL, lines_tests };
