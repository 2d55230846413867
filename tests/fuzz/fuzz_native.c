/* tests/fuzz/fuzz_native.c: the native CSV trace reader (traces/native.c).
 *
 * Parses the input from memory; a trace that parses is written back with
 * trace_native_write and parsed again, which must succeed with the same job count (the
 * writer's output is what every importer and the generator produce, so the reader
 * must accept all of it). A mismatch aborts, which libFuzzer reports as a crash.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "sim/job.h"
#include "traces/native.h"

/* The written trace parsed again; aborts when it does not read back. */
static void round_trip(const struct sim_trace *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	int wrc = trace_native_write(t, f);
	if (fclose(f) != 0)
		abort();
	if (wrc == 0) {
		struct sim_diag d;
		struct sim_trace *back = NULL;
		sim_diag_init(&d, 5);
		int rc = trace_native_parse("round-trip", buf, len, &back, &d);
		if (rc || back->n_jobs != t->n_jobs) {
			fprintf(stderr, "fuzz_native: written trace does not read back (rc %d, %zu jobs in):\n%.*s\n",
				rc, t->n_jobs, (int)(len > 4000 ? 4000 : len), buf);
			sim_diag_print(&d, stderr);
			abort();
		}
		sim_trace_destroy(back);
		sim_diag_fini(&d);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_diag d;
	struct sim_trace *t = NULL;
	sim_diag_init(&d, 20);
	if (trace_native_parse("fuzz.csv", (const char *)data, size, &t, &d) == 0) {
		round_trip(t);
		sim_trace_destroy(t);
	}
	sim_diag_fini(&d);
	return 0;
}
